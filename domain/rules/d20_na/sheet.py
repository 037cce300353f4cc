"""d20-na sheets: stats, skills, weapons, shield and armor per zone, validated.

Stat names are the digest's code names (STR for FOR, CHA for CHAR, hp for PV); the
French names are accepted on input and stored under the code name. NA-19 (a two-handed
weapon may not be used with a shield or another two-handed weapon) is checked here.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import msgspec

from domain import dice as dicelib
from domain.errors import Invalid, RuleViolation
from domain.rules.common.sheetcheck import flag as _bool
from domain.rules.common.sheetcheck import name as _name
from domain.rules.common.sheetcheck import stats
from domain.rules.common.sheetcheck import whole as _int
from domain.rules.d20_na.tables import AIMABLE

# name: (min, max, default; None = required)
STATS: dict[str, tuple[int, int, int | None]] = {
    "STR": (0, 100, None),
    "END": (0, 100, None),
    "HAB": (0, 100, None),
    "CHA": (0, 100, 0),
    "INT": (0, 100, 0),
    "INI": (0, 100, 0),
    "ATT": (0, 100, None),
    "PAR": (0, 100, None),
    "TIR": (0, 100, 0),
    "NA": (0, 10, None),
    "hp": (1, 100_000, None),
}
ALIASES = {"FOR": "STR", "CHAR": "CHA", "PV": "hp", "Pv": "hp"}
SKILLS: dict[str, tuple[type, int]] = {
    # name: (type, max level); booleans are ticks, ints are skill levels (NA-25)
    "dodge": (bool, 1),
    "ambidextrous": (bool, 1),
    "precise_strike": (int, 3),
    "precise_shot": (int, 3),
}
OTHER = ("skills", "weapons", "off_hand", "shield", "armor", "cover_object")
KINDS = ("melee", "shoot", "throw")
ARMOR_KEYS = (*AIMABLE, "arms", "legs")


def _skills(raw: Any) -> dict[str, Any]:
    if not isinstance(raw, Mapping):
        raise Invalid(reason="sheet_skills_must_object")
    unknown = set(raw) - set(SKILLS)
    if unknown:
        raise Invalid(
            reason="unknown_skills_known",
            params={"unknown": sorted(unknown), "skills": sorted(SKILLS)},
        )
    out: dict[str, Any] = {}
    for name, (kind, top) in SKILLS.items():
        value = raw.get(name, kind())
        where = f"sheet.skills.{name}"
        out[name] = _bool(where, value) if kind is bool else _int(where, value, 0, top)
    return out


def _weapon(i: int, raw: Any) -> dict[str, Any]:
    where = f"sheet.weapons[{i}]"
    if not isinstance(raw, Mapping):
        raise Invalid(reason="must_be_object", params={"where": where})
    known = {"name", "kind", "dmg", "dice", "parry", "two_handed", "range_step"}
    known |= {"range_band_m", "needs_reload"}
    unknown = set(raw) - known
    if unknown:
        raise Invalid(reason="unknown_fields", params={"where": where, "unknown": sorted(unknown)})
    kind = raw.get("kind", "melee")
    if kind not in KINDS:
        raise Invalid(
            rule="NA-31", reason="kind_must_one", params={"where": where, "kinds": list(KINDS)}
        )
    dice_expr = raw.get("dice", "")
    if not isinstance(dice_expr, str):
        raise Invalid(reason="dice_must_text_such_as", params={"where": where})
    if dice_expr:
        try:
            parsed = dicelib.parse(dice_expr)
        except ValueError as e:
            raise Invalid(reason="dice_unreadable", params={"where": where, "e": e}) from e
        dice_expr = str(parsed)
    return {
        "name": _name(f"{where}.name", raw.get("name")),
        "kind": kind,
        "dmg": _int(f"{where}.dmg", raw.get("dmg", 0), 0, 1000),
        "dice": dice_expr,
        "parry": _int(f"{where}.parry", raw.get("parry", 0), 0, 100),
        "two_handed": _bool(f"{where}.two_handed", raw.get("two_handed", False)),
        "range_step": _int(f"{where}.range_step", raw.get("range_step", 2), 0, 100),
        "range_band_m": _int(f"{where}.range_band_m", raw.get("range_band_m", 0), 0, 10_000),
        "needs_reload": _bool(f"{where}.needs_reload", raw.get("needs_reload", False)),
    }


def _shield(raw: Any) -> dict[str, Any] | None:
    if raw is None:
        return None
    if not isinstance(raw, Mapping) or set(raw) - {"name", "parry"}:
        raise Invalid(reason="sheet_shield_must_null")
    return {
        "name": _name("sheet.shield.name", raw.get("name", "shield")),
        "parry": _int("sheet.shield.parry", raw.get("parry", 0), 0, 100),
    }


def _armor(raw: Any) -> dict[str, int]:
    """Armor points per zone; `arms` and `legs` set both sides (NA-AMB-11)."""
    if not isinstance(raw, Mapping):
        raise Invalid(reason="sheet_armor_must_object_zone")
    out: dict[str, int] = {}
    for key, value in raw.items():
        if key not in ARMOR_KEYS:
            raise Invalid(
                reason="unknown_armor_zone_zones",
                params={"key": key, "armor_keys": list(ARMOR_KEYS)},
            )
        points = _int(f"sheet.armor.{key}", value, 0, 1000)
        sides = [f"{key[:-1]}_left", f"{key[:-1]}_right"] if key in ("arms", "legs") else [key]
        for zone in sides:
            out[zone] = points
    return {zone: out[zone] for zone in sorted(out)}


def _hands(weapons: list[dict[str, Any]], off_hand: Any, shield: Any) -> str | None:
    """NA-19 and NA-AMB-8: what may be held together."""
    two_handed = [w["name"] for w in weapons if w["two_handed"]]
    if shield is not None and two_handed:
        raise RuleViolation(
            rule="NA-19", reason="two_handed_with_shield", params={"weapon": two_handed[0]}
        )
    if len(two_handed) > 1:
        raise RuleViolation(rule="NA-19", reason="two_two_handed", params={"weapons": two_handed})
    if off_hand is None:
        return None
    name = _name("sheet.off_hand", off_hand)
    by_name = {w["name"]: w for w in weapons}
    weapon = by_name.get(name)
    if weapon is None:
        raise Invalid(rule="NA-17", reason="sheet_off_hand_names_no", params={"name": name})
    if weapon["kind"] == "shoot" or weapon["two_handed"]:
        raise RuleViolation(rule="NA-19", reason="not_off_hand", params={"weapon": name})
    if shield is not None:
        raise RuleViolation(rule="NA-19", reason="shield_no_second_weapon")
    mains = [w for w in weapons if w["kind"] != "shoot" and w["name"] != name]
    if not mains or mains[0]["two_handed"]:
        raise RuleViolation(rule="NA-19", reason="dual_needs_one_handed")
    return name


_CHECKED: dict[bytes, bytes] = {}  # a sheet as JSON -> its normalised sheet as JSON
_CHECKED_MOST = 256
_json = msgspec.json.Encoder()


def validate(sheet: Mapping[str, Any]) -> dict[str, Any]:
    """The normalised sheet, or Invalid naming the field (and the rule, if one).

    A sheet checked before (the resolver adds the same two at every duel) is not
    checked again: its normalised form is kept as JSON and decoded afresh, so no
    caller shares (or could change) another's copy. Refused sheets are not kept.
    """
    try:
        key = _json.encode(sheet)
    except (TypeError, ValueError, OverflowError):  # not JSON: the check says why
        return _validate(sheet)
    known = _CHECKED.get(key)
    if known is not None:
        out: dict[str, Any] = msgspec.json.decode(known)
        return out
    out = _validate(sheet)
    encoded = _json.encode(out)
    if msgspec.json.decode(encoded) == out:  # it reads back the same (no tuples...)
        if len(_CHECKED) >= _CHECKED_MOST:
            _CHECKED.clear()
        _CHECKED[key] = encoded
    return out


def _validate(sheet: Mapping[str, Any]) -> dict[str, Any]:
    raw = {ALIASES.get(k, k): v for k, v in sheet.items()}
    out = stats(raw, STATS, OTHER)
    out["skills"] = _skills(raw.get("skills", {}))
    weapons_raw = raw.get("weapons", [])
    if not isinstance(weapons_raw, list) or len(weapons_raw) > 8:
        raise Invalid(reason="sheet_weapons_must_list_most")
    weapons = [_weapon(i, w) for i, w in enumerate(weapons_raw)]
    if len({w["name"] for w in weapons}) != len(weapons):
        raise Invalid(reason="weapon_names_must_unique_on")
    out["weapons"] = weapons
    out["shield"] = _shield(raw.get("shield"))
    out["off_hand"] = _hands(weapons, raw.get("off_hand"), out["shield"])
    out["armor"] = _armor(raw.get("armor", {}))
    out["cover_object"] = _bool("sheet.cover_object", raw.get("cover_object", False))
    return out


# --- presets: the creatures of the worked examples (NA-43..NA-46, NA-38) ---------------

CLAWS = {"name": "claws", "kind": "melee", "dmg": 10, "dice": "1d6"}
# The source gives the sword's parry value (12, NA-45) but no damage: 5+1d6 is ours.
SWORD = {"name": "sword", "kind": "melee", "dmg": 5, "dice": "1d6", "parry": 12}
CROSSBOW = {
    "name": "crossbow",
    "kind": "shoot",
    "dmg": 34,
    "dice": "1d8",
    "two_handed": True,
    "range_step": 2,
    "range_band_m": 30,
    "needs_reload": True,
}
GAMBESON = {"head": 0, "torso": 5, "back": 5, "arms": 5, "legs": 0}

PRESETS: dict[str, dict[str, Any]] = {
    # NA-43 stat block; NA-38: the Milicien preset ticks Dodge.
    "milicien": {
        "STR": 9, "END": 8, "HAB": 11, "CHA": 8, "INT": 8, "INI": 9,
        "ATT": 11, "PAR": 9, "TIR": 8, "NA": 1, "hp": 65,
        "skills": {"dodge": True},
        "weapons": [SWORD, CROSSBOW],
        "armor": GAMBESON,
    },
    # NA-43 stat block; NA-AMB-14: the Fangeux has the Dodge skill.
    "fangeux": {
        "STR": 10, "END": 9, "HAB": 12, "CHA": 1, "INT": 4, "INI": 12,
        "ATT": 12, "PAR": 5, "TIR": 3, "NA": 1, "hp": 70,
        "skills": {"dodge": True},
        "weapons": [CLAWS],
    },
}  # fmt: skip
