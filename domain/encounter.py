"""The encounter decider: lifecycle, turn order, pending reactions, limits, undo, close.

decide(state, command, dice, who) -> events. What all rule systems share lives here; what
differs (sheets, initiative, turn structure, resolution) is asked of the rule system.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from domain import commands as cmd
from domain import deadline
from domain import dice as dicelib
from domain import events as ev
from domain.context import Ctx, Dice, RuleSystem
from domain.errors import Forbidden, Invalid, NotFound, Refused, RuleViolation
from domain.evolve import evolve, replay
from domain.rules import REGISTRY
from domain.rules.common import options
from domain.rules.common.sheetcheck import with_preset
from domain.state import GM, EncounterState, Game, Principal
from domain.terms import Outcome, Setting

__all__ = [
    "CORE_SETTINGS",
    "check_settings",
    "decide",
    "evolve",
    "nobody_standing",
    "one_side_left",
    "open_encounter",
    "replay",
    "rules_of",
]

# Settings every rule system takes, beside its own (GET /api/rulesets lists them too).
CORE_SETTINGS: dict[str, Setting] = {
    "fight.stop_when_decided": Setting(
        True,
        "once only one side is left standing, turns stop until the GM closes or continues",
    ),
    "deadline.hours": Setting(
        0,
        "hours a turn or a pending defence may wait (0: no deadline); past half of it a"
        " reminder, past all of it the policy applies",
        low=0,
        high=deadline.MAX_HOURS,
    ),
    "deadline.policy": Setting(
        "alert",
        "what a deadline does: alert (the GM is alerted only), no_defense (a pending"
        " defence is answered none), pass (the turn ends; a defence is answered none)",
        choices=deadline.POLICIES,
    ),
}


def rules_of(state: EncounterState) -> RuleSystem:
    return REGISTRY[state.ledger.ruleset]


def check_settings(rules: RuleSystem, settings: Mapping[str, Any]) -> dict[str, Any]:
    """Every setting known, of the default's type, in its range or among its choices."""
    out: dict[str, Any] = {}
    for key, value in settings.items():
        spec = rules.settings.get(key) or CORE_SETTINGS.get(key)
        if spec is None:
            raise Invalid(reason="unknown_setting_for", params={"key": key, "id": rules.id})
        out[key] = spec.validate(key, value)
    return out


def open_encounter(
    encounter_id: str,
    ruleset: str,
    name: str,
    settings: Mapping[str, Any],
    commitments: Mapping[str, tuple[str, bool]],
    campaign: str | None = None,
) -> list[ev.Event]:
    """The first events of a stream: the opening and the dice commitments."""
    rules = REGISTRY.get(ruleset)
    if rules is None:
        raise Invalid(
            reason="unknown_rule_system_known",
            params={"ruleset": ruleset, "registry": sorted(REGISTRY)},
        )
    opened: list[ev.Event] = [
        ev.EncounterOpened(
            encounter_id=encounter_id,
            ruleset=ruleset,
            name=name,
            settings=check_settings(rules, settings),
            campaign=campaign,
            rules_version=rules.version,
            entropy_join="netstring",
        )
    ]
    for seed_id, (commitment, hidden) in commitments.items():
        opened.append(ev.SeedCommitted(seed_id=seed_id, commitment=commitment, hidden=hidden))
    return opened


MAX_CONDITIONS = 16  # per combatant: the board's chips stay readable


# --- guards ---------------------------------------------------------------------------


def _gm_only(who: Principal, what: str) -> None:
    if who.role != "gm":
        raise Forbidden(reason="only_gm_may", params={"what": what})


def _controls(ctx: Ctx, actor: str) -> None:
    me = ctx.combatant(actor)
    if not ctx.who.controls(actor):
        raise Forbidden(reason="does_not_control", params={"role": ctx.who.role, "actor": me})


def _in_fight(ctx: Ctx, actor: str) -> None:
    who = ctx.combatant(actor)
    if who.out is not None:
        raise Refused(
            "rule_violation",
            rule=who.out_rule,
            reason="out_of_the_fight",
            params={"who": who, "out": who.out},
        )


def _no_pending(ctx: Ctx) -> None:
    if ctx.game.pending:
        p = ctx.game.pending[0]
        target = ctx.combatant(p.target)
        raise Refused("reaction_pending", reason="answer_pending_first", params={"target": target})


# --- turn advance ---------------------------------------------------------------------


