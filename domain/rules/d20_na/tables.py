"""d20-na tables and formulas: pure functions, no dice, no state.

Everything here is a number lookup the engine and the tests share: the d20 test and its
margin (NA-11, NA-AMB-1), the differential (NA-15, NA-AMB-2), hit location (NA-21,
NA-22, NA-AMB-11), the aiming malus and what Coup/Tir Précis takes off it (NA-24, NA-25,
NA-47), range bands (NA-30, NA-AMB-15) and the damage formulas (NA-26..NA-28, NA-34,
NA-35, NA-AMB-20).
"""

from __future__ import annotations

from dataclasses import dataclass

# Zones with a side are looked up per side (NA-22, NA-AMB-11).
LIMBS = ("arm_left", "arm_right", "leg_left", "leg_right")
ZONES = ("head", "torso", "back", *LIMBS)
# Aimable zones: the hit zones plus the "very precise" ones of NA-24 (hands, feet).
PRECISE = ("hand_left", "hand_right", "foot_left", "foot_right")
AIMABLE = (*ZONES, *PRECISE)


def succeeds(roll: int, threshold: int, cmp: str = "le") -> bool:
    """NA-11, NA-AMB-1: a d20 test succeeds on roll <= stat (`lt`: strictly under)."""
    return roll <= threshold if cmp == "le" else roll < threshold


def margin(roll: int, threshold: int) -> int:
    """NA-15: the success margin is stat - roll (negative on a failure)."""
    return threshold - roll


def defense_wins(attack_margin: int, defense_margin: int, tie: str = "attacker") -> bool:
    """NA-15, NA-AMB-2: a successful defense works only with the larger margin.

    On a tie the attack prevails unless the `differential.tie` setting says `defender`.
    """
    if defense_margin == attack_margin:
        return tie == "defender"
    return defense_margin > attack_margin


def location(face: int, from_back: bool = False) -> str:
    """NA-21, NA-22, NA-AMB-11: the zone a d20 face hits.

    1-2 head, 3-7 arms, 8-11 legs, 12-20 torso (back when struck from behind); for
    limbs an even face is the left one and an odd face the right one.
    """
    if not 1 <= face <= 20:
        raise ValueError(f"a location die shows 1 to 20, not {face}")
    side = "left" if face % 2 == 0 else "right"
    if face <= 2:
        return "head"
    if face <= 7:
        return f"arm_{side}"
    if face <= 11:
        return f"leg_{side}"
    return "back" if from_back else "torso"


def aim_malus(zone: str) -> int:
    """NA-24: -4 to aim at the head or a very precise zone, -2 for arms, torso or legs."""
    if zone not in AIMABLE:
        raise ValueError(f"cannot aim at {zone!r}; zones: {list(AIMABLE)}")
    return 4 if zone == "head" or zone in PRECISE else 2


# NA-25: what each level of Coup Précis / Tir Précis takes off the aiming malus.
PRECISION_REDUCTION = {0: 0, 1: 1, 2: 2, 3: 4}


def net_aim_malus(zone: str, level: int) -> int:
    """NA-25, NA-33, NA-47: the skill only cancels malus, it never turns into a bonus."""
    return max(0, aim_malus(zone) - PRECISION_REDUCTION[level])


def range_bands(distance_m: int, band_m: int, rounding: str = "floor") -> int:
    """NA-30, NA-AMB-15: whole bands of `band_m` metres (`ceil`: bands started)."""
    if band_m <= 0 or distance_m <= 0:
        return 0
    return -(-distance_m // band_m) if rounding == "ceil" else distance_m // band_m


def range_malus(distance_m: int, step: int, band_m: int, rounding: str = "floor") -> int:
    """NA-30: the TIR malus, as a positive magnitude (`step` per band)."""
    return step * range_bands(distance_m, band_m, rounding)


def armor_at(armor: dict[str, int], zone: str) -> int:
    """NA-26: armor points of the zone hit; hands and feet fall back on arms and legs."""
    if zone in armor:
        return armor[zone]
    if zone in PRECISE:
        limb = zone.replace("hand_", "arm_").replace("foot_", "leg_")
        return armor.get(limb, 0)
    return 0


@dataclass(frozen=True)
class Damage:
    """One damage computation: its terms, in order, and the total after the floor."""

    terms: tuple[tuple[str, int], ...]
    total: int

    @property
    def raw(self) -> int:
        return sum(value for _, value in self.terms)


def damage(
    mode: str,
    *,
    strength: int,
    weapon: int,
    endurance: int,
    armor: int,
    parry_value: int = 0,
    malus: int = 0,
    floor: int = 0,
) -> Damage:
    """The damage formula for `mode`, floored at `floor` (NA-AMB-20).

    melee NA-26/NA-27: 2·FOR + weapon − END − armor [− parry value];
    shoot NA-34: weapon − END − armor − 2·range malus;
    throw NA-35: FOR + weapon − END − armor − 2·range malus.
    `weapon` is fixed + dice, 0 unarmed (NA-28).
    """
    terms: list[tuple[str, int]] = []
    if mode == "melee":
        terms.append(("2×FOR", 2 * strength))
    elif mode == "throw":
        terms.append(("FOR", strength))
    terms += [("weapon", weapon), ("END", -endurance), ("armor", -armor)]
    if mode == "melee" and parry_value:
        terms.append(("parry", -parry_value))
    if mode != "melee" and malus:
        terms.append(("2×range malus", -2 * malus))
    raw = sum(value for _, value in terms)
    return Damage(tuple(terms), max(floor, raw))


def zone_en(zone: str) -> str:
    """`leg_right` -> "right leg" (the side before the limb, as English has it)."""
    limb, _, side = zone.partition("_")
    return f"{side} {limb}" if side in ("left", "right") else zone.replace("_", " ")
