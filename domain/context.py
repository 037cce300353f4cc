"""The decision context a rule system works through, and the `RuleSystem` Protocol.

The two name each other (`Ctx.rules` is a `RuleSystem`; its hooks take a `Ctx`), so they
live in one module; the terms they exchange are plain values in `domain.terms`, which
imports no `Ctx`.

`Ctx` holds a private clone of the state. Every event a decision emits is folded into
that clone at once, so a rule reads the consequences of what it already decided (budget
spent, HP lost) before deciding the next thing. Dice come only through `roll`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol

import msgspec

from domain import events as ev
from domain.commands import Act, React, RepairArmor
from domain.errors import Invalid, NotFound, Refused
from domain.evolve import evolve
from domain.facts import encode
from domain.state import Combatant, EncounterState, Game, Pending, Principal
from domain.terms import (
    ActionSpec,
    LegalAction,
    OptionTable,
    Outcome,
    SessionUse,
    Setting,
    Sheet,
    TurnShape,
)


class Drawn(Protocol):
    """What a roller gives back (see domain.dice.Drawn)."""

    @property
    def faces(self) -> list[int]: ...
    @property
    def source(self) -> str: ...
    @property
    def seed_id(self) -> str | None: ...
    @property
    def roll(self) -> int | None: ...
    @property
    def client_seed(self) -> str: ...


class Dice(Protocol):
    """The injected roller: server seeds, fixed test faces, or a GM's physical dice."""

    def roll(self, sizes: Sequence[int], *, hidden: bool = False) -> Drawn: ...

    def reveal(self, seed_id: str) -> bytes | None:
        """A seed to publish at close, or None where this roller keeps (or has) none."""
        ...


Judge = Callable[[list[int]], ev.Check | None]


class RuleSystem(Protocol):
    """A rule system: sheets, initiative, turn structure, and the resolution of act/react.

    Every hook the encounter calls is here, typed; `Rules` gives the defaults most
    systems keep. A system puts its own conditions on through `ctx.condition`
    (d100-tcs: `no_aoo` after a disengage, TC-27) and reads their modifiers with
    `domain.conditions.modifiers`.
    """

    id: str
    name: str
    version: str
    settings: Mapping[str, Setting]
    actions: Mapping[str, ActionSpec]
    reactions: Mapping[str, ActionSpec]
    presets: Mapping[str, Mapping[str, Any]]
    options: OptionTable  # what each action and reaction takes (domain/rules/common/options.py)
    turn: TurnShape

    def validate_sheet(self, sheet: Mapping[str, Any], settings: Mapping[str, Any]) -> Sheet:
        """Check a sheet; raise domain.errors.Invalid (with the rule id) if it breaks a rule."""
        ...

    def initiative(self, ctx: Ctx, combatants: list[str]) -> dict[str, int]:
        """Each combatant's initiative score (rolling through ctx where the system rolls)."""
        ...

    def order(self, game: Game, scores: Mapping[str, int]) -> list[str]:
        """The acting order from the scores (ties broken the system's way)."""
        ...

    def start_round(self, ctx: Ctx) -> None:
        """Round-start bookkeeping (budgets, carry-overs): emit through ctx."""
        ...

    def advance(self, game: Game) -> tuple[bool, str, str] | None:
        """After a turn ends: (new_round?, next actor, phase), or None when nobody can act."""
        ...

    def end_round(self, ctx: Ctx) -> None:
        """What is settled at the end of a round, before the next one opens (TC-29)."""
        ...

    def turn_ended(self, ctx: Ctx, actor: str, round_over: bool) -> None:
        """Bookkeeping once `actor`'s turn has ended and the next one started (NA-AMB-3)."""
        ...

    def act(self, ctx: Ctx, command: Act) -> Outcome:
        """Resolve an action; emit events through ctx; raise Refused when a rule forbids."""
        ...

    def react(self, ctx: Ctx, command: React, pending: Pending) -> Outcome:
        """Resolve the answer to a pending attack (`none` = no defense)."""
        ...

    def after_command(self, ctx: Ctx) -> None:
        """After any command: what follows from the state (defeat at 0 HP, a fleer gone)."""
        ...

    def repair(self, ctx: Ctx, command: RepairArmor) -> None:
        """The GM's `repair_armor`; a system without armor refuses it."""
        ...

    def check_reorder(self, ctx: Ctx) -> None:
        """Raise Refused where the system forbids a hand-set order now (set_initiative)."""
        ...

    def legal(self, game: Game, actor: str, settings: Mapping[str, Any]) -> list[LegalAction]:
        """What `actor` may do now, each with why not, its cost and its odds."""
        ...

    def once_per_session(self, me: Combatant) -> list[SessionUse]:
        """The abilities `me`'s sheet gives once per session (RP), each by its limit key."""
        ...


