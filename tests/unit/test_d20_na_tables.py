"""d20-na tables and formulas, as tables: location, aiming, range bands, damage."""

from __future__ import annotations

import pytest

from domain.rules.d20_na import tables

LOCATION = {
    1: "head", 2: "head",
    3: "arm_right", 4: "arm_left", 5: "arm_right", 6: "arm_left", 7: "arm_right",
    8: "leg_left", 9: "leg_right", 10: "leg_left", 11: "leg_right",
    **{face: "torso" for face in range(12, 21)},
}  # fmt: skip


@pytest.mark.parametrize(("face", "zone"), sorted(LOCATION.items()))
def test_NA_21_NA_22_location_table(face: int, zone: str) -> None:
    assert tables.location(face) == zone


@pytest.mark.parametrize("face", range(12, 21))
def test_NA_AMB_11_the_torso_zone_is_the_back_from_behind(face: int) -> None:
    assert tables.location(face, from_back=True) == "back"


@pytest.mark.parametrize("face", [0, 21])
def test_a_location_die_shows_1_to_20(face: int) -> None:
    with pytest.raises(ValueError):
        tables.location(face)


@pytest.mark.parametrize(
    ("zone", "malus"),
    [("arm_left", 2), ("torso", 2), ("leg_right", 2), ("head", 4), ("hand_left", 4),
     ("foot_right", 4)],
)  # fmt: skip
def test_NA_24_aiming_malus(zone: str, malus: int) -> None:
    assert tables.aim_malus(zone) == malus


@pytest.mark.parametrize(
    ("zone", "level", "net"),
    [("head", 0, 4), ("head", 1, 3), ("head", 2, 2), ("head", 3, 0),
     ("leg_left", 1, 1), ("leg_left", 2, 0), ("leg_left", 3, 0)],
)  # fmt: skip
def test_NA_25_precision_reduces_the_malus(zone: str, level: int, net: int) -> None:
    assert tables.net_aim_malus(zone, level) == net


def test_NA_47_precision_level_3_on_a_leg_gives_0_not_a_bonus() -> None:
    assert tables.net_aim_malus("leg_left", 3) == 0


@pytest.mark.parametrize(
    ("distance", "band", "rounding", "bands"),
    [(40, 30, "floor", 1), (40, 30, "ceil", 2), (29, 30, "floor", 0), (60, 30, "floor", 2),
     (40, 15, "floor", 2), (0, 30, "floor", 0), (100, 0, "floor", 0)],
)  # fmt: skip
def test_NA_AMB_15_range_bands(distance: int, band: int, rounding: str, bands: int) -> None:
    assert tables.range_bands(distance, band, rounding) == bands


def test_NA_AMB_16_the_range_malus_counts_twice_in_damage() -> None:
    shot = tables.damage("shoot", strength=0, weapon=41, endurance=11, armor=0, malus=2)
    assert shot.total == 26 and ("2×range malus", -4) in shot.terms


def test_NA_AMB_1_roll_equal_to_the_stat_succeeds_with_margin_0_by_default() -> None:
    assert tables.succeeds(12, 12) and tables.margin(12, 12) == 0
    assert not tables.succeeds(12, 12, "lt")


@pytest.mark.parametrize(
    ("attack", "defense", "tie", "wins"),
    [(4, 3, "attacker", False), (3, 4, "attacker", True), (3, 3, "attacker", False),
     (3, 3, "defender", True), (2, 6, "attacker", True)],
)  # fmt: skip
def test_NA_15_NA_AMB_2_differential(attack: int, defense: int, tie: str, wins: bool) -> None:
    assert tables.defense_wins(attack, defense, tie) is wins


# NA-48 and the other derived vectors of the digest.
@pytest.mark.parametrize(
    ("what", "got", "expected"),
    [
        ("Milicien dodge without the skill: floor(11/2)", 11 // 2, 5),
        ("Milicien projectile parry: floor(9/2)", 9 // 2, 4),
        ("long bow at 60 m: TIR malus", tables.range_malus(60, 2, 30), 4),
        ("long bow at 60 m: damage malus", -2 * tables.range_malus(60, 2, 30), -8),
        ("short bow at 40 m: TIR malus", tables.range_malus(40, 2, 15), 4),
        ("short bow at 40 m: damage malus", -2 * tables.range_malus(40, 2, 15), -8),
        ("crossbow at 40 m: one band", tables.range_malus(40, 2, 30), 2),
        ("charge with ATT 12 hits on 14", int(tables.succeeds(14, 12 + 2)), 1),
        ("charge with ATT 12 misses on 15", int(tables.succeeds(15, 12 + 2)), 0),
    ],
)
def test_NA_48_derived_vectors(what: str, got: int, expected: int) -> None:
    assert got == expected, what


@pytest.mark.parametrize(
    ("strength", "d6", "armor", "parry", "expected"),
    [(12, 3, 5, 0, 24), (12, 5, 0, 12, 19), (10, 3, 5, 0, 20), (10, 5, 0, 12, 15)],
)
def test_NA_26_NA_27_melee_formula(
    strength: int, d6: int, armor: int, parry: int, expected: int
) -> None:
    hit = tables.damage("melee", strength=strength, weapon=10 + d6, endurance=8, armor=armor,
                   parry_value=parry)  # fmt: skip
    assert hit.total == expected


def test_NA_35_thrown_formula_uses_FOR_once() -> None:
    thrown = tables.damage("throw", strength=10, weapon=6, endurance=5, armor=1, malus=1)
    assert thrown.total == 10 + 6 - 5 - 1 - 2


def test_NA_AMB_20_damage_never_goes_below_the_floor() -> None:
    assert tables.damage("melee", strength=0, weapon=0, endurance=9, armor=5).total == 0
    assert tables.damage("melee", strength=0, weapon=0, endurance=9, armor=5).raw == -14


def test_armor_of_a_hand_falls_back_on_the_arm() -> None:
    assert tables.armor_at({"arm_left": 5}, "hand_left") == 5
    assert tables.armor_at({"hand_left": 1, "arm_left": 5}, "hand_left") == 1
    assert tables.armor_at({}, "head") == 0
