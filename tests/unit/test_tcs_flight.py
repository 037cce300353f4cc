"""d100-tcs flight and morale (the advanced rule): the end-of-round step, pursuit.

The end-of-round step runs when the last turn of a round ends, so its dice (morale
checks) are the faces of that last `end_turn`.
"""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from domain import commands as cmd
from domain import events as ev
from domain.rules import REGISTRY
from tests.unit.test_tcs_support import BOW, QUIET, Table, checks, duel, of, refused


def low(morale: int) -> dict[str, Any]:
    return {"morale": morale}


# --- TC-29..TC-32: who flees --------------------------------------------------------------


def test_TC_29_TC_30_TC_68_deliberate_flight_is_settled_at_round_end_for_3_PM() -> None:
    table = Table(QUIET)
    a, b, c = table.add("A", "a"), table.add("B", "b", morale=8), table.add("C", "b")
    table.do(cmd.StartCombat(), [10, 20, 30])
    table.end(a)
    table.act(b, "flee")
    assert table.status(b, "fleeing") is None  # TC-29: not before the end of the round
    events = table.end(c)
    assert table.res(b, "morale") == 5 and table.status(b, "fleeing") == 3
    assert not checks(events)  # a fleer takes no morale check
    assert table.actor == a  # the fleer gets no more turns


@pytest.mark.parametrize("pm", [5, 4, 3, 2, 1])
def test_TC_31_TC_68_low_morale_forces_a_check_at_10_times_PM(pm: int) -> None:
    table, a, b = duel(b=low(pm))
    table.end(a)
    (check,) = checks(table.end(b, [pm * 10]))
    assert (check.stat, check.threshold, check.rule) == ("morale", pm * 10, "TC-31")
    assert table.status(b, "fleeing") is None
    table.end(a)
    table.end(b, [pm * 10 + 1])  # TC-AMB-13: every round; this time it fails
    assert table.status(b, "fleeing") == 3 and table.out(b) is None
    assert table.actor == a  # TC-33: its only foe chooses first
    table.act(a, "let_flee")
    assert table.out(b) == "fled"  # TC-35


def test_TC_31_TC_68_morale_6_takes_no_check() -> None:
    table, a, b = duel(b=low(6))
    table.end(a)
    assert not checks(table.end(b))


def test_TC_32_TC_68_morale_0_flees_without_a_roll() -> None:
    table = Table(QUIET)
    a, b, c = table.add("A", "a"), table.add("B", "b", morale=0), table.add("C", "b")
    table.do(cmd.StartCombat(), [10, 20, 30])
    table.end(a)
    table.end(b)
    events = table.end(c)
    assert not checks(events) and table.status(b, "fleeing") == 3


def test_TC_AMB_34_without_the_advanced_rule_nobody_flees() -> None:
    table, a, b = duel({"rules.flight_advanced": False}, b=low(0))
    with refused("rule_violation", "TC-AMB-34"):
        table.act(a, "flee")
    table.end(a)
    table.end(b)
    assert table.status(b, "fleeing") is None


# --- TC-33..TC-37: answering a flight -----------------------------------------------------


def _flight(a_sheet: dict[str, Any] | None = None) -> tuple[Table, str, str, str]:
    """A against B and C; B flees at the end of round 1."""
    table = Table(QUIET)
    a = table.add("A", "a", **(a_sheet or {}))
    b, c = table.add("B", "b", morale=8, END=40), table.add("C", "b")
    table.do(cmd.StartCombat(), [10, 20, 30])
    table.act(a, "attack", b, [10])  # contact with B
    table.act(b, "flee")
    table.end(c)
    return table, a, b, c


def test_TC_33_a_fleer_is_pursued_or_shot_not_struck() -> None:
    table, a, b, _ = _flight()
    with refused("rule_violation", "TC-33"):
        table.act(a, "attack", b)


def test_TC_34_a_fleer_who_wins_the_END_confrontation_gets_away() -> None:
    table, a, b, _ = _flight()
    events = table.act(a, "pursue", b, [60, 30])  # A fails, B succeeds
    assert [c.stat for c in checks(events)] == ["END", "END"]
    assert of(events, ev.CombatantDefeated)[0].rule == "TC-34" and table.out(b) == "fled"
    assert table.status(a, "away") == b  # the pursuer is out of the melee all the same


def test_TC_34_a_caught_fleer_falls_and_takes_a_blow() -> None:
    table, a, b, c = _flight()
    table.act(a, "pursue", b, [10, 30, 10])  # A by 30, B by 10; then A's blow
    assert table.status(b, "prone") and table.status(b, "fleeing") is None
    assert table.res(b) == 20 - 6 - 6 and table.status(a, "away") == b
    table.end(b)
    table.end(c, [10])  # B, back at 5 PM, passes its morale check
    with refused("rule_violation", "TC-34"):
        table.act(a, "attack", c)
    table.act(a, "rejoin")
    assert table.status(a, "away") is None


