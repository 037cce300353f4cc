"""Generated play (issue 21): a Hypothesis state machine per rule system sends what
`legal` offers (every choice of every option), the GM's tools (adjust, conditions with
modifiers, set_initiative, add and remove, undo to any step end, dispute and answer,
continue, close) and forced dice to the real decider, and checks after every step:

1. the fight is playable: an actor with an enabled action or End turn, or a pending
   attack someone can answer, or the fight is decided, closed or not started; and every
   combatant still in it has a place in the turn order (one added mid-fight too);
2. an entry `legal` marks enabled is accepted as sent, one it marks disabled is refused,
   under the rule the entry names;
3. replaying the whole stream gives the state the incremental fold and the cached
   projection hold;
4. an undo to a step end V gives the board of `?at=V` (checked at each undo);
5. no log line or export holds `None`, a Python repr, a code name or a raw id;
6. the numbers a line states match its events ("N against T": a roll of the step and
   its final threshold; "a -> b": a change of the step);
7. the order of combatants and of each combatant's resources is stable.

Profiles: "ci" (the default: seeded, derandomized, bounded so the file runs in about a
minute) and "long" (HYPOTHESIS_PROFILE=long, by hand). With GENERATED_PLAY_STATS=1 the
examples, steps and commands run are printed for the note.
"""

from __future__ import annotations

import os
import random
import re
from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from domain import commands as cmd
from domain import deadline
from domain import events as ev
from domain.encounter import decide, nobody_standing, one_side_left
from domain.errors import Refused
from domain.rules import REGISTRY
from domain.state import GM, Principal
from projections import export
from tests.unit.play import Dice, Table, undo_view
from tests.unit.test_legal_accepted import ROSTERS, _offers

