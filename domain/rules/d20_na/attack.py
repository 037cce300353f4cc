"""d20-na resolution: an attack roll, the defender's answer, then location and damage.

The order of the dice is the table's: attack d20 (NA-11), defense d20 (NA-13, one more
for a shield's reroll, NA-9), then only if damage goes through the location d20 (NA-21)
and the weapon dice (NA-26).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import msgspec
from msgspec.structs import asdict

from domain import dice as dicelib
from domain import events as ev
from domain.commands import Act, React
from domain.context import Ctx
from domain.errors import Invalid, Refused
from domain.facts import decode, encode
from domain.rules.common import contact
from domain.rules.d20_na import combat, payloads, tables, turns
from domain.state import Combatant, Pending
from domain.terms import Outcome, TurnOver

DAMAGE_RULE = {"melee": "NA-26", "shoot": "NA-34", "throw": "NA-35"}


def target_of(command: Act) -> str | None:
    """The command's target (`target`, else the first of `targets`)."""
    if command.target is not None:
        return command.target
    return command.targets[0] if command.targets else None


def attack_options(ctx: Ctx, mode: str, options: dict[str, Any]) -> dict[str, Any]:
    """Check an attack's options: weapon, aim, distance, sneak, from_back."""
    unknown = set(options) - {"weapon", "aim", "distance", "sneak", "from_back"}
    if unknown:
        raise Invalid(reason="unknown_attack_options", params={"unknown": sorted(unknown)})
    out = dict(options)
    aim = out.get("aim")
    if aim is not None and aim not in tables.AIMABLE:
        raise Invalid(
            rule="NA-24",
            reason="cannot_aim_zones",
            params={"aim": aim, "aimable": list(tables.AIMABLE)},
        )
    distance = out.get("distance", 0)
    if type(distance) is not int or not 0 <= distance <= 100_000:
        raise Invalid(rule="NA-30", reason="distance_whole_number_metres")
    for flag in ("sneak", "from_back"):
        if type(out.get(flag, False)) is not bool:
            raise Invalid(reason="true_false", params={"flag": flag})
        if out.get(flag) and ctx.who.role != "gm":
            raise Refused(
                "forbidden", rule="NA-AMB-21", reason="only_gm_decides", params={"flag": flag}
            )
    if ctx.setting("profile") == "resolver_1v1":
        if mode in combat.RANGED:
            raise Refused("rule_violation", rule="NA-37", reason="resolver_melee_only")
        if aim:
            raise Refused("rule_violation", rule="NA-39", reason="resolver_does_not_aim")
    return out


