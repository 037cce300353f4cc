"""d100-tcs attacks and spells: the test with every modifier, criticals, friendly fire,
opportunity attacks, and melee contact (TC-2, TC-10..TC-18, TC-23, TC-26, TC-49, TC-57).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from domain import events as ev
from domain.context import Ctx
from domain.facts import decode
from domain.rules.common import contact
from domain.rules.tcs import payloads
from domain.rules.tcs.damage import Hit, apply_hit, hit_shield, make_hit, shield_ok
from domain.rules.tcs.tables import Test
from domain.state import Combatant, Game

# TC-27, TC-AMB-3: the condition a disengage puts on its actor until its next turn starts.
NO_AOO = "no_aoo"

# --- reading ---------------------------------------------------------------------------


def weapon_of(c: Combatant) -> dict[str, Any] | None:
    """The weapon in hand: the one last switched to (TC-19), else the first listed."""
    weapons: list[dict[str, Any]] = c.sheet["weapons"]
    name = c.status.get("weapon")
    for w in weapons:
        if w["name"] == name:
            return w
    return weapons[0] if weapons else None


def tcs_named(c: Combatant, name: Any, kinds: tuple[str, ...]) -> dict[str, Any] | None:
    for t in c.sheet["tcs"]:
        if t["name"] == name and t["kind"] in kinds:
            return dict(t)
    return None


def fleeing(c: Combatant) -> bool:
    return c.status.get("fleeing") is not None


def engaged(game: Game, cid: str) -> list[str]:
    """Conscious, non-fleeing combatants in melee contact with `cid`."""
    out = []
    for other in contact.in_contact(game, cid):
        c = game.combatants.get(other)
        if c is not None and c.out is None and not fleeing(c):
            out.append(other)
    return out


def distance_to(c: Combatant, options: Mapping[str, Any], cfg: Mapping[str, Any]) -> int:
    """The shot's distance: given, or TC-AMB-15's assumed gap for a fleer."""
    if "distance" in options:
        return int(options["distance"])
    if fleeing(c):
        fled = int(cfg["flee.ranged_rounds"]) - int(c.status["fleeing"]) + 1
        return fled * int(cfg["flee.distance_per_round_m"])
    return 0


# --- the test --------------------------------------------------------------------------


def build_test(
    ctx: Ctx, cfg: Mapping[str, Any], me: Combatant, foe: Combatant | None, stat: str,
    options: Mapping[str, Any], *, ranged: bool, basic: bool, base_range: int = 0,
) -> Test:  # fmt: skip
    """TC-2 stat, then the additive modifiers, then TC-AMB-8's long-range scaling; a focus
    bonus is spent on this test (TC-26)."""
    test = test_of(cfg, me, foe, stat, options, ranged=ranged, basic=basic,
                   base_range=base_range)  # fmt: skip
    if not basic and me.status.get("focus") is not None:
        ctx.status(me.id, "focus", None, "TC-26")
    return test


def test_of(
    cfg: Mapping[str, Any], me: Combatant, foe: Combatant | None, stat: str,
    options: Mapping[str, Any], *, ranged: bool, basic: bool, base_range: int = 0,
) -> Test:  # fmt: skip
    """The test `build_test` rolls, read from the state alone (what `legal` shows)."""
    test = Test(stat, int(me.sheet[stat]))
    armor = me.sheet["armor"]
    if armor is not None and stat in ("DEX", "PERC"):
        test.add(f"{armor['name']} (heavy)", -armor["heavy_malus"], "TC-49")
    if not basic:
        if options.get("encircled") is True:
            test.add("encircled target", int(cfg["encircle.bonus"]), "TC-16")
        focus = me.status.get("focus")
        if focus is not None:
            test.add("focus", int(focus["bonus"]), "TC-26")
    situational = options.get("situational")
    if isinstance(situational, int) and situational:
        test.add("situational (GM)", situational, "TC-15")
    test.conditions(me)
    at_bearer = options.get("at", "bearer") == "bearer"
    # TC-24, TC-AMB-11: a prone bearer loses the shield's dodge
    if foe is not None and at_bearer and shield_ok(foe) and not foe.status.get("prone"):
        shield = foe.sheet["shield"]
        dodge = shield["dodge_missile"] if ranged else shield["dodge_melee"]
        test.add(f"{shield['name']} dodge", -dodge, "TC-57")
    if foe is not None and ranged and base_range and distance_to(foe, options, cfg) > base_range:
        test.scale("long range", int(cfg["long_range.factor_pct"]), "TC-18")
    return test


def _resolved(ctx: Ctx, actor: str, action: str, outcome: str, detail: dict[str, Any]) -> None:
    # The facts the hit helpers gathered, checked against the Struct.
    ctx.resolved(actor, action, outcome, decode(detail, payloads.Deed))


def attack(
    ctx: Ctx, cfg: Mapping[str, Any], actor: str, target: str, options: Mapping[str, Any],
    *, basic: bool = False, action: str = "attack",
) -> str:  # fmt: skip
    """One weapon TCS (or a basic attack) on `target`; returns the roll's outcome."""
    me, foe = ctx.combatant(actor), ctx.combatant(target)
    weapon = weapon_of(me)
    assert weapon is not None
    tcs = None if basic else tcs_named(me, options.get("tcs"), ("technique", "skill"))
    ranged = bool(weapon["ranged"])
    stat = (tcs or {}).get("stat") or ("PERC" if ranged else "DEX")  # TC-AMB-32
    if tcs is not None and tcs["energy"]:
        ctx.change(actor, "energy", -tcs["energy"], tcs["name"], "TC-8")
    test = build_test(ctx, cfg, me, foe, stat, options, ranged=ranged, basic=basic,
                      base_range=weapon["base_range_m"])  # fmt: skip
    label = tcs["name"] if tcs else ("opportunity attack" if action != "attack" else "attack")
    roll = ctx.roll([100], expr="d100", purpose=f"{label} on {foe.name}", actor=actor,
                    judge=test.judge(cfg))  # fmt: skip
    assert roll.check is not None
    outcome = roll.check.outcome
    mult = tcs["dmg_mult"] if tcs else 1
    ignore = int(weapon["ignore_armor"]) + int(bool(tcs and tcs["ignore_armor"]))
    y = weapon["piercing"][1] if weapon["piercing"] else None
    hit = make_hit(weapon["damage"], y, mult, ignore, outcome == "critical_success")
    detail: dict[str, Any] = {"roll": roll.faces[0], "threshold": roll.check.threshold,
                              "target": target, "label": tcs["name"] if tcs else ""}  # fmt: skip
    before = foe.resources["hp"]
    landed = outcome in ("success", "critical_success")
    if not ranged and (landed or cfg["aoo.engage_on"] == "attempt"):
        # TC-23: the attacker now faces the target (the geometry of TC-AMB-9 is the GM's)
        contact.engage(ctx, actor, target, "TC-23")
    if landed:
        if options.get("at") == "shield":
            detail |= hit_shield(ctx, target, hit, f"{label} by {me.name}")
        else:
            detail |= apply_hit(ctx, cfg, target, hit, f"{label} by {me.name}")
            detail |= {"hp_before": before, "hp": ctx.combatant(target).resources["hp"]}
    elif outcome == "critical_failure":
        detail |= fumble(ctx, cfg, me, make_hit(weapon["damage"], y, mult, ignore, False))
    elif ranged:
        detail |= friendly_fire(ctx, cfg, me, foe, roll.faces[0], test.threshold, hit)
    _resolved(ctx, actor, action, outcome, detail)
    return outcome


