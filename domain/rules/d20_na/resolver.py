"""The automatic 1v1 melee resolver of d20-na (NA-37..NA-40), through the real decider.

`fight` plays one duel by sending commands to `domain.encounter.decide` under the
`resolver_1v1` profile (NA-AMB-28): each actor attacks with its main weapon while it
has a full action left and passes otherwise; each defender parries (with its shield if it
carries one, else its weapon, NA-39) while it can pay for it. No aiming, no off hand.
The events it returns are a whole encounter stream, so a fight can be saved and
narrated (by the log's narrator, `projections.log.narrate`, which server/ calls).
`simulate` repeats fights with reproducible seeded dice.
"""

from __future__ import annotations

import hashlib
import math
import multiprocessing
import os
import uuid
from array import array
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from domain import commands as cmd
from domain import events as ev
from domain.context import Dice
from domain.dice import SeededRoller, commitment
from domain.encounter import decide_and_fold, open_encounter
from domain.errors import Refused
from domain.evolve import replay
from domain.facts import decode
from domain.rules.d20_na import payloads
from domain.rules.d20_na.turns import budget
from domain.state import EncounterState, Pending

__all__ = [
    "Bucket",
    "FightResult",
    "Hit",
    "Rate",
    "Summary",
    "buckets",
    "default_jobs",
    "fight",
    "simulate",
    "wilson",
]

RULESET = "d20-na"
SIDES = ("a", "b")
Fighter = Mapping[str, Any] | str  # a sheet, or the name of a preset


@dataclass(frozen=True)
class Hit:
    """One blow that got through a defense (or met none): who struck, where, how hard."""

    attacker: str  # "a" or "b"
    zone: str
    damage: int


@dataclass(frozen=True)
class FightResult:
    """One duel: the winning side ("a", "b", None for a draw), its length, its blows."""

    winner: str | None
    rounds: int
    hits: list[Hit]
    events: list[ev.Event]


@dataclass(frozen=True)
class Rate:
    """A win rate with its 95% Wilson score interval."""

    rate: float
    low: float
    high: float


@dataclass(frozen=True)
class Summary:
    """Many duels between the same two sheets."""

    fights: int
    wins: dict[str, int]
    draws: int
    rates: dict[str, Rate]
    mean_rounds: float
    sd_rounds: float
    mean_damage_per_hit: float
    example: FightResult | None = field(default=None, repr=False)
    rounds_counts: dict[int, int] = field(default_factory=dict, repr=False)  # rounds -> fights
    damage_counts: dict[int, int] = field(default_factory=dict, repr=False)  # damage -> hits


@dataclass(frozen=True)
class Bucket:
    """One bar of a histogram: the values from `low` to `high` (inclusive) and how many."""

    low: int
    high: int
    count: int


def buckets(counts: Mapping[int, int], most: int = 12) -> list[Bucket]:
    """Whole-number counts in at most `most` buckets of equal width, from the least value
    to the greatest (empty buckets included, so the bars read as a distribution)."""
    if not counts:
        return []
    low, high = min(counts), max(counts)
    width = max(1, math.ceil((high - low + 1) / most))
    out: list[Bucket] = []
    for start in range(low, high + 1, width):
        end = min(high, start + width - 1)
        out.append(Bucket(start, end, sum(n for v, n in counts.items() if start <= v <= end)))
    return out


def wilson(successes: int, n: int, z: float = 1.96) -> Rate:
    """The Wilson score interval: sound near 0 and 1, unlike the normal approximation."""
    if n == 0:
        return Rate(0.0, 0.0, 1.0)
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return Rate(p, max(0.0, centre - half), min(1.0, centre + half))


class _Duel:
    """The stream of one fight, fed one command at a time."""

    def __init__(self, events: list[ev.Event], dice: Dice) -> None:
        self.state: EncounterState = replay(events)
        self.events = events
        self.dice = dice

    def run(self, command: cmd.Command) -> None:
        new, self.state = decide_and_fold(self.state, command, self.dice, give_up=True)
        self.events.extend(new)


class RevealingRoller(SeededRoller):
    """A server roller that may reveal its seeds when the fight's encounter is closed."""

    def reveal(self, seed_id: str) -> bytes | None:
        return self._seeds.get(seed_id)


def _defense(state: EncounterState, pending: Pending) -> str:
    """NA-39, NA-AMB-28: parry by default; dodge only if the policy setting asks for it."""
    me = state.game.combatants[pending.target]
    policy = state.ledger.settings.get("resolver.defense_policy", "parry")
    sheet = me.sheet
    dodge_at = sheet["HAB"] if sheet["skills"]["dodge"] else sheet["HAB"] // 2
    if policy != "parry" and "dodge" in pending.options and dodge_at > sheet["PAR"]:
        return "dodge"
    return "parry" if "parry" in pending.options else "none"


