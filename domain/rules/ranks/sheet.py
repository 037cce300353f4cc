"""ranks-d100 character sheets: validation (RK-31, RK-9..RK-11), pools (RK-24, RK-37, RK-47,
RK-51, RK-AMB-7) and the J1/J2 presets of the worked example (RK-74).

A sheet is flat so a preset can be overridden field by field:
`{"kind": "master", "STR": "E", "END": "B", "AGI": "A", "MANA_STAT": "EX", "LCK": "D",
"MAGIC": "E"}`. Optional: `rarity` 1..5 and `class` (Servants, RK-28/29), `noble_phantasms`
and `spells` (lists of `{name, rank}`, a Noble Phantasm may add `chain`, `chain_bonus` and
`hit_damage`, RK-65..67), `boosted` (stats whose EX comes from a boost, RK-31), `master`
(the name of a Servant's Master), `skills` (`{name, rank, mode, tours?}`, RK-16, RK-14:
skills), a Master's GM-declared `command_seals` (RK-39: seals), and the
current `hp`, `mana` and `luck_left` carried in from the War (campaign).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from domain.errors import Invalid, RuleViolation
from domain.rules.ranks.seals import RESOURCE as SEALS
from domain.rules.ranks.seals import validate_seals
from domain.rules.ranks.skills import validate_skills
from domain.rules.ranks.tables import Rank, check_overrides, parse_rank, value
from domain.terms import Sheet

CORE_STATS: tuple[str, ...] = ("STR", "END", "AGI", "MANA_STAT", "LCK")
KINDS = ("master", "servant")
_FIELDS = frozenset(
    {
        *CORE_STATS,
        "MAGIC",
        "NP",
        "kind",
        "rarity",
        "class",
        "noble_phantasms",
        "spells",
        "boosted",
        "elemental",
        "master",
        "hp",
        "mana",
        "luck_left",
        "half_ranks_used",
        "skills",
        "command_seals",
    }
)

PRESETS: dict[str, dict[str, Any]] = {
    # RK-74: both are Mages, hence Masters; their pools (70/100 and 60/50) follow RK-AMB-7.
    "J1": {
        "kind": "master",
        "STR": "E",
        "END": "B",
        "AGI": "A",
        "MANA_STAT": "EX",
        "LCK": "D",
        "MAGIC": "E",
    },
    "J2": {
        "kind": "master",
        "STR": "A",
        "END": "C",
        "AGI": "B",
        "MANA_STAT": "D",
        "LCK": "EX",
        "MAGIC": "E",
    },
    # A small Servant to try NPs, chains and interception with.
    "Lancer": {
        "kind": "servant",
        "STR": "B+",
        "END": "C",
        "AGI": "A",
        "MANA_STAT": "D",
        "LCK": "E",
        "NP": "B",
        "rarity": 3,
        "class": "Lancer",
        "noble_phantasms": [
            {"name": "Gae Bolg", "rank": "B"},
            {"name": "Flurry", "rank": "D", "chain": 4, "hit_damage": 20, "chain_bonus": 10},
        ],
    },
}


def pools(sheet: Mapping[str, Any], settings: Mapping[str, Any]) -> dict[str, int]:
    """Maximum HP, mana and luck uses: base + modifier (RK-24, RK-37, RK-47, RK-AMB-7, RK-51)."""
    tables = settings["tables"]
    families = settings["half_rank.value_tables"]
    end, mana = parse_rank(sheet["END"]), parse_rank(sheet["MANA_STAT"])
    return {
        "hp": int(settings["pool.base_hp"]) + value("modifier.hp", end, tables, families),
        "mana": int(settings["pool.base_mana"]) + value("modifier.mana", mana, tables, families),
        # Counts take no half-rank shift (RK-AMB-4).
        "luck": value("luck.uses", Rank(parse_rank(sheet["LCK"]).level), tables, ()),
    }


def _abilities(raw: Any, field: str, rule: str) -> list[dict[str, Any]]:
    if not isinstance(raw, list) or len(raw) > 16:
        raise Invalid(rule=rule, reason="sheet_must_list_most_16", params={"field": field})
    out: list[dict[str, Any]] = []
    for item in raw:
        if not isinstance(item, dict) or not isinstance(item.get("name"), str):
            raise Invalid(rule=rule, reason="each_sheet_needs_name_rank", params={"field": field})
        extra = set(item) - {"name", "rank", "chain", "chain_bonus", "hit_damage"}
        if extra:
            raise Invalid(
                rule=rule,
                reason="unknown_fields_sheet",
                params={"field": field, "extra": sorted(extra)},
            )
        entry: dict[str, Any] = {"name": item["name"], "rank": str(parse_rank(item.get("rank")))}
        for key, low in (("chain", 2), ("chain_bonus", 0), ("hit_damage", 0)):
            if key in item:
                if type(item[key]) is not int or not low <= item[key] <= 1000:
                    raise Invalid(
                        rule="RK-65",
                        reason="item_whole_number",
                        params={"field": field, "item": item["name"], "key": key},
                    )
                entry[key] = item[key]
        out.append(entry)
    return out


def _whole(sheet: Mapping[str, Any], key: str, low: int, high: int, rule: str) -> int | None:
    raw = sheet.get(key)
    if raw is None:
        return None
    if type(raw) is not int or not low <= raw <= high:
        raise Invalid(
            rule=rule,
            reason="sheet_must_whole_number_from",
            params={"key": key, "low": low, "high": high},
        )
    return int(raw)


def validate(sheet: Mapping[str, Any], settings: Mapping[str, Any]) -> Sheet:
    """Check a sheet against RK-2, RK-9..RK-11, RK-31, RK-52, RK-55 and give its pools."""
    check_overrides(settings["tables"])
    unknown = set(sheet) - _FIELDS
    if unknown:
        raise Invalid(reason="unknown_sheet_fields", params={"unknown": sorted(unknown)})
    kind = sheet.get("kind")
    if kind not in KINDS:
        raise Invalid(rule="RK-31", reason="sheet_kind_master_servant")
    out: dict[str, Any] = {"kind": kind}
    for stat in CORE_STATS:
        if stat not in sheet:
            raise Invalid(rule="RK-1", reason="stat_required", params={"stat": stat})
        out[stat] = str(parse_rank(sheet[stat]))
    if kind == "servant":
        if "NP" not in sheet:
            raise RuleViolation(rule="RK-52", reason="servant_needs_np")
        out["NP"] = str(parse_rank(sheet["NP"]))
        if "MAGIC" in sheet:
            # RK-55 reserves the Magic stat to Masters, yet RK-58 gives a Servant Advanced
            # Spells, whose chance is the Magic stat's (RK-55): a Servant needs one to cast
            # them. `servant.magic` chooses: `for_advanced_spells` (default) lets a Servant
            # sheet carry MAGIC for that alone; `never` refuses it, and RK-58 goes unused.
            if settings["servant.magic"] == "never":
                raise Invalid(rule="RK-55", reason="magic_stat_reserved_masters_rk")
            out["MAGIC"] = str(parse_rank(sheet["MAGIC"]))
        rarity = _whole(sheet, "rarity", 1, 5, "RK-28")
        out["rarity"] = 1 if rarity is None else rarity
        cls = sheet.get("class", "")
        if not isinstance(cls, str) or len(cls) > 40:
            raise Invalid(rule="RK-29", reason="sheet_class_short_text")
        out["class"] = cls
        master = sheet.get("master")
        if master is not None:
            if not isinstance(master, str):
                raise Invalid(rule="RK-39", reason="sheet_master_name_servant_master")
            out["master"] = master
    else:
        for servant_only in ("NP", "noble_phantasms", "rarity", "class", "master"):
            if sheet.get(servant_only) not in (None, []):  # a normalized sheet has []
                raise RuleViolation(
                    rule="RK-52",
                    reason="servants_only_field",
                    params={"servant_only": servant_only},
                )
        out["MAGIC"] = str(parse_rank(sheet.get("MAGIC", "E")))
    out["noble_phantasms"] = _abilities(
        sheet.get("noble_phantasms", []), "noble_phantasms", "RK-52"
    )
    out["spells"] = _abilities(sheet.get("spells", []), "spells", "RK-55")
    boosted = sheet.get("boosted", [])
    if not isinstance(boosted, list) or not set(boosted) <= set(CORE_STATS) | {"MAGIC"}:
        raise Invalid(rule="RK-31", reason="sheet_boosted_lists_stats_raised")
    out["boosted"] = sorted(set(boosted))
    elemental = sheet.get("elemental", False)
    if not isinstance(elemental, bool):
        raise Invalid(rule="RK-64", reason="sheet_elemental_true_for_elemental")
    if elemental:  # kept only when set, so every other sheet stays as it was
        out["elemental"] = True
    _check_ex_caps(out)
    out["skills"] = validate_skills(sheet.get("skills", []))
    seals = validate_seals(kind, sheet.get("command_seals"))
    top = pools(out, settings)
    if seals is not None:  # GM-declared: the source gives no count (seals)
        out["command_seals"] = top[SEALS] = seals
    resources = dict(top)
    for key, resource in (("hp", "hp"), ("mana", "mana"), ("luck_left", "luck")):
        current = _whole(sheet, key, 0, top[resource], "RK-24")
        if current is not None:
            out[key] = current
            resources[resource] = current
    if settings["luck.scope"] == "session":  # RK-AMB-9: uses refill per RP, not per War
        resources["luck"] = top["luck"]
    # RK-8: a stat whose half-ranks were switched earlier this Day (one RP = one Day)
    # stays spent in the Day's next encounter.
    used = sheet.get("half_ranks_used", [])
    if not isinstance(used, list) or not set(used) <= set(CORE_STATS) | {"MAGIC", "NP"}:
        raise Invalid(rule="RK-8", reason="sheet_half_ranks_used_lists")
    spent = tuple((f"half_rank.{stat}", "session", "RK-8") for stat in sorted(set(used)))
    return Sheet(out, resources, top, used=spent)


def _check_ex_caps(sheet: Mapping[str, Any]) -> None:
    """RK-31: one EX for a Master (Magic excluded), two for a Servant (NP excluded)."""
    counted = [*CORE_STATS] + (["MAGIC"] if sheet["kind"] == "servant" and "MAGIC" in sheet else [])
    ex = [s for s in counted if sheet[s] == "EX" and s not in sheet["boosted"]]
    cap = 1 if sheet["kind"] == "master" else 2
    if len(ex) > cap:
        raise RuleViolation(
            rule="RK-31", reason="too_many_ex", params={"kind": sheet["kind"], "cap": cap, "ex": ex}
        )
