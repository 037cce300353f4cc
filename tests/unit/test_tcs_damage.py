"""d100-tcs damage: piercing, armor PR/PP and degradation, padding, shields, ignore-armor.

Every attack here hits on a 10 (A has DEX 50), so the single face is the attack roll.
"""

from __future__ import annotations

from typing import Any

import pytest

from domain import commands as cmd
from tests.unit.test_tcs_support import QUIET, SPEAR, Table, checks, duel, refused


def armor(pr: int, pp: int, **over: Any) -> dict[str, Any]:
    return {"name": "mail", "levels": [{"pr": pr, "pp": pp}], "end_required": 0} | over


def padding(pr: int, pp: int, **over: Any) -> dict[str, Any]:
    return {"name": "gambeson", "pr": pr, "pp": pp, "end_required": 0} | over


def blade(damage: int, **over: Any) -> dict[str, Any]:
    return {"name": "blade", "damage": damage} | over


SHIELD = {"name": "kite", "pr": 20, "dodge_melee": 10, "dodge_missile": 15}


def hit(b: dict[str, Any], a: dict[str, Any] | None = None, face: int = 10,
        **options: Any) -> tuple[Table, str, str]:  # fmt: skip
    table, x, y = duel(a=a or {}, b=b)
    table.act(x, "attack", y, [face], **options)
    return table, x, y


# --- 3.9 weapons --------------------------------------------------------------------------


@pytest.mark.parametrize(("protection", "loss"),
                         [(None, 4), (0, 2), (1, 1), (3, 1)])  # fmt: skip
def test_TC_39_TC_65_a_4_2_piercing_weapon(protection: int | None, loss: int) -> None:
    b = {} if protection is None else {"armor": armor(30, protection)}
    table, _, y = hit(b, {"weapons": [SPEAR]})
    assert table.res(y) == 20 - loss


def test_TC_40_pierce_proof_cancels_the_1_HP_minimum() -> None:
    table, _, y = hit({"armor": armor(30, 3, pierce_proof=True)}, {"weapons": [SPEAR]})
    assert table.res(y) == 20


def test_TC_AMB_19_a_piercing_hit_wears_the_armor_by_Y() -> None:
    table, _, y = hit({"armor": armor(30, 0)}, {"weapons": [SPEAR]})
    assert table.res(y, "armor_pr") == 28


def test_TC_AMB_17_a_critical_piercing_hit_doubles_X_and_Y() -> None:
    table, _, y = hit({"armor": armor(30, 1)}, {"weapons": [SPEAR]}, face=2)
    assert table.res(y) == 20 - (4 - 1)


def test_TC_41_TC_65_a_shield_takes_only_the_piercing_Y() -> None:
    b = {"shield": SHIELD, "skill": {"shield_mastery": True}}
    table, _, y = hit(b, {"weapons": [SPEAR]}, at="shield")
    assert (table.res(y, "shield_pr"), table.res(y)) == (18, 20)


# --- 3.10 armor ---------------------------------------------------------------------------


def test_TC_42_TC_43_TC_44_an_armor_degrades_then_breaks() -> None:
    mail = {"name": "mail", "levels": [{"pr": 10, "pp": 3}, {"pr": 5, "pp": 1}],
            "end_required": 0}  # fmt: skip
    table, x, y = hit({"armor": mail}, {"weapons": [blade(12)]})
    assert (table.res(y, "armor_level"), table.res(y, "armor_pr")) == (1, 5)
    assert table.res(y) == 20 - (12 - 3)  # TC-AMB-20: the degrading hit keeps the old PP
    table.end(y)
    table.do(cmd.Adjust(combatant=y, resource="hp", delta=20, reason="heal"))
    table.act(x, "attack", y, [10])
    assert table.res(y, "armor_pr") == 0 and table.res(y) == 20 - 12  # broken: no PP


def test_TC_45_TC_AMB_20_the_hit_that_breaks_an_armor_gets_no_PP() -> None:
    table, x, y = hit({"armor": armor(10, 3)}, {"weapons": [blade(7)]})
    assert (table.res(y, "armor_pr"), table.res(y)) == (3, 20 - 4)
    table.end(y)
    table.act(x, "attack", y, [10], then=None)
    assert table.res(y, "armor_pr") == 0 and table.res(y) == 16 - 7


def test_TC_46_armor_ignoring_skips_PP_and_wears_both_PRs() -> None:
    b = {"armor": armor(10, 3), "under": padding(10, 2)}
    table, _, y = hit(b, {"weapons": [blade(6, ignore_armor=True)]})
    assert (table.res(y), table.res(y, "armor_pr"), table.res(y, "under_pr")) == (14, 4, 4)


@pytest.mark.parametrize(("routing", "hp", "under"),
                         [("parallel", 20 - 12, 0), ("absorb_then_hp", 20 - 2, 0)])  # fmt: skip
def test_TC_47_TC_AMB_22_double_armor_ignoring_raises_the_multiplier(
    routing: str, hp: int, under: int
) -> None:
    b = {"armor": armor(10, 3), "under": padding(10, 2)}
    a = {"weapons": [blade(6, ignore_armor=True)], "tcs": [{"name": "rend", "ignore_armor": True}]}
    table, x, y = duel({"ignore_armor.double.routing": routing}, a=a, b=b)
    table.act(x, "attack", y, [10], tcs="rend")
    assert (table.res(y), table.res(y, "armor_pr"), table.res(y, "under_pr")) == (hp, 10, under)


