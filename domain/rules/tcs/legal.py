"""d100-tcs: what `actor` may declare now, with the reason and rule when it may not."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from domain.errors import Refused
from domain.rules.common.base import percent_under
from domain.rules.tcs.combat import tcs_named, test_of, weapon_of
from domain.rules.tcs.costs import check, cost
from domain.rules.tcs.settings import SETTINGS
from domain.rules.tcs.specs import ACTIONS
from domain.rules.tcs.tables import ACTIONS_KEY, PER_TURN
from domain.state import Combatant, Game
from domain.terms import Cost, LegalAction, with_defaults


def choices(me: Combatant, action: str) -> dict[str, Any]:
    """The options an action takes, each with its possible values (a list), or the unit of
    a number the UI asks for (a ranged attack's `distance` in metres, TC-18)."""
    sheet = me.sheet
    if action == "attack":
        weapon = weapon_of(me)
        out: dict[str, Any] = {
            "tcs": [t["name"] for t in sheet["tcs"] if t["kind"] != "spell"],
            "at": ["bearer", "shield"],
            "weapon": [weapon["name"]] if weapon else [],
        }
        if weapon is not None and weapon["ranged"]:
            out["distance"] = "metres"  # TC-18: beyond the weapon's base range, long range
        return out
    if action == "cast":
        return {"spell": [t["name"] for t in sheet["tcs"] if t["kind"] == "spell"]}
    if action == "use_item":
        return {"weapon": [w["name"] for w in sheet["weapons"]],
                "item": [i["name"] for i in sheet["items"]]}  # fmt: skip
    if action == "drink_potion":
        return {"item": [i["name"] for i in sheet["items"] if i["heal"] > 0]}
    if action == "move":
        return {"sprint": [0, 1, 2]}
    if action == "stand_up":
        return {"fast": [False, True]}
    return {}


def sample(me: Combatant, action: str) -> dict[str, Any]:
    """The options `legal` tries an action with (the first of each required choice)."""
    picks = choices(me, action)
    if action == "cast" and picks["spell"]:
        return {"spell": picks["spell"][0]}
    if action == "use_item":
        for key in ("weapon", "item"):
            if picks[key]:
                return {key: picks[key][0]}
    return {}


def _needs_target(me: Combatant, action: str, options: Mapping[str, Any]) -> bool:
    if action == "cast":
        spell = tcs_named(me, options.get("spell"), ("spell",))
        return bool(spell and spell["damage"])
    return ACTIONS[action].needs_target


def _feasible(game: Game, cfg: Mapping[str, Any], actor: str, code: str,
              aims: list[str | None], options: Mapping[str, Any],
              listed: dict[str, Any]) -> dict[str, Any]:  # fmt: skip
    """Each choice's values that `act` accepts for at least one aim (a shield to strike
    only if a foe bears one, a sprint or a fast stand-up only with the NRJ): the board
    offers nothing the engine refuses. A number field (a distance) is kept as it is."""
    out: dict[str, Any] = {}
    for key, values in listed.items():
        if not isinstance(values, list):
            out[key] = values
            continue
        kept = []
        for value in values:
            for aim in aims or [None]:
                try:
                    check(game, cfg, actor, code, aim, {**options, key: value}, 0)
                except Refused:
                    continue
                kept.append(value)
                break
        out[key] = kept if kept or not values else []
    return out


def costs(game: Game, cfg: Mapping[str, Any], me: Combatant, code: str,
          options: Mapping[str, Any]) -> list[Cost]:  # fmt: skip
    """TC-6 the actions a step takes of the turn's two, TC-8 / TC-9 / TC-22 / TC-25 the NRJ
    it spends, for the options `legal` tries it with."""
    used = game.uses(me.id, ACTIONS_KEY)
    spent = cost(game, cfg, me.id, code, options, PER_TURN - used)
    out = [Cost(amount=spent, unit="action", left=PER_TURN - used - spent)] if spent else []
    energy = 0
    if code == "cast":
        spell = tcs_named(me, options.get("spell"), ("spell",))
        prep = me.status.get("preparing")
        if spell is not None and (prep is None or prep["spell"] != spell["name"]):
            energy = int(spell["energy"])
    elif code == "attack":
        tcs = tcs_named(me, options.get("tcs"), ("technique", "skill"))
        energy = int(tcs["energy"]) if tcs else 0
    if energy:
        out.append(Cost(amount=energy, unit="energy", left=me.resources["energy"] - energy))
    return out


def odds(game: Game, cfg: Mapping[str, Any], me: Combatant, code: str, target: str | None,
         options: Mapping[str, Any]) -> dict[str, Any]:  # fmt: skip
    """TC-1 roll-under d100 with TC-AMB-1's critical ranges; TC-2, TC-49, TC-26, TC-57:
    the attack (DEX, PERC with a ranged weapon, TC-AMB-32) or casting (MM, TC-10) test on
    the first target, with the options `legal` tries."""
    foe = game.combatants.get(target) if target is not None else None
    if code == "attack":
        weapon = weapon_of(me)
        if weapon is None:
            return {}
        tcs = tcs_named(me, options.get("tcs"), ("technique", "skill"))
        ranged = bool(weapon["ranged"])
        stat = (tcs or {}).get("stat") or ("PERC" if ranged else "DEX")
        test = test_of(cfg, me, foe, stat, options, ranged=ranged, basic=False,
                       base_range=weapon["base_range_m"])  # fmt: skip
    elif code == "cast" and options.get("spell") is not None:
        test = test_of(cfg, me, foe, "MM", options, ranged=False, basic=False)
    else:
        return {}
    chance = percent_under(test.threshold, 100, always=int(cfg["crit.success_max"]),
                           never_from=int(cfg["crit.fail_min"]))  # fmt: skip
    return {"chance": chance, "stat": test.stat, "threshold": test.threshold, "die": "d100"}


def listing(game: Game, actor: str, settings: Mapping[str, Any]) -> list[LegalAction]:
    """Each action `actor` may declare now or why not, with its cost and odds."""
    cfg = with_defaults(SETTINGS, settings)
    me = game.combatants.get(actor)
    if me is None:
        return []
    my_turn = game.started and game.actor == actor and not game.pending and me.out is None
    declared = game.uses(actor, ACTIONS_KEY) > 0
    foes = [c.id for c in game.combatants.values() if c.out is None and c.side != me.side]
    out: list[LegalAction] = []
    for code, spec in ACTIONS.items():
        options = sample(me, code)
        aims: list[str | None] = list(foes) if _needs_target(me, code, options) else [None]
        targets: list[str] = []
        refusal: Refused | None = None
        for aim in aims:
            try:
                check(game, cfg, actor, code, aim, options, 0)
            except Refused as why:
                refusal = refusal or why
            else:
                if aim is not None:
                    targets.append(aim)
        ok = bool(targets) if aims != [None] else refusal is None
        params: dict[str, Any] = {}
        if not aims:
            reason, rule = "no_target", spec.rule
        elif refusal is not None and not ok:
            reason, rule, params = refusal.reason, refusal.rule, refusal.params
        else:
            reason, rule = "", spec.rule
        if not my_turn:
            reason, rule, params = "not_your_turn", None, {}
        elif declared:
            reason, rule, params = "turn_declared", "TC-7", {}
        listed = _feasible(game, cfg, actor, code, [*targets] or aims, options, choices(me, code))
        out.append(LegalAction(
            action=code,
            enabled=my_turn and not declared and ok,
            reason="" if my_turn and not declared and ok else reason,
            params={} if my_turn and not declared and ok else params,
            rule=rule if not (my_turn and not declared and ok) else spec.rule,
            targets=targets,
            choices=listed,
            cost=costs(game, cfg, me, code, options),
            **odds(game, cfg, me, code, targets[0] if targets else None, options),
        ))  # fmt: skip
    return out
