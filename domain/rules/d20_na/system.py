"""d20-na: d20 roll-under ATT/PAR/HAB/TIR combat with an NA action budget per round.

The digest is shared/rules/d20-na.md (rule ids NA-n, ambiguities NA-AMB-n); each
**Proposed** resolution there is a setting (settings.py) whose default is the proposal.
The pieces, named as in every rule package: settings, specs (the actions and reactions),
tables (NA-15, NA-21..NA-35 numbers), sheet (sheets, NA-19, presets), options, legal (what
the UI may offer), payloads (the facts a resolution stores; projections/log/d20_na.py
words them); and this system's own: turns (NA-2..NA-5 budgets and slots), combat and attack
(attacks, defenses, damage), resolver (the 1v1 fight resolver).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from domain import events as ev
from domain.commands import Act, React
from domain.context import Ctx
from domain.errors import Refused, RuleViolation
from domain.rules.common import contact
from domain.rules.common.base import Rules
from domain.rules.d20_na import attack, combat, legal, payloads, turns
from domain.rules.d20_na.options import OPTIONS
from domain.rules.d20_na.settings import SETTINGS
from domain.rules.d20_na.sheet import PRESETS, validate
from domain.rules.d20_na.specs import ACTIONS, REACTIONS
from domain.state import Game, Pending
from domain.terms import ActionSpec, LegalAction, Outcome, Setting, Sheet, TurnOver, with_defaults


class D20NA(Rules):
    """d20 roll-under with NA + ½ half-action budgets, interleaved by INI."""

    id = "d20-na"
    name = "d20 ATT/PAR with NA budget"
    version = "1"
    settings: Mapping[str, Setting] = SETTINGS
    actions: Mapping[str, ActionSpec] = ACTIONS
    reactions: Mapping[str, ActionSpec] = REACTIONS
    presets: Mapping[str, Mapping[str, Any]] = PRESETS
    options = OPTIONS

    def validate_sheet(self, sheet: Mapping[str, Any], settings: Mapping[str, Any]) -> Sheet:
        out = validate(sheet)
        return Sheet(out, {"hp": out["hp"]}, {"hp": out["hp"]})

    def initiative(self, ctx: Ctx, combatants: list[str]) -> dict[str, int]:
        """NA-4: INI is compared, not rolled; NA-AMB-24: ties go to HAB, then a d20.

        Only tied combatants get a `tiebreak` status (HAB·100 + roll-off face), which
        `order` reads: it has no settings of its own to look at.
        """
        scores = {c: int(ctx.combatant(c).sheet["INI"]) for c in combatants}
        use_hab = ctx.setting("init.tie_break") == "HAB,roll_d20"

        def hab(c: str) -> int:
            return int(ctx.combatant(c).sheet["HAB"]) if use_hab else 0

        for cid in combatants:
            tied = [o for o in combatants if scores[o] == scores[cid]]
            if len(tied) < 2:
                continue
            face = 0
            if sum(1 for o in tied if hab(o) == hab(cid)) > 1:
                rolled = ctx.roll([20], expr="1d20", purpose="initiative roll-off", actor=cid)
                face = rolled.faces[0]
            ctx.status(cid, "tiebreak", hab(cid) * 100 + face, "NA-AMB-24")
        return scores

    def order(self, game: Game, scores: Mapping[str, int]) -> list[str]:
        def key(c: str) -> tuple[int, int, str]:
            return (-scores[c], -int(game.combatants[c].status.get("tiebreak", 0)), c)

        return sorted(scores, key=key)

    def start_round(self, ctx: Ctx) -> None:
        turns.start_round(ctx)

    def advance(self, game: Game) -> tuple[bool, str, str] | None:
        return turns.advance(game)

    def act(self, ctx: Ctx, command: Act) -> Outcome:
        action = command.action
        cfg = with_defaults(SETTINGS, ctx.settings)
        refusal = legal.refusal(ctx.game, command.actor, action, cfg)
        if refusal is not None:
            raise refusal
        if action in combat.MODES:
            attack.attack(ctx, command)
            self.after_command(ctx)  # the fallen fall in this turn, before it is handed on
            if combat.pending_of(ctx.game, command.actor) is None:
                return _slot_over(ctx, command.actor, turns.FULL)
            return None
        if action == "pass":
            ctx.emit(ev.LimitUsed(combatant_id=command.actor, key=turns.PASSED, scope="round",
                                  rule="NA-AMB-3"))  # fmt: skip
            _done(ctx, command.actor, "pass")
            return TurnOver(command.actor)
        if action == "charge":
            _charge(ctx, command)
            return None
        _half_action(ctx, command)
        return _slot_over(ctx, command.actor, turns.HALF)

    def react(self, ctx: Ctx, command: React, pending: Pending) -> Outcome:
        outcome = attack.react(ctx, command, pending)
        self.after_command(ctx)  # the fallen fall in this turn, before it is handed on
        return outcome

    def turn_ended(self, ctx: Ctx, actor: str, round_over: bool) -> None:
        turns.record_pass(ctx, actor, round_over)

    def after_command(self, ctx: Ctx) -> None:
        """A combatant at 0 HP is down: after each blow, and after any command (an adjust)."""
        for c in list(ctx.game.combatants.values()):
            if c.out is None and c.resources.get("hp", 1) <= 0:
                ctx.defeat(c.id, "down")

    def legal(self, game: Game, actor: str, settings: Mapping[str, Any]) -> list[LegalAction]:
        cfg = with_defaults(SETTINGS, settings)
        return legal.listing(game, actor, cfg, [(a, s.rule) for a, s in ACTIONS.items()])


def _done(ctx: Ctx, actor: str, action: str, target: str = "", weapon: str = "") -> None:
    done = payloads.Done(target=target, weapon=weapon)
    ctx.resolved(actor, action, "done", done)


def _slot_over(ctx: Ctx, actor: str, kind: str) -> Outcome:
    if ctx.game.actor == actor and turns.slot_over(ctx.game, actor, kind):
        return TurnOver(actor)
    return None


def _charge(ctx: Ctx, command: Act) -> None:
    """NA-8: not while in melee, nothing in the way; +2 ATT on the attack that follows."""
    target = ctx.combatant(attack.target_of(command))
    if command.options.get("path_clear", True) is not True:
        raise Refused("rule_violation", rule="NA-AMB-9", reason="something_in_the_way")
    turns.spend(ctx, command.actor, turns.CHARGE, 1, "charge", "NA-8")
    ctx.status(command.actor, "charging", target.id, "NA-8")
    _done(ctx, command.actor, "charge", target=target.id)


def _half_action(ctx: Ctx, command: Act) -> None:
    """NA-7, NA-AMB-23: the half-action is paid; its effect beyond that is narrative."""
    actor = command.actor
    me = ctx.combatant(actor)
    turns.spend(ctx, actor, turns.HALF, 1, command.action, "NA-7")
    if command.action == "disengage":
        contact.break_contact(ctx, actor, "NA-7", combat.engaged(ctx.game, actor), always=True)
    if command.action == "reload":
        unloaded = list(me.status.get("unloaded", []))
        name = command.options.get("weapon", unloaded[0] if unloaded else None)
        if name not in unloaded:
            raise RuleViolation(
                rule="NA-AMB-23", reason="not_waiting_reload", params={"weapon": name}
            )
        rest = [w for w in unloaded if w != name]
        ctx.status(actor, "unloaded", rest or None, "NA-AMB-23")
    reloaded = str(name) if command.action == "reload" else ""
    _done(ctx, actor, command.action, weapon=reloaded)
