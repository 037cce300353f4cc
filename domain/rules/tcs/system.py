"""d100-tcs: d100 roll-under rounds with two declared actions, TCS, armor PR/PP, morale.

The digest is shared/rules/d100-tcs.md (rule ids TC-n, ambiguities TC-AMB-n); each
**Proposed** resolution there is a setting (settings.py) whose default is the proposal.
The pieces, named as in every rule package: settings, specs (the actions), tables (costs,
distances, the roll-under judge), sheet (sheets, presets), options, legal, payloads; and
this system's own: turns (initiative each round, turn order, the end-of-round flight step,
defeat), actions (the declared two-action plan and each action), combat (attacks, spells,
modifiers, criticals, friendly fire, opportunity attacks), damage (piercing, armor,
padding, shields, last stand), costs (what an action costs and why it is refused).

There are no reactions: a shield's defense is a malus to the attacker's test (TC-57),
and the last stand's END test is rolled at once (TC-28), so nothing waits on a target.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from domain.commands import Act, React, RepairArmor
from domain.context import Ctx
from domain.errors import Refused
from domain.rules.common.base import Rules
from domain.rules.tcs import actions, legal, turns
from domain.rules.tcs.damage import repair
from domain.rules.tcs.options import OPTIONS
from domain.rules.tcs.settings import SETTINGS
from domain.rules.tcs.sheet import PRESETS, resources, validate
from domain.rules.tcs.specs import ACTIONS
from domain.state import Combatant, Game, Pending
from domain.terms import (
    ActionSpec,
    LegalAction,
    Outcome,
    SessionUse,
    Setting,
    Sheet,
    TurnShape,
    with_defaults,
)


class TCS(Rules):
    """d100 TCS combat: rounds, initiative ascending, two declared actions per turn."""

    id = "d100-tcs"
    turn: TurnShape = "two_declared"  # TC-7: both actions declared at once
    name = "d100 TCS with armor PR/PP and morale"
    version = "1"
    settings: Mapping[str, Setting] = SETTINGS
    actions: Mapping[str, ActionSpec] = ACTIONS
    reactions: Mapping[str, ActionSpec] = {}
    presets: Mapping[str, Mapping[str, Any]] = PRESETS
    options = OPTIONS

    def validate_sheet(self, sheet: Mapping[str, Any], settings: Mapping[str, Any]) -> Sheet:
        out = validate(sheet, with_defaults(SETTINGS, settings))
        pools, top = resources(out)
        return Sheet(out, pools, top)

    def initiative(self, ctx: Ctx, combatants: list[str]) -> dict[str, int]:
        return turns.roll_initiative(ctx, combatants)

    def order(self, game: Game, scores: Mapping[str, int]) -> list[str]:
        return turns.order(game, scores)

    def end_round(self, ctx: Ctx) -> None:
        turns.end_round(ctx)

    def start_round(self, ctx: Ctx) -> None:
        turns.start_round(ctx)

    def advance(self, game: Game) -> tuple[bool, str, str] | None:
        return turns.advance(game)

    def act(self, ctx: Ctx, command: Act) -> Outcome:
        return actions.play(ctx, command)

    def react(self, ctx: Ctx, command: React, pending: Pending) -> Outcome:
        # Unreachable through the core (nothing is ever pending), kept for the Protocol.
        raise Refused("no_pending_reaction", reason="tcs_no_reactions")

    def check_reorder(self, ctx: Ctx) -> None:
        """TC-4: once the fight is on, initiative is rolled again every round, which would
        undo a hand-set order; before the start the GM's order opens round 1."""
        if ctx.game.started and with_defaults(SETTINGS, ctx.settings)["init.reroll_each_round"]:
            raise Refused("rule_violation", rule="TC-4", reason="initiative_every_round")

    def repair(self, ctx: Ctx, command: RepairArmor) -> None:
        """TC-48: the GM's armor repair (the `repair_armor` command)."""
        repair(ctx, command.combatant, command.pr, command.reason)

    def after_command(self, ctx: Ctx) -> None:
        turns.settle(ctx)

    def once_per_session(self, me: Combatant) -> list[SessionUse]:
        """TC-20: each potion on the sheet is drunk once per session."""
        potions = [i["name"] for i in me.sheet.get("items", []) if i.get("heal", 0) > 0]
        return [SessionUse(key=f"item:{name}", rule="TC-20") for name in potions]

    def legal(self, game: Game, actor: str, settings: Mapping[str, Any]) -> list[LegalAction]:
        return legal.listing(game, actor, settings)