settings.register_profile(
    "generated-play-ci",
    max_examples=50,
    stateful_step_count=60,
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
settings.register_profile(
    "generated-play-long",
    max_examples=300,
    stateful_step_count=120,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
PROFILE = "generated-play-" + os.environ.get("HYPOTHESIS_PROFILE", "ci")
if PROFILE not in ("generated-play-ci", "generated-play-long"):
    PROFILE = "generated-play-ci"
STATS: dict[str, dict[str, int]] = {}

# Invariant 5: what a table must never read.
_BAD = [
    (re.compile(r"\bNone\b"), "None"),
    (re.compile(r"\{'|\['|\w+=\w|<\w+ object|\b[A-Z][a-z]+\(\w+="), "a Python repr"),
    (re.compile(r"player:c\d|\bc\d+\b"), "a raw id"),
    (re.compile(r"\b[a-z]+_[a-z0-9_]+\b"), "a code name"),
]
# "margin 13 against 7" compares two margins, not a roll with its threshold (d20-na's
# defence lines; found by the long run): those are left out of the roll check.
_AGAINST = re.compile(r"(?<!margin )(?<!marge )(?<!-)\b(-?\d+) (?:against|contre) (-?\d+)")
_MOVED = re.compile(r"(-?\d+) -> (-?\d+)")
PRESETS = {rs: sorted(REGISTRY[rs].presets) for rs in ROSTERS}
FACES = [1, 2, 5, 10, 20, 50, 95, 99, 100]


def bad_words(text: str) -> list[str]:
    """What `text` holds that a table must never read."""
    return [why for pattern, why in _BAD if pattern.search(text)]


class Play(RuleBasedStateMachine):
    """One encounter of `ruleset`, played by generated commands."""

    ruleset = ""

    def __init__(self) -> None:
        super().__init__()
        # A turn deadline with the pass policy: its steps are generated too (deadline_*).
        self.t = Table(self.ruleset, settings={"deadline.hours": 24, "deadline.policy": "pass"})
        for name, side, preset, sheet in ROSTERS[self.ruleset]:
            self.t.send(cmd.AddCombatant(name=name, side=side, sheet=sheet, preset=preset))
        self.order: list[str] = list(self.t.state.game.combatants)
        self.res: dict[str, list[str]] = {}
        self._offered: tuple[int, list[cmd.Command]] | None = None
        self.stats = STATS.setdefault(self.ruleset, {"examples": 0, "steps": 0, "commands": 0})
        self.stats["examples"] += 1

    # --- helpers ------------------------------------------------------------------------
    @property
    def game(self) -> Any:
        return self.t.state.game

    def send(self, command: cmd.Command, who: Principal = GM) -> list[ev.Event] | None:
        """Send; a refusal is an answer too (None). Every step is counted."""
        self.stats["steps"] += 1
        before = {
            (c.id, r): v for c in self.game.combatants.values() for r, v in c.resources.items()
        }
        try:
            events = self.t.send(command, who)
        except Refused:
            return None
        self.stats["commands"] += 1
        self._check_lines(events, before)
        if isinstance(command, cmd.Undo):  # ids an undo freed may be given again
            self.order = list(self.game.combatants)
            self.res = {}
        return events

    def _settings(self) -> dict[str, Any]:
        rules = REGISTRY[self.ruleset]
        return {k: s.default for k, s in rules.settings.items()} | self.t.state.ledger.settings

    def entries(self) -> list[tuple[str, dict[str, Any]]]:
        rules = REGISTRY[self.ruleset]
        game = self.game
        if self.t.state.ledger.closed:  # the board offers nothing once closed
            return []
        who = [game.actor] if game.actor is not None else []
        who += [p.target for p in game.pending]
        out = []
        for cid in dict.fromkeys(who):
            if cid in game.combatants:
                for entry in msgspec.to_builtins(rules.legal(game, cid, self._settings())):
                    out.append((cid, entry))
        return out

    def refusal(self, command: cmd.Command) -> Refused | None:
        try:
            decide(self.t.state, command, Dice(random.Random(0), self.t.state.ledger.next_roll))
        except Refused as why:
            return why
        return None

    def accepted(self, command: cmd.Command) -> str | None:
        try:
            decide(self.t.state, command, Dice(random.Random(0), self.t.state.ledger.next_roll))
        except Refused as why:
            return f"{why.code} {why.rule}: {why.message}"
        return None

    def offered(self) -> list[cmd.Command]:
        """Every command the enabled entries stand for that is accepted (invariant 2)."""
        if self._offered is not None and self._offered[0] == self.t.version:
            return self._offered[1]
        playable = self._offer()
        self._offered = (self.t.version, playable)
        return playable

    def _offer(self) -> list[cmd.Command]:
        playable: list[cmd.Command] = []
        for cid, entry in self.entries():
            if not entry["enabled"]:
                continue
            for group in _offers(self.ruleset, self.t.state, cid, entry):
                why = [self.accepted(c) for c in group]
                ok = [c for c, w in zip(group, why, strict=True) if w is None]
                assert ok or not group, ("enabled but refused", cid, entry, why)
                if len(group) == 1:
                    assert why == [None], ("enabled but refused", cid, entry, why)
                playable += ok
        game = self.game
        if game.actor is not None and not game.pending:
            playable.append(cmd.EndTurn(actor=game.actor))
        for p in game.pending:
            playable.append(cmd.React(actor=p.target, reaction="none"))
        return playable

    def _check_lines(self, events: list[ev.Event], before: dict[tuple[str, str], int]) -> None:
        """Invariants 5 and 6 on the lines this step told."""
        first = self.t.version - len(events)
        new = [line for line in self.t.proj.lines[-60:] if line.version > first]
        rolls = {e.seq: e for e in events if isinstance(e, ev.DieRolled)}
        moved = set()
        for e in events:
            if isinstance(e, ev.ResourceChanged):
                key = (e.combatant_id, e.resource)
                moved.add((before.get(key, e.value - e.delta), e.value))
                before[key] = e.value
        for line in new:
            for text in (line.text, line.text_fr):
                assert not bad_words(text), (bad_words(text), text)
                if line.kind in ("die_rolled", "undone", "roll_disputed", "dispute_answered"):
                    continue
                seqs = [*(line.rolls or []), *([line.roll] if line.roll else [])]
                checks = [(rolls[s].total, rolls[s].check) for s in seqs if s in rolls]
                judged = [(total, c.threshold) for total, c in checks if c is not None]
                for n, threshold in _AGAINST.findall(text):
                    shown = (int(n), int(threshold))
                    # a threshold shown is the final one (finding 6)
                    assert not judged or shown in judged, (text, judged, [c for _, c in checks])
                for a, b in _MOVED.findall(text):
                    if line.kind in ("action_resolved", "reaction_resolved", "resource_changed"):
                        assert (int(a), int(b)) in moved or a == b, (text, sorted(moved))

    # --- the table's rules ---------------------------------------------------------------
    @precondition(lambda self: not self.game.started and not self.t.state.ledger.closed)
    @rule()
    def start(self) -> None:
        self.send(cmd.StartCombat())

    @precondition(lambda self: self.game.started and not self.t.state.ledger.closed)
    @rule(data=st.data())
    def play(self, data: st.DataObject) -> None:
        offered = self.offered()
        if offered:
            self.send(data.draw(st.sampled_from(offered), label="offered"))

    @precondition(lambda self: self.game.started and not self.t.state.ledger.closed)
    @rule(data=st.data())
    def play_again(self, data: st.DataObject) -> None:
        self.play(data)  # play twice as often as any one GM tool

    @rule(data=st.data())
    def disabled_is_refused(self, data: st.DataObject) -> None:
        """Invariant 2: an entry `legal` marks disabled is refused as sent."""
        off = [(cid, e) for cid, e in self.entries() if not e["enabled"]]
        if not off:
            return
        cid, entry = data.draw(st.sampled_from(off), label="disabled")
        for group in _offers(self.ruleset, self.t.state, cid, entry):
            for command in group:
                why = self.refusal(command)
                assert why is not None, ("disabled but accepted", cid, entry)
                assert entry["rule"] is None or why.rule == entry["rule"], (
                    "refused under another rule than legal names",
                    cid,
                    entry,
                    why.code,
                    why.rule,
                    why.message,
                )

    @rule(faces=st.lists(st.sampled_from(FACES), min_size=1, max_size=3))
    def force_dice(self, faces: list[int]) -> None:
        self.t.forced = list(faces)

    @rule(data=st.data(), delta=st.sampled_from([-30, -5, -1, 1, 5]))
    def adjust(self, data: st.DataObject, delta: int) -> None:
        game = self.game
        if not game.combatants:
            return
        cid = data.draw(st.sampled_from(sorted(game.combatants)), label="who")
        res = sorted(game.combatants[cid].resources)
        if res:
            resource = data.draw(st.sampled_from(res), label="resource")
            self.send(cmd.Adjust(combatant=cid, resource=resource, delta=delta, reason="GM"))

    @rule(
        data=st.data(),
        rounds=st.sampled_from([None, 1, 2]),
        until=st.sampled_from(["start_of_turn", "end_of_turn"]),
        modifier=st.sampled_from([None, -20, -5, 10]),
    )
    def condition(
        self, data: st.DataObject, rounds: int | None, until: str, modifier: int | None
    ) -> None:
        ids = sorted(self.game.combatants)
        if not ids:
            return
        cid = data.draw(st.sampled_from(ids), label="bearer")
        name = data.draw(st.sampled_from(["stunned", "blessed", "soaked"]), label="condition")
        self.send(
            cmd.ApplyCondition(
                combatant=cid,
                name=name,
                rounds=rounds,
                until=until,  # type: ignore[arg-type]
                modifier=modifier,
            )
        )

    @rule(data=st.data())
    def lift_condition(self, data: st.DataObject) -> None:
        worn = [(c.id, n) for c in self.game.combatants.values() for n in c.conditions]
        if worn:
            cid, name = data.draw(st.sampled_from(worn), label="lifted")
            self.send(cmd.RemoveCondition(combatant=cid, name=name))

    @rule(data=st.data())
    def set_initiative(self, data: st.DataObject) -> None:
        game = self.game
        now = [c for c in game.order if c in game.combatants] if game.started else game.active()
        if now:
            order = data.draw(st.permutations(now), label="order")
            self.send(cmd.SetInitiative(order=list(order)))

    @rule(data=st.data())
    def add(self, data: st.DataObject) -> None:
        if len(self.game.combatants) >= 6:
            return
        preset = data.draw(st.sampled_from(PRESETS[self.ruleset]), label="preset")
        side = data.draw(st.sampled_from(["a", "b", "c"]), label="side")
        events = self.send(
            cmd.AddCombatant(name=f"New {len(self.order)}", side=side, preset=preset)
        )
        if events:
            self.order.append(events[0].combatant_id)  # type: ignore[attr-defined]

    @rule(data=st.data())
    def remove(self, data: st.DataObject) -> None:
        ids = sorted(self.game.combatants)
        if len(ids) > 1:
            cid = data.draw(st.sampled_from(ids), label="removed")
            self.send(cmd.RemoveCombatant(combatant=cid, reason="leaves"))

    @rule()
    def undo_last_step(self) -> None:
        self._undone(self.send(cmd.Undo(reason="again")))

    @rule(data=st.data())
    def undo_to_a_step_end(self, data: st.DataObject) -> None:
        ends = sorted(self.t.state.ledger.ends)
        if ends:
            to = data.draw(st.sampled_from(ends), label="to_version")
            self._undone(self.send(cmd.Undo(reason="back", to_version=to)))

    @rule(data=st.data())
    def undo_inside_a_step_is_refused(self, data: st.DataObject) -> None:
        ends = set(self.t.state.ledger.ends)
        inside = [v for v in range(1, self.t.version) if v not in ends]
        if inside:
            to = data.draw(st.sampled_from(inside), label="inside")
            assert self.send(cmd.Undo(reason="mid", to_version=to)) is None

    def _undone(self, events: list[ev.Event] | None) -> None:
        """Invariant 4: the board after an undo to V is the board of `?at=V`."""
        if events is None:
            return
        (undone,) = events
        assert isinstance(undone, ev.Undone)
        at = self.t.at(undone.to_version)
        for role in ("gm", "public"):
            now, then = undo_view(self.t.board(role)), undo_view(self.t.board(role, at))
            assert now == then, {k: (now[k], then.get(k)) for k in now if now[k] != then.get(k)}

    @rule(data=st.data())
    def dispute(self, data: st.DataObject) -> None:
        rolls = self.t.state.ledger.rolls
        ids = sorted(set(self.order))
        if rolls and ids:
            roll = data.draw(st.integers(1, rolls), label="roll")
            cid = data.draw(st.sampled_from(ids), label="by")
            who = Principal("player", frozenset({cid}), f"player:{cid}")
            self.send(cmd.Dispute(roll=roll, reason="odd"), who)

    @rule()
    def answer(self) -> None:
        open_ = [d.seq for d in self.t.state.ledger.disputes if d.answer is None]
        if open_:
            self.send(cmd.AnswerDispute(roll=open_[0], answer="it stands"))

    @rule(step=st.sampled_from(["remind", "pass"]))
    def deadline_step(self, step: str) -> None:
        """The server's deadline step for the current wait: a reminder changes nothing of
        the game; a passing answers the defence `none` or ends the turn, as the GM would."""
        wait = deadline.waiting(self.t.state)
        if wait is None:
            return
        actor = self.game.actor
        events = self.send(cmd.ApplyDeadline(step=step, since=wait.since))  # type: ignore[arg-type]
        if events is None:
            assert wait.since in self.t.state.ledger.passed or (
                step == "remind" and wait.since in self.t.state.ledger.reminded
            )
            return
        self.stats[f"deadline_{step}"] = self.stats.get(f"deadline_{step}", 0) + 1
        if step == "remind":
            assert [type(e) for e in events] == [ev.DeadlineReminded]
            return
        assert type(events[0]) is ev.DeadlinePassed
        if wait.waiting == "defence":
            assert any(
                isinstance(e, ev.ReactionDeclared) and e.reaction == "none" and e.by_gm
                for e in events
            )
        else:
            assert any(isinstance(e, ev.TurnEnded) and e.actor == actor for e in events)

    @rule()
    def continue_combat(self) -> None:
        self.send(cmd.ContinueCombat(reason="on"))

    @precondition(lambda self: self.t.version > 60)
    @rule()
    def close(self) -> None:
        self.send(cmd.Close(reason="done"))

    def _story(self, batches: int = 4) -> list[str]:
        """The last commands' events, by type: what a failure shows."""
        out: list[str] = []
        last = None
        for e in self.t.envelopes:
            command = e["meta"]["command_id"]
            if command != last:
                out.append("")
                last = command
            out[-1] += f" {e['version']}:{e['type']}"
        return out[-batches:]

    # --- invariants -------------------------------------------------------------------
    @invariant()
    def playable(self) -> None:
        """Invariant 1."""
        state, game = self.t.state, self.game
        if state.ledger.closed or not game.started or nobody_standing(game):
            return
        stop = self._settings().get("fight.stop_when_decided", True)
        if stop and not game.continued and one_side_left(game) is not None:
            return
        why = (self._story(), game.actor, game.round, game.phase, game.active(), game.order)
        standing = [c.id for c in game.combatants.values() if c.out is None]
        assert set(standing) <= set(game.order), ("a combatant has no turn", why)
        assert game.actor is not None or game.pending, ("nobody can act", why)
        assert self.offered(), ("nothing is offered", why)
        if game.actor is not None:
            # An attacker the GM knocks out while its attack waits for the answer keeps
            # the turn until the answer (plain-d100, found by the long run); otherwise
            # the actor stands.
            assert game.actor in game.combatants
            assert game.pending or game.combatants[game.actor].out is None, ("out", why)

    @invariant()
    def one_fold(self) -> None:
        """Invariant 3."""
        fresh = self.t.replayed().state
        assert fresh == self.t.state
        assert self.t.proj.state == self.t.state

    @invariant()
    def stable_order(self) -> None:
        """Invariant 7: combatants keep their order, resources their keys' order."""
        board = self.t.board()
        ids = [c["id"] for c in board["combatants"]]
        arrival = [c for c in self.order if c in ids]
        by_side: dict[str, list[str]] = {}
        for c in board["combatants"]:
            by_side.setdefault(c["side"], []).append(c["id"])
        for members in by_side.values():
            assert members == [c for c in arrival if c in members]
        for c in board["combatants"]:
            keys = list(c["resources"])
            seen = self.res.setdefault(c["id"], keys)
            assert keys == seen, (c["id"], keys, seen)

    def teardown(self) -> None:
        """Invariant 5 on the exports, in both languages, for the GM and the table."""
        for lang in ("en", "fr"):
            for role in ("gm", "public"):
                text = export.text(self.t.envelopes, role, lang)
                for line in text.splitlines():
                    assert not bad_words(line), (bad_words(line), line)


def _machine(ruleset: str) -> Any:
    cls: Any = type(f"Play_{ruleset.replace('-', '_')}", (Play,), {"ruleset": ruleset})
    case = cls.TestCase
    case.settings = settings.get_profile(PROFILE)
    return case


TestPlainD100 = _machine("plain-d100")
TestRanksD100 = _machine("ranks-d100")
TestD20Na = _machine("d20-na")
TestD100Tcs = _machine("d100-tcs")


@pytest.fixture(scope="module", autouse=True)
def _print_stats() -> Any:
    yield
    if os.environ.get("GENERATED_PLAY_STATS"):
        print("\ngenerated play:", PROFILE, STATS)
