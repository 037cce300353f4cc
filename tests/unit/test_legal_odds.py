"""Issue 11.5: `legal` carries each action's cost in the system's own currency and, where
the state tells it, the percent chance of its roll; checked by hand against the digests
(shared/rules/*.md), and against the threshold the engine then rolls against."""

from __future__ import annotations

from typing import Any

import msgspec

from domain import commands as cmd
from domain import events as ev
from domain.dice import FixedRoller
from domain.encounter import open_encounter
from domain.rules import REGISTRY
from domain.rules.common.base import percent_under
from domain.state import EncounterState
from tests.unit import test_d20_na as na
from tests.unit import test_ranks_support as rk
from tests.unit import test_tcs_support as tc
from tests.unit.test_projections import ENCOUNTER, fight
from tests.unit.test_projections import Table as BoardTable


def listed(ruleset: str, game: Any, cid: str, settings: dict[str, Any] | None = None) -> Any:
    """`legal` as the board encodes it, by action name."""
    entries = msgspec.to_builtins(REGISTRY[ruleset].legal(game, cid, settings or {}))
    return {e["action"]: e for e in entries}


def odds(entry: dict[str, Any]) -> tuple[Any, ...]:
    return entry.get("chance"), entry.get("stat"), entry.get("threshold"), entry.get("die")


def rolled(events: list[ev.Event]) -> list[ev.Check]:
    return [e.check for e in events if isinstance(e, ev.DieRolled) and e.check is not None]


# --- the arithmetic -----------------------------------------------------------------------


def test_percent_under_counts_the_faces_at_or_under_and_the_critical_ranges() -> None:
    assert percent_under(12, 20) == 60
    assert percent_under(25, 20) == 100 and percent_under(-3, 20) == 0
    assert percent_under(99, 100, always=5, never_from=96) == 95  # 96..100 always fail
    assert percent_under(2, 100, always=5, never_from=96) == 5  # 1..5 always succeed
    assert percent_under(10, 20, tries=2) == 75  # a free reroll of a failure


# --- plain-d100 ---------------------------------------------------------------------------


def test_PD_1_PD_2_an_attack_costs_nothing_and_succeeds_at_or_under_the_skill() -> None:
    table = fight()
    entry = listed("plain-d100", table.state.game, "c1")["attack"]
    assert "cost" not in entry  # plain-d100 counts no budget: free
    assert odds(entry) == (55, "skill", 55, "d100")  # the guard's skill 55
    assert "chance" not in listed("plain-d100", table.state.game, "c1")["second_wind"]  # PD-3


def test_PD_4_a_pending_hit_lists_the_dodge_at_the_dodge_value() -> None:
    table = fight([10])  # the guard's attack hits
    table.do(cmd.Act(actor="c1", action="attack", target="c2"))
    entries = listed("plain-d100", table.state.game, "c2")
    assert odds(entries["dodge"]) == (40, "dodge", 40, "d100")  # the bandit's dodge 40
    assert entries["dodge"]["reaction"] and entries["none"]["reaction"]
    assert "chance" not in entries["none"]


# --- d20-na -------------------------------------------------------------------------------


def test_NA_11_NA_6_an_attack_is_two_half_actions_at_ATT_12_60_percent() -> None:
    table, a, _ = na.duel()
    entry = listed("d20-na", table.state.game, a)["attack"]
    assert entry["cost"] == [{"amount": 2, "unit": "half_action", "left": 1}]  # NA-2: 2*1+1
    assert odds(entry) == (60, "ATT", 12, "d20")  # d20 <= 12: 12 faces of 20


def test_NA_AMB_1_strictly_under_the_stat_is_one_face_less() -> None:
    table, a, _ = na.duel({"test.success_cmp": "lt"})
    entry = listed("d20-na", table.state.game, a, {"test.success_cmp": "lt"})["attack"]
    assert odds(entry) == (55, "ATT", 12, "d20")


def test_NA_29_a_shot_is_on_TIR() -> None:
    bow = {"name": "bow", "kind": "shoot", "dmg": 4, "range_step": 1, "range_band_m": 10}
    table, a, _ = na.duel(a={"TIR": 14, "weapons": [bow]})
    assert odds(listed("d20-na", table.state.game, a)["shoot"]) == (70, "TIR", 14, "d20")