def fight(
    a: Fighter,
    b: Fighter,
    dice: Dice,
    settings: Mapping[str, Any] | None = None,
    *,
    names: tuple[str, str] = ("A", "B"),
    encounter_id: str = "00000000-0000-0000-0000-000000000000",
    commitments: Mapping[str, tuple[str, bool]] | None = None,
    max_rounds: int = 200,
    close: bool = False,
) -> FightResult:
    """One 1v1 melee duel resolved by commands (NA-37); a draw if it outlasts max_rounds.

    With `close`, the encounter is closed at the end, which reveals the seeds of a
    `RevealingRoller`: the stream can then be audited like any other.
    """
    opened = open_encounter(
        encounter_id,
        RULESET,
        f"{names[0]} vs {names[1]}",
        {"profile": "resolver_1v1", **(settings or {})},
        commitments or {},
    )
    duel = _Duel(opened, dice)
    for side, who, name in zip(SIDES, (a, b), names, strict=True):
        if isinstance(who, str):
            duel.run(cmd.AddCombatant(name=name, side=side, preset=who))
        else:
            duel.run(cmd.AddCombatant(name=name, side=side, sheet=dict(who)))
    duel.run(cmd.StartCombat())
    game = duel.state.game
    ids = list(game.combatants)
    while game.round <= max_rounds and all(game.combatants[c].out is None for c in ids):
        if game.pending:
            pending = game.pending[0]
            reaction = _defense(duel.state, pending)
            duel.run(cmd.React(actor=pending.target, reaction=reaction))
        elif game.actor is not None:
            actor = game.actor
            if budget(game, actor) >= 2:
                foe = next(c for c in ids if c != actor)
                duel.run(cmd.Act(actor=actor, action="attack", target=foe))
            else:
                duel.run(cmd.EndTurn(actor=actor))  # keep the half-action for a parry
        else:
            break
        game = duel.state.game
    if close:
        duel.run(cmd.Close(reason="simulation over"))
    standing = [game.combatants[c].side for c in ids if game.combatants[c].out is None]
    winner = standing[0] if len(standing) == 1 else None
    return FightResult(winner, min(game.round, max_rounds), _hits(duel.events), duel.events)


def _hits(events: list[ev.Event]) -> list[Hit]:
    side: dict[str, str] = {}
    hits: list[Hit] = []
    for e in events:
        kind = type(e)  # exact types: events are final classes, and a fight has many
        if kind is ev.ReactionResolved:
            assert isinstance(e, ev.ReactionResolved)
            if e.detail.get("zone"):
                foe = next(s for c, s in side.items() if c != e.actor)
                zone = decode(e.detail, payloads.Defended).zone
                hits.append(Hit(foe, zone, e.damage_taken))
        elif kind is ev.ActionResolved:
            assert isinstance(e, ev.ActionResolved)
            if e.detail.get("zone"):
                landed = decode(e.detail, payloads.Hit)
                hits.append(Hit(side[e.actor], landed.zone, landed.damage))
        elif kind is ev.CombatantAdded:
            assert isinstance(e, ev.CombatantAdded)
            side[e.combatant_id] = e.side
    return hits


def fight_seed(seed: int | str, n: int) -> tuple[str, bytes]:
    """Fight n's encounter id and dice seed, derived from `seed` (reproducible)."""
    digest = hashlib.sha256(f"fracas-simulate:{seed}:{n}".encode()).digest()
    return str(uuid.UUID(bytes=digest[:16])), digest


class _Tally:
    """What a run keeps of its fights, in fight order, so that runs cut into chunks
    (one per worker) add up to exactly the numbers of one run in a row."""

    def __init__(self) -> None:
        self.wins = {"a": 0, "b": 0}
        self.draws = 0
        self.rounds = array("i")  # per fight, in order: the spread is summed in that order
        self.damage: Counter[int] = Counter()
        self.damage_sum = 0
        self.hits = 0

    def add(self, result: FightResult) -> None:
        if result.winner is None:
            self.draws += 1
        else:
            self.wins[result.winner] += 1
        self.rounds.append(result.rounds)
        for h in result.hits:
            self.damage[h.damage] += 1
            self.damage_sum += h.damage
        self.hits += len(result.hits)

    def merge(self, other: _Tally) -> None:
        for side in SIDES:
            self.wins[side] += other.wins[side]
        self.draws += other.draws
        self.rounds.extend(other.rounds)
        self.damage.update(other.damage)  # first seen first, as one run in a row counts
        self.damage_sum += other.damage_sum
        self.hits += other.hits


