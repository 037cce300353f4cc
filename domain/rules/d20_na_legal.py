"""d20-na: what an actor may do now, and why not (one source for `act` and the UI).

`refusal` is the check `act` raises before resolving; `listing` runs it for every action
(and, when a hit waits on the actor, for every defense) so the web UI shows the same
reasons, with the rule id, that a refused command would get.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from domain.errors import Refused
from domain.rules import d20_na_combat as cb
from domain.rules import d20_na_turns as turns
from domain.state import Game

HALF_ACTIONS = ("draw", "disengage", "move", "pick_up", "reload")
TARGETED = (*cb.MODES, "charge")


def refusal(game: Game, actor: str, action: str, s: dict[str, Any]) -> Refused | None:
    """Why `actor` may not take `action` in its current slot (None: it may)."""
    me = game.combatants[actor]
    charged = game.uses(actor, turns.SLOT_CHARGE) > 0
    if action in cb.MODES:
        mode = cb.MODES[action]
        if s["profile"] == "resolver_1v1" and mode in cb.RANGED:
            return Refused("rule_violation", "the 1v1 resolver is melee only", "NA-37")
        kinds = [w for w in me.sheet["weapons"] if w["kind"] == mode]
        if mode in cb.RANGED and not kinds:
            return Refused("rule_violation", f"no {mode} weapon on the sheet", "NA-29")
        if mode == "shoot" and not any(cb.loaded(me, w) for w in kinds):
            return Refused("rule_violation", "reload first", "NA-AMB-23")
        if charged and mode != "melee":
            return Refused("rule_violation", "a charge ends in a melee attack", "NA-8")
        return turns.slot_refusal(game, actor, "charge_attack" if charged else turns.FULL, 2)
    if action == "charge":
        if cb.engaged(game, actor):
            return Refused("rule_violation", "cannot charge while engaged in melee", "NA-8")
        return turns.slot_refusal(game, actor, turns.CHARGE, 3)
    if action == "pass":
        if not s["round.allow_pass"]:
            return Refused("rule_violation", "passing is off in this encounter", "NA-AMB-3")
        if charged:
            return Refused("rule_violation", "a charge must be followed by its attack", "NA-AMB-9")
        return None
    if action == "reload" and not me.status.get("unloaded"):
        return Refused("rule_violation", "nothing to reload", "NA-AMB-23")
    return turns.slot_refusal(game, actor, turns.HALF, 1)


COST = {"charge": 1, "pass": 0, **{a: 1 for a in HALF_ACTIONS}}


def listing(
    game: Game, actor: str, s: dict[str, Any], actions: Iterable[tuple[str, str | None]]
) -> list[dict[str, Any]]:
    """[{action, enabled, reason, rule, targets, cost}] for `actor` now; defenses too."""
    me = game.combatants.get(actor)
    if me is None:
        return []
    my_turn = game.started and game.actor == actor and not game.pending and me.out is None
    targets = [c.id for c in game.combatants.values() if c.side != me.side and c.out is None]
    out: list[dict[str, Any]] = []
    for action, rule in actions:
        why: Refused | None = None
        if not my_turn:
            why = Refused("not_your_turn", "not your turn")
        elif action in TARGETED and not targets:
            why = Refused("rule_violation", "no target")
        else:
            why = refusal(game, actor, action, s)
        out.append(
            {
                "action": action,
                "enabled": why is None,
                "reason": why.message if why else "",
                "rule": why.rule if why and why.rule else rule,
                "targets": targets if action in TARGETED else [],
                "cost": COST.get(action, 2),
            }
        )
    pending = next((p for p in game.pending if p.target == actor), None)
    if pending is not None:
        limits = {
            "ranged_parry": s["ranged_parry.requires"],
            "max_per_type": s["defense.max_per_type"],
        }
        detail = pending.detail
        for kind, rule in (("parry", "NA-9"), ("dodge", "NA-10")):
            why = cb.defense_refusal(game, limits, actor, kind, detail)
            out.append(
                {
                    "action": kind,
                    "reaction": True,
                    "enabled": why is None,
                    "reason": why.message if why else "",
                    "rule": why.rule if why else rule,
                    "targets": [pending.attacker],
                    "cost": 1 if game.uses(actor, kind) == 0 else 2,
                }
            )
        out.append({"action": "none", "reaction": True, "enabled": True, "reason": "",
                    "rule": "NA-14", "targets": [pending.attacker], "cost": 0})  # fmt: skip
    return out
