"""ranks-d100 defense phase (`react`): reduction by Endurance or Agility (RK-59, RK-36,
RK-41, RK-38), counter-attacks (RK-60..RK-63, RK-66), interception (RK-39, RK-AMB-19),
forced by a Command Seal or not (seals),
blocking a flight (RK-68), or no defense."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from msgspec.structs import replace

from domain.commands import React
from domain.context import Ctx
from domain.errors import Forbidden, Refused, RuleViolation
from domain.facts import decode
from domain.rules.common.judge import succeeded
from domain.rules.ranks import payloads, seals
from domain.rules.ranks.attack import ATTACKS, Attack, pay, plan, reduced, short_of_mana
from domain.rules.ranks.bond import servants_of
from domain.rules.ranks.check import check_roll
from domain.rules.ranks.tables import order_key, parse_rank, value
from domain.state import Combatant, Pending

REDUCE = {"defend_end": "END", "defend_agi": "AGI"}


def _reduction(
    ctx: Ctx,
    cfg: Mapping[str, Any],
    who: Combatant,
    stat: str,
    table: str,
    pending: Pending,
    options: Mapping[str, Any],
) -> tuple[int, str, payloads.Defense]:
    """One roll for all the hits (RK-65, RK-AMB-13); on success each hit is reduced by the
    defender's table value at its stat rank (RK-36, RK-41, RK-AMB-11)."""
    rolled = check_roll(ctx, who.id, stat, cfg, purpose=f"{stat} reduction", options=options)
    assert rolled.check is not None
    incoming = decode(pending.detail, payloads.AttackDetail)
    hits, bonus = (incoming.hits or [pending.damage]), incoming.bonus
    info = payloads.Defense(roll=rolled.faces[0], threshold=rolled.check.threshold, stat=stat)
    if not succeeded(rolled.check):
        return pending.damage, "hit", replace(info, rule="RK-38")
    rank = parse_rank(who.sheet[stat])
    cut = value(table, rank, cfg["tables"], cfg["half_rank.value_tables"])
    taken = reduced(hits, bonus, cut, cfg)
    return taken, "reduced", replace(info, reduction=cut, rule="RK-59")


def elemental_refusal(me: Combatant, cfg: Mapping[str, Any]) -> Refused | None:
    """RK-64: an Elemental Magic user counters by rules the source leaves out; unless
    `counter.elemental_rules` is `standard`, the GM settles such a counter (RK-AMB-26)."""
    if me.sheet.get("elemental") and cfg["counter.elemental_rules"] == "gm":
        return Refused("rule_violation", rule="RK-64", reason="elemental_counter_gm")
    return None


def counter_refusal(
    me: Combatant, pending: Pending, options: Mapping[str, Any], cfg: Mapping[str, Any]
) -> tuple[Attack | None, Refused | None]:
    """The counter `options` describe, or why it is refused: every cap the resolution
    applies (RK-35/RK-49 through `plan`, RK-61, RK-66, RK-62, the mana of RK-AMB-20), so
    `legal` can offer only what `react` accepts."""
    action = options.get("action")
    if action not in ATTACKS:
        raise RuleViolation(
            rule="RK-60", reason="counter_names_attack", params={"attacks": sorted(ATTACKS)}
        )
    elemental = elemental_refusal(me, cfg)
    if elemental is not None:
        return None, elemental
    try:
        counter = plan(me, str(action), options.get("rank"), options, cfg)
    except Refused as why:
        return None, why
    incoming = decode(pending.detail, payloads.AttackDetail)
    if counter.type != incoming.type:
        return counter, Refused(
            "rule_violation",
            rule="RK-61",
            reason="counter_same_type",
            params={"type": incoming.type, "type_": counter.type},
        )
    n = len(incoming.hits or [0])
    if n > 1 and len(counter.hits) < n:
        return counter, Refused(
            "rule_violation", rule="RK-66", reason="counter_chain_length", params={"n": n}
        )
    theirs = parse_rank(str(pending.rank))
    if order_key(counter.rank) < order_key(theirs) and not cfg["counter.allow_lower_rank"]:
        return counter, Refused(
            "rule_violation",
            rule="RK-62",
            reason="counter_rank_too_low",
            params={"theirs": theirs, "rank": counter.rank},
        )
    return counter, short_of_mana(me, counter, cfg)