@dataclass(frozen=True)
class _Run:
    """One run's fighters and seed: what a worker needs to fight a chunk of it."""

    a: Fighter
    b: Fighter
    seed: int | str
    settings: Mapping[str, Any] | None
    names: tuple[str, str]


def _fight_n(run: _Run, n: int) -> FightResult:
    """Fight number n of a run, with its own dice (`fight_seed`): the same fight whoever
    fights it, in whatever order."""
    encounter_id, secret = fight_seed(run.seed, n)
    roller = RevealingRoller(encounter_id, {"main": secret}, {}, "")
    return fight(
        run.a,
        run.b,
        roller,
        run.settings,
        names=run.names,
        encounter_id=encounter_id,
        commitments={"main": (commitment(secret), False)},
        close=n == 0,  # the example fight is kept whole: closed, seeds revealed
    )


_Stopped = tuple[str, str, str | None, str, dict[str, Any], dict[str, str]]


def _chunk(job: tuple[_Run, int, int]) -> _Tally | _Stopped:
    """Fights start..stop-1 of a run (in a worker): their tally, or the refusal that
    stopped them as plain data (a refusal's own class may not survive pickling)."""
    run, start, stop = job
    tally = _Tally()
    try:
        for n in range(start, stop):
            tally.add(_fight_n(run, n))
    except Refused as e:
        return (e.code, e.message, e.rule, e.reason, e.params, e.names)
    return tally


def _chunks(fights: int, jobs: int) -> list[tuple[int, int]]:
    """Fights 1..fights-1 cut into chunks: a few per worker (so the last ones finish
    together) and not too small (each costs a round trip)."""
    size = max(50, min(2000, fights // (jobs * 8) + 1))
    return [(n, min(fights, n + size)) for n in range(1, fights, size)]


def default_jobs() -> int:
    """The cores this process may run on: `fracas simulate --jobs` defaults to all."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def simulate(
    a: Fighter,
    b: Fighter,
    fights: int,
    seed: int | str = 0,
    settings: Mapping[str, Any] | None = None,
    names: tuple[str, str] = ("A", "B"),
    progress: Callable[[int], None] | None = None,
    jobs: int = 1,
) -> Summary:
    """Win rates (95% Wilson), rounds and damage per hit over `fights` seeded duels.

    `progress(done)` is called as fights finish (the CLI draws its progress bar). With
    `jobs` above 1 the fights are spread over that many worker processes; each fight's
    dice come from its number alone, and the tallies are added up in fight order, so
    the numbers are the same for any `jobs`.
    """
    run = _Run(a, b, seed, settings, names)
    tally = _Tally()
    example: FightResult | None = None
    if fights:
        example = _fight_n(run, 0)  # here, first: a sheet the rules refuse stops us at once
        tally.add(example)
        if progress is not None:
            progress(1)
    pieces = [(run, start, stop) for start, stop in _chunks(fights, max(1, jobs))]
    if jobs > 1 and len(pieces) > 1:
        with multiprocessing.get_context().Pool(min(jobs, len(pieces))) as pool:
            _gather(tally, pool.imap(_chunk, pieces), pieces, progress)
    else:
        for n in range(1, fights):
            tally.add(_fight_n(run, n))
            if progress is not None:
                progress(n + 1)
    return _summary(fights, tally, example)


def _gather(
    tally: _Tally,
    results: Iterable[_Tally | _Stopped],
    pieces: list[tuple[_Run, int, int]],
    progress: Callable[[int], None] | None,
) -> None:
    for (_, _, stop), part in zip(pieces, results, strict=True):
        if not isinstance(part, _Tally):
            code, message, rule, reason, params, names = part
            raise Refused(code, message, rule, reason=reason, params=params, names=names)
        tally.merge(part)
        if progress is not None:
            progress(stop)


def _summary(fights: int, tally: _Tally, example: FightResult | None) -> Summary:
    rounds = tally.rounds
    mean = sum(rounds) / fights if fights else 0.0
    spread = math.sqrt(sum((r - mean) ** 2 for r in rounds) / (fights - 1)) if fights > 1 else 0.0
    return Summary(
        fights=fights,
        wins=tally.wins,
        draws=tally.draws,
        rates={s: wilson(tally.wins[s], fights) for s in SIDES},
        mean_rounds=mean,
        sd_rounds=spread,
        mean_damage_per_hit=tally.damage_sum / tally.hits if tally.hits else 0.0,
        example=example,
        rounds_counts=dict(Counter(rounds)),
        damage_counts=dict(tally.damage),
    )