def test_TC_AMB_14_an_even_confrontation_goes_to_the_fleer() -> None:
    table, a, b, _ = _flight()
    table.act(a, "pursue", b, [20, 20])
    assert table.out(b) == "fled"


def _legal(table: Table, cid: str) -> dict[str, dict[str, Any]]:
    game = table.state.game
    listed = msgspec.to_builtins(REGISTRY["d100-tcs"].legal(game, cid, table.state.ledger.settings))
    return {e["action"]: e for e in listed}


def _lone_flight(b: dict[str, Any] | None = None,
                 a: dict[str, Any] | None = None) -> tuple[Table, str, str]:  # fmt: skip
    """A 1 v 1 where B declares flight in round 1."""
    table, a_, b_ = duel(a=a, b={"morale": 8} | (b or {}))
    table.end(a_)
    table.act(b_, "flee")
    return table, a_, b_


def test_TC_33_in_a_1v1_the_remaining_fighter_chooses_before_the_fleer_leaves() -> None:
    table, a, b = _lone_flight()
    assert table.out(b) is None and table.status(b, "fleeing") == 3
    assert table.state.game.round == 2 and table.actor == a
    legal = _legal(table, a)
    assert legal["pursue"]["enabled"] and legal["pursue"]["targets"] == [b]
    assert legal["let_flee"]["enabled"]


def test_TC_34_in_a_1v1_the_fleer_can_be_pursued_and_caught() -> None:
    table, a, b = _lone_flight()
    table.act(a, "pursue", b, [10, 30, 10])  # A by 30, B by 10; then A's blow
    assert table.out(b) is None and table.status(b, "prone")


def test_TC_35_a_fleer_let_go_by_every_foe_leaves_the_combat() -> None:
    table, a, b = _lone_flight()
    events = table.act(a, "let_flee")
    assert table.out(b) == "fled" and table.state.game.combatants[b].out_rule == "TC-35"
    assert of(events, ev.CombatantDefeated)[0].rule == "TC-35"


def test_TC_35_a_fleer_is_let_go_when_no_foe_remains() -> None:
    table, a, b, _c = _flight()
    table.act(a, "let_flee")  # A lets B go: A is its only foe
    assert table.out(b) == "fled"


def test_TC_36_in_a_1v1_the_fleer_can_be_shot_at() -> None:
    table, a, b = _lone_flight(a={"PERC": 60, "weapons": [BOW]})
    (check,) = checks(table.act(a, "attack", b, [10]))
    assert check.outcome == "success" and table.res(b) < 20


def test_TC_33_a_failed_morale_check_in_a_1v1_leaves_the_choice_too() -> None:
    table, a, b = duel(b=low(3))
    table.end(a)
    table.end(b, [31])  # a failed morale check: forced flight
    assert table.out(b) is None and table.actor == a
    assert _legal(table, a)["pursue"]["enabled"]


def test_TC_29_the_end_of_round_step_is_logged_before_the_next_round_starts() -> None:
    table, a, b = duel({"init.reroll_each_round": True}, b=low(3))
    table.end(a)
    events = table.end(b, [31, 5])  # the morale check, then round 2's initiative (A only)
    kinds = [type(e).__name__ for e in events]
    morale = next(i for i, e in enumerate(events) if isinstance(e, ev.DieRolled)
                  and e.purpose == "morale check")  # fmt: skip
    started = kinds.index("RoundStarted")
    initiative = next(i for i, e in enumerate(events) if isinstance(e, ev.DieRolled)
                      and e.purpose == "initiative")  # fmt: skip
    assert morale < started < initiative
    fled = next(i for i, e in enumerate(events) if isinstance(e, ev.StatusSet)
                and e.key == "fleeing")  # fmt: skip
    assert fled < started


def test_TC_36_a_fleer_can_be_shot_for_three_rounds() -> None:
    table, a, b, c = _flight({"PERC": 60, "weapons": [BOW]})
    for _ in range(3):
        assert table.out(b) is None
        (check,) = checks(table.act(a, "attack", b, [90]))  # a miss, in range
        assert check.threshold == 60  # 6, 12, 18 m away: within the base range
        table.end(c)
    assert table.out(b) == "fled"
    assert table.state.game.combatants[b].out_rule == "TC-36"


def test_TC_37_flight_provokes_no_opportunity_attack() -> None:
    table, a, b, _ = _flight()
    assert table.status(b, "engaged") is None and table.status(a, "engaged") is None
    assert not [e for e in table.log if isinstance(e, ev.ActionResolved)
                and e.action == "opportunity_attack"]  # fmt: skip
