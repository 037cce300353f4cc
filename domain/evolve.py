"""evolve(state, event) -> state: applies a fact. Never validates, never rolls."""

from __future__ import annotations

from collections.abc import Iterable
from functools import reduce

from domain import events as ev
from domain.state import Combatant, EncounterState, Game, Ledger, Pending

# Events that open a step a GM's `undo` reverts as one.
STEP_OPENERS: tuple[type[ev.Event], ...] = (
    ev.CombatantAdded,
    ev.CombatantRemoved,
    ev.InitiativeSet,
    ev.CombatStarted,
    ev.ActionDeclared,
    ev.ReactionDeclared,
    ev.TurnEnded,
)

# Events that belong to the ledger only: an undo leaves them standing.
LEDGER_ONLY: tuple[type[ev.Event], ...] = (
    ev.SeedCommitted,
    ev.EntropyAdded,
    ev.SeedRevealed,
    ev.DieRolled,
    ev.RollDisputed,
    ev.EncounterClosed,
    ev.Undone,
)


def _ledger(led: Ledger, event: ev.Event) -> None:
    match event:
        case ev.EncounterOpened():
            led.encounter_id = event.encounter_id
            led.ruleset = event.ruleset
            led.name = event.name
            led.settings = dict(event.settings)
            led.campaign = event.campaign
            led.rules_version = event.rules_version
        case ev.SeedCommitted():
            led.commitments[event.seed_id] = event.commitment
            led.next_roll.setdefault(event.seed_id, 1)
            if event.hidden:
                led.hidden_seeds.add(event.seed_id)
        case ev.EntropyAdded():
            led.entropy.append(event.value)
        case ev.SeedRevealed():
            led.revealed[event.seed_id] = event.seed
        case ev.DieRolled():
            led.rolls = max(led.rolls, event.seq)
            if event.hidden:
                led.hidden_rolls.add(event.seq)
            if event.roll is not None and event.seed_id is not None:
                led.next_roll[event.seed_id] = event.roll + 1
        case ev.RollDisputed():
            led.disputes.append((event.seq, event.by, event.reason))
        case ev.EncounterClosed():
            led.closed = True
        case _:
            pass


def _reset_limits(game: Game, scope: str, combatant_id: str | None = None) -> None:
    for key in [
        k
        for k, (s, _) in game.limits.items()
        if s == scope and (combatant_id is None or k[0] == combatant_id)
    ]:
        del game.limits[key]


def evolve_game(game: Game, event: ev.Event) -> Game:
    """Apply one game event to the game part."""
    match event:
        case ev.CombatantAdded():
            game.added += 1
            game.combatants[event.combatant_id] = Combatant(
                event.combatant_id,
                event.name,
                event.side,
                dict(event.sheet),
                dict(event.resources),
                dict(event.maxima),
                event.controller,
                list(event.gm_only),
            )
        case ev.CombatantRemoved():
            game.combatants.pop(event.combatant_id, None)
            if event.combatant_id in game.order:
                game.order.remove(event.combatant_id)
            game.pending = [
                p for p in game.pending if event.combatant_id not in (p.attacker, p.target)
            ]
        case ev.CombatantDefeated():
            game.combatants[event.combatant_id].out = event.reason
            game.combatants[event.combatant_id].out_rule = event.rule
            game.pending = [p for p in game.pending if p.target != event.combatant_id]
        case ev.ResourceChanged():
            game.combatants[event.combatant_id].resources[event.resource] = event.value
        case ev.StatusSet():
            status = game.combatants[event.combatant_id].status
            if event.value is None:
                status.pop(event.key, None)
            else:
                status[event.key] = event.value
        case ev.LimitUsed():
            key = (event.combatant_id, event.key)
            game.limits[key] = (event.scope, game.uses(*key) + 1)
        case ev.InitiativeSet():
            game.order = list(event.order)
            game.scores = dict(event.scores)
        case ev.CombatStarted():
            game.started = True
            game.order = list(event.order)
        case ev.RoundStarted():
            game.round = event.round
            _reset_limits(game, "round")
        case ev.TurnStarted():
            game.actor = event.actor
            game.phase = event.phase
            _reset_limits(game, "turn", event.actor)
        case ev.TurnEnded():
            game.last = event.actor
            game.actor = None
        case ev.ReactionAwaited():
            game.pending.append(
                Pending(
                    event.pending_id,
                    event.attacker,
                    event.target,
                    event.action,
                    event.rank,
                    event.damage,
                    list(event.options),
                    dict(event.detail),
                )
            )
            game.next_pending = event.pending_id + 1
        case ev.ReactionResolved():
            game.pending = [p for p in game.pending if p.id != event.pending_id]
        case _:
            pass
    return game


def evolve(state: EncounterState, event: ev.Event) -> EncounterState:
    """Apply one stored event. Mutates and returns `state`."""
    led = state.ledger
    led.version += 1
    if isinstance(event, ev.Undone):
        kept = [(v, e) for v, e in led.history if v <= event.to_version]
        game = Game()
        for _, e in kept:
            evolve_game(game, e)
        state.game = game
        led.history = kept
        led.steps = [v for v in led.steps if v <= event.to_version]
        return state
    _ledger(led, event)
    if not isinstance(event, LEDGER_ONLY):
        led.history.append((led.version, event))
        if isinstance(event, STEP_OPENERS) or (
            isinstance(event, ev.ResourceChanged) and event.by_gm
        ):
            led.steps.append(led.version)
        evolve_game(state.game, event)
    return state


def replay(events: Iterable[ev.Event], state: EncounterState | None = None) -> EncounterState:
    """Fold events from the start (or onto `state`)."""
    return reduce(evolve, events, state if state is not None else EncounterState())
