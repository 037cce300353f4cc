"""d100-tcs damage: piercing, armor PR/PP and degradation, under-protection, shields,
armor-ignoring, and the last stand (TC-28, TC-39..TC-47, TC-52..TC-58).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from domain.context import Ctx
from domain.errors import Refused
from domain.rules.common.judge import succeeded
from domain.rules.tcs.tables import Test
from domain.state import Combatant


@dataclass(frozen=True)
class Hit:
    """Raw damage of one hit, multiplier and critical already applied (TC-11, TC-47)."""

    x: int
    y: int | None = None  # piercing: the damage against a protected target (TC-39)
    ignore: int = 0  # armor-ignoring on 0, 1 or 2 of weapon and TCS (TC-46, TC-47)


def make_hit(x: int, y: int | None, mult: int, ignore: int, crit: bool) -> Hit:
    """TC-47: both armor-ignoring moves the multiplier up one step; TC-AMB-17: a
    critical success doubles the raw damage (X and Y alike)."""
    step = mult + 1 if ignore >= 2 else mult
    factor = step * (2 if crit else 1)
    return Hit(x * factor, None if y is None else y * factor, min(ignore, 2))


def armor_broken(c: Combatant) -> bool:
    """TC-44: PR at zero with no degradation level left."""
    armor = c.sheet["armor"]
    if armor is None:
        return True
    last = len(armor["levels"]) - 1
    return c.resources["armor_level"] >= last and c.resources["armor_pr"] <= 0


def under_ok(c: Combatant) -> bool:
    """TC-54: an under-protection with PR left."""
    return c.sheet["under"] is not None and c.resources["under_pr"] > 0


def shield_ok(c: Combatant) -> bool:
    """TC-58: a shield with PR left."""
    return c.sheet["shield"] is not None and c.resources["shield_pr"] > 0


def _wear_armor(ctx: Ctx, c: Combatant, amount: int, why: str) -> str:
    """TC-43, TC-44, TC-AMB-20: PR first; a degradation starts the next level at full PR
    and discards the overflow; the last level at zero is broken."""
    pr, level = c.resources["armor_pr"], c.resources["armor_level"]
    levels = c.sheet["armor"]["levels"]
    if pr - amount > 0:
        ctx.change(c.id, "armor_pr", -amount, why, "TC-43")
        return "held"
    if level < len(levels) - 1:
        ctx.change(c.id, "armor_level", 1, why, "TC-44")
        ctx.change(c.id, "armor_pr", levels[level + 1]["pr"] - pr, why, "TC-44")
        return "degraded"
    ctx.change(c.id, "armor_pr", -pr, why, "TC-44")
    return "broken"


def _wear_under(ctx: Ctx, c: Combatant, amount: int, why: str, rule: str) -> bool:
    """Lower the under-protection's PR; True if that broke it (TC-54)."""
    ctx.change(c.id, "under_pr", -amount, why, rule)
    return c.resources["under_pr"] <= 0


def apply_hit(ctx: Ctx, cfg: Mapping[str, Any], tid: str, hit: Hit, why: str) -> dict[str, Any]:
    """Route one hit through the target's protections to its HP; returns the detail."""
    t = ctx.combatant(tid)
    armor, under = t.sheet["armor"], t.sheet["under"]
    a_ok, u_ok = not armor_broken(t), under_ok(t)
    pierce = hit.y is not None
    dmg = hit.y if hit.y is not None and (a_ok or u_ok) else hit.x  # TC-39
    proof = (a_ok and armor["pierce_proof"]) or (u_ok and under["pierce_proof"])
    floor = 1 if pierce and not proof else 0  # TC-40, TC-AMB-19
    detail: dict[str, Any] = {"damage": dmg}
    if hit.ignore >= 2:  # TC-47, TC-AMB-22: armor PR untouched
        loss = dmg
        if u_ok:
            if cfg["ignore_armor.double.routing"] == "parallel":
                _wear_under(ctx, t, dmg, why, "TC-47")
            else:
                absorbed = min(t.resources["under_pr"], dmg)
                _wear_under(ctx, t, absorbed, why, "TC-47")
                loss = dmg - absorbed
        rule = "TC-47"
    elif hit.ignore == 1:  # TC-46, TC-AMB-21: no PP; the PRs take the damage
        if a_ok:
            detail["armor"] = _wear_armor(ctx, t, dmg, why)
        if u_ok and cfg["ignore_armor.single.under_pr"]:
            _wear_under(ctx, t, dmg, why, "TC-52")
        loss, rule = dmg, "TC-46"
    else:
        pp = 0
        if a_ok:
            old_pp = armor["levels"][t.resources["armor_level"]]["pp"]
            wear = hit.x if pierce and cfg["piercing.pr_damage"] == "X" else dmg
            state = _wear_armor(ctx, t, wear, why)
            detail["armor"] = state
            pp += int(cfg["armor.breaking_hit_pp"]) if state == "broken" else old_pp
            pp += under["pp"] if u_ok else 0  # TC-53: padding PP stacks
        elif u_ok:  # TC-52: padding wears only once the armor is gone
            pp = 0 if _wear_under(ctx, t, dmg, why, "TC-52") else under["pp"]
        detail["pp"] = pp
        loss, rule = max(0, dmg - pp), "TC-45"
    loss = max(floor, loss)
    detail["hp_loss"] = loss
    detail["last_stand"] = lose_hp(ctx, cfg, tid, loss, why, rule)
    return detail