def test_NA_8_after_a_charge_the_attack_shows_the_plus_2_the_engine_rolls_with() -> None:
    table, a, b = na.duel(a={"NA": 2})
    table.act(a, "charge", b)
    entry = listed("d20-na", table.state.game, a)["attack"]
    assert odds(entry) == (70, "ATT", 14, "d20")
    assert entry["cost"] == [{"amount": 2, "unit": "half_action", "left": 2}]  # 5 - 1 - 2
    (check, *_) = rolled(table.act(a, "attack", b, [5]))
    assert check.threshold == entry["threshold"]


def test_NA_7_a_half_action_costs_one_and_rolls_nothing_and_a_pass_is_free() -> None:
    table, a, _ = na.duel()
    entries = listed("d20-na", table.state.game, a)
    assert entries["move"]["cost"] == [{"amount": 1, "unit": "half_action", "left": 2}]
    assert "chance" not in entries["move"]
    assert "cost" not in entries["pass"]  # NA-AMB-3: passing spends nothing


def test_NA_9_NA_13_a_parry_shows_its_half_action_what_is_left_and_PAR_10_50_percent() -> None:
    table, a, b = na.duel()
    table.act(a, "attack", b, [5])
    parry = listed("d20-na", table.state.game, b)["parry"]
    assert parry["reaction"] and parry["cost"] == [{"amount": 1, "unit": "half_action", "left": 2}]
    assert odds(parry) == (50, "PAR", 10, "d20")
    (check, *_) = rolled(table.react(b, "parry", [15, 3]))  # fails; the location d20
    assert check.threshold == parry["threshold"]


def test_NA_10_an_unskilled_dodge_is_on_half_HAB() -> None:
    table, a, b = na.duel()
    table.act(a, "attack", b, [5])
    assert odds(listed("d20-na", table.state.game, b)["dodge"]) == (25, "HAB", 5, "d20")


def test_NA_9_NA_AMB_7_a_shield_parry_counts_its_free_reroll() -> None:
    shield = {"name": "shield", "parry": 4}
    table, a, b = na.duel(b={"shield": shield})
    table.act(a, "attack", b, [5])
    assert odds(listed("d20-na", table.state.game, b)["parry"]) == (75, "PAR", 10, "d20")


def test_NA_6_NA_7_a_second_parry_costs_a_full_action() -> None:
    table, a, b = na.duel(a={"NA": 2}, b={"NA": 2})
    table.act(a, "attack", b, [5])
    table.react(b, "parry", [20, 15])
    table.end(b)
    table.act(a, "attack", b, [5])
    parry = listed("d20-na", table.state.game, b)["parry"]
    assert parry["cost"] == [{"amount": 2, "unit": "half_action", "left": 2}]  # 5 - 1 - 2


# --- ranks-d100 ---------------------------------------------------------------------------


def test_RK_3_RK_4_a_physical_attack_at_STR_C_is_50_percent_and_costs_no_mana() -> None:
    t, a, _ = rk.duel(rk.master(), rk.master())
    entry = listed("ranks-d100", t.state.game, a)["attack_physical"]
    assert "cost" not in entry
    assert odds(entry) == (50, "STR", 50, "d100")


def test_RK_7_a_negative_half_rank_takes_10_off() -> None:
    t, a, _ = rk.duel(rk.master(STR="C-"), rk.master())
    assert odds(listed("ranks-d100", t.state.game, a)["attack_physical"])[:3] == (40, "STR", 40)


def test_RK_44_RK_49_a_magic_attack_costs_mana_at_the_rank_first_offered() -> None:
    t, a, _ = rk.duel(rk.master(MANA_STAT="C"), rk.master())
    entry = listed("ranks-d100", t.state.game, a)["attack_magic"]
    mana = t.c(a).resources["mana"]
    assert entry["ranks"][-1] == "C"
    assert entry["cost"] == [{"amount": 15, "unit": "mana", "left": mana - 15}]  # C: 15
    assert odds(entry) == (50, "MANA_STAT", 50, "d100")


def test_RK_50_RK_51_luck_costs_one_use_of_the_War_and_rolls_on_LCK() -> None:
    t, a, _ = rk.duel(rk.master(LCK="B"), rk.master())
    entry = listed("ranks-d100", t.state.game, a)["luck"]
    uses = t.c(a).resources["luck"]
    assert entry["cost"] == [{"amount": 1, "unit": "luck", "left": uses - 1}]
    assert odds(entry) == (60, "LCK", 60, "d100")