def test_TC_48_a_repair_is_a_GM_adjustment_capped_at_the_armors_PR() -> None:
    table, _, y = hit({"armor": armor(10, 3)}, {"weapons": [blade(7)]})
    table.do(cmd.Adjust(combatant=y, resource="armor_pr", delta=50, reason="smith"))
    assert table.res(y, "armor_pr") == 10


def test_TC_49_heavy_armor_lowers_DEX_and_PERC_tests() -> None:
    table, x, y = duel(a={"armor": armor(10, 3, heavy_malus=10)})
    (check,) = checks(table.act(x, "attack", y, [45]))
    assert (check.threshold, check.modifiers[0].rule, check.outcome) == (40, "TC-49", "failure")


# --- 3.11 under-protections ---------------------------------------------------------------


def test_TC_52_padding_wears_only_once_the_armor_is_broken() -> None:
    b = {"armor": armor(5, 0), "under": padding(10, 2)}
    table, x, y = hit(b, {"weapons": [blade(6)]})
    assert (table.res(y, "armor_pr"), table.res(y, "under_pr"), table.res(y)) == (0, 10, 16)
    table.end(y)
    table.act(x, "attack", y, [10])
    assert (table.res(y, "under_pr"), table.res(y)) == (4, 12)


def test_TC_53_padding_PP_stacks_gambeson_and_cuirass_give_5() -> None:
    table = Table({"init.reroll_each_round": False})
    x = table.add("A", "a", weapons=[blade(7)])
    y = table.add("B", "b", preset="gambeson_cuirass")
    table.do(cmd.StartCombat(), [10, 20])
    table.act(x, "attack", y, [10])
    assert table.res(y) == 25 - 2


def test_TC_54_a_broken_padding_gives_no_PP() -> None:
    table, _, y = hit({"under": padding(4, 2)}, {"weapons": [blade(6)]})
    assert (table.res(y, "under_pr"), table.res(y)) == (0, 14)


# --- 3.12 shields -------------------------------------------------------------------------

BEARER = {"DEX": 50, "shield": SHIELD, "skill": {"shield_mastery": True}}


@pytest.mark.parametrize(("face", "at", "hp", "shield_pr"),
                         [(50, "bearer", 14, 20), (51, "bearer", 20, 20),
                          (60, "shield", 20, 14), (61, "shield", 20, 20)])  # fmt: skip
def test_TC_55_TC_57_TC_67_DEX_60_against_a_10_melee_dodge_shield(
    face: int, at: str, hp: int, shield_pr: int
) -> None:
    table, _, y = hit(BEARER, {"DEX": 60}, face=face, at=at)
    assert (table.res(y), table.res(y, "shield_pr")) == (hp, shield_pr)


def test_TC_55_the_missile_dodge_counts_against_shots() -> None:
    bow = {"name": "bow", "damage": 5, "ranged": True, "base_range_m": 30}
    table, x, y = duel(a={"PERC": 60, "weapons": [bow]}, b=BEARER)
    (check,) = checks(table.act(x, "attack", y, [10]))
    assert (check.threshold, check.modifiers[0].rule) == (45, "TC-57")


def test_TC_58_a_broken_shield_gives_no_dodge_and_cannot_be_aimed_at() -> None:
    weak = BEARER | {"shield": SHIELD | {"pr": 6}}
    table, x, y = hit(weak, {"DEX": 60}, at="shield")
    assert table.res(y, "shield_pr") == 0
    table.end(y)
    with refused("rule_violation", "TC-58"):
        table.act(x, "attack", y, at="shield")
    (check,) = checks(table.act(x, "attack", y, [90]))
    assert (check.threshold, check.modifiers) == (60, [])


def test_TC_48_a_repair_command_gives_back_pr_and_the_better_level() -> None:
    mail = {"name": "mail", "levels": [{"pr": 8, "pp": 2}, {"pr": 4, "pp": 1}],
            "end_required": 0}  # fmt: skip
    table = Table(QUIET)
    a, b = table.add("A", "a"), table.add("B", "b", armor=mail)
    table.do(cmd.Adjust(combatant=b, resource="armor_level", delta=1, reason="worn"))
    table.do(cmd.Adjust(combatant=b, resource="armor_pr",
                        delta=1 - table.res(b, "armor_pr"), reason="worn"))  # fmt: skip
    table.do(cmd.RepairArmor(combatant=b, pr=5))  # 3 fill level 1, 2 climb to level 0
    assert (table.res(b, "armor_level"), table.res(b, "armor_pr")) == (0, 2)
    table.do(cmd.RepairArmor(combatant=b))  # a full repair
    assert (table.res(b, "armor_level"), table.res(b, "armor_pr")) == (0, 8)
    with refused("rule_violation", "TC-48"):
        table.do(cmd.RepairArmor(combatant=b))  # intact
    with refused("rule_violation", "TC-48"):
        table.do(cmd.RepairArmor(combatant=a))  # no armor