def attack(ctx: Ctx, command: Act) -> None:
    """NA-11, NA-12: roll to hit; a hit waits for the defender unless it cannot be defended."""
    mode = combat.MODES[command.action]
    me = ctx.combatant(command.actor)
    target = ctx.combatant(target_of(command))
    if target.id == me.id or target.out is not None:
        raise Refused("rule_violation", reason="cannot_be_attacked_now", params={"target": target})
    opts = attack_options(ctx, mode, dict(command.options))
    charged = ctx.game.uses(me.id, turns.SLOT_CHARGE) > 0
    if charged and (mode != "melee" or me.status.get("charging") != target.id):
        raise Refused("rule_violation", rule="NA-8", reason="charge_ends_on_target")
    weapon = combat.pick_weapon(me.sheet, mode, opts.get("weapon"))
    if mode == "shoot" and weapon is not None and not combat.loaded(me, weapon):
        raise Refused(
            "rule_violation",
            rule="NA-AMB-23",
            reason="must_be_reloaded",
            params={"weapon": weapon["name"]},
        )
    mods = combat.attack_mods(ctx, me, mode, weapon, opts)
    kind = "charge_attack" if charged else turns.FULL
    turns.spend(ctx, me.id, kind, 2, command.action, "NA-6")
    stat = "TIR" if mode in combat.RANGED else "ATT"
    base = int(me.sheet[stat])
    purpose = f"{command.action} on {target.name}"
    face, margin, ok = combat.test_roll(ctx, me.id, stat, base, mods, purpose, "NA-11")
    if mode in ("melee", "maneuver"):
        contact.engage(ctx, me.id, target.id, "NA-8")
    if mode == "shoot" and weapon is not None and weapon["needs_reload"]:
        unloaded = sorted({*me.status.get("unloaded", []), weapon["name"]})
        ctx.status(me.id, "unloaded", unloaded, "NA-AMB-23")
    if charged:
        ctx.status(me.id, "charging", None, "NA-8")
    hand = "main"
    if not ok and mode == "melee" and me.sheet["off_hand"] and _dual_reroll_allowed(ctx):
        # NA-17: one reroll of the failed roll with the off hand, -4 unless NA-18.
        off = combat.weapon_named(me.sheet, me.sheet["off_hand"])
        extra = (
            []
            if me.sheet["skills"]["ambidextrous"]
            else [ev.Modifier(source="off hand", rule="NA-17", delta=-4)]
        )
        mods = [*mods, *extra]
        face, margin, ok = combat.test_roll(
            ctx, me.id, stat, base, mods, f"off-hand reroll on {target.name}", "NA-17"
        )
        weapon, hand = off, "off"
    threshold = face + margin  # the final threshold, the conditions' terms in (NA-15)
    if not ok:
        miss = payloads.AttackDetail(roll=face, threshold=threshold, target=target.id,
                               mode=mode, action=command.action)  # fmt: skip
        ctx.resolved(me.id, command.action, "miss", miss)
        return
    malus = combat.range_malus_of(ctx, weapon, int(opts.get("distance", 0))) if weapon else 0
    attack_ = payloads.AttackDetail(
        mode=mode,
        weapon=weapon["name"] if weapon else "",
        hand=hand,
        roll=face,
        threshold=threshold,
        margin=margin,
        aim=opts.get("aim") or "",
        range_malus=malus if mode in combat.RANGED else 0,
        malus=malus if mode in combat.RANGED else 0,
        sneak=bool(opts.get("sneak")),
        from_back=bool(opts.get("from_back")),
        target=target.id,
        action=command.action,
    )
    detail = encode(attack_)
    defenses = combat.defense_settings(ctx.setting)
    refusals = combat.defense_options(ctx.game, defenses, target.id, detail)
    options = [k for k, why in refusals.items() if why is None]
    if options:
        ctx.resolved(me.id, command.action, "hit", attack_)
        ctx.await_reaction(
            me.id, target.id, command.action, options=[*options, "none"], detail=detail
        )
        return
    why = next(r for r in refusals.values() if r is not None)
    landed = _outcome(ctx, me, target, attack_, parry_value=0)
    hit = msgspec.structs.replace(landed, undefended=why.rule or "")
    ctx.resolved(me.id, command.action, "hit", hit)


def _dual_reroll_allowed(ctx: Ctx) -> bool:
    return bool(ctx.setting("profile") != "resolver_1v1")  # NA-39: no dual wielding


def _outcome(
    ctx: Ctx, me: Combatant, target: Combatant, d: payloads.AttackDetail, parry_value: int
) -> payloads.Hit:
    """What a hit that got through does: a maneuver's effect, or damage."""
    if d.mode == "maneuver":
        # NA-AMB-22: no damage; the effect is the GM's to narrate.
        effect = _MANEUVER.get(d.action, "caught")
        return payloads.Hit(**msgspec.structs.asdict(d), effect=effect)
    return land(ctx, me, target, d, parry_value)


_MANEUVER = {"touch": "touched", "grapple": "grappled", "trip": "tripped"}