def _counter(
    ctx: Ctx, cfg: Mapping[str, Any], me: Combatant, pending: Pending, options: Mapping[str, Any]
) -> tuple[int, str, payloads.Defense]:
    """RK-61 same type, RK-62 at least the same rank, RK-66 chains only by longer chains;
    the counter rolls and pays as an attack and deals no damage (RK-63, RK-AMB-12)."""
    action = options.get("action")
    counter, refused = counter_refusal(me, pending, options, cfg)
    if refused is not None:
        raise refused
    assert counter is not None
    pay(ctx, me, counter, cfg)
    ranked = counter.type in ("physical", "weapon", "magic")
    rolled = check_roll(
        ctx,
        me.id,
        counter.stat,
        cfg,
        purpose=f"counter {action} {counter.rank}",
        options=options,
        action_rank=counter.rank if ranked else None,
    )
    assert rolled.check is not None
    info = payloads.Defense(
        roll=rolled.faces[0],
        threshold=rolled.check.threshold,
        counter=replace(counter.detail(), roll=rolled.faces[0],
                        threshold=rolled.check.threshold),
    )  # fmt: skip
    if succeeded(rolled.check):
        return 0, "countered", replace(info, rule="RK-63")
    return pending.damage, "hit", replace(info, rule="RK-AMB-12")


def _intercept(
    ctx: Ctx,
    cfg: Mapping[str, Any],
    master: Combatant,
    pending: Pending,
    options: Mapping[str, Any],
) -> tuple[Combatant, int, str, payloads.Defense]:
    """RK-39: the Servant takes the hit, and may only reduce it with Endurance."""
    servants = [s for s in servants_of(ctx.game, master) if s.out is None]
    if not servants:
        raise Refused(
            "rule_violation",
            rule="RK-39",
            reason="no_servant_to_intercept",
            params={"master": master},
        )
    servant = servants[0]
    forced = bool(options.get("command_seal"))  # "ou non, via un Sceau de Commandement"
    if not forced and not ctx.who.controls(servant.id):
        raise Forbidden(reason="does_not_control", params={"role": ctx.who.role, "actor": servant})
    reduce = options.get("reduce", "END")
    if reduce not in ("END", "none"):
        raise Refused("rule_violation", rule="RK-39", reason="intercept_endurance_only")
    if forced:
        seals.spend(ctx, master)
    if reduce == "none":
        return servant, pending.damage, "intercepted", payloads.Defense(rule="RK-39")
    table = f"reduction.{cfg['intercept.reduction_table']}"
    taken, outcome, info = _reduction(ctx, cfg, servant, "END", table, pending, options)
    return servant, taken, f"intercepted_{outcome}", info


def _flight(
    ctx: Ctx, cfg: Mapping[str, Any], blocker: Combatant, command: React, pending: Pending
) -> None:
    """RK-68: a higher-Agility opponent's Agility die stops the flight on a success; the
    block is free (RK-AMB-14), so the blocker may still attack this Tour (RK-69)."""
    fleer = ctx.combatant(pending.attacker)
    info = payloads.Flight(type="flight", fleer=fleer.id, blocker=blocker.id)
    blocked = False
    if command.reaction == "block_flight":
        rolled = check_roll(
            ctx,
            blocker.id,
            "AGI",
            cfg,
            purpose=f"block {fleer.name}'s flight",
            options=command.options,
        )
        blocked = succeeded(rolled.check)
        assert rolled.check is not None
        info = replace(info, roll=rolled.faces[0], threshold=rolled.check.threshold)
    elif command.reaction != "none":
        raise RuleViolation(rule="RK-68", reason="flight_answers")
    outcome = "blocked" if blocked else "not_blocked"
    ctx.answered(pending, blocker.id, command.reaction, outcome, 0, info)
    if not blocked:
        ctx.defeat(fleer.id, "fled", "RK-68")


def react(ctx: Ctx, cfg: Mapping[str, Any], command: React, pending: Pending) -> None:
    """Resolve the answer to a pending attack (or flight)."""
    me = ctx.combatant(command.actor)
    if pending.action == "flee":
        _flight(ctx, cfg, me, command, pending)
        return
    victim, reaction, options = me, command.reaction, command.options
    if reaction == "none":
        taken, outcome, info = pending.damage, "no_defense", payloads.Defense(rule="RK-59")
    elif reaction in REDUCE:
        table = f"reduction.{me.sheet['kind']}"  # the defender's kind (RK-AMB-23)
        taken, outcome, info = _reduction(ctx, cfg, me, REDUCE[reaction], table, pending, options)
    elif reaction == "counter":
        taken, outcome, info = _counter(ctx, cfg, me, pending, options)
    elif reaction == "intercept":
        victim, taken, outcome, info = _intercept(ctx, cfg, me, pending, options)
    else:
        raise RuleViolation(rule="RK-59", reason="not_an_answer", params={"reaction": reaction})
    attacker = ctx.combatant(pending.attacker)
    before = victim.resources["hp"]
    if taken:
        ctx.change(victim.id, "hp", -taken, f"hit by {attacker.name}", info.rule)
    info = replace(info, attacker=attacker.id, incoming=pending.damage, hp_before=before,
                   hp=ctx.combatant(victim.id).resources["hp"])  # fmt: skip
    ctx.answered(pending, victim.id, reaction, outcome, taken, info)