class Ctx:
    """One decision in progress: the working state, the dice and the events so far."""

    def __init__(
        self,
        state: EncounterState,
        dice: Dice,
        who: Principal,
        rules: RuleSystem,
        *,
        clone: bool = True,
    ) -> None:
        self.state = state.clone() if clone else state  # not a clone: the caller gave it up
        self.dice = dice
        self.who = who
        self.rules = rules
        self.events: list[ev.Event] = []

    # --- reading -----------------------------------------------------------------------
    @property
    def game(self) -> Game:
        return self.state.game

    @property
    def settings(self) -> dict[str, Any]:
        return self.state.ledger.settings

    def setting(self, key: str) -> Any:
        if key in self.state.ledger.settings:
            return self.state.ledger.settings[key]
        return self.rules.settings[key].default

    def combatant(self, combatant_id: str | None) -> Combatant:
        if combatant_id is None:
            raise Invalid(reason="combatant_required")
        found = self.state.game.combatants.get(combatant_id)
        if found is None:
            raise NotFound(
                reason="no_combatant_this_encounter", params={"combatant_id": combatant_id}
            )
        return found

    # --- writing -----------------------------------------------------------------------
    def emit(self, event: ev.Event) -> None:
        self.events.append(event)
        evolve(self.state, event, len(self.events) == 1)  # a command's events: one batch
        kind = type(event)  # events are final classes: cheaper than isinstance, per event
        if kind is ev.TurnStarted or kind is ev.TurnEnded:
            self._expire(event.actor, out=False)  # type: ignore[attr-defined]
        elif kind is ev.CombatantDefeated:
            self._expire(event.combatant_id, out=True)  # type: ignore[attr-defined]

    def _expire(self, bearer: str, *, out: bool) -> None:
        """At an edge of `bearer`'s turn (evolve has counted it down), the conditions with
        no edge left end; a bearer out of the fight has no more turns to count, so all
        of its conditions end with it."""
        who = self.state.game.combatants.get(bearer)
        if who is None or not who.conditions:
            return
        for c in list(who.conditions.values()):
            if out or c.left == 0:
                reason = "out_of_fight" if out else "duration"
                gone = ev.ConditionExpired(
                    combatant_id=bearer, name=c.name, reason=reason, rule=c.rule
                )
                self.emit(gone)

    # --- conditions: the hook a rule system applies its own through -------------------
    def condition(
        self,
        combatant_id: str,
        name: str,
        *,
        rounds: int | None = None,
        until: str = "end_of_turn",
        note: str = "",
        modifier: int | None = None,
        rule: str | None = None,
        by_gm: bool = False,
    ) -> None:
        """Put condition `name` on a combatant (replacing one of that name): `rounds` edges
        (`until`) of its own turns from now, or until removed."""
        self.combatant(combatant_id)
        self.emit(
            ev.ConditionApplied(
                combatant_id=combatant_id,
                name=name,
                until=until,
                rounds=rounds,
                note=note,
                modifier=modifier,
                rule=rule,
                by_gm=by_gm,
            )
        )

    def lift(
        self, combatant_id: str, name: str, rule: str | None = None, *, by_gm: bool = False
    ) -> bool:
        """Take condition `name` off a combatant; False if it had none of that name."""
        if name not in self.combatant(combatant_id).conditions:
            return False
        self.emit(ev.ConditionRemoved(combatant_id=combatant_id, name=name, rule=rule, by_gm=by_gm))
        return True

    def roll(
        self,
        sizes: Sequence[int],
        *,
        expr: str,
        purpose: str,
        actor: str | None,
        modifier: int = 0,
        hidden: bool = False,
        judge: Judge | None = None,
    ) -> ev.DieRolled:
        """Draw dice, judge them, and record the roll as a `die_rolled` event."""
        try:
            drawn = self.dice.roll(list(sizes), hidden=hidden)
        except ValueError as e:  # DiceError: a manual face out of range, too few dice
            raise Invalid(str(e)) from e
        faces = list(drawn.faces)
        event = ev.DieRolled(
            seq=self.state.ledger.rolls + 1,
            roll=drawn.roll,
            seed_id=drawn.seed_id,
            client_seed=drawn.client_seed,
            source=drawn.source,
            expr=expr,
            sizes=list(sizes),
            faces=faces,
            total=sum(faces) + modifier,
            purpose=purpose,
            actor=actor,
            hidden=hidden,
            check=judge(faces) if judge else None,
        )
        self.emit(event)
        return event

    def change(
        self,
        combatant_id: str,
        resource: str,
        delta: int,
        reason: str,
        rule: str | None = None,
        *,
        by_gm: bool = False,
        floor: int = 0,
    ) -> int:
        """Move a resource, clamped to [floor, maximum]; returns the change applied."""
        who = self.combatant(combatant_id)
        if resource not in who.resources:
            raise Invalid(reason="has_no_resource", params={"who": who, "resource": resource})
        old = who.resources[resource]
        value = max(floor, old + delta)
        top = who.maxima.get(resource)
        if top is not None and delta > 0:
            value = min(value, max(top, old))
        if value != old or by_gm:
            self.emit(
                ev.ResourceChanged(
                    combatant_id=combatant_id,
                    resource=resource,
                    delta=value - old,
                    value=value,
                    reason=reason,
                    rule=rule,
                    by_gm=by_gm,
                )
            )
        return value - old

    def use(
        self, combatant_id: str, key: str, scope: str, limit: int, rule: str | None, what: str
    ) -> None:
        """Spend one use of a limited ability, or refuse with `limit_reached`."""
        if self.state.game.uses(combatant_id, key) >= limit:
            me = self.combatant(combatant_id)
            # `what` is the caller's own gloss; the facts are the ability's key (the words
            # name it in each language, projections/words/refusals.py)
            params = {"actor": me, "ability": key, "limit": limit, "scope": scope}
            raise Refused("limit_reached", rule=rule, reason="limit_used", params=params)
        self.emit(ev.LimitUsed(combatant_id=combatant_id, key=key, scope=scope, rule=rule))

    def status(self, combatant_id: str, key: str, value: Any, rule: str | None = None) -> None:
        self.emit(ev.StatusSet(combatant_id=combatant_id, key=key, value=value, rule=rule))

    def resolved(self, actor: str, action: str, outcome: str, facts: msgspec.Struct) -> None:
        """What `actor`'s action did: the one way a rule system appends `action_resolved`."""
        self.emit(
            ev.ActionResolved(actor=actor, action=action, outcome=outcome, detail=encode(facts))
        )

    def answered(
        self,
        pending: Pending,
        actor: str,
        reaction: str,
        outcome: str,
        damage_taken: int,
        facts: msgspec.Struct,
    ) -> None:
        """How `pending` was settled: the one way a rule system appends `reaction_resolved`."""
        self.emit(
            ev.ReactionResolved(
                pending_id=pending.id,
                actor=actor,
                reaction=reaction,
                outcome=outcome,
                damage_taken=damage_taken,
                detail=encode(facts),
            )
        )

    def await_reaction(
        self,
        attacker: str,
        target: str,
        action: str,
        *,
        rank: str | None = None,
        damage: int = 0,
        options: Sequence[str] = (),
        detail: dict[str, Any] | None = None,
    ) -> None:
        self.emit(
            ev.ReactionAwaited(
                pending_id=self.state.game.next_pending,
                attacker=attacker,
                target=target,
                action=action,
                rank=rank,
                damage=damage,
                options=list(options),
                detail=detail or {},
            )
        )

    def defeat(self, combatant_id: str, reason: str, rule: str | None = None) -> None:
        if self.combatant(combatant_id).out is None:
            self.emit(ev.CombatantDefeated(combatant_id=combatant_id, reason=reason, rule=rule))