def land(
    ctx: Ctx, me: Combatant, target: Combatant, d: payloads.AttackDetail, parry_value: int
) -> payloads.Hit:
    """NA-21..NA-23 location, then NA-26/27/34/35 damage, floored (NA-AMB-20)."""
    face = 0
    zone = d.aim
    if not zone:
        rolled = ctx.roll([20], expr="1d20", purpose="hit location", actor=me.id)
        face = rolled.faces[0]
        zone = tables.location(face, d.from_back)
    weapon = combat.weapon_named(me.sheet, d.weapon) if d.weapon else None
    dealt = 0  # NA-28: no weapon, no weapon damage
    if weapon is not None:
        dealt = int(weapon["dmg"])
        if weapon["dice"]:
            expr = dicelib.parse(weapon["dice"])
            rolled = ctx.roll(
                expr.sizes,
                expr=f"{dealt}+{weapon['dice']}",
                purpose=f"{weapon['name']} damage",
                actor=me.id,
                modifier=dealt + expr.modifier,
            )
            dealt = rolled.total
    mode = d.mode
    strength, endurance = int(me.sheet["STR"]), int(target.sheet["END"])
    armor = tables.armor_at(target.sheet["armor"], zone)
    dmg = tables.damage(
        mode,
        strength=strength,
        weapon=dealt,
        endurance=endurance,
        armor=armor,
        parry_value=parry_value,
        malus=d.range_malus,
        floor=max(0, int(ctx.setting("damage.floor"))),  # a hit never heals
    )
    rule = "NA-27" if parry_value else DAMAGE_RULE[mode]
    before = target.resources["hp"]
    if dmg.total:
        ctx.change(target.id, "hp", -dmg.total, f"hit by {me.name} ({zone})", rule)
    return payloads.Hit(
        **msgspec.structs.asdict(d),
        zone=zone,
        location_roll=face,
        weapon_damage=dealt,
        terms=_terms(mode, strength, dealt, endurance, armor, parry_value, d.range_malus),
        raw=dmg.raw,
        damage=dmg.total,
        hp_before=before,
        hp=ctx.combatant(target.id).resources["hp"],
    )


def _terms(mode: str, strength: int, dealt: int, endurance: int, armor: int, parry: int,
           malus: int) -> list[payloads.Term]:  # fmt: skip
    """The damage formula's terms as t.damage adds them, named for the narrator."""
    out: list[payloads.Term] = []
    if mode in ("melee", "throw"):
        out.append(payloads.Term(name="FOR", value=strength, times=2 if mode == "melee" else 1))
    out += [payloads.Term(name="weapon", value=dealt),
            payloads.Term(name="END", value=endurance, sign=-1),
            payloads.Term(name="armor", value=armor, sign=-1)]  # fmt: skip
    if mode == "melee" and parry:
        out.append(payloads.Term(name="parry", value=parry, sign=-1))
    if mode != "melee" and malus:
        out.append(payloads.Term(name="range_malus", value=malus, times=2, sign=-1))
    return out


# --- the defender's answer --------------------------------------------------------------


