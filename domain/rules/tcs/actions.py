"""d100-tcs turns as declared plans: two actions declared at once, resolved in order
(TC-6, TC-7, TC-13, TC-AMB-35), and what each action does.

A turn is one `act`: its action is the first one, and `options.then` = {action, target,
options} declares the second (TC-7). The whole plan is checked before anything rolls;
a crit failure cancels the second (TC-13); a second whose target or precondition is
gone is void (TC-AMB-35). The turn then ends (`play` says so; the encounter ends it).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from domain import events as ev
from domain.commands import Act
from domain.context import Ctx
from domain.errors import Forbidden, Invalid, Refused
from domain.rules.common import contact
from domain.rules.common.judge import succeeded
from domain.rules.tcs import combat, payloads
from domain.rules.tcs.costs import check, cost, fleeing_foes, spell_left
from domain.rules.tcs.settings import SETTINGS
from domain.rules.tcs.specs import ACTIONS
from domain.rules.tcs.tables import ACTIONS_KEY, FAST_STAND_ENERGY, MOVE_M, PER_TURN, Test
from domain.terms import Outcome, TurnOver, with_defaults

Step = tuple[str, str | None, dict[str, Any]]


def _plan(command: Act) -> list[Step]:
    options = dict(command.options)
    then = options.pop("then", None)
    steps: list[Step] = [(command.action, command.target, options)]
    if then is not None:
        if not isinstance(then, dict) or then.get("action") not in ACTIONS:
            raise Invalid(
                rule="TC-7",
                reason="then_names_second_action_one",
                params={"actions": sorted(ACTIONS)},
            )
        if set(then) - {"action", "target", "options"}:
            raise Invalid(rule="TC-7", reason="then_has_only_action_target")
        more = then.get("options", {})
        if not isinstance(more, dict) or "then" in more:
            raise Invalid(rule="TC-6", reason="then_options_object_two_actions")
        steps.append((then["action"], then.get("target"), dict(more)))
    return steps


def _done(
    ctx: Ctx, actor: str, action: str, outcome: str, deed: payloads.Deed | None = None
) -> None:
    ctx.resolved(actor, action, outcome, deed or payloads.Deed())


def _cancel_prep(ctx: Ctx, actor: str, why: str) -> None:
    """TC-9: a cancelled spell loses the actions invested."""
    prep = ctx.combatant(actor).status.get("preparing")
    if prep is not None:
        ctx.status(actor, "preparing", None, "TC-9")
        _done(ctx, actor, "cast", "cancelled", payloads.Deed(rule="TC-9", spell=prep["spell"],
                                                      reason=why))  # fmt: skip


def play(ctx: Ctx, command: Act) -> Outcome:
    """One turn: check the declared plan whole, then resolve it step by step; the turn is
    then over (the encounter ends it)."""
    cfg = with_defaults(SETTINGS, ctx.settings)
    actor, game = command.actor, ctx.game
    if game.uses(actor, ACTIONS_KEY) > 0:
        raise Refused("rule_violation", rule="TC-7", reason="declare_at_turn_start")
    steps = _plan(command)
    if ctx.who.role != "gm" and any("situational" in opts for _, _, opts in steps):
        raise Forbidden(rule="TC-15", reason="only_gm_grants_situational_bonus")
    check(game, cfg, actor, *steps[0], 0)
    first = cost(game, cfg, actor, steps[0][0], steps[0][2], PER_TURN)
    if len(steps) > 1:
        _check_second(ctx, cfg, actor, steps, first)
    me = ctx.combatant(actor)
    if me.status.get("no_aoo"):  # streams from before the condition (TC-27)
        ctx.status(actor, "no_aoo", None, "TC-27")
    prep = me.status.get("preparing")
    if prep is not None:
        same = steps[0][0] == "cast" and steps[0][2].get("spell") == prep["spell"]
        if not same:
            _cancel_prep(ctx, actor, "another_action")
        elif int(prep["round"]) < game.round - 1:
            _cancel_prep(ctx, actor, "round_passed")
    used = 0
    for i, (action, target, options) in enumerate(steps):
        if i:
            try:
                check(ctx.game, cfg, actor, action, target, options, used)
            except Refused as gone:  # TC-AMB-35
                _done(ctx, actor, action, "void", payloads.Deed(rule="TC-AMB-35",
                                                          reason=gone.code))  # fmt: skip
                break
        spent = cost(ctx.game, cfg, actor, action, options, PER_TURN - used)
        for _ in range(spent):
            ctx.emit(ev.LimitUsed(combatant_id=actor, key=ACTIONS_KEY, scope="turn",
                                  rule="TC-6"))  # fmt: skip
        used += spent
        outcome = _STEPS[action](ctx, cfg, actor, target, options, PER_TURN - used + spent)
        if ctx.combatant(actor).out is not None:
            break
        if outcome == "critical_failure":  # TC-13, TC-AMB-5
            _cancel_prep(ctx, actor, "critical_failure")
            if i + 1 < len(steps):
                lost = payloads.Deed(rule="TC-13", reason="critical_failure")
                _done(ctx, actor, steps[i + 1][0], "cancelled", lost)
            break
    focus = ctx.combatant(actor).status.get("focus")
    if focus is not None and int(focus["round"]) < ctx.game.round:  # TC-AMB-3
        ctx.status(actor, "focus", None, "TC-26")
    return TurnOver(actor)


def _check_second(ctx: Ctx, cfg: Mapping[str, Any], actor: str, steps: list[Step],
                  first: int) -> None:  # fmt: skip
    """TC-7: the second action is declared now; standing up first lifts the prone ban."""
    action, target, options = steps[1]
    me = ctx.combatant(actor)
    if steps[0][0] == "stand_up" and me.status.get("prone"):
        game = ctx.game.clone()
        game.combatants[actor].status.pop("prone", None)
        check(game, cfg, actor, action, target, options, first)
    else:
        check(ctx.game, cfg, actor, action, target, options, first)


# --- each action ------------------------------------------------------------------------


def _attack(ctx: Ctx, cfg: Mapping[str, Any], actor: str, target: str | None,
            options: dict[str, Any], room: int) -> str:  # fmt: skip
    assert target is not None
    return combat.attack(ctx, cfg, actor, target, options)


def _cast(ctx: Ctx, cfg: Mapping[str, Any], actor: str, target: str | None,
          options: dict[str, Any], room: int) -> str:  # fmt: skip
    """TC-9, TC-AMB-16: invest actions; the casting roll comes when none are left."""
    me = ctx.combatant(actor)
    spell = combat.tcs_named(me, options.get("spell"), ("spell",))
    assert spell is not None
    prep = me.status.get("preparing")
    if prep is None and spell["energy"]:
        ctx.change(actor, "energy", -spell["energy"], spell["name"], "TC-9")
    left = spell_left(me, spell) - min(spell_left(me, spell), room)
    if left > 0:
        aim = target if prep is None else prep.get("target")
        prep = {"spell": spell["name"], "left": left, "round": ctx.game.round, "target": aim}
        ctx.status(actor, "preparing", prep, "TC-9")
        _done(ctx, actor, "cast", "preparing", payloads.Deed(rule="TC-9", spell=spell["name"],
                                                      left=left, target=aim or ""))  # fmt: skip
        return "preparing"
    if prep is not None:
        target = target or prep.get("target")
        ctx.status(actor, "preparing", None, "TC-9")
    if target is not None and ctx.combatant(target).out is not None:
        _done(ctx, actor, "cast", "void", payloads.Deed(rule="TC-AMB-35", spell=spell["name"],
                                                 target=target, reason="target_gone"))  # fmt: skip
        return "void"
    return combat.cast(ctx, cfg, actor, spell, target, options)


def _use_item(ctx: Ctx, cfg: Mapping[str, Any], actor: str, target: str | None,
              options: dict[str, Any], room: int) -> str:  # fmt: skip
    """TC-19: one action per item or group; a weapon named is taken in hand."""
    if "weapon" in options:
        ctx.status(actor, "weapon", options["weapon"], "TC-19")
        _done(ctx, actor, "use_item", "done", payloads.Deed(label=str(options["weapon"]),
                                                      reason="in_hand"))  # fmt: skip
    else:
        _done(ctx, actor, "use_item", "done", payloads.Deed(label=str(options["item"])))
    return "done"


def _drink(ctx: Ctx, cfg: Mapping[str, Any], actor: str, target: str | None,
           options: dict[str, Any], room: int) -> str:  # fmt: skip
    """TC-20: two actions, out of melee."""
    me = ctx.combatant(actor)
    potion = next(i for i in me.sheet["items"]
                  if i["heal"] > 0 and i["name"] == options.get("item", i["name"])
                  and ctx.game.uses(actor, f"item:{i['name']}") == 0)  # fmt: skip
    ctx.emit(ev.LimitUsed(combatant_id=actor, key=f"item:{potion['name']}", scope="session",
                          rule="TC-20"))  # fmt: skip
    healed = ctx.change(actor, "hp", potion["heal"], potion["name"], "TC-20")
    hp = ctx.combatant(actor).resources["hp"]
    _done(ctx, actor, "drink_potion", "done", payloads.Deed(label=potion["name"], healed=healed,
                                                      hp_before=hp - healed, hp=hp))  # fmt: skip
    return "done"


def _move(ctx: Ctx, cfg: Mapping[str, Any], actor: str, target: str | None,
          options: dict[str, Any], room: int) -> str:  # fmt: skip
    """TC-21, TC-22: 3 m, plus up to 2 m at 1 NRJ each; TC-23: foes in contact strike
    first."""
    sprint = int(options.get("sprint", 0))
    if sprint:
        ctx.change(actor, "energy", -sprint, "sprint", "TC-22")
    combat.opportunity(ctx, cfg, actor)
    if ctx.combatant(actor).out is not None:
        return "done"
    contact.break_contact(ctx, actor, "TC-21")
    if ctx.combatant(actor).status.get("disengaged"):
        ctx.status(actor, "disengaged", None, "TC-27")
    metres = MOVE_M + sprint
    _done(ctx, actor, "move", "done", payloads.Deed(metres=metres))
    return "done"


def _stand(ctx: Ctx, cfg: Mapping[str, Any], actor: str, target: str | None,
           options: dict[str, Any], room: int) -> str:  # fmt: skip
    """TC-25: two actions, or one and 4 NRJ."""
    if options.get("fast") is True:
        ctx.change(actor, "energy", -FAST_STAND_ENERGY, "standing up fast", "TC-25")
    ctx.status(actor, "prone", None, "TC-25")
    _done(ctx, actor, "stand_up", "done")
    return "done"


def _focus(ctx: Ctx, cfg: Mapping[str, Any], actor: str, target: str | None,
           options: dict[str, Any], room: int) -> str:  # fmt: skip
    """TC-26 (name lost, TC-AMB-3): +10 to the next TCS."""
    bonus = int(cfg["actions.focus.bonus"])
    ctx.status(actor, "focus", {"bonus": bonus, "round": ctx.game.round}, "TC-26")
    _done(ctx, actor, "focus", "done", payloads.Deed(bonus=bonus))
    return "done"


def _disengage(ctx: Ctx, cfg: Mapping[str, Any], actor: str, target: str | None,
               options: dict[str, Any], room: int) -> str:  # fmt: skip
    """TC-27 (name lost, TC-AMB-3): no opportunity attack on the next move, none made."""
    ctx.status(actor, "disengaged", True, "TC-27")
    # TC-AMB-3: no opportunity attack from it until the start of its next turn.
    ctx.condition(actor, combat.NO_AOO, rounds=1, until="start_of_turn", rule="TC-27")
    _done(ctx, actor, "disengage", "done")
    return "done"


def _flee(ctx: Ctx, cfg: Mapping[str, Any], actor: str, target: str | None,
          options: dict[str, Any], room: int) -> str:  # fmt: skip
    """TC-30: declared now, resolved at the end of the round (TC-29)."""
    ctx.status(actor, "flee_declared", True, "TC-30")
    _done(ctx, actor, "flee", "declared")
    return "declared"


def _pursue(ctx: Ctx, cfg: Mapping[str, Any], actor: str, target: str | None,
            options: dict[str, Any], room: int) -> str:  # fmt: skip
    """TC-34, TC-AMB-14: an opposed END test; a caught fleer falls and takes a blow."""
    assert target is not None
    me, foe = ctx.combatant(actor), ctx.combatant(target)
    rolls = []
    for who in (me, foe):
        test = Test("END", int(who.sheet["END"]), "TC-34").conditions(who)
        rolls.append(ctx.roll([100], expr="d100", purpose=f"pursuit: {who.name}", actor=who.id,
                              judge=test.judge(cfg)))  # fmt: skip
    ok = [succeeded(r.check) for r in rolls]
    margins = [r.check.margin if r.check and r.check.margin is not None else 0 for r in rolls]
    if ok[0] != ok[1]:
        caught = ok[0]
    elif margins[0] != margins[1]:
        caught = margins[0] > margins[1]
    else:
        caught = cfg["pursuit.tie"] == "pursuer"
    ctx.status(actor, "away", target, "TC-34")  # rejoining the melee costs two actions
    if not caught:
        _done(ctx, actor, "pursue", "escaped", payloads.Deed(rule="TC-34", target=foe.id))
        ctx.defeat(target, "fled", "TC-34")
        return "escaped"
    ctx.status(target, "fleeing", None, "TC-34")
    ctx.status(target, "prone", True, "TC-34")
    _done(ctx, actor, "pursue", "caught", payloads.Deed(rule="TC-34", target=foe.id))
    for _ in range(int(cfg["pursuit.actions_per_pursuer"])):
        if combat.weapon_of(me) is not None:
            combat.attack(ctx, cfg, actor, target, {}, basic=True, action="pursuit_attack")
    return "caught"


def _rejoin(ctx: Ctx, cfg: Mapping[str, Any], actor: str, target: str | None,
            options: dict[str, Any], room: int) -> str:  # fmt: skip
    """TC-34: two actions to get back into the melee after a pursuit."""
    ctx.status(actor, "away", None, "TC-34")
    _done(ctx, actor, "rejoin", "done")
    return "done"


def _let_flee(ctx: Ctx, cfg: Mapping[str, Any], actor: str, target: str | None,
              options: dict[str, Any], room: int) -> str:  # fmt: skip
    """TC-33, TC-35: this protagonist lets the fleer (or every fleeing foe) go; a fleer
    leaves the combat once none of its foes still in the fight wants it (`settle`)."""
    me = ctx.combatant(actor)
    fled = [target] if target is not None else fleeing_foes(ctx.game, me)
    let = sorted({*me.status.get("let_go", []), *fled})
    ctx.status(actor, "let_go", let, "TC-35")
    _done(ctx, actor, "let_flee", "done", payloads.Deed(rule="TC-35", let=list(fled)))
    return "done"


_STEPS = {
    "attack": _attack, "cast": _cast, "use_item": _use_item, "drink_potion": _drink,
    "move": _move, "stand_up": _stand, "focus": _focus, "disengage": _disengage,
    "flee": _flee, "pursue": _pursue, "rejoin": _rejoin, "let_flee": _let_flee,
}  # fmt: skip
