"""The GM console's commands in the core: a hand-set initiative, a decided fight that waits
for the GM (close or continue), and a dispute the GM answers for the table."""

from __future__ import annotations

import pytest

from domain import commands as c
from domain import events as ev
from domain.errors import Refused
from domain.state import Disputed, Principal
from projections.board import board
from projections.view import Projection
from tests.unit.test_encounter import ALICE, fight, opened, refused, run


def test_the_gm_reorders_the_initiative_and_the_next_turn_follows_it() -> None:
    state = opened()
    for name in ("Guard", "Bandit", "Thug"):
        run(state, c.AddCombatant(name=name, side=name, preset="bandit"))
    run(state, c.StartCombat(), [90, 50, 10])
    assert state.game.order == ["c1", "c2", "c3"]
    events = run(state, c.SetInitiative(order=["c1", "c3", "c2"]))
    assert events == [
        ev.InitiativeSet(order=["c1", "c3", "c2"], scores={"c1": 90, "c3": 10, "c2": 50})
    ]
    run(state, c.EndTurn(actor="c1"))
    assert state.game.actor == "c3"


def test_an_order_that_misses_or_repeats_a_combatant_is_invalid() -> None:
    state = fight()
    assert refused(state, c.SetInitiative(order=["c1"])).code == "invalid"
    assert refused(state, c.SetInitiative(order=["c1", "c1"])).code == "invalid"
    assert refused(state, c.SetInitiative(order=["c2", "c1"]), who=ALICE).code == "forbidden"


def test_TC_4_d100_tcs_refuses_a_hand_set_order_once_the_fight_is_on() -> None:
    from tests.unit.test_tcs_support import duel

    table, a, b = duel({"init.reroll_each_round": True})
    before = table.state.version
    with pytest.raises(Refused) as caught:
        table.do(c.SetInitiative(order=[b, a]))
    assert (caught.value.code, caught.value.rule) == ("rule_violation", "TC-4")
    assert table.state.version == before
    quiet, a, b = duel()  # without the reroll a hand-set order holds
    quiet.do(c.SetInitiative(order=[b, a]))
    assert quiet.state.game.order == [b, a]


def test_with_one_side_left_turns_stop_until_the_gm_continues() -> None:
    state = fight()
    run(state, c.Act(actor="c1", action="attack", target="c2"), [10])
    run(state, c.Adjust(combatant="c2", resource="hp", delta=-23, reason="setup"))
    run(state, c.React(actor="c2", reaction="none"))
    events = run(state, c.EndTurn(actor="c1"))
    assert [type(e) for e in events] == [ev.TurnEnded]
    proj = Projection()
    proj.state = state
    shown = board(proj, "gm")
    assert (shown["winner"], shown["decided"], shown["actor"]) == ("watch", True, None)
    events = run(state, c.ContinueCombat(reason="the bandit's friends"))
    assert events[0] == ev.CombatContinued(reason="the bandit's friends")
    assert state.game.actor == "c1"
    assert board(proj, "gm")["decided"] is False
    assert refused(state, c.ContinueCombat()).code == "rule_violation"


def test_a_setting_keeps_the_turns_going_after_one_side_is_left() -> None:

    state = opened(**{"fight.stop_when_decided": False})
    run(state, c.AddCombatant(name="Guard", side="watch", preset="guard"))
    run(state, c.AddCombatant(name="Bandit", side="outlaws", preset="bandit"))
    run(state, c.StartCombat(), [50, 20])
    run(state, c.Adjust(combatant="c2", resource="hp", delta=-100, reason="rock"))
    run(state, c.EndTurn(actor="c1"))
    assert state.game.actor == "c1"


def test_the_gm_answers_a_dispute_and_the_table_sees_it() -> None:
    state = fight()
    run(state, c.Dispute(roll=1, reason="too lucky"), who=ALICE)
    assert refused(state, c.AnswerDispute(roll=1, answer="fair"), who=ALICE).code == "forbidden"
    assert refused(state, c.AnswerDispute(roll=2, answer="fair")).code == "not_found"
    events = run(state, c.AnswerDispute(roll=1, answer="The die was fair: see its audit"))
    assert events == [ev.DisputeAnswered(seq=1, answer="The die was fair: see its audit")]
    assert state.ledger.disputes == [
        Disputed(1, "alice", "too lucky", "The die was fair: see its audit")
    ]
    assert refused(state, c.AnswerDispute(roll=1, answer="again")).code == "not_found"
    run(state, c.Close())
    run(state, c.Dispute(roll=1, reason="still"), who=ALICE)
    run(state, c.AnswerDispute(roll=1, answer="closed, but answered"))  # after close too


def test_a_players_dispute_is_shown_by_its_combatants_name() -> None:
    state = fight()
    player = Principal("player", frozenset({"c2"}), "player:c2")  # as server/auth.py names it
    run(state, c.Dispute(roll=1, reason="hm"), who=player)
    proj = Projection()
    proj.state = state
    [d] = board(proj, "public")["disputes"]
    assert (d["by"], d["by_name"], d["status"]) == ("player:c2", "Bandit", "open")