def react(ctx: Ctx, command: React, pending: Pending) -> Outcome:
    """NA-13..NA-15, NA-9, NA-10, NA-32, NA-36: answer a hit, then settle its effect."""
    d = msgspec.structs.replace(
        decode(pending.detail, payloads.AttackDetail), action=pending.action
    )
    me = ctx.combatant(pending.attacker)
    target = ctx.combatant(pending.target)
    kind = command.reaction
    ranged = d.mode in combat.RANGED
    defended, ok, face, margin = False, False, None, None
    parry_item: dict[str, Any] | None = None
    if kind != "none":
        limits = combat.defense_settings(ctx.setting)
        why = combat.defense_refusal(ctx.game, limits, target.id, kind, pending.detail)
        if why is not None:
            raise why
        parry_item = _parry_item(target.sheet, command.options) if kind == "parry" else None
        cost = combat.defense_cost(ctx.game, limits, target.id, kind)
        turns.pay(ctx, target.id, cost, kind, "NA-7" if cost == 1 else "NA-6")
        key = combat.counter(limits, kind)
        ctx.use(target.id, key, "round", limits["max_per_type"], "NA-AMB-4", f"their {key}s")
        face, margin, ok = _defense_roll(ctx, target, kind, ranged, parry_item)
        tie = str(ctx.setting("differential.tie"))
        defended = ok and tables.defense_wins(int(d.margin or 0), margin, tie)
    parry_value = 0
    if kind == "parry" and d.mode == "melee" and parry_item is not None:
        still = ok and ctx.setting("differential.attack_prevails") == "parry_still_reduces"
        if defended or still:
            parry_value = int(parry_item["parry"])
    if defended and (kind == "dodge" or ranged):
        outcome, landed = ("dodged" if kind == "dodge" else "stopped"), payloads.Hit(**asdict(d))
    elif defended and d.mode == "maneuver":
        outcome, landed = "resisted", payloads.Hit(**asdict(d))
    else:
        outcome = "parried" if parry_value else "hit"
        landed = _outcome(ctx, me, target, d, parry_value)
    answer = payloads.Defended(**asdict(landed), defense_roll=face, defense_margin=margin,
                         defense_threshold=None if face is None or margin is None
                         else face + margin,  # NA-15: margin = stat - roll
                         defense_success=ok, defended=defended)  # fmt: skip
    ctx.answered(pending, target.id, kind, outcome, landed.damage, answer)
    if ctx.game.actor == me.id and combat.pending_of(ctx.game, me.id) is None:
        return TurnOver(me.id)  # an attack is a full action: its slot is over (NA-AMB-3)
    return None


def _parry_item(sheet: dict[str, Any], options: dict[str, Any]) -> dict[str, Any] | None:
    """NA-AMB-27: the shield if carried, else the weapon (or the one named in options)."""
    name = options.get("weapon")
    if name is not None:
        weapon = combat.weapon_named(sheet, name) if isinstance(name, str) else None
        if weapon is None or weapon["kind"] == "shoot":
            raise Invalid(reason="cannot_parry_with", params={"name": name})
        return weapon
    shield: dict[str, Any] | None = sheet["shield"]
    return shield if shield is not None else combat.main_weapon(sheet)


def _defense_roll(
    ctx: Ctx, target: Combatant, kind: str, ranged: bool, item: dict[str, Any] | None
) -> tuple[int, int, bool]:
    """NA-10 dodge on HAB (HAB/2 unskilled), NA-13 parry on PAR (PAR/2 vs projectiles)."""
    sheet = target.sheet
    mods: list[ev.Modifier] = []
    if kind == "dodge":
        stat, base, rule = "HAB", int(sheet["HAB"]), "NA-10"
        if not sheet["skills"]["dodge"]:
            half = base // max(1, int(ctx.setting("dodge.unskilled_divisor")))
            mods.append(ev.Modifier(source="no Dodge skill", rule="NA-10", delta=half - base))
    else:
        stat, base, rule = "PAR", int(sheet["PAR"]), "NA-13"
        if ctx.setting("parry.roll_stat") == "item_value":  # NA-AMB-6 alternative
            stat, base = "parry value", int(item["parry"]) if item else 0
        if ranged:
            mods.append(ev.Modifier(source="projectile", rule="NA-32", delta=base // 2 - base))
    face, margin, ok = combat.test_roll(ctx, target.id, stat, base, mods, kind, rule)
    shield = sheet["shield"]
    rerolls = int(ctx.setting("shield.parry_reroll"))
    while not ok and kind == "parry" and shield is not None and item is shield and rerolls > 0:
        # NA-9, NA-AMB-7: a shield gives a free reroll of a failed parry; the last one stands.
        face, margin, ok = combat.test_roll(
            ctx, target.id, stat, base, mods, "shield reroll", "NA-9"
        )
        rerolls -= 1
    return face, margin, ok


def range_malus(detail: Mapping[str, Any]) -> int:
    """The NA-30 range malus an attack's detail holds: `range_malus`, or `malus` in the
    events written before that field had its name."""
    return int(detail.get("range_malus", detail.get("malus", 0)))
