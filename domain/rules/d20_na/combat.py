"""d20-na attacks and defenses: rolls, the differential, location and damage.

NA-11..NA-15 attack roll, defense roll, differential; NA-17/NA-18 the dual-wield reroll;
NA-20 attacks that cannot be defended; NA-21..NA-25 location and aiming; NA-26..NA-28
melee damage; NA-29..NA-36 ranged attacks; NA-AMB-22 maneuvers (touch, grapple, trip).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from domain import conditions
from domain import events as ev
from domain.context import Ctx
from domain.errors import Invalid, Refused
from domain.rules.common import contact
from domain.rules.common.judge import roll_under
from domain.rules.d20_na import tables, turns
from domain.state import Combatant, Game, Pending

MODES = {
    "attack": "melee",
    "shoot": "shoot",
    "throw": "throw",
    "touch": "maneuver",
    "grapple": "maneuver",
    "trip": "maneuver",
}
RANGED = ("shoot", "throw")


# --- weapons ---------------------------------------------------------------------------


def weapon_named(sheet: dict[str, Any], name: str) -> dict[str, Any] | None:
    return next((w for w in sheet["weapons"] if w["name"] == name), None)


def main_weapon(sheet: dict[str, Any]) -> dict[str, Any] | None:
    """The first weapon usable in melee that is not the off-hand one (None: unarmed)."""
    return next(
        (w for w in sheet["weapons"] if w["kind"] != "shoot" and w["name"] != sheet["off_hand"]),
        None,
    )


def pick_weapon(sheet: dict[str, Any], mode: str, name: Any) -> dict[str, Any] | None:
    """The weapon an attack uses; NA-31 keeps shooting weapons out of melee."""
    if name is not None:
        if not isinstance(name, str) or weapon_named(sheet, name) is None:
            raise Invalid(reason="no_weapon_on_sheet", params={"name": name})
        weapon = weapon_named(sheet, name)
        assert weapon is not None
    elif mode in ("melee", "maneuver"):
        return main_weapon(sheet) if mode == "melee" else None
    else:
        weapon = next((w for w in sheet["weapons"] if w["kind"] == mode), None)
        if weapon is None:
            rule = "NA-35" if mode == "throw" else "NA-29"
            raise Refused(
                "rule_violation", rule=rule, reason="no_weapon_of_mode", params={"mode": mode}
            )
    if mode == "melee" and weapon["kind"] == "shoot":
        raise Refused("rule_violation", rule="NA-31", reason="shooting_weapon_in_melee")
    if mode in RANGED and weapon["kind"] != mode:
        raise Refused(
            "rule_violation",
            rule="NA-31",
            reason="not_a_weapon_of_mode",
            params={"weapon": weapon["name"], "mode": mode},
        )
    return weapon


def loaded(who: Combatant, weapon: dict[str, Any]) -> bool:
    """NA-AMB-23: a weapon that needs reloading is unloaded after each shot."""
    return weapon["name"] not in who.status.get("unloaded", [])


def engaged(game: Game, cid: str) -> list[str]:
    """NA-8: who `cid` is in melee with (still fighting)."""
    return [o for o in contact.in_contact(game, cid) if o in game.active()]


# --- rolls -----------------------------------------------------------------------------


def test_roll(
    ctx: Ctx,
    who: str,
    stat: str,
    base: int,
    mods: list[ev.Modifier],
    purpose: str,
    rule: str,
) -> tuple[int, int, bool]:
    """A d20 roll-under test (NA-11, NA-AMB-1): (face, margin, success). The GM-declared
    modifiers of the tester's conditions count too (NA-AMB-22: a maneuver's effect, such
    as grappled or prone, is the GM's to define)."""
    mods = [*mods, *conditions.modifiers(ctx.combatant(who), "NA-AMB-22")]
    threshold = base + sum(m.delta for m in mods)
    cmp = str(ctx.setting("test.success_cmp"))

    def verdict(face: int, limit: int) -> str:
        return "success" if tables.succeeds(face, limit, cmp) else "failure"

    judge = roll_under(stat, base, mods, rule, verdict, threshold=threshold, margin=tables.margin)
    rolled = ctx.roll([20], expr="1d20", purpose=purpose, actor=who, judge=judge)
    face = rolled.faces[0]
    return face, tables.margin(face, threshold), tables.succeeds(face, threshold, cmp)