def one_side_left(game: Game) -> str | None:
    """The one side still in the fight once combat started, else None."""
    if not game.started:
        return None
    sides = {game.combatants[cid].side for cid in game.active()}
    return sides.pop() if len(sides) == 1 else None


def nobody_standing(game: Game) -> bool:
    """Combat started and no one is left in the fight (all fled, fell or left): no turn
    can be given, so the fight is decided whatever the settings (the GM closes it)."""
    return game.started and not game.active()


def decided(ctx: Ctx) -> bool:
    """Only one side is left standing and turns stop there (the GM closes or continues),
    or nobody is left standing."""
    if nobody_standing(ctx.game):
        return True
    stop = ctx.settings.get("fight.stop_when_decided", True)
    return bool(stop) and not ctx.game.continued and one_side_left(ctx.game) is not None


def next_turn(ctx: Ctx) -> None:
    """Hand the turn to whoever the rule system says is next, opening a round if needed."""
    if decided(ctx):
        return
    nxt = ctx.rules.advance(ctx.game)
    if nxt is None:
        return
    new_round, actor, phase = nxt
    if new_round:
        # What a system settles "at the end of the round, before a new one starts" (TC-29)
        # is logged before `round_started`; it may change who acts next, or end the fight.
        ctx.rules.end_round(ctx)
        nxt = ctx.rules.advance(ctx.game)
        if nxt is None:
            return
        new_round, actor, phase = nxt
    if new_round:
        ctx.emit(ev.RoundStarted(round=ctx.game.round + 1))
        ctx.rules.start_round(ctx)
        again = ctx.rules.advance(ctx.game) if ctx.game.actor is None else None
        if again is not None and not again[0]:
            actor, phase = again[1], again[2]
    ctx.emit(ev.TurnStarted(actor=actor, phase=phase))


def end_turn(ctx: Ctx, actor: str) -> None:
    """End `actor`'s turn, hand it on, then let the rule system count what that turn was."""
    round_before = ctx.game.round
    ctx.emit(ev.TurnEnded(actor=actor))
    next_turn(ctx)
    ctx.rules.turn_ended(ctx, actor, ctx.game.round != round_before)


def _after(ctx: Ctx, outcome: Outcome) -> None:
    """A rule system's act/react said the turn is over: end it, unless it already moved on
    (the actor is no longer the one acting) or an attack still waits for its answer."""
    if outcome is not None and ctx.game.actor == outcome.actor and not ctx.game.pending:
        end_turn(ctx, outcome.actor)


# --- handlers -------------------------------------------------------------------------


def _add(ctx: Ctx, c: cmd.AddCombatant) -> None:
    _gm_only(ctx.who, "add combatants")
    sheet: Mapping[str, Any] = c.sheet
    if c.preset is not None:
        merged = with_preset(ctx.rules.presets, c.preset, c.sheet)
        if merged is None:
            raise Invalid(
                reason="unknown_preset_known",
                params={"preset": c.preset, "presets": sorted(ctx.rules.presets)},
            )
        sheet = merged
    valid = ctx.rules.validate_sheet(sheet, ctx.settings)
    unknown = [r for r in c.hidden if r not in valid.resources]
    if unknown:
        raise Invalid(
            reason="cannot_hide_sheet_resources_are",
            params={"unknown": unknown, "resources": sorted(valid.resources)},
        )
    gm_only = [*valid.gm_only, *(r for r in c.hidden if r not in valid.gm_only)]
    if c.character is not None and ctx.state.ledger.campaign is None:
        raise Invalid(reason="only_encounter_opened_war_takes")
    added = ctx.state.ledger.next_combatant_id(ctx.game.added)  # never reused (undo)
    ctx.emit(
        ev.CombatantAdded(
            combatant_id=added,
            name=c.name,
            side=c.side,
            sheet=valid.sheet,
            resources=valid.resources,
            maxima=valid.maxima,
            controller=c.controller,
            gm_only=gm_only,
            character=c.character,
        )
    )
    for key, scope, rule in valid.used:
        ctx.emit(ev.LimitUsed(combatant_id=added, key=key, scope=scope, rule=rule))
    _join_order(ctx, added)


