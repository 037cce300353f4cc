"""Conditions in the core (plain-d100, d20-na, d100-tcs): when they expire, what undo
brings back, who may apply them, and the rule systems that read or apply their own."""

from __future__ import annotations

from typing import Any, Literal

import msgspec
import pytest

from domain import commands as c
from domain import events as ev
from domain.dice import FixedRoller
from domain.encounter import decide
from domain.state import EncounterState
from projections.board import board
from projections.view import Projection
from tests.unit.test_encounter import ALICE, fight, refused, run


def names(state: EncounterState, cid: str) -> dict[str, int | None]:
    return {k: v.left for k, v in state.game.combatants[cid].conditions.items()}


def expired(events: list[ev.Event]) -> list[tuple[str, str]]:
    return [(e.combatant_id, e.name) for e in events if isinstance(e, ev.ConditionExpired)]


def pass_turns(state: EncounterState, *actors: str) -> list[ev.Event]:
    out: list[ev.Event] = []
    for actor in actors:
        assert state.game.actor == actor
        out += run(state, c.EndTurn(actor=actor))
    return out


Until = Literal["start_of_turn", "end_of_turn"]


def stun(state: EncounterState, cid: str, rounds: int | None, until: Until, **kw: Any) -> None:
    run(state, c.ApplyCondition(combatant=cid, name="stunned", rounds=rounds, until=until, **kw))


def test_applied_in_the_bearers_turn_until_end_of_turn_it_ends_with_that_turn() -> None:
    state = fight()  # c1 acts
    stun(state, "c1", 1, "end_of_turn")
    events = run(state, c.EndTurn(actor="c1"))
    assert [type(e) for e in events][:2] == [ev.TurnEnded, ev.ConditionExpired]
    assert expired(events) == [("c1", "stunned")]
    assert names(state, "c1") == {}


def test_until_start_of_turn_a_condition_ends_as_the_bearers_next_turn_starts() -> None:
    state = fight()
    stun(state, "c1", 1, "start_of_turn")
    assert expired(pass_turns(state, "c1")) == []  # c2's turn starts: not the bearer's
    events = run(state, c.EndTurn(actor="c2"))
    started = [i for i, e in enumerate(events) if isinstance(e, ev.TurnStarted)]
    assert events[started[0] + 1] == ev.ConditionExpired(combatant_id="c1", name="stunned")
    assert state.game.actor == "c1" and names(state, "c1") == {}


def test_rounds_count_only_the_bearers_own_turns_across_round_boundaries() -> None:
    state = fight()  # c1, c2, c1, c2...
    stun(state, "c2", 2, "end_of_turn")  # applied in c1's turn
    assert expired(pass_turns(state, "c1")) == []
    assert expired(pass_turns(state, "c2")) == [] and names(state, "c2") == {"stunned": 1}
    assert state.game.round == 2
    assert expired(pass_turns(state, "c1")) == []
    assert expired(pass_turns(state, "c2")) == [("c2", "stunned")]


def test_without_rounds_a_condition_lasts_until_the_gm_removes_it() -> None:
    state = fight()
    stun(state, "c2", None, "end_of_turn")
    pass_turns(state, "c1", "c2", "c1", "c2")
    assert names(state, "c2") == {"stunned": None}
    events = run(state, c.RemoveCondition(combatant="c2", name="stunned"))
    assert events == [ev.ConditionRemoved(combatant_id="c2", name="stunned", by_gm=True)]
    assert names(state, "c2") == {}


def test_a_condition_applied_again_replaces_the_first() -> None:
    state = fight()
    stun(state, "c2", 1, "end_of_turn")
    stun(state, "c2", 3, "start_of_turn")
    assert names(state, "c2") == {"stunned": 3}


def test_a_bearer_out_of_the_fight_loses_its_conditions_and_takes_no_new_one() -> None:
    state = fight()
    stun(state, "c2", 3, "end_of_turn")
    events = run(state, c.Adjust(combatant="c2", resource="hp", delta=-100, reason="rock"))
    assert ev.ConditionExpired(combatant_id="c2", name="stunned", reason="out_of_fight") in events
    assert names(state, "c2") == {}
    error = refused(state, c.ApplyCondition(combatant="c2", name="prone"))
    assert (error.code, error.rule) == ("rule_violation", "PD-5")


def test_undo_brings_back_a_condition_that_expired_inside_the_undone_span() -> None:
    state = fight()
    stun(state, "c1", 1, "end_of_turn")
    before = state.version
    run(state, c.EndTurn(actor="c1"))
    assert names(state, "c1") == {}
    run(state, c.Undo(reason="too fast", to_version=before))
    assert names(state, "c1") == {"stunned": 1} and state.game.actor == "c1"
    events = run(state, c.EndTurn(actor="c1"))  # and it expires again at the same edge
    assert expired(events) == [("c1", "stunned")]