def attack_mods(
    ctx: Ctx, attacker: Combatant, mode: str, weapon: dict[str, Any] | None, opts: dict[str, Any]
) -> list[ev.Modifier]:
    """Charge (NA-8), aiming (NA-24, NA-25, NA-33), range (NA-30), unaimed (NA-AMB-10)."""
    mods: list[ev.Modifier] = []
    skills = attacker.sheet["skills"]
    if ctx.game.uses(attacker.id, turns.SLOT_CHARGE):
        mods.append(ev.Modifier(source="charge", rule="NA-8", delta=2))
    skill = "precise_shot" if mode in RANGED else "precise_strike"
    aim = opts.get("aim")
    if aim:
        net = tables.net_aim_malus(aim, int(skills[skill]))
        rule = "NA-33" if mode in RANGED else "NA-25"
        mods.append(ev.Modifier(source=f"aim at {aim}", rule=rule, delta=-net))
    elif int(ctx.setting("location.unaimed_malus")) and not skills[skill]:
        unaimed = int(ctx.setting("location.unaimed_malus"))
        mods.append(ev.Modifier(source="unaimed", rule="NA-AMB-10", delta=-unaimed))
    if mode in RANGED and weapon is not None:
        malus = range_malus_of(ctx, weapon, int(opts.get("distance", 0)))
        if malus:
            mods.append(ev.Modifier(source="range", rule="NA-30", delta=-malus))
    return mods


def range_malus_of(ctx: Ctx, weapon: dict[str, Any], distance: int) -> int:
    rounding = str(ctx.setting("range.band_rounding"))
    return tables.range_malus(distance, weapon["range_step"], weapon["range_band_m"], rounding)


# --- defenses --------------------------------------------------------------------------


def can_parry_projectile(requires: str, sheet: dict[str, Any]) -> bool:
    """NA-32, NA-AMB-19: only with a shield, or a GM-approved object readied before."""
    if sheet["shield"] is not None:
        return True
    return bool(sheet["cover_object"]) and requires == "shield_or_approved_object"


def defense_options(
    game: Game, settings: dict[str, Any], target: str, detail: dict[str, Any]
) -> dict[str, Refused | None]:
    """Each defense `target` could take against this hit, with why not (None: it can)."""
    return {k: defense_refusal(game, settings, target, k, detail) for k in ("parry", "dodge")}


def defense_refusal(
    game: Game, settings: dict[str, Any], cid: str, kind: str, detail: dict[str, Any]
) -> Refused | None:
    """Why `cid` cannot answer this hit with `kind` (None: it can)."""
    if detail.get("sneak") or detail.get("from_back"):
        return Refused("rule_violation", rule="NA-20", reason="cannot_be_defended")
    sheet = game.combatants[cid].sheet
    ranged = detail["mode"] in RANGED
    if kind == "dodge" and ranged:
        return Refused("rule_violation", rule="NA-32", reason="ranged_not_dodged")
    if kind == "parry" and ranged and not can_parry_projectile(settings["ranged_parry"], sheet):
        return Refused("rule_violation", rule="NA-20", reason="projectile_shield_only")
    used = game.uses(cid, counter(settings, kind))
    if used >= settings["max_per_type"]:
        params = {"limit": used, "defense": counter(settings, kind)}
        return Refused("limit_reached", rule="NA-AMB-4", reason="defenses_per_round", params=params)
    cost = defense_cost(game, settings, cid, kind)
    left = turns.budget(game, cid)
    if cost > left:
        return Refused(
            "budget_exhausted",
            rule="NA-AMB-3",
            reason="defense_now_costs",
            params={"action": kind, "cost": cost, "left": left},
        )
    return None


def defense_settings(get: Callable[[str], Any]) -> dict[str, Any]:
    """The settings defenses read, from `ctx.setting` or a settings dict's `__getitem__`."""
    return {
        "ranged_parry": get("ranged_parry.requires"),
        "max_per_type": int(get("defense.max_per_type")),
        "shared": get("defense.counter_scope") == "per_round_shared",
    }


def counter(settings: dict[str, Any], kind: str) -> str:
    """NA-AMB-4: the round counter a defense counts on (per type, or one shared)."""
    return "defense" if settings["shared"] else kind


def defense_cost(game: Game, settings: dict[str, Any], cid: str, kind: str) -> int:
    """NA-6, NA-7: the first defense is a half-action, the next ones full actions."""
    return 1 if game.uses(cid, counter(settings, kind)) == 0 else 2


def pending_of(game: Game, attacker: str) -> Pending | None:
    """The hit of `attacker` still waiting for its defender's answer, if any."""
    return next((p for p in game.pending if p.attacker == attacker), None)
