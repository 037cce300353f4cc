"""The automatic 1v1 melee resolver of d20-na (NA-37..NA-40), through the real decider.

`fight` plays one duel by sending commands to `domain.encounter.decide` under the
`resolver_1v1` profile (NA-AMB-28): each actor attacks with its main weapon while it
has a full action left and passes otherwise; each defender parries (with its shield if it
carries one, else its weapon, NA-39) while it can pay for it. No aiming, no off hand.
The events it returns are a whole encounter stream, so a fight can be saved and
narrated (`narrate`). `simulate` repeats fights with reproducible seeded dice.
"""

from __future__ import annotations

import hashlib
import math
import uuid
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from domain import commands as cmd
from domain import events as ev
from domain.context import Dice
from domain.dice import SeededRoller, commitment
from domain.encounter import decide_and_fold, open_encounter
from domain.evolve import replay
from domain.rules.d20_na_narrate import narrate
from domain.rules.d20_na_turns import budget
from domain.state import EncounterState, Pending

__all__ = [
    "Bucket",
    "FightResult",
    "Hit",
    "Rate",
    "Summary",
    "buckets",
    "fight",
    "narrate",
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
        if isinstance(e, ev.CombatantAdded):
            side[e.combatant_id] = e.side
        elif isinstance(e, ev.ReactionResolved) and "zone" in e.detail:
            foe = next(s for c, s in side.items() if c != e.actor)
            hits.append(Hit(foe, str(e.detail["zone"]), e.damage_taken))
        elif isinstance(e, ev.ActionResolved) and "zone" in e.detail:
            hits.append(Hit(side[e.actor], str(e.detail["zone"]), int(e.detail["damage"])))
    return hits


def fight_seed(seed: int | str, n: int) -> tuple[str, bytes]:
    """Fight n's encounter id and dice seed, derived from `seed` (reproducible)."""
    digest = hashlib.sha256(f"fracas-simulate:{seed}:{n}".encode()).digest()
    return str(uuid.UUID(bytes=digest[:16])), digest


def simulate(
    a: Fighter,
    b: Fighter,
    fights: int,
    seed: int | str = 0,
    settings: Mapping[str, Any] | None = None,
    names: tuple[str, str] = ("A", "B"),
    progress: Callable[[int], None] | None = None,
) -> Summary:
    """Win rates (95% Wilson), rounds and damage per hit over `fights` seeded duels.

    `progress(done)` is called after each fight (the CLI draws its progress bar).
    """
    wins = {"a": 0, "b": 0}
    draws = 0
    rounds: list[int] = []
    damage: list[int] = []
    example: FightResult | None = None
    for n in range(fights):
        encounter_id, secret = fight_seed(seed, n)
        roller = RevealingRoller(encounter_id, {"main": secret}, {}, "")
        result = fight(
            a,
            b,
            roller,
            settings,
            names=names,
            encounter_id=encounter_id,
            commitments={"main": (commitment(secret), False)},
            close=n == 0,  # the example fight is kept whole: closed, seeds revealed
        )
        example = example or result
        if result.winner is None:
            draws += 1
        else:
            wins[result.winner] += 1
        rounds.append(result.rounds)
        damage.extend(h.damage for h in result.hits)
        if progress is not None:
            progress(n + 1)
    mean = sum(rounds) / fights if fights else 0.0
    spread = math.sqrt(sum((r - mean) ** 2 for r in rounds) / (fights - 1)) if fights > 1 else 0.0
    return Summary(
        fights=fights,
        wins=wins,
        draws=draws,
        rates={s: wilson(wins[s], fights) for s in SIDES},
        mean_rounds=mean,
        sd_rounds=spread,
        mean_damage_per_hit=sum(damage) / len(damage) if damage else 0.0,
        example=example,
        rounds_counts=dict(Counter(rounds)),
        damage_counts=dict(Counter(damage)),
    )