def test_RK_59_a_defense_on_END_shows_the_END_odds() -> None:
    t, a, b = rk.duel(rk.master(), rk.master(END="B"))
    t.act(a, "attack_physical", 10, target=b)
    entries = listed("ranks-d100", t.state.game, b)
    assert entries["defend_end"]["reaction"]
    assert odds(entries["defend_end"]) == (60, "END", 60, "d100")


class RanksBoard(BoardTable):
    """A ranks-d100 encounter kept as chained envelopes, for its board per role."""

    def __init__(self, faces: list[int]) -> None:
        self.state = EncounterState()
        self.envelopes: list[dict[str, Any]] = []
        self.dice = FixedRoller(faces)
        self.record(open_encounter(ENCOUNTER, "ranks-d100", "Hidden pools", {}, {}))


def test_RK_44_RK_70_the_public_board_hides_what_a_cost_leaves_of_a_hidden_pool() -> None:
    table = RanksBoard([99, 1])
    table.do(cmd.AddCombatant(name="A", side="a", sheet=rk.master(), hidden=["mana", "hp"]))
    table.do(cmd.AddCombatant(name="B", side="b", sheet=rk.master()))
    table.do(cmd.StartCombat())
    gm, public = table.board("gm")["legal"]["c1"], table.board("public")["legal"]["c1"]
    magic = {e["action"]: e for e in gm}["attack_magic"]
    shown = {e["action"]: e for e in public}["attack_magic"]
    assert magic["cost"][0]["left"] is not None and "reads" not in magic
    assert shown["cost"] == [{"amount": magic["cost"][0]["amount"], "unit": "mana"}]
    # RK-70: the odds of a MANA_STAT roll read the HP, hidden here: the public board
    # leaves them out. A Luck roll (LCK) reads no HP, but A's sheet is the GM's (A keeps
    # resources from the table): its odds are the GM's too; B's are public.
    assert "chance" not in shown and "threshold" not in shown and magic["chance"] == 50
    assert "chance" not in {e["action"]: e for e in public}["luck"]
    assert {e["action"]: e for e in gm}["luck"]["chance"] == 50


# --- d100-tcs -----------------------------------------------------------------------------


def test_TC_1_TC_2_TC_6_an_attack_is_one_of_two_actions_on_DEX() -> None:
    table, a, _ = tc.duel()
    entry = listed("d100-tcs", table.state.game, a, tc.QUIET)["attack"]
    assert entry["cost"] == [{"amount": 1, "unit": "action", "left": 1}]
    assert odds(entry) == (50, "DEX", 50, "d100")


def test_TC_AMB_1_the_critical_failure_range_caps_a_DEX_99_at_95_percent() -> None:
    table, a, _ = tc.duel(a={"DEX": 99})
    assert odds(listed("d100-tcs", table.state.game, a, tc.QUIET)["attack"]) == (
        95, "DEX", 99, "d100")  # fmt: skip


def test_TC_57_the_targets_shield_dodge_is_in_the_threshold_the_engine_rolls() -> None:
    shield = {"name": "buckler", "pr": 10, "dodge_melee": 10}
    table, a, b = tc.duel(b={"shield": shield, "skill": {"shield_mastery": True}})
    entry = listed("d100-tcs", table.state.game, a, tc.QUIET)["attack"]
    assert odds(entry) == (40, "DEX", 40, "d100")
    (check, *_) = rolled(table.act(a, "attack", b, [90]))
    assert check.threshold == entry["threshold"]


def test_TC_9_TC_10_a_spell_shows_its_actions_its_NRJ_and_the_MM_test() -> None:
    spell = {"name": "bolt", "kind": "spell", "actions": 2, "damage": 5, "energy": 3}
    table, a, _ = tc.duel(a={"MM": 60, "tcs": [spell]})
    entry = listed("d100-tcs", table.state.game, a, tc.QUIET)["cast"]
    assert entry["cost"] == [
        {"amount": 2, "unit": "action", "left": 0},
        {"amount": 3, "unit": "energy", "left": 7},
    ]
    assert odds(entry) == (60, "MM", 60, "d100")


def test_TC_20_a_potion_takes_both_actions_and_rolls_nothing() -> None:
    potion = {"name": "potion", "heal": 5}
    table, a, _ = tc.duel(a={"items": [potion]})
    entry = listed("d100-tcs", table.state.game, a, tc.QUIET)["drink_potion"]
    assert entry["cost"] == [{"amount": 2, "unit": "action", "left": 0}]
    assert "chance" not in entry
