"""d100-tcs offers what its rules allow, as they allow it (issue 21 finding 10): a ranged
attack's distance is a `legal` choice (TC-18, long range), and the board says a hand-set
initiative is refused once the fight is on (TC-4), so the console's arrows are off."""

from __future__ import annotations

from typing import Any

import msgspec

from domain import commands as cmd
from domain.rules import REGISTRY
from projections.board import board
from projections.view import Projection
from tests.unit.test_tcs_support import BOW, QUIET, Table, checks, duel


def attack_entry(t: Table, cid: str) -> dict[str, Any]:
    entries = msgspec.to_builtins(
        REGISTRY["d100-tcs"].legal(t.state.game, cid, t.state.ledger.settings)
    )
    found: dict[str, Any] = next(e for e in entries if e["action"] == "attack")
    return found


def gm_board(t: Table) -> dict[str, Any]:
    proj = Projection()
    proj.state = t.state
    return board(proj, "gm")


def test_TC_18_a_ranged_attack_lists_its_distance_and_a_long_shot_is_halved() -> None:
    t, a, _ = duel(a={"weapons": [BOW], "PERC": 60})
    entry = attack_entry(t, a)
    assert entry["enabled"] and entry["choices"]["distance"] == "metres"
    found = checks(t.act(a, "attack", entry["targets"][0], [25], distance=40))  # base range 30
    assert (found[0].threshold, found[0].modifiers[-1].rule) == (30, "TC-18")


def test_TC_18_a_melee_attack_lists_no_distance() -> None:
    t, a, _ = duel()
    assert "distance" not in attack_entry(t, a)["choices"]


def test_TC_4_the_board_says_the_initiative_is_not_set_by_hand_mid_fight() -> None:
    t = Table({"init.reroll_each_round": True})
    t.add("A", "a")
    t.add("B", "b")
    t.do(cmd.RollInitiative(), [10, 20])
    assert gm_board(t)["reorder"] == {"enabled": True}  # before the start: round 1's order
    t.do(cmd.StartCombat())
    shown = gm_board(t)["reorder"]
    assert (shown["enabled"], shown["rule"]) == (False, "TC-4")
    assert shown["reason"] and shown["reason_fr"]


def test_TC_4_without_rerolls_the_order_may_still_be_set_by_hand() -> None:
    t, _, _ = duel(QUIET)
    assert gm_board(t)["reorder"] == {"enabled": True}