def _join_order(ctx: Ctx, added: str) -> None:
    """A combatant added once the initiative order is set joins it, or it would never act
    (issue 21): its initiative is rolled as the system rolls it and it takes its place by
    score among the others, whose order stays as it was. Mid-round, it acts this round if
    its place is still to come, else from the next one."""
    game = ctx.game
    if not game.order:
        return  # the first roll or the start will order everyone
    scores = ctx.rules.initiative(ctx, [added])
    known = {cid: game.scores[cid] for cid in game.order if cid in game.scores}
    ranked = ctx.rules.order(game, known | scores) if added in scores else []
    order = [cid for cid in game.order if cid != added]
    after = ranked[ranked.index(added) + 1 :] if added in ranked else []
    nxt = next((cid for cid in after if cid in order), None)
    order.insert(order.index(nxt) if nxt is not None else len(order), added)
    ctx.emit(ev.InitiativeSet(order=order, scores=dict(game.scores) | scores))


def _remove(ctx: Ctx, c: cmd.RemoveCombatant) -> None:
    _gm_only(ctx.who, "remove combatants")
    ctx.combatant(c.combatant)
    was_turn = ctx.game.actor == c.combatant
    ctx.emit(ev.CombatantRemoved(combatant_id=c.combatant, reason=c.reason))
    if was_turn:
        next_turn(ctx)


def _initiative(ctx: Ctx, c: cmd.RollInitiative) -> None:
    _gm_only(ctx.who, "roll initiative")
    if ctx.game.started:
        raise Refused("rule_violation", reason="initiative_before_combat")
    active = ctx.game.active()
    if not active:
        raise Refused("rule_violation", reason="no_combatants_yet")
    scores = ctx.rules.initiative(ctx, active)
    ctx.emit(ev.InitiativeSet(order=ctx.rules.order(ctx.game, scores), scores=scores))


def _start(ctx: Ctx, c: cmd.StartCombat) -> None:
    _gm_only(ctx.who, "start combat")
    if ctx.game.started:
        raise Refused("rule_violation", reason="combat_started")
    if len(ctx.game.active()) < 2:
        raise Refused("rule_violation", reason="needs_two_combatants")
    if not ctx.game.order or set(ctx.game.order) != set(ctx.game.active()):
        _initiative(ctx, cmd.RollInitiative(dice=c.dice))
    ctx.emit(ev.CombatStarted(order=list(ctx.game.order)))
    next_turn(ctx)


def _act(ctx: Ctx, c: cmd.Act) -> None:
    _controls(ctx, c.actor)
    _in_fight(ctx, c.actor)
    spec = ctx.rules.actions.get(c.action)
    if spec is None:
        raise Invalid(
            reason="unknown_action_known",
            params={"action": c.action, "actions": sorted(ctx.rules.actions)},
        )
    for target in [c.target, *c.targets]:
        if target is not None:
            ctx.combatant(target)
    if spec.needs_target and c.target is None and not c.targets:
        raise Invalid(reason="needs_target", params={"action": c.action})
    if not spec.free:
        if not ctx.game.started:
            raise Refused("not_your_turn", reason="combat_not_started")
        if ctx.game.actor != c.actor:
            raise Refused(
                "not_your_turn", reason="not_turn_of", params={"actor": ctx.combatant(c.actor)}
            )
        _no_pending(ctx)
    options.check(ctx.rules, ctx.game, c.actor, "action", c.action, c.options)
    ctx.emit(
        ev.ActionDeclared(
            actor=c.actor,
            action=c.action,
            target=c.target,
            targets=list(c.targets),
            rank=c.rank,
            options=dict(c.options),
        )
    )
    _after(ctx, ctx.rules.act(ctx, c))


def _refused_as_legal_says(state: EncounterState, c: cmd.Act) -> None:
    """An action `legal` marks disabled, sent with no target because none is left for it
    (ranks-d100's mana transfer with no partner who has room, RK-30; d100-tcs's pursuit
    with nobody fleeing, TC-34; a d100-tcs spell with no foe in the fight, TC-9), is
    refused under the rule `legal` names, not as a form error or over an option the
    sender could not have chosen: a disabled entry is refused for the reason shown.
    Asked only once the command is refused, of the state before it: no cost on the
    accepted path."""
    rules = rules_of(state)
    spec = rules.actions.get(c.action)
    if spec is None or c.actor not in state.game.combatants:
        return
    settings = {k: s.default for k, s in rules.settings.items()} | state.ledger.settings
    for entry in rules.legal(state.game, c.actor, settings):
        if entry.action != c.action or entry.reaction or entry.enabled or not entry.rule:
            continue
        if spec.needs_target or (entry.reason == "no_target" and not entry.targets):
            game = state.game
            facts = {
                key: game.combatants.get(value, value) if isinstance(value, str) else value
                for key, value in entry.params.items()
            }
            raise RuleViolation(rule=entry.rule, reason=entry.reason, params=facts)


