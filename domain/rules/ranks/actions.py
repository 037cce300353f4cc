"""ranks-d100 actions (`act`): attacks (RK-32..RK-58), the Luck die (RK-50, RK-51, RK-19),
flight (RK-68, RK-69) and mana transfer (RK-30)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import msgspec

from domain.commands import Act
from domain.context import Ctx
from domain.errors import Invalid, Refused
from domain.facts import encode
from domain.rules.common.judge import succeeded
from domain.rules.ranks import payloads
from domain.rules.ranks.attack import ATTACKS, pay, plan
from domain.rules.ranks.bond import bonded, servants_of
from domain.rules.ranks.check import check_roll
from domain.rules.ranks.tables import Rank, order_key, parse_rank, value
from domain.state import Combatant, Game

DEFENSES = ["defend_end", "defend_agi", "counter"]


def spend_complex(ctx: Ctx, cid: str, cfg: Mapping[str, Any]) -> None:
    """RK-17 / RK-AMB-6: one complex action per phase; the attack phase is the actor's turn."""
    limit = int(cfg["complex_actions_per_phase"])
    ctx.use(cid, "complex", "turn", limit, "RK-17", "the complex action of this phase")


def defense_options(game: Game, target: Combatant) -> list[str]:
    """How the target may answer: reduce, counter, or let its Servant intercept (RK-39)."""
    options = list(DEFENSES)
    if any(s.out is None for s in servants_of(game, target)):
        options.append("intercept")
    return [*options, "none"]


def attack(ctx: Ctx, cfg: Mapping[str, Any], me: Combatant, command: Act) -> None:
    """Pay, roll the governing stat, and leave the hit waiting for the defense (RK-15)."""
    target = ctx.combatant(command.target or next(iter(command.targets), None))
    if target.id == me.id or target.out is not None:
        raise Refused(
            "rule_violation",
            rule="RK-15",
            reason="cannot_be_attacked_now",
            params={"target": target},
        )
    if me.status.get("fleeing"):
        raise Refused(
            "rule_violation", rule="RK-69", reason="fleeing_cannot_attack", params={"actor": me}
        )
    spend_complex(ctx, me.id, cfg)
    planned = plan(me, command.action, command.rank, command.options, cfg)
    pay(ctx, me, planned, cfg)
    ranked = planned.type in ("physical", "weapon", "magic")  # NP/spell: stat sets the chance
    rolled = check_roll(
        ctx,
        me.id,
        planned.stat,
        cfg,
        purpose=f"{command.action} {planned.rank} on {target.name}",
        options=command.options,
        action_rank=planned.rank if ranked else None,
    )
    assert rolled.check is not None
    facts = msgspec.structs.replace(
        planned.detail(), roll=rolled.faces[0], threshold=rolled.check.threshold,
        target=target.id,
    )  # fmt: skip
    detail = encode(facts)
    if not succeeded(rolled.check):
        fail_rule = ATTACKS[command.action][3]
        failed = msgspec.structs.replace(facts, rule=fail_rule)
        ctx.resolved(me.id, command.action, rolled.check.outcome, failed)
        return
    ctx.resolved(me.id, command.action, rolled.check.outcome, facts)
    ctx.await_reaction(
        me.id,
        target.id,
        command.action,
        rank=str(planned.rank),
        damage=planned.total,
        options=defense_options(ctx.game, target),
        detail=detail,
    )