def hit_shield(ctx: Ctx, tid: str, hit: Hit, why: str) -> dict[str, Any]:
    """TC-57: the shield absorbs all the damage; TC-41: only Y if piercing."""
    amount = hit.y if hit.y is not None else hit.x
    ctx.change(tid, "shield_pr", -amount, why, "TC-41" if hit.y is not None else "TC-57")
    broken = not shield_ok(ctx.combatant(tid))
    return {"damage": amount, "shield": "broken" if broken else "held", "hp_loss": 0}


def lose_hp(ctx: Ctx, cfg: Mapping[str, Any], tid: str, loss: int, why: str, rule: str) -> str:
    """TC-28, TC-AMB-12: losing the last HP from 2+ HP allows an END test: success
    stays at 1 HP, prone; failure is out of combat. Returns '', 'stood' or 'fell'."""
    t = ctx.combatant(tid)
    old = t.resources["hp"]
    if loss <= 0:
        return ""
    eligible = t.sheet["role"] == "PC" or bool(cfg["last_stand.npc"])
    if old - loss > 0 or old < int(cfg["last_stand.min_hp_before"]) or not eligible:
        ctx.change(tid, "hp", -loss, why, rule)
        _down(ctx, tid)
        return ""
    test = Test("END", int(t.sheet["END"]), "TC-28").conditions(t)
    roll = ctx.roll([100], expr="d100", purpose="last stand", actor=tid, judge=test.judge(cfg))
    if succeeded(roll.check):
        ctx.change(tid, "hp", 1 - old, why, "TC-28")
        ctx.status(tid, "prone", True, "TC-28")
        return "stood"
    ctx.change(tid, "hp", -old, why, "TC-28")
    _down(ctx, tid)
    return "fell"


def _down(ctx: Ctx, tid: str) -> None:
    """TC-28: out of combat at once, so a declared second action sees it (TC-AMB-35)."""
    if ctx.combatant(tid).resources["hp"] <= 0:
        ctx.defeat(tid, "out of combat", "TC-28")


def repair(ctx: Ctx, combatant: str, pr: int | None, reason: str) -> None:
    """TC-48: armor regains PR, "and even PP": PR fills the current degradation level,
    and what is left climbs to the better level (its PP back), up to the intact armor.
    The source gives no price or duration ("a costly service"): the GM decides
    when it happens, outside the fight or not."""
    c = ctx.combatant(combatant)
    armor = c.sheet["armor"]
    if armor is None:
        raise Refused("rule_violation", rule="TC-48", reason="wears_no_armor", params={"who": c})
    levels = armor["levels"]
    level, now = c.resources["armor_level"], c.resources["armor_pr"]
    left = pr if pr is not None else sum(lv["pr"] for lv in levels)
    start = (level, now)
    why = f"armor repaired{': ' + reason if reason else ''}"
    while left > 0:
        top = levels[level]["pr"]
        step = min(left, top - now)
        now, left = now + step, left - step
        if left <= 0 or level == 0:
            break
        level, now = level - 1, 0  # the better level comes back, with its PP (TC-48)
    if (level, now) == start:
        raise Refused("rule_violation", rule="TC-48", reason="armor_intact", params={"who": c})
    if level != start[0]:
        ctx.change(c.id, "armor_level", level - start[0], why, "TC-48")
    if now != start[1]:
        ctx.change(c.id, "armor_pr", now - start[1], why, "TC-48")
