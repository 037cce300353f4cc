"""d20-na: what an actor may do now, and why not (one source for `act` and the UI).

`refusal` is the check `act` raises before resolving; `listing` runs it for every action
(and, when a hit waits on the actor, for every defense) so the web UI shows the same
reasons, with the rule id, that a refused command would get.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from domain import conditions
from domain.errors import Refused
from domain.rules.common.base import percent_under
from domain.rules.d20_na import combat, tables, turns
from domain.state import Combatant, Game
from domain.terms import Cost, LegalAction

HALF_ACTIONS = ("draw", "disengage", "move", "pick_up", "reload")
TARGETED = (*combat.MODES, "charge")


def refusal(game: Game, actor: str, action: str, s: Mapping[str, Any]) -> Refused | None:
    """Why `actor` may not take `action` in its current slot (None: it may).

    `s` maps setting keys to values (an encounter's settings over the defaults).
    """
    me = game.combatants[actor]
    charged = game.uses(actor, turns.SLOT_CHARGE) > 0
    if action in combat.MODES:
        mode = combat.MODES[action]
        if s["profile"] == "resolver_1v1" and mode in combat.RANGED:
            return Refused("rule_violation", rule="NA-37", reason="resolver_melee_only")
        kinds = [w for w in me.sheet["weapons"] if w["kind"] == mode]
        if mode in combat.RANGED and not kinds:
            rule = "NA-35" if mode == "throw" else "NA-29"
            return Refused(
                "rule_violation", rule=rule, reason="no_weapon_of_mode", params={"mode": mode}
            )
        if mode == "shoot" and not any(combat.loaded(me, w) for w in kinds):
            return Refused("rule_violation", rule="NA-AMB-23", reason="reload_first")
        if charged and mode != "melee":
            return Refused("rule_violation", rule="NA-8", reason="charge_ends_in_melee")
        return turns.slot_refusal(game, actor, "charge_attack" if charged else turns.FULL, 2)
    if action == "charge":
        if combat.engaged(game, actor):
            return Refused("rule_violation", rule="NA-8", reason="no_charge_in_melee")
        return turns.slot_refusal(game, actor, turns.CHARGE, 3)
    if action == "pass":
        if not s["round.allow_pass"]:
            return Refused("rule_violation", rule="NA-AMB-3", reason="passing_off")
        if charged:
            return Refused("rule_violation", rule="NA-AMB-9", reason="charge_then_attack")
        return None
    if action == "reload" and not me.status.get("unloaded"):
        return Refused("rule_violation", rule="NA-AMB-23", reason="nothing_to_reload")
    return turns.slot_refusal(game, actor, turns.HALF, 1)


COST = {"charge": 1, "pass": 0, **{a: 1 for a in HALF_ACTIONS}}
UNIT = "half_action"  # NA-2: the round's budget is counted in half-actions


def _cost(game: Game, actor: str, amount: int) -> list[Cost]:
    """NA-2, NA-6, NA-7: `amount` half-actions out of the round's budget (nothing: free)."""
    if not amount:
        return []
    left = turns.budget(game, actor) - amount
    # What the budget would keep; none when it cannot pay (the entry says why it is off).
    return [Cost(amount=amount, unit=UNIT, left=left if left >= 0 else None)]


def _d20(threshold: int, s: Mapping[str, Any], tries: int = 1) -> int:
    """NA-11, NA-AMB-1: the percent a d20 comes up at or under (`lt`: under) a threshold."""
    return percent_under(threshold - (s["test.success_cmp"] == "lt"), 20, tries=tries)


def _conditions(me: Combatant) -> int:
    """What the bearer's conditions add to each of its tests (NA-AMB-22, combat.test_roll)."""
    return sum(m.delta for m in conditions.modifiers(me, "NA-AMB-22"))


def attack_odds(game: Game, actor: str, action: str, s: Mapping[str, Any]) -> dict[str, Any]:
    """NA-11 (NA-29 shooting on TIR), NA-8 charge +2, NA-AMB-10 unaimed malus: the odds of
    the attack roll with no aim and at no distance (the UI's defaults)."""
    me = game.combatants[actor]
    mode = combat.MODES[action]
    stat = "TIR" if mode in combat.RANGED else "ATT"
    threshold = int(me.sheet[stat])
    if game.uses(actor, turns.SLOT_CHARGE):
        threshold += 2
    skill = "precise_shot" if mode in combat.RANGED else "precise_strike"
    if not me.sheet["skills"][skill]:
        threshold -= int(s["location.unaimed_malus"])
    threshold += _conditions(me)
    return {"chance": _d20(threshold, s), "stat": stat, "threshold": threshold, "die": "d20"}


def defense_odds(game: Game, actor: str, kind: str, ranged: bool,
                 s: Mapping[str, Any]) -> dict[str, Any]:  # fmt: skip
    """NA-10 dodge on HAB (divided without the skill), NA-13 parry on PAR (halved against a
    projectile, NA-32), NA-9 a shield's free rerolls (NA-AMB-7): the odds of the defense
    roll itself (the margins then decide, NA-15)."""
    sheet = game.combatants[actor].sheet
    tries = 1
    if kind == "dodge":
        stat, threshold = "HAB", int(sheet["HAB"])
        if not sheet["skills"]["dodge"]:
            threshold //= max(1, int(s["dodge.unskilled_divisor"]))
    else:
        stat, threshold = "PAR", int(sheet["PAR"])
        item = sheet["shield"] if sheet["shield"] is not None else combat.main_weapon(sheet)
        if s["parry.roll_stat"] == "item_value":
            stat, threshold = "parry value", int(item["parry"]) if item else 0
        if ranged:
            threshold //= 2
        if sheet["shield"] is not None:
            tries += int(s["shield.parry_reroll"])
    threshold += _conditions(game.combatants[actor])
    return {"chance": _d20(threshold, s, tries), "stat": stat, "threshold": threshold,
            "die": "d20"}  # fmt: skip


def _targets(game: Game, actor: str, action: str, foes: list[str]) -> list[str]:
    """Who an action may aim at: after a charge, only the charged target (NA-8)."""
    if action not in TARGETED:
        return []
    charging = game.combatants[actor].status.get("charging")
    if action == "attack" and game.uses(actor, turns.SLOT_CHARGE) and charging in foes:
        return [charging]
    return foes


def _choices(sheet: dict[str, Any], action: str, s: dict[str, Any]) -> dict[str, Any]:
    """The options an action takes: its weapons, aimable zones (NA-24), distance (NA-30)."""
    mode = combat.MODES.get(action)
    if mode is None or mode == "maneuver":
        return {}
    kinds = ("melee", "throw") if mode == "melee" else (mode,)
    out: dict[str, Any] = {"weapon": [w["name"] for w in sheet["weapons"] if w["kind"] in kinds]}
    if s["profile"] != "resolver_1v1":  # NA-39: the resolver does not aim
        out["aim"] = list(tables.AIMABLE)
    if mode in combat.RANGED:
        out["distance"] = "metres"
    return out


def listing(
    game: Game, actor: str, s: dict[str, Any], actions: Iterable[tuple[str, str | None]]
) -> list[LegalAction]:
    """Each action of `actor` now (and, with a hit waiting, each defense): enabled or why
    not, its cost in half-actions and the odds of its roll."""
    me = game.combatants.get(actor)
    if me is None:
        return []
    my_turn = game.started and game.actor == actor and not game.pending and me.out is None
    targets = [c.id for c in game.combatants.values() if c.side != me.side and c.out is None]
    out: list[LegalAction] = []
    for action, rule in actions:
        why: Refused | None = None
        if not my_turn:
            waiting = "waiting_for_defense" if game.pending else "not_your_turn"
            why = Refused(
                "not_your_turn", reason=waiting if game.actor == actor else "not_your_turn"
            )
        elif action in TARGETED and not targets:
            why = Refused("rule_violation", reason="no_target")
        else:
            why = refusal(game, actor, action, s)
        out.append(
            LegalAction(
                action=action,
                enabled=why is None,
                reason=why.reason if why else "",
                params=why.params if why else {},
                # Not this actor's turn is no rule of the action's (NA-7 is what a move
                # costs): the entry names no rule, as the refusal names none.
                rule=why.rule if why and why.rule else None if why and not my_turn else rule,
                targets=_targets(game, actor, action, targets),
                cost=_cost(game, actor, COST.get(action, 2)),
                choices=_choices(me.sheet, action, s),
                **(attack_odds(game, actor, action, s) if action in combat.MODES else {}),
            )
        )
    pending = next((p for p in game.pending if p.target == actor), None)
    if pending is not None:
        limits = combat.defense_settings(s.__getitem__)
        detail = pending.detail
        for kind, rule in (("parry", "NA-9"), ("dodge", "NA-10")):
            why = combat.defense_refusal(game, limits, actor, kind, detail)
            ranged = detail.get("mode") in combat.RANGED
            out.append(
                LegalAction(
                    action=kind,
                    reaction=True,
                    enabled=why is None,
                    reason=why.reason if why else "",
                    params=why.params if why else {},
                    rule=why.rule if why else rule,
                    targets=[pending.attacker],
                    cost=_cost(game, actor, combat.defense_cost(game, limits, actor, kind)),
                    **defense_odds(game, actor, kind, ranged, s),
                )
            )
        out.append(LegalAction(action="none", reaction=True, enabled=True, reason="",
                               rule="NA-14", targets=[pending.attacker]))  # fmt: skip
    return out