def cast(ctx: Ctx, cfg: Mapping[str, Any], actor: str, spell: dict[str, Any],
         target: str | None, options: Mapping[str, Any]) -> str:  # fmt: skip
    """TC-9, TC-10: the casting roll on MM once the spell is prepared."""
    me = ctx.combatant(actor)
    foe = ctx.combatant(target) if target is not None else None
    test = build_test(ctx, cfg, me, foe, "MM", options, ranged=False, basic=False)
    roll = ctx.roll([100], expr="d100", purpose=f"casting {spell['name']}", actor=actor,
                    judge=test.judge(cfg))  # fmt: skip
    assert roll.check is not None
    outcome = roll.check.outcome
    detail: dict[str, Any] = {"roll": roll.faces[0], "threshold": roll.check.threshold,
                              "spell": spell["name"], "target": target or ""}  # fmt: skip
    ignore = int(spell["ignore_armor"])
    if outcome in ("success", "critical_success") and foe is not None and spell["damage"]:
        hit = make_hit(spell["damage"], None, spell["dmg_mult"], ignore,
                       outcome == "critical_success")  # fmt: skip
        before = foe.resources["hp"]
        detail |= apply_hit(ctx, cfg, foe.id, hit, f"{spell['name']} by {me.name}")
        detail |= {"hp_before": before, "hp": ctx.combatant(foe.id).resources["hp"]}
    elif outcome == "critical_failure" and spell["damage"]:
        detail |= fumble(ctx, cfg, me, make_hit(spell["damage"], None, spell["dmg_mult"],
                                                ignore, False))  # fmt: skip
    _resolved(ctx, actor, "cast", outcome, detail)
    return outcome