def test_undo_of_the_gms_condition_is_one_step() -> None:
    state = fight()
    stun(state, "c2", 2, "end_of_turn")
    run(state, c.Undo(reason="wrong one"))
    assert names(state, "c2") == {}


@pytest.mark.parametrize(
    "command",
    [
        c.ApplyCondition(combatant="c2", name="prone"),
        c.RemoveCondition(combatant="c2", name="prone"),
    ],
)
def test_only_the_gm_applies_or_removes_conditions(command: c.Command) -> None:
    assert refused(fight(), command, who=ALICE).code == "forbidden"


def test_an_unknown_combatant_or_condition_is_not_found() -> None:
    state = fight()
    assert refused(state, c.ApplyCondition(combatant="c9", name="prone")).code == "not_found"
    assert refused(state, c.RemoveCondition(combatant="c1", name="prone")).code == "not_found"


@pytest.mark.parametrize(
    "body",
    [
        {"name": ""},
        {"name": "x" * 41},
        {"name": "bad\nname"},
        {"name": "ok", "rounds": 0},
        {"name": "ok", "rounds": 101},
        {"name": "ok", "until": "next_week"},
        {"name": "ok", "note": "n" * 201},
        {"name": "ok", "modifier": 500},
    ],
)
def test_bad_condition_fields_are_refused_at_decoding(body: dict[str, Any]) -> None:
    raw = msgspec.json.encode({"type": "apply_condition", "combatant": "c1", **body})
    with pytest.raises(msgspec.ValidationError):
        c.decode_command(raw)


def test_PD_7_plain_d100_adds_a_conditions_modifier_to_the_bearers_check() -> None:
    state = fight()  # Guard skill 55
    stun(state, "c1", 1, "end_of_turn", modifier=-20)
    events = run(state, c.Act(actor="c1", action="attack", target="c2"), [40])
    rolled = next(e for e in events if isinstance(e, ev.DieRolled))
    assert rolled.check is not None
    stunned = ev.Modifier(source="condition: stunned", rule="PD-7", delta=-20)
    assert rolled.check.modifiers == [stunned]
    assert (rolled.check.base, rolled.check.threshold, rolled.check.outcome) == (55, 35, "failure")


def test_NA_AMB_22_d20_na_reads_a_gm_conditions_modifier_in_its_tests() -> None:
    from tests.unit.test_d20_na import duel as d20_duel

    table, a, b = d20_duel()
    table.do(c.ApplyCondition(combatant=a, name="grappled", modifier=-3))
    events = table.act(a, "attack", b, [5])
    checks = [e.check for e in events if isinstance(e, ev.DieRolled) and e.check is not None]
    assert checks[0].modifiers[-1] == ev.Modifier(
        source="condition: grappled", rule="NA-AMB-22", delta=-3
    )
    assert checks[0].threshold == checks[0].base + sum(m.delta for m in checks[0].modifiers)


def test_TC_27_d100_tcs_applies_its_own_no_aoo_condition_until_the_next_turn_starts() -> None:
    from tests.unit.test_tcs_support import duel

    table, a, b = duel()
    table.act(a, "attack", b, [10])
    events = table.act(b, "attack", a, [10], then={"action": "disengage"})
    applied = [e for e in events if isinstance(e, ev.ConditionApplied)]
    assert applied == [
        ev.ConditionApplied(
            combatant_id=b, name="no_aoo", until="start_of_turn", rounds=1, rule="TC-27"
        )
    ]
    table.act(a, "move")
    assert "no_aoo" not in table.state.game.combatants[b].conditions  # b's turn began


def test_the_board_shows_conditions_with_the_edges_left() -> None:
    state = fight()
    stun(state, "c2", 2, "start_of_turn", note="a blow to the head", modifier=-10)
    proj = Projection()
    proj.state = state
    shown = board(proj, "public")
    c2 = next(x for x in shown["combatants"] if x["id"] == "c2")
    assert c2["conditions"] == [
        {
            "name": "stunned",
            "until": "start_of_turn",
            "rounds": 2,
            "left": 2,
            "note": "a blow to the head",
            "modifier": -10,
            "rule": None,
        }
    ]


def test_decide_never_mutates_the_state_it_is_given() -> None:
    state = fight()
    stun(state, "c1", 1, "end_of_turn")
    version = state.version
    decide(state, c.EndTurn(actor="c1"), FixedRoller([]))
    assert state.version == version and names(state, "c1") == {"stunned": 1}