def _react(ctx: Ctx, c: cmd.React) -> None:
    _controls(ctx, c.actor)
    pending = next((p for p in ctx.game.pending if p.target == c.actor), None)
    if pending is None:
        me = ctx.combatant(c.actor)
        raise Refused("no_pending_reaction", reason="no_attack_waiting", params={"actor": me})
    if c.reaction != "none" and c.reaction not in ctx.rules.reactions:
        raise Invalid(
            reason="unknown_reaction_known",
            params={"reaction": c.reaction, "reactions": sorted(ctx.rules.reactions)},
        )
    if c.reaction != "none":
        _in_fight(ctx, c.actor)
    options.check(ctx.rules, ctx.game, c.actor, "reaction", c.reaction, c.options)
    ctx.emit(
        ev.ReactionDeclared(
            pending_id=pending.id,
            actor=c.actor,
            reaction=c.reaction,
            options=dict(c.options),
            by_gm=ctx.who.role == "gm",
        )
    )
    _after(ctx, ctx.rules.react(ctx, c, pending))


def _end_turn(ctx: Ctx, c: cmd.EndTurn) -> None:
    _controls(ctx, c.actor)
    if ctx.game.actor != c.actor:
        raise Refused(
            "not_your_turn", reason="not_turn_of", params={"actor": ctx.combatant(c.actor)}
        )
    _no_pending(ctx)
    end_turn(ctx, c.actor)


def _adjust(ctx: Ctx, c: cmd.Adjust) -> None:
    _gm_only(ctx.who, "adjust resources")
    ctx.change(c.combatant, c.resource, c.delta, c.reason, by_gm=True)


def _repair(ctx: Ctx, c: cmd.RepairArmor) -> None:
    _gm_only(ctx.who, "repair armor")
    ctx.combatant(c.combatant)
    ctx.rules.repair(ctx, c)


def _free_roll(ctx: Ctx, c: cmd.Roll) -> None:
    if c.hidden:
        _gm_only(ctx.who, "roll hidden dice")
    try:
        expr = dicelib.parse(c.expr)
    except ValueError as e:
        raise Invalid(str(e)) from e
    ctx.roll(
        expr.sizes,
        expr=c.expr,
        purpose=c.purpose or "free roll",
        actor=ctx.who.name,
        modifier=expr.modifier,
        hidden=c.hidden,
    )


def _undo(ctx: Ctx, c: cmd.Undo) -> None:
    _gm_only(ctx.who, "undo")
    led = ctx.state.ledger
    if c.to_version is not None:
        target = c.to_version
        if target >= led.version:
            raise Invalid(
                reason="version_must_below_current_version", params={"version": led.version}
            )
        if target not in led.ends:
            # Inside one command's events the game is half-moved (an attack without its
            # turn change): an undo goes back to whole steps only.
            before = max((v for v in led.ends if v < target), default=None)
            after = min((v for v in led.ends if v > target), default=led.version)
            raise Invalid(
                reason="undo_inside_step",
                params={"version": target, "before": before if before is not None else after,
                        "after": after},
            )  # fmt: skip
    else:
        if led.head is None:
            raise Refused("rule_violation", reason="nothing_to_undo")
        target = led.head.first - 1
    ctx.emit(ev.Undone(to_version=target, from_version=target + 1, reason=c.reason))


def _entropy(ctx: Ctx, c: cmd.AddEntropy) -> None:
    if ctx.state.ledger.rolls:
        raise Refused("rule_violation", reason="entropy_after_first_roll")
    ctx.emit(ev.EntropyAdded(by=ctx.who.name or ctx.who.role, value=c.value))


def _dispute(ctx: Ctx, c: cmd.Dispute) -> None:
    led = ctx.state.ledger
    if not 1 <= c.roll <= led.rolls or (c.roll in led.hidden_rolls and ctx.who.role != "gm"):
        raise NotFound(reason="no_roll_this_encounter", params={"roll": c.roll})
    ctx.emit(ev.RollDisputed(seq=c.roll, by=ctx.who.name or ctx.who.role, reason=c.reason))


