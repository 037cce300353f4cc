"""Turn deadlines (issue 25 section 3): what waits, when each step is due, and what the
server's `apply_deadline` decides, once per wait, through the rules' own commands."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, timedelta

import msgspec
import pytest

from domain import commands as c
from domain import deadline
from domain import events as ev
from domain.dice import FixedRoller
from domain.encounter import check_settings, decide, open_encounter, rules_of
from domain.errors import Invalid, Refused
from domain.evolve import evolve, replay
from domain.state import GM, EncounterState
from projections.board import board
from projections.log.core import WORDERS, Words
from projections.view import Projection
from projections.words.webhooks import message

START = datetime(2026, 12, 1, 10, 0, tzinfo=UTC)


def opened(**settings: object) -> EncounterState:
    return replay(open_encounter("e-1", "plain-d100", "Test", settings, {"main": ("00", False)}))


def run(state: EncounterState, command: c.Command, faces: Sequence[int] = ()) -> list[ev.Event]:
    events = decide(state, command, FixedRoller(faces), GM)
    for i, event in enumerate(events):
        evolve(state, event, i == 0)
    return events


def fight(hours: int = 24, policy: str = "alert") -> EncounterState:
    """Guard (c1) acts before Bandit (c2), under a deadline."""
    state = opened(**{"deadline.hours": hours, "deadline.policy": policy})
    run(state, c.AddCombatant(name="Guard", side="watch", preset="guard"))
    run(state, c.AddCombatant(name="Bandit", side="outlaws", preset="bandit", controller="alice"))
    run(state, c.StartCombat(), [50, 20])
    return state


def attacked(policy: str) -> EncounterState:
    """The Guard hit the Bandit, whose defence waits."""
    state = fight(policy=policy)
    run(state, c.Act(actor="c1", action="attack", target="c2"), [10])
    assert state.game.pending
    return state


def test_the_settings_are_bounded_and_known_to_every_rule_system() -> None:
    for ruleset in ("plain-d100", "d20-na", "ranks-d100", "d100-tcs"):
        rules = rules_of(replay(open_encounter("e", ruleset, "T", {}, {})))
        assert check_settings(rules, {"deadline.hours": 48, "deadline.policy": "pass"})
    rules = rules_of(opened())
    with pytest.raises(Invalid):
        check_settings(rules, {"deadline.hours": deadline.MAX_HOURS + 1})
    with pytest.raises(Invalid):
        check_settings(rules, {"deadline.hours": -1})
    with pytest.raises(Invalid):
        check_settings(rules, {"deadline.policy": "skip"})


def test_a_turn_waits_since_its_turn_started_and_a_defence_since_the_attack() -> None:
    state = fight()
    wait = deadline.waiting(state)
    assert wait is not None and (wait.who, wait.waiting) == ("c1", "turn")
    assert wait.since == state.version  # turn_started is the last event of the start
    state = attacked("alert")
    wait = deadline.waiting(state)
    assert wait is not None and (wait.who, wait.waiting, wait.pending_id) == ("c2", "defence", 1)
    assert wait.since == state.version


def test_nothing_is_due_before_half_then_the_reminder_then_the_passing() -> None:
    state = fight(hours=24)
    wait = deadline.waiting(state)
    assert wait is not None
    assert deadline.due_step(state, wait, START, START + timedelta(hours=11)) is None
    assert deadline.due_step(state, wait, START, START + timedelta(hours=12)) == "remind"
    assert deadline.due_step(state, wait, START, START + timedelta(hours=24)) == "pass"
    off = fight(hours=0)
    wait = deadline.waiting(off)
    assert wait is not None
    assert deadline.due_step(off, wait, START, START + timedelta(days=30)) is None


def test_a_reminder_is_appended_once_per_wait() -> None:
    state = fight()
    wait = deadline.waiting(state)
    assert wait is not None
    events = run(
        state, c.ApplyDeadline(step="remind", since=wait.since, due="2026-12-02T10:00:00Z")
    )
    assert events == [
        ev.DeadlineReminded(
            who="c1", waiting="turn", since=wait.since, hours=24, due="2026-12-02T10:00:00Z"
        )
    ]
    assert deadline.due_step(state, wait, START, START + timedelta(hours=13)) is None
    with pytest.raises(Refused) as again:
        decide(state, c.ApplyDeadline(step="remind", since=wait.since), FixedRoller([]), GM)
    assert again.value.reason == "deadline_already"
    # A reminder is no step: the GM's undo still goes back over the last move.
    assert state.ledger.head is not None and state.ledger.head.first < wait.since + 1


def test_a_deadline_for_a_wait_that_moved_on_is_refused() -> None:
    state = fight()
    wait = deadline.waiting(state)
    assert wait is not None
    run(state, c.EndTurn(actor="c1"))
    with pytest.raises(Refused) as over:
        decide(state, c.ApplyDeadline(step="pass", since=wait.since), FixedRoller([]), GM)
    assert over.value.reason == "deadline_wait_over"


def test_the_alert_policy_changes_nothing_but_is_marked_once() -> None:
    state = fight(policy="alert")
    wait = deadline.waiting(state)
    assert wait is not None
    events = run(state, c.ApplyDeadline(step="pass", since=wait.since))
    assert [type(e) for e in events] == [ev.DeadlinePassed]
    assert state.game.actor == "c1"
    assert deadline.due_step(state, wait, START, START + timedelta(days=9)) is None


def test_the_pass_policy_ends_the_turn_as_end_turn_does() -> None:
    state = fight(policy="pass")
    wait = deadline.waiting(state)
    assert wait is not None
    events = run(state, c.ApplyDeadline(step="pass", since=wait.since))
    assert [type(e) for e in events] == [ev.DeadlinePassed, ev.TurnEnded, ev.TurnStarted]
    passed = events[0]
    assert isinstance(passed, ev.DeadlinePassed)
    assert (passed.who, passed.waiting, passed.policy) == ("c1", "turn", "pass")
    assert state.game.actor == "c2"


@pytest.mark.parametrize("policy", ["no_defense", "pass"])
def test_a_pending_defence_past_its_deadline_is_the_gms_none_answer(policy: str) -> None:
    state = attacked(policy)
    wait = deadline.waiting(state)
    assert wait is not None
    events = run(state, c.ApplyDeadline(step="pass", since=wait.since))
    assert type(events[0]) is ev.DeadlinePassed
    answer = next(e for e in events if isinstance(e, ev.ReactionDeclared))
    assert (answer.actor, answer.reaction, answer.by_gm) == ("c2", "none", True)
    assert not state.game.pending


def test_the_no_defense_policy_leaves_a_waiting_turn_alone() -> None:
    state = fight(policy="no_defense")
    wait = deadline.waiting(state)
    assert wait is not None
    events = run(state, c.ApplyDeadline(step="pass", since=wait.since))
    assert [type(e) for e in events] == [ev.DeadlinePassed]
    assert state.game.actor == "c1"


def test_an_undo_of_the_passing_restores_the_turn_and_restarts_its_wait() -> None:
    state = fight(policy="pass")
    wait = deadline.waiting(state)
    assert wait is not None
    before = state.version
    run(state, c.ApplyDeadline(step="pass", since=wait.since))
    run(state, c.Undo(reason="they were on holiday"))
    assert state.game.actor == "c1"
    again = deadline.waiting(state)
    assert again is not None and again.who == "c1" and again.since == state.version
    assert again.since > before
    assert deadline.due_step(state, again, START, START + timedelta(hours=1)) is None


def test_no_client_can_send_the_servers_deadline_command() -> None:
    with pytest.raises(msgspec.ValidationError):
        c.decode_command(b'{"type": "apply_deadline", "step": "pass", "since": 5}')


def test_the_log_and_the_webhook_word_both_steps_in_english_and_french() -> None:
    state = fight(policy="pass")
    wait = deadline.waiting(state)
    assert wait is not None
    remind = ev.DeadlineReminded(
        who="c1", waiting="turn", since=wait.since, hours=24, due="2026-12-02T10:00:00Z"
    )
    passed = ev.DeadlinePassed(who="c1", waiting="turn", since=wait.since, hours=24, policy="pass")
    for event in (remind, passed):
        said = WORDERS[type(event)](event, Words(state))
        assert said is not None and "Guard" in said.en and "Guard" in said.fr
        assert said.en != said.fr
    assert message(remind, state, "en") == (
        "deadline",
        "Test: Reminder: Guard's turn has waited half of its 24 h deadline"
        " (due 2026-12-02 10:00:00 UTC).",
        "c1",
    )
    found = message(passed, state, "fr")
    assert found is not None and found[0] == "deadline"
    assert found[1] == "Test : Délai dépassé : le tour de Guard a attendu 24 h ; le tour passe."


def test_the_board_shows_when_the_current_wait_falls_due() -> None:
    state = opened(**{"deadline.hours": 24, "deadline.policy": "pass"})
    batches: list[list[ev.Event]] = [list(_opening(state))]
    batches.append(run(state, c.AddCombatant(name="Guard", side="watch", preset="guard")))
    batches.append(run(state, c.AddCombatant(name="Bandit", side="outlaws", preset="bandit")))
    batches.append(run(state, c.StartCombat(), [50, 20]))
    proj = Projection()
    version = 0
    for n, batch in enumerate(batches):
        envs = []
        for event in batch:
            version += 1
            kind, data = ev.event_data(event)
            meta = {"command_id": f"k{n}", "recorded_at": "2026-12-01T10:00:00.000001Z"}
            envs.append({"stream": "s", "version": version, "type": kind, "data": data,
                         "meta": meta})  # fmt: skip
        proj.extend(envs)
    shown = board(proj, "public")["deadline"]
    assert shown == {
        "who": "c1",
        "who_name": "Guard",
        "waiting": "turn",
        "since": version,
        "hours": 24,
        "policy": "pass",
        "remind_at": "2026-12-01T22:00:00Z",
        "due": "2026-12-02T10:00:00Z",
        "reminded": False,
        "passed": False,
    }
    assert board(proj, "gm")["deadline"] == shown
    assert board(_fold(opened()), "public")["deadline"] is None


def _opening(state: EncounterState) -> list[ev.Event]:
    return open_encounter(
        "e-1", "plain-d100", "Test", dict(state.ledger.settings), {"main": ("00", False)}
    )


def _fold(state: EncounterState) -> Projection:
    proj = Projection()
    proj.extend(
        [
            {"stream": "s", "version": i + 1, "type": k, "data": d, "meta": {}}
            for i, (k, d) in enumerate(ev.event_data(e) for e in _opening(state))
        ]
    )
    return proj