def fumble(ctx: Ctx, cfg: Mapping[str, Any], me: Combatant, hit: Hit) -> dict[str, Any]:
    """TC-12, TC-14, TC-AMB-2, TC-AMB-18: a PC rolls on the GM's d10 table once it is
    filled; otherwise the action's damage turns on the actor (a PC too, unless
    `crit.pc_fallback` is `none`). An NPC never rolls on the table (TC-14)."""
    table = cfg["crit.table_d10"]
    if me.sheet["role"] == "PC" and isinstance(table, list) and len(table) == 10:
        face = ctx.roll([10], expr="1d10", purpose="critical table", actor=me.id).faces[0]
        return {"fumble": "table", "crit_table": face, "effect": str(table[face - 1])}
    if me.sheet["role"] == "PC" and cfg["crit.pc_fallback"] == "none":
        return {"fumble": "none"}
    before = me.resources["hp"]
    out = apply_hit(ctx, cfg, me.id, hit, f"{me.name}'s own fumble")
    blow = {**out, "hp_before": before, "hp": ctx.combatant(me.id).resources["hp"]}
    return {"fumble": "self", "self_hp_loss": out["hp_loss"], "self_blow": blow}


def friendly_fire(ctx: Ctx, cfg: Mapping[str, Any], me: Combatant, foe: Combatant,
                  face: int, threshold: int, hit: Hit) -> dict[str, Any]:  # fmt: skip
    """TC-17, TC-AMB-6, TC-AMB-7: a failed shot from threshold+1 to threshold+10 (never
    above 100) hits an ally in contact with the target, picked at random."""
    if not threshold < face <= min(threshold + int(cfg["friendly_fire.window"]), 100):
        return {}
    game = ctx.game
    allies = [c for c in engaged(game, foe.id)
              if game.combatants[c].side == me.side and c != me.id]  # fmt: skip
    if not allies:
        return {}
    ally = allies[0]
    if len(allies) > 1:
        pick = ctx.roll([len(allies)], expr=f"1d{len(allies)}", purpose="friendly fire: ally",
                        actor=me.id)  # fmt: skip
        ally = allies[pick.faces[0] - 1]
    before = game.combatants[ally].resources["hp"]
    out = apply_hit(ctx, cfg, ally, hit, f"friendly fire from {me.name}")
    blow = {**out, "hp_before": before, "hp": ctx.combatant(ally).resources["hp"]}
    return {"friendly_fire": ally, "ally_hp_loss": out["hp_loss"], "ally_blow": blow}


def opportunity(ctx: Ctx, cfg: Mapping[str, Any], mover: str) -> None:
    """TC-23, TC-AMB-10: moving away from a foe in contact gives that foe one free basic
    attack (per round or turn), before the move; none after a disengage (TC-27)."""
    me = ctx.combatant(mover)
    if me.status.get("disengaged") or fleeing(me):  # TC-27, TC-37
        return
    for foe_id in engaged(ctx.game, mover):
        foe = ctx.combatant(foe_id)
        if foe.status.get("no_aoo") or NO_AOO in foe.conditions or foe.status.get("prone"):
            continue
        if ctx.game.uses(foe_id, "aoo") >= int(cfg["aoo.max"]):
            continue
        weapon = weapon_of(foe)
        if weapon is None or weapon["ranged"] or me.out is not None:
            continue
        ctx.emit(ev.LimitUsed(combatant_id=foe_id, key="aoo", scope=str(cfg["aoo.per"]),
                              rule="TC-23"))  # fmt: skip
        attack(ctx, cfg, foe_id, mover, {}, basic=True, action="opportunity_attack")