def _apply_condition(ctx: Ctx, c: cmd.ApplyCondition) -> None:
    _gm_only(ctx.who, "apply conditions")
    who = ctx.combatant(c.combatant)
    if who.out is not None:
        # A condition counts its bearer's turns; one out of the fight has none left.
        raise Refused(
            "rule_violation",
            rule=who.out_rule,
            reason="out_of_the_fight",
            params={"who": who, "out": who.out},
        )
    name = c.name.strip()
    if not name:
        raise Invalid(reason="condition_needs_name")
    if name not in who.conditions and len(who.conditions) >= MAX_CONDITIONS:
        raise Invalid(reason="already_has_conditions", params={"who": who, "max": MAX_CONDITIONS})
    ctx.condition(
        who.id,
        name,
        rounds=c.rounds,
        until=c.until,
        note=c.note.strip(),
        modifier=c.modifier,
        by_gm=True,
    )


def _remove_condition(ctx: Ctx, c: cmd.RemoveCondition) -> None:
    _gm_only(ctx.who, "remove conditions")
    who = ctx.combatant(c.combatant)
    if not ctx.lift(who.id, c.name.strip(), by_gm=True):
        params = {"who": who, "condition": c.name.strip()}
        raise NotFound(reason="no_such_condition", params=params)


def _set_initiative(ctx: Ctx, c: cmd.SetInitiative) -> None:
    _gm_only(ctx.who, "set the initiative order")
    game = ctx.game
    if game.started or (game.order and set(game.order) == set(game.active())):
        now = [cid for cid in game.order if cid in game.combatants]
    else:
        now = game.active()
    if len(set(c.order)) != len(c.order) or set(c.order) != set(now):
        names = ", ".join(f"{cid} ({game.combatants[cid].name})" for cid in now)
        raise Invalid(reason="order_must_list_each_once", params={"names": names})
    ctx.rules.check_reorder(ctx)
    scores = {cid: game.scores[cid] for cid in c.order if cid in game.scores}
    ctx.emit(ev.InitiativeSet(order=list(c.order), scores=scores))


def _continue(ctx: Ctx, c: cmd.ContinueCombat) -> None:
    _gm_only(ctx.who, "continue the fight")
    if nobody_standing(ctx.game):
        raise Refused("rule_violation", reason="nobody_standing")
    if one_side_left(ctx.game) is None or ctx.game.continued:
        raise Refused("rule_violation", reason="fight_not_decided")
    ctx.emit(ev.CombatContinued(reason=c.reason))
    if ctx.game.actor is None and not ctx.game.pending:
        next_turn(ctx)


def _answer_dispute(ctx: Ctx, c: cmd.AnswerDispute) -> None:
    _gm_only(ctx.who, "answer disputes")
    if not any(d.seq == c.roll and d.answer is None for d in ctx.state.ledger.disputes):
        raise NotFound(reason="roll_has_no_open_dispute", params={"roll": c.roll})
    answer = c.answer.strip()
    if not answer:
        raise Invalid(reason="answer_needs_some_words")
    ctx.emit(ev.DisputeAnswered(seq=c.roll, answer=answer, by="gm"))


def _close(ctx: Ctx, c: cmd.Close) -> None:
    _gm_only(ctx.who, "close the encounter")
    ctx.emit(ev.EncounterClosed(reason=c.reason))
    for seed_id in ctx.state.ledger.commitments:
        seed = ctx.dice.reveal(seed_id)
        if seed is not None:
            ctx.emit(ev.SeedRevealed(seed_id=seed_id, seed=seed.hex()))


def _apply_deadline(ctx: Ctx, c: cmd.ApplyDeadline) -> None:
    """The deadline watcher's step (domain/deadline.py): the reminder is a fact for the
    log and the webhooks; the passing applies the policy through the commands a GM would
    send (the `none` answer to the defence, the end of the turn), so the rules hold."""
    _gm_only(ctx.who, "apply deadlines")
    settings = ctx.settings
    hours = deadline.hours_of(settings)
    if hours <= 0:
        raise Refused("rule_violation", reason="deadline_off")
    wait = deadline.waiting(ctx.state)
    if wait is None or wait.since != c.since:
        raise Refused("rule_violation", reason="deadline_wait_over", params={"since": c.since})
    led = ctx.state.ledger
    if c.since in led.passed or (c.step == "remind" and c.since in led.reminded):
        raise Refused("rule_violation", reason="deadline_already", params={"since": c.since})
    facts: dict[str, Any] = {
        "who": wait.who,
        "waiting": wait.waiting,
        "since": wait.since,
        "pending_id": wait.pending_id,
        "hours": hours,
        "due": c.due,
    }
    if c.step == "remind":
        ctx.emit(ev.DeadlineReminded(**facts))
        return
    policy = deadline.policy_of(settings)
    ctx.emit(ev.DeadlinePassed(**facts, policy=policy))  # type: ignore[arg-type]
    if policy == "alert":
        return
    if wait.waiting == "defence":
        _react(ctx, cmd.React(actor=wait.who, reaction="none"))
    elif policy == "pass":
        _end_turn(ctx, cmd.EndTurn(actor=wait.who))


