"""d100-tcs sheets: stats, weapons, TCS, armor, under-protection, shield, items; presets.

Field names are the digest's glossary code names (END, DEX, PERC, MM, CV, hp, energy,
morale, armor.levels[] with pr/pp, under, shield.dodge_melee/dodge_missile,
weapon.piercing = [X, Y], ignore_armor, dmg_mult, pierce_proof, skill.armor_bearing,
skill.shield_mastery, item.mm_req, maintained[].upkeep). Checked here: TC-50/TC-53 (END
load), TC-51 (required padding), TC-56 (Shield Mastery), TC-59 (upkeep cap), TC-60
(magic-item MM, flagged as TC-AMB-29 says).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from domain.errors import Invalid, RuleViolation
from domain.rules.common.sheetcheck import flag as _bool
from domain.rules.common.sheetcheck import name as _name
from domain.rules.common.sheetcheck import stats
from domain.rules.common.sheetcheck import whole as _int

STATS: dict[str, tuple[int, int, int | None]] = {
    # name: (min, max, default; None = required)
    "DEX": (0, 200, None),
    "PERC": (0, 200, 0),
    "END": (0, 200, None),
    "MM": (0, 200, 0),
    "CV": (0, 200, 0),  # TC-AMB-25: opaque
    "hp": (1, 100_000, None),
    "energy": (0, 10_000, 0),
    "morale": (0, 100, 10),
    "init_mod": (-100, 100, 0),  # TC-AMB-25: initiative modifiers
}
KINDS = ("technique", "skill", "spell")
TEST_STATS = ("DEX", "PERC", "END", "MM", "CV")
# `mm_overload` is derived (recomputed by `validate`, a value given is not read): a sheet
# in canonical form is accepted again as it is, so the console adds a copy of a combatant
# with the sheet the GM's board shows.
OTHER = (
    "role", "weapons", "tcs", "armor", "under", "shield", "skill", "items", "maintained",
    "mm_overload",
)  # fmt: skip


def _record(where: str, value: Any, keys: tuple[str, ...]) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise Invalid(reason="must_be_object", params={"where": where})
    unknown = set(value) - set(keys)
    if unknown:
        raise Invalid(
            reason="unknown_fields_in", params={"where": where, "unknown": sorted(unknown)}
        )
    return value


def _weapon(i: int, raw: Any) -> dict[str, Any]:
    where = f"weapons[{i}]"
    w = _record(where, raw, ("name", "damage", "piercing", "ranged", "base_range_m",
                             "ignore_armor"))  # fmt: skip
    out: dict[str, Any] = {"name": _name(f"{where}.name", w.get("name"))}
    pierce = w.get("piercing")
    if pierce is not None:  # TC-39: "X (Y)"
        if not isinstance(pierce, list | tuple) or len(pierce) != 2:
            raise Invalid(rule="TC-39", reason="piercing_x_y", params={"where": where})
        out["damage"] = _int(f"{where}.piercing X", pierce[0], 0, 10_000)
        out["piercing"] = [out["damage"], _int(f"{where}.piercing Y", pierce[1], 0, 10_000)]
    else:
        out["damage"] = _int(f"{where}.damage", w.get("damage"), 0, 10_000)
        out["piercing"] = None
    out["ranged"] = _bool(f"{where}.ranged", w.get("ranged", False))
    out["base_range_m"] = _int(f"{where}.base_range_m", w.get("base_range_m", 0), 0, 10_000)
    out["ignore_armor"] = _bool(f"{where}.ignore_armor", w.get("ignore_armor", False))
    return out


def _tcs(i: int, raw: Any) -> dict[str, Any]:
    where = f"tcs[{i}]"
    t = _record(where, raw, ("name", "kind", "stat", "actions", "energy", "dmg_mult",
                             "ignore_armor", "damage"))  # fmt: skip
    kind = t.get("kind", "technique")
    if kind not in KINDS:
        raise Invalid(reason="kind_one_of", params={"where": where, "kinds": list(KINDS)})
    stat = t.get("stat", "MM" if kind == "spell" else None)  # TC-10, TC-AMB-32
    if kind == "spell" and stat != "MM":
        raise RuleViolation(rule="TC-10", reason="spells_test_mm", params={"where": where})
    if stat is not None and stat not in TEST_STATS:
        raise Invalid(
            rule="TC-AMB-32",
            reason="stat_one_of",
            params={"where": where, "test_stats": list(TEST_STATS)},
        )
    return {
        "name": _name(f"{where}.name", t.get("name")),
        "kind": kind,
        "stat": stat,
        "actions": _int(f"{where}.actions", t.get("actions", 1), 1, 20),  # TC-8
        "energy": _int(f"{where}.energy", t.get("energy", 0), 0, 1000),
        "dmg_mult": _int(f"{where}.dmg_mult", t.get("dmg_mult", 1), 1, 5),
        "ignore_armor": _bool(f"{where}.ignore_armor", t.get("ignore_armor", False)),
        "damage": _int(f"{where}.damage", t.get("damage", 0), 0, 10_000),
    }


def _armor(raw: Any) -> dict[str, Any]:
    a = _record("armor", raw, ("name", "levels", "end_required", "pierce_proof",
                               "requires_under", "heavy_malus"))  # fmt: skip
    levels = a.get("levels")
    if not isinstance(levels, list) or not 1 <= len(levels) <= 10:
        raise Invalid(rule="TC-42", reason="armor_levels_list_1_10")
    out_levels = []
    for i, lv in enumerate(levels):
        rec = _record(f"armor.levels[{i}]", lv, ("pr", "pp"))
        out_levels.append(
            {
                "pr": _int(f"armor.levels[{i}].pr", rec.get("pr"), 1, 10_000),
                "pp": _int(f"armor.levels[{i}].pp", rec.get("pp"), 0, 1000),
            }
        )
    first = out_levels[0]["pr"]  # TC-AMB-23: the first resistance value by default
    return {
        "name": _name("armor.name", a.get("name", "armor")),
        "levels": out_levels,
        "end_required": _int("armor.end_required", a.get("end_required", first), 0, 10_000),
        "pierce_proof": _bool("armor.pierce_proof", a.get("pierce_proof", False)),
        "requires_under": _bool("armor.requires_under", a.get("requires_under", False)),
        "heavy_malus": _int("armor.heavy_malus", a.get("heavy_malus", 0), 0, 100),  # TC-49
    }


def _under(raw: Any) -> dict[str, Any]:
    u = _record("under", raw, ("name", "pr", "pp", "end_required", "pierce_proof"))
    pr = _int("under.pr", u.get("pr"), 1, 10_000)
    return {
        "name": _name("under.name", u.get("name", "padding")),
        "pr": pr,
        "pp": _int("under.pp", u.get("pp"), 0, 1000),
        "end_required": _int("under.end_required", u.get("end_required", pr), 0, 10_000),
        "pierce_proof": _bool("under.pierce_proof", u.get("pierce_proof", False)),
    }


def _shield(raw: Any) -> dict[str, Any]:
    s = _record("shield", raw, ("name", "pr", "dodge_melee", "dodge_missile"))
    return {
        "name": _name("shield.name", s.get("name", "shield")),
        "pr": _int("shield.pr", s.get("pr"), 1, 10_000),
        "dodge_melee": _int("shield.dodge_melee", s.get("dodge_melee", 0), 0, 100),
        "dodge_missile": _int("shield.dodge_missile", s.get("dodge_missile", 0), 0, 100),
    }


def _list(name: str, raw: Any) -> list[Any]:
    if not isinstance(raw, list) or len(raw) > 20:
        raise Invalid(reason="list_most_20_entries", params={"name": name})
    return raw


def validate(sheet: Mapping[str, Any], settings: Mapping[str, Any]) -> dict[str, Any]:
    """A sheet in canonical form, or Invalid naming the rule it breaks."""
    out = stats(sheet, STATS, OTHER)
    role = sheet.get("role", "NPC")
    if role not in ("PC", "NPC"):
        raise Invalid(rule="TC-12", reason="sheet_role_pc_npc")
    out["role"] = role
    weapons = _list("weapons", sheet.get("weapons", []))
    out["weapons"] = [_weapon(i, w) for i, w in enumerate(weapons)]
    out["tcs"] = [_tcs(i, t) for i, t in enumerate(_list("tcs", sheet.get("tcs", [])))]
    for key in ("weapons", "tcs"):
        names = [x["name"] for x in out[key]]
        if len(set(names)) != len(names):
            raise Invalid(reason="names_must_unique", params={"key": key})
    skill = _record("skill", sheet.get("skill", {}), ("armor_bearing", "shield_mastery"))
    out["skill"] = {
        "armor_bearing": _int("skill.armor_bearing", skill.get("armor_bearing", 0), 0, 1000),
        "shield_mastery": _bool("skill.shield_mastery", skill.get("shield_mastery", False)),
    }
    out["armor"] = _armor(sheet["armor"]) if sheet.get("armor") is not None else None
    out["under"] = _under(sheet["under"]) if sheet.get("under") is not None else None
    out["shield"] = _shield(sheet["shield"]) if sheet.get("shield") is not None else None
    _check_load(out, settings)
    _check_magic(out, sheet)
    return out


def _check_load(out: dict[str, Any], settings: Mapping[str, Any]) -> None:
    armor, under = out["armor"], out["under"]
    if armor is not None and armor["requires_under"] and under is None:
        raise RuleViolation(
            rule="TC-51", reason="needs_under_protection", params={"armor": armor["name"]}
        )
    need = sum(p["end_required"] for p in (armor, under) if p is not None)  # TC-53
    have = out["END"] + out["skill"]["armor_bearing"]  # TC-50: Armor Bearing adds END
    if need > have and settings.get("armor.end_check", "refuse") == "refuse":
        raise RuleViolation(
            rule="TC-50", reason="armor_too_heavy", params={"need": need, "have": have}
        )
    if out["shield"] is not None and not out["skill"]["shield_mastery"]:
        raise RuleViolation(rule="TC-56", reason="shield_needs_mastery")


def _check_magic(out: dict[str, Any], sheet: Mapping[str, Any]) -> None:
    items: list[dict[str, Any]] = []
    for i, raw in enumerate(_list("items", sheet.get("items", []))):
        it = _record(f"items[{i}]", raw, ("name", "mm_req", "heal"))
        items.append(
            {
                "name": _name(f"items[{i}].name", it.get("name")),
                "mm_req": _int(f"items[{i}].mm_req", it.get("mm_req", 0), 0, 1000),
                "heal": _int(f"items[{i}].heal", it.get("heal", 0), 0, 10_000),
            }
        )
    if len({x["name"] for x in items}) != len(items):
        raise Invalid(reason="items_names_must_unique")
    out["items"] = items
    # TC-60 / TC-AMB-29: allowed, but flagged for the GM's malus.
    out["mm_overload"] = sum(x["mm_req"] for x in items) > out["MM"]
    kept: list[dict[str, Any]] = []
    for i, raw in enumerate(_list("maintained", sheet.get("maintained", []))):
        m = _record(f"maintained[{i}]", raw, ("name", "upkeep"))
        kept.append(
            {
                "name": _name(f"maintained[{i}].name", m.get("name")),
                "upkeep": _int(f"maintained[{i}].upkeep", m.get("upkeep"), 0, 1000),
            }
        )
    # TC-59: a total upkeep above MM releases every maintained spell.
    out["maintained"] = kept if sum(m["upkeep"] for m in kept) <= out["MM"] else []


def resources(out: Mapping[str, Any]) -> tuple[dict[str, int], dict[str, int]]:
    """Pools and their maxima: hp, energy, morale, armor PR and level, padding, shield."""
    res = {"hp": out["hp"], "energy": out["energy"], "morale": out["morale"]}
    top = dict(res)
    if out["armor"] is not None:
        levels = out["armor"]["levels"]
        res["armor_pr"], top["armor_pr"] = levels[0]["pr"], max(lv["pr"] for lv in levels)
        res["armor_level"], top["armor_level"] = 0, len(levels) - 1
    if out["under"] is not None:
        res["under_pr"] = top["under_pr"] = out["under"]["pr"]
    if out["shield"] is not None:
        res["shield_pr"] = top["shield_pr"] = out["shield"]["pr"]
    return res, top


SWORD = {"name": "sword", "damage": 6}
SPEAR = {"name": "spear", "piercing": [4, 2]}  # TC-65
BOW = {"name": "bow", "damage": 5, "ranged": True, "base_range_m": 30}
LEATHER = {"name": "leather cuirass", "levels": [{"pr": 30, "pp": 2}]}  # TC-66: 30 END
# TC-AMB-24: only the totals are printed (90 END, 5 PP); the split is a placeholder.
CUIRASS = {"name": "cuirass", "levels": [{"pr": 60, "pp": 3}], "requires_under": True}
GAMBESON = {"name": "gambeson", "pr": 30, "pp": 2}

PRESETS: Mapping[str, Mapping[str, Any]] = {
    # TC-67: DEX 60 attacker; TC-57 shield with melee dodge 10.
    "duelist": {"DEX": 60, "END": 40, "hp": 20, "energy": 10, "weapons": [SWORD]},
    "shield_bearer": {"DEX": 50, "END": 40, "hp": 20, "weapons": [SWORD],
                      "shield": {"name": "round shield", "pr": 20, "dodge_melee": 10,
                                 "dodge_missile": 15}, "skill": {"shield_mastery": True}},
    # TC-63: ranged PERC test of 60; TC-64: "tir habile" at 64.
    "archer": {"DEX": 40, "PERC": 60, "END": 40, "hp": 18, "weapons": [BOW, SWORD],
               "tcs": [{"name": "tir habile", "kind": "technique", "stat": "PERC"}]},
    "spearman": {"DEX": 55, "END": 45, "hp": 22, "weapons": [SPEAR]},  # TC-65
    "leather_cuirass": {"DEX": 50, "END": 30, "hp": 20, "weapons": [SWORD],
                        "armor": LEATHER},  # TC-66
    "gambeson_cuirass": {"DEX": 50, "END": 90, "hp": 25, "weapons": [SWORD],
                         "armor": CUIRASS, "under": GAMBESON},  # TC-66, TC-53
    "mage": {"DEX": 30, "END": 30, "MM": 60, "hp": 15, "energy": 20, "role": "PC",
             "tcs": [{"name": "fire bolt", "kind": "spell", "actions": 2, "damage": 8},
                     {"name": "meteor", "kind": "spell", "actions": 3, "damage": 20}]},
}  # fmt: skip
