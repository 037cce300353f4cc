"""d100-tcs: what each action costs and why it may be refused (shared by `act` and
`legal`, so the UI never offers what the engine would refuse)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from domain.errors import Invalid, Refused, RuleViolation
from domain.rules.tcs.combat import distance_to, engaged, fleeing, tcs_named, weapon_of
from domain.rules.tcs.damage import shield_ok
from domain.rules.tcs.tables import (
    COSTS,
    FAST_STAND_ENERGY,
    PER_TURN,
    SPRINT_MAX_M,
)
from domain.state import Combatant, Game

PRONE_ALLOWED = ("stand_up", "flee")  # TC-AMB-11


def spell_left(me: Combatant, spell: Mapping[str, Any]) -> int:
    """Actions still to invest in `spell` (TC-9), counting a preparation under way."""
    prep = me.status.get("preparing")
    if prep is not None and prep["spell"] == spell["name"]:
        return int(prep["left"])
    return int(spell["actions"])


def cost(game: Game, cfg: Mapping[str, Any], actor: str, action: str,
         options: Mapping[str, Any], room: int) -> int:  # fmt: skip
    """Actions this step takes out of the `room` left in the turn."""
    me = game.combatants[actor]
    if action == "cast":
        spell = tcs_named(me, options.get("spell"), ("spell",))
        return min(spell_left(me, spell), room) if spell else 1  # TC-AMB-16
    if action == "attack":
        tcs = tcs_named(me, options.get("tcs"), ("technique", "skill"))
        return int(tcs["actions"]) if tcs else 1
    if action == "stand_up" and options.get("fast") is True:
        return 1  # TC-25
    if action in ("focus", "disengage"):
        return int(cfg[f"actions.{action}.cost"])
    return COSTS[action][0]


def _foe(game: Game, me: Combatant, target: str | None, rule: str) -> Combatant:
    foe = game.combatants.get(target) if target is not None else None
    if foe is None or foe.out is not None or foe.side == me.side:
        raise Refused("rule_violation", rule=rule, reason="target_foe_in_fight")
    return foe


def _energy(me: Combatant, need: int, what: str, rule: str) -> None:
    if me.resources["energy"] < need:
        params = {"actor": me, "need": need, "spell": what, "energy": me.resources["energy"]}
        raise Refused("not_enough_energy", rule=rule, reason="energy_short", params=params)


def check(game: Game, cfg: Mapping[str, Any], actor: str, action: str,
          target: str | None, options: Mapping[str, Any], used: int) -> None:  # fmt: skip
    """Raise the refusal for this step, if any (`used`: actions already spent)."""
    me = game.combatants[actor]
    if me.status.get("prone") and action not in PRONE_ALLOWED:
        raise Refused(
            "rule_violation", rule="TC-24", reason="prone_stand_or_flee", params={"actor": me}
        )
    flight = bool(cfg["rules.flight_advanced"])
    if action in ("flee", "pursue", "let_flee") and not flight:
        raise Refused("rule_violation", rule="TC-AMB-34", reason="flight_off")
    need = cost(game, cfg, actor, action, options, PER_TURN - used)
    if used + need > PER_TURN:
        left = PER_TURN - used
        raise Refused(
            "budget_exhausted",
            rule="TC-6",
            reason="actions_short",
            params={"action": action, "need": need, "left": left},
        )
    _CHECKS[action](game, cfg, me, target, options)


def _attack(game: Game, cfg: Mapping[str, Any], me: Combatant, target: str | None,
            options: Mapping[str, Any]) -> None:  # fmt: skip
    foe = _foe(game, me, target, "TC-8")
    weapon = weapon_of(me)
    if weapon is None:
        raise Refused("rule_violation", rule="TC-38", reason="no_weapon", params={"actor": me})
    if options.get("tcs") is not None:
        tcs = tcs_named(me, options["tcs"], ("technique", "skill"))
        if tcs is None:
            raise RuleViolation(
                rule="TC-8", reason="no_such_technique", params={"actor": me, "tcs": options["tcs"]}
            )
        _energy(me, tcs["energy"], tcs["name"], "TC-8")
    if fleeing(foe) and not weapon["ranged"]:
        raise Refused("rule_violation", rule="TC-33", reason="fleer_not_struck")
    away = me.status.get("away")
    if away is not None and not weapon["ranged"] and foe.id != away:
        raise Refused(
            "rule_violation", rule="TC-34", reason="rejoin_melee_first", params={"actor": me}
        )
    if options.get("at", "bearer") not in ("bearer", "shield"):
        raise Invalid(rule="TC-57", reason="at_bearer_or_shield")
    if options.get("at") == "shield" and not shield_ok(foe):
        raise Refused(
            "rule_violation", rule="TC-58", reason="no_unbroken_shield", params={"foe": foe}
        )
    if "distance" in options and (type(options["distance"]) is not int or options["distance"] < 0):
        raise Invalid(rule="TC-18", reason="distance_whole_number_metres")
    base = int(weapon["base_range_m"])
    if weapon["ranged"] and base and distance_to(foe, options, cfg) > 2 * base:
        raise Refused("out_of_range", rule="TC-18", reason="beyond_range", params={"base": base})


def _cast(game: Game, cfg: Mapping[str, Any], me: Combatant, target: str | None,
          options: Mapping[str, Any]) -> None:  # fmt: skip
    spell = tcs_named(me, options.get("spell"), ("spell",))
    if spell is None:
        wanted = options.get("spell")
        params = {"actor": me, "spell": wanted}
        raise RuleViolation(rule="TC-10", reason="knows_no_such_spell", params=params)
    prep = me.status.get("preparing")
    if prep is not None and prep["spell"] == spell["name"] and target is None:
        target = prep.get("target")  # TC-9: the preparation keeps its target
    if spell["damage"]:
        _foe(game, me, target, "TC-9")
    if (prep is None or prep["spell"] != spell["name"]) and spell["energy"]:
        _energy(me, spell["energy"], spell["name"], "TC-9")


def _use_item(game: Game, cfg: Mapping[str, Any], me: Combatant, target: str | None,
              options: Mapping[str, Any]) -> None:  # fmt: skip
    names = [w["name"] for w in me.sheet["weapons"]] + [i["name"] for i in me.sheet["items"]]
    what = options.get("weapon", options.get("item"))
    if what not in names:
        reason = "no_such_item" if what is not None else "nothing_to_use"
        raise RuleViolation(rule="TC-19", reason=reason, params={"actor": me, "item": what})


def _drink(game: Game, cfg: Mapping[str, Any], me: Combatant, target: str | None,
           options: Mapping[str, Any]) -> None:  # fmt: skip
    potions = [i["name"] for i in me.sheet["items"] if i["heal"] > 0]
    name = options.get("item", potions[0] if potions else None)
    if name not in potions or game.uses(me.id, f"item:{name}") > 0:
        params = {"actor": me, "potion": name}
        raise Refused("rule_violation", rule="TC-20", reason="no_potion_left", params=params)
    if engaged(game, me.id) and not cfg["potion.drink_in_melee"]:
        raise Refused("rule_violation", rule="TC-20", reason="no_drinking_in_melee")


def _move(game: Game, cfg: Mapping[str, Any], me: Combatant, target: str | None,
          options: Mapping[str, Any]) -> None:  # fmt: skip
    sprint = options.get("sprint", 0)
    if type(sprint) is not int or not 0 <= sprint <= SPRINT_MAX_M:
        raise RuleViolation(rule="TC-22", reason="sprint_range", params={"max": SPRINT_MAX_M})
    _energy(me, sprint, "the sprint", "TC-22")


def _stand(game: Game, cfg: Mapping[str, Any], me: Combatant, target: str | None,
           options: Mapping[str, Any]) -> None:  # fmt: skip
    if not me.status.get("prone"):
        raise Refused("rule_violation", rule="TC-25", reason="not_prone", params={"actor": me})
    if options.get("fast") is True:
        _energy(me, FAST_STAND_ENERGY, "standing up in one action", "TC-25")


def _nothing(game: Game, cfg: Mapping[str, Any], me: Combatant, target: str | None,
             options: Mapping[str, Any]) -> None:  # fmt: skip
    return None


def _flee(game: Game, cfg: Mapping[str, Any], me: Combatant, target: str | None,
          options: Mapping[str, Any]) -> None:  # fmt: skip
    if me.status.get("flee_declared"):
        raise Refused(
            "rule_violation", rule="TC-30", reason="flight_declared", params={"actor": me}
        )


def _pursue(game: Game, cfg: Mapping[str, Any], me: Combatant, target: str | None,
            options: Mapping[str, Any]) -> None:  # fmt: skip
    foe = _foe(game, me, target, "TC-34")
    if not fleeing(foe):
        raise Refused("rule_violation", rule="TC-34", reason="not_fleeing", params={"foe": foe})


def _rejoin(game: Game, cfg: Mapping[str, Any], me: Combatant, target: str | None,
            options: Mapping[str, Any]) -> None:  # fmt: skip
    if me.status.get("away") is None:
        raise Refused(
            "rule_violation", rule="TC-34", reason="already_in_melee", params={"actor": me}
        )


def _let_flee(game: Game, cfg: Mapping[str, Any], me: Combatant, target: str | None,
              options: Mapping[str, Any]) -> None:  # fmt: skip
    if target is not None:
        foe = _foe(game, me, target, "TC-35")
        if not fleeing(foe):
            raise Refused("rule_violation", rule="TC-35", reason="not_fleeing", params={"foe": foe})
    elif not fleeing_foes(game, me):
        raise Refused("rule_violation", rule="TC-35", reason="no_foe_fleeing")


def fleeing_foes(game: Game, me: Combatant) -> list[str]:
    """Foes still in the encounter as fleers (TC-33: each remaining protagonist chooses)."""
    return [c.id for c in game.combatants.values()
            if c.out is None and c.side != me.side and fleeing(c)]  # fmt: skip


_CHECKS = {
    "attack": _attack, "cast": _cast, "use_item": _use_item, "drink_potion": _drink,
    "move": _move, "stand_up": _stand, "focus": _nothing, "disengage": _nothing,
    "flee": _flee, "pursue": _pursue, "rejoin": _rejoin, "let_flee": _let_flee,
}  # fmt: skip