# Commands that touch the ledger only, and undo (whose board must be that of ?at=V).
_LEDGER_COMMANDS = (cmd.Undo, cmd.Dispute, cmd.AnswerDispute, cmd.Close, cmd.AddEntropy, cmd.Roll)

Handler = Callable[[Ctx, Any], None]
HANDLERS: dict[type[cmd.Command], Handler] = {
    cmd.AddCombatant: _add,
    cmd.RemoveCombatant: _remove,
    cmd.RollInitiative: _initiative,
    cmd.StartCombat: _start,
    cmd.Act: _act,
    cmd.React: _react,
    cmd.EndTurn: _end_turn,
    cmd.Adjust: _adjust,
    cmd.RepairArmor: _repair,
    cmd.Roll: _free_roll,
    cmd.Undo: _undo,
    cmd.AddEntropy: _entropy,
    cmd.Dispute: _dispute,
    cmd.ApplyCondition: _apply_condition,
    cmd.RemoveCondition: _remove_condition,
    cmd.SetInitiative: _set_initiative,
    cmd.ContinueCombat: _continue,
    cmd.AnswerDispute: _answer_dispute,
    cmd.Close: _close,
    cmd.ApplyDeadline: _apply_deadline,
}


def decide(
    state: EncounterState, command: cmd.Command, dice: Dice, who: Principal = GM
) -> list[ev.Event]:
    """The events a command produces, or a Refused exception. Never mutates `state`."""
    return decide_and_fold(state, command, dice, who)[0]


def decide_and_fold(
    state: EncounterState,
    command: cmd.Command,
    dice: Dice,
    who: Principal = GM,
    *,
    give_up: bool = False,
) -> tuple[list[ev.Event], EncounterState]:
    """`decide`, plus the state with the events already folded in (a new object).

    The decision folds every event it emits into its own clone anyway; a caller that
    keeps the state (the resolver, a cache) takes that clone instead of folding twice.
    With `give_up` the caller hands `state` over: the decision folds into it, no clone
    (the resolver's duels, which never look back). If the command is then refused, that
    state is left half-folded and must be dropped.
    """
    if not state.ledger.encounter_id:
        raise NotFound(reason="no_such_encounter")
    if who.role == "spectator":
        raise Forbidden(reason="spectators_only_watch")
    if state.ledger.closed and not isinstance(command, (cmd.Dispute, cmd.AnswerDispute)):
        raise Refused("closed", reason="encounter_closed")
    manual = getattr(command, "dice", None)
    if manual is not None:
        _gm_only(who, "enter physical dice")
        dice = dicelib.ManualRoller(manual)
    ctx = Ctx(state, dice, who, rules_of(state), clone=not give_up)
    try:
        HANDLERS[type(command)](ctx, command)
    except (Forbidden, NotFound):
        raise
    except Refused:
        untargeted = isinstance(command, cmd.Act) and not command.target and not command.targets
        if untargeted and not give_up:  # `state` is as it was: ask legal why
            _refused_as_legal_says(state, command)  # type: ignore[arg-type]
        raise
    ctx.rules.after_command(ctx)
    actor = ctx.game.actor
    current = ctx.game.combatants.get(actor) if actor is not None else None
    if current is not None and current.out is not None and not ctx.game.pending:
        end_turn(ctx, current.id)
    game = ctx.game
    if (
        game.started
        and game.actor is None
        and not game.pending
        and not ctx.state.ledger.closed
        and not isinstance(command, _LEDGER_COMMANDS)
    ):
        # A fight is never left without an actor: a GM's add to a decided fight, a
        # removal that left the order empty... (next_turn stops at a decided fight).
        next_turn(ctx)
    if manual is not None:
        left = len(dice.remaining) if isinstance(dice, dicelib.ManualRoller) else 0
        if left:
            raise Invalid(reason="dice_entered_were_not_used", params={"left": left})
    return ctx.events, ctx.state