def luck(ctx: Ctx, cfg: Mapping[str, Any], me: Combatant, command: Act) -> None:
    """RK-50: a Luck die before the next action; RK-51 uses; RK-19 Luck > Dodge > Attack."""
    game = ctx.game
    attacking = game.actor == me.id and not game.pending
    defending = any(p.target == me.id for p in game.pending)
    if not (attacking or defending):
        raise Refused("not_your_turn", rule="RK-50", reason="luck_before_own_action")
    if attacking and game.uses(me.id, "complex") > 0:
        raise Refused("rule_violation", rule="RK-19", reason="luck_before_action_die")
    if me.status.get("luck"):
        raise Refused("rule_violation", rule="RK-AMB-15", reason="luck_result_waiting")
    if me.resources["luck"] <= 0:
        raise Refused("limit_reached", rule="RK-51", reason="no_luck_left", params={"actor": me})
    if attacking and cfg["luck_consumes_complex_slot"]:
        spend_complex(ctx, me.id, cfg)
    ctx.change(me.id, "luck", -1, "Luck die", "RK-51")  # spent even on a failure (RK-AMB-15)
    rolled = check_roll(ctx, me.id, "LCK", cfg, purpose="Luck die", options=command.options)
    assert rolled.check is not None
    lck = parse_rank(me.sheet["LCK"])
    bonus = value("luck.bonus", Rank(lck.level), cfg["tables"], ())
    delta = bonus if succeeded(rolled.check) else -bonus
    ctx.status(me.id, "luck", delta, "RK-50")
    left = ctx.combatant(me.id).resources["luck"]
    luck = payloads.Luck(
        delta=delta, uses_left=left, roll=rolled.faces[0], threshold=rolled.check.threshold
    )
    ctx.resolved(me.id, "luck", rolled.check.outcome, luck)


def agility_key(c: Combatant, cfg: Mapping[str, Any]) -> tuple[int, int]:
    """RK-AMB-14: Agility compared by rank, then half-ranks (or by rank only)."""
    rank = parse_rank(c.sheet["AGI"])
    return order_key(rank) if cfg["flee.compare"] == "rank_then_half" else (rank.level, 0)


def flee(ctx: Ctx, cfg: Mapping[str, Any], me: Combatant, command: Act) -> None:
    """RK-68: an Agility die; an opponent of higher Agility may try to block it."""
    spend_complex(ctx, me.id, cfg)
    ctx.status(me.id, "fleeing", True, "RK-69")  # no attack in this Tour
    rolled = check_roll(ctx, me.id, "AGI", cfg, purpose="flight", options=command.options)
    assert rolled.check is not None
    mine = agility_key(me, cfg)
    blockers = [
        c
        for c in ctx.game.combatants.values()
        if c.side != me.side and c.out is None and agility_key(c, cfg) > mine
    ]
    ok = succeeded(rolled.check)
    outcome = rolled.check.outcome
    if not ok or not blockers:
        tried = payloads.Flight(fleer=me.id, roll=rolled.faces[0], threshold=rolled.check.threshold)
        ctx.resolved(me.id, "flee", outcome, tried)
        if ok:
            ctx.defeat(me.id, "fled", "RK-68")
        return
    blocker = max(blockers, key=lambda c: agility_key(c, cfg))
    tried = payloads.Flight(fleer=me.id, blocker=blocker.id, roll=rolled.faces[0],
                      threshold=rolled.check.threshold)  # fmt: skip
    ctx.resolved(me.id, "flee", outcome, tried)
    ctx.await_reaction(
        me.id,
        blocker.id,
        "flee",
        options=["block_flight", "none"],
        detail=encode(payloads.Flight(type="flight", fleer=me.id, blocker=blocker.id)),
    )


def transfer_mana(ctx: Ctx, cfg: Mapping[str, Any], me: Combatant, command: Act) -> None:
    """RK-30: a free action between a Master and its Servant, 1:1, the giver keeps 1."""
    target = ctx.combatant(command.target)
    if not bonded(ctx.game, me, target) or target.out is not None:
        raise Refused(
            "rule_violation", rule="RK-30", reason="mana_own_pair_only", params={"actor": me}
        )
    amount = command.options.get("amount")
    if type(amount) is not int or amount < 1:
        raise Invalid(rule="RK-30", reason="options_amount_whole_number_mana")
    if me.resources["mana"] - amount < 1:
        raise Refused(
            "rule_violation", rule="RK-30", reason="must_keep_one_mana", params={"giver": me}
        )
    if target.resources["mana"] + amount > target.maxima["mana"]:
        raise Refused(
            "rule_violation",
            rule="RK-30",
            reason="pool_full_one_for_one",
            params={"target": target, "mana": target.maxima["mana"]},
        )
    ctx.change(me.id, "mana", -amount, f"gives mana to {target.name}", "RK-30")
    ctx.change(target.id, "mana", amount, f"mana from {me.name}", "RK-30")
    ctx.resolved(
        me.id, "transfer_mana", "success", payloads.Transfer(amount=amount, target=target.id)
    )
