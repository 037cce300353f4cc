"""evolve(state, event) -> state: applies a fact. Never validates, never rolls.

Dispatch is one dict lookup on the event's exact type (tags map 1:1 to classes), which
measured markedly cheaper than a `match` over two dozen class patterns on the replay path.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import replace
from functools import reduce
from typing import Any

from domain import events as ev
from domain.state import (
    Combatant,
    Condition,
    Disputed,
    EncounterState,
    Game,
    Ledger,
    Pending,
    Step,
)

# A step is one command's batch of events (they share `meta.command_id`), and an undo
# reverts whole steps. The batch marks come with each event (`evolve(..., opens=)`: the
# projection reads them off the envelopes, the decider marks its own first event). Bare
# events without marks (old test helpers, narration) are cut into batches by kind:
# these begin one.
STEP_OPENERS: frozenset[type[ev.Event]] = frozenset(
    {
        ev.EncounterOpened,
        ev.CombatantAdded,
        ev.CombatantRemoved,
        ev.InitiativeSet,
        ev.CombatStarted,
        ev.ActionDeclared,
        ev.ReactionDeclared,
        ev.TurnEnded,
        ev.CombatContinued,
        ev.EntropyAdded,
        ev.RollDisputed,
        ev.DisputeAnswered,
        ev.EncounterClosed,
        ev.Undone,
        ev.DeadlineReminded,
        ev.DeadlinePassed,
    }
)

# Events that begin a batch (without marks) when the GM sent them.
_GM_STEPS: frozenset[type[ev.Event]] = frozenset(
    {ev.ResourceChanged, ev.ConditionApplied, ev.ConditionRemoved}
)

# Events that belong to the ledger only: an undo leaves them standing.
LEDGER_ONLY: frozenset[type[ev.Event]] = frozenset(
    {
        ev.EncounterOpened,
        ev.SeedCommitted,
        ev.EntropyAdded,
        ev.SeedRevealed,
        ev.DieRolled,
        ev.RollDisputed,
        ev.DisputeAnswered,
        ev.EncounterClosed,
        ev.Undone,
        ev.DeadlineReminded,  # a reminder changes nothing of the game: no step to undo
    }
)


# --- the ledger ------------------------------------------------------------------------


def _opened(led: Ledger, e: ev.EncounterOpened) -> None:
    led.encounter_id = e.encounter_id
    led.ruleset = e.ruleset
    led.name = e.name
    led.settings = dict(e.settings)
    led.campaign = e.campaign
    led.rules_version = e.rules_version
    led.entropy_join = e.entropy_join


def _committed(led: Ledger, e: ev.SeedCommitted) -> None:
    led.commitments[e.seed_id] = e.commitment
    led.next_roll.setdefault(e.seed_id, 1)
    if e.hidden:
        led.hidden_seeds.add(e.seed_id)


def _entropy(led: Ledger, e: ev.EntropyAdded) -> None:
    led.entropy.append(e.value)
    led.entropy_by.append(e.by)


def _revealed(led: Ledger, e: ev.SeedRevealed) -> None:
    led.revealed[e.seed_id] = e.seed


def _rolled(led: Ledger, e: ev.DieRolled) -> None:
    led.rolls = max(led.rolls, e.seq)
    if e.hidden:
        led.hidden_rolls.add(e.seq)
    if e.roll is not None and e.seed_id is not None:
        led.next_roll[e.seed_id] = e.roll + 1


def _disputed(led: Ledger, e: ev.RollDisputed) -> None:
    led.disputes.append(Disputed(e.seq, e.by, e.reason))


def _answered(led: Ledger, e: ev.DisputeAnswered) -> None:
    led.disputes = [
        Disputed(d.seq, d.by, d.reason, e.answer) if d.seq == e.seq and d.answer is None else d
        for d in led.disputes
    ]


def _closed(led: Ledger, e: ev.EncounterClosed) -> None:
    led.closed = True


def _issued(led: Ledger, e: ev.CombatantAdded) -> None:
    led.issued.add(e.combatant_id)  # kept through undo: ids are never reused


def _reminded(led: Ledger, e: ev.DeadlineReminded) -> None:
    led.reminded.add(e.since)


def _passed(led: Ledger, e: ev.DeadlinePassed) -> None:
    # Kept in the ledger (an undo of the passing brings the wait back, and it starts
    # again from the undo: domain/deadline.py), while the event is a step of the game.
    led.passed.add(e.since)


_LEDGER: dict[type[ev.Event], Callable[[Ledger, Any], None]] = {
    ev.DeadlineReminded: _reminded,
    ev.DeadlinePassed: _passed,
    ev.EncounterOpened: _opened,
    ev.CombatantAdded: _issued,
    ev.SeedCommitted: _committed,
    ev.EntropyAdded: _entropy,
    ev.SeedRevealed: _revealed,
    ev.DieRolled: _rolled,
    ev.RollDisputed: _disputed,
    ev.DisputeAnswered: _answered,
    ev.EncounterClosed: _closed,
}


# --- the game --------------------------------------------------------------------------


def _reset_limits(game: Game, scope: str, combatant_id: str | None = None) -> None:
    if not game.limits:
        return
    for key in [
        k
        for k, (s, _) in game.limits.items()
        if s == scope and (combatant_id is None or k[0] == combatant_id)
    ]:
        del game.limits[key]


def _added(game: Game, e: ev.CombatantAdded) -> None:
    game.added += 1
    game.combatants[e.combatant_id] = Combatant(
        e.combatant_id,
        e.name,
        e.side,
        dict(e.sheet),
        dict(e.resources),
        dict(e.maxima),
        e.controller,
        list(e.gm_only),
        character=e.character,
    )


def _removed(game: Game, e: ev.CombatantRemoved) -> None:
    game.combatants.pop(e.combatant_id, None)
    if game.actor == e.combatant_id:
        game.actor = None  # their turn leaves with them: no actor pointing at nobody
    if e.combatant_id in game.order:
        game.order.remove(e.combatant_id)
    game.pending = [p for p in game.pending if e.combatant_id not in (p.attacker, p.target)]


def _defeated(game: Game, e: ev.CombatantDefeated) -> None:
    game.combatants[e.combatant_id].out = e.reason
    game.combatants[e.combatant_id].out_rule = e.rule
    game.pending = [p for p in game.pending if p.target != e.combatant_id]


def _resource(game: Game, e: ev.ResourceChanged) -> None:
    game.combatants[e.combatant_id].resources[e.resource] = e.value


def _status(game: Game, e: ev.StatusSet) -> None:
    status = game.combatants[e.combatant_id].status
    if e.value is None:
        status.pop(e.key, None)
    else:
        status[e.key] = e.value


def _limit(game: Game, e: ev.LimitUsed) -> None:
    key = (e.combatant_id, e.key)
    game.limits[key] = (e.scope, game.uses(*key) + 1)


def _initiative(game: Game, e: ev.InitiativeSet) -> None:
    game.order = list(e.order)
    game.scores = dict(e.scores)


def _started(game: Game, e: ev.CombatStarted) -> None:
    game.started = True
    game.order = list(e.order)


def _round(game: Game, e: ev.RoundStarted) -> None:
    game.round = e.round
    _reset_limits(game, "round")


def _tick(game: Game, bearer: str, edge: str) -> None:
    """One edge of `bearer`'s own turn: its conditions of that kind count down by one
    (the decider then emits `condition_expired` for those at 0)."""
    who = game.combatants.get(bearer)
    if who is None or not who.conditions:
        return
    for name, c in list(who.conditions.items()):
        if c.until == edge and c.left is not None and c.left > 0:
            who.conditions[name] = replace(c, left=c.left - 1)


def _turn(game: Game, e: ev.TurnStarted) -> None:
    game.actor = e.actor
    game.phase = e.phase
    _reset_limits(game, "turn", e.actor)
    _tick(game, e.actor, "start_of_turn")


def _turn_ended(game: Game, e: ev.TurnEnded) -> None:
    game.last = e.actor
    game.actor = None
    _tick(game, e.actor, "end_of_turn")


def _condition(game: Game, e: ev.ConditionApplied) -> None:
    game.combatants[e.combatant_id].conditions[e.name] = Condition(
        e.name, e.until, e.rounds, e.rounds, e.note, e.modifier, e.rule, e.by_gm
    )


def _condition_gone(game: Game, e: ev.ConditionExpired | ev.ConditionRemoved) -> None:
    who = game.combatants.get(e.combatant_id)
    if who is not None:
        who.conditions.pop(e.name, None)


def _continued(game: Game, e: ev.CombatContinued) -> None:
    game.continued = True


def _awaited(game: Game, e: ev.ReactionAwaited) -> None:
    game.pending.append(
        Pending(
            e.pending_id,
            e.attacker,
            e.target,
            e.action,
            e.rank,
            e.damage,
            list(e.options),
            dict(e.detail),
        )
    )
    game.next_pending = e.pending_id + 1


def _resolved(game: Game, e: ev.ReactionResolved) -> None:
    game.pending = [p for p in game.pending if p.id != e.pending_id]


_GAME: dict[type[ev.Event], Callable[[Game, Any], None]] = {
    ev.CombatantAdded: _added,
    ev.CombatantRemoved: _removed,
    ev.CombatantDefeated: _defeated,
    ev.ResourceChanged: _resource,
    ev.StatusSet: _status,
    ev.LimitUsed: _limit,
    ev.InitiativeSet: _initiative,
    ev.CombatStarted: _started,
    ev.RoundStarted: _round,
    ev.TurnStarted: _turn,
    ev.TurnEnded: _turn_ended,
    ev.ReactionAwaited: _awaited,
    ev.ReactionResolved: _resolved,
    ev.ConditionApplied: _condition,
    ev.ConditionExpired: _condition_gone,
    ev.ConditionRemoved: _condition_gone,
    ev.CombatContinued: _continued,
}


def evolve_game(game: Game, event: ev.Event) -> Game:
    """Apply one game event to the game part."""
    apply = _GAME.get(type(event))
    if apply is not None:
        apply(game, event)
    return game


def step_at(led: Ledger, version: int) -> Step | None:
    """The last step in effect once `version` was folded (from the ledger of a later one).

    A version that ended a batch is looked up; one inside a batch (undos stored before
    targets were checked) cuts that batch's step at it.
    """
    if version in led.ends:
        return led.ends[version]
    later = [v for v in led.ends if v > version]
    step = led.ends[min(later)] if later else led.head
    if step is not None and step.last > version:
        if step.first > version:
            return step.before
        kept = [(v, e) for v, e in step.events if v <= version]
        return Step(step.first, version, kept, step.before)
    return step


Span = tuple[int, int]


def undo_spans(led: Ledger, to_version: int) -> tuple[list[Span], list[Span]]:
    """What an undo to `to_version` does to the steps in effect: the spans it reverts, and
    the spans of steps an earlier undo reverted that it brings back."""
    target = step_at(led, to_version)
    now = {s.first: s for s in led.head.chain()} if led.head is not None else {}
    then = {s.first: s for s in target.chain()} if target is not None else {}
    reverted = [_beyond(s, then.get(first)) for first, s in now.items()]
    restored = [_beyond(t, now.get(first)) for first, t in then.items()]
    return [r for r in reverted if r is not None], [r for r in restored if r is not None]


def _beyond(step: Step, other: Step | None) -> Span | None:
    """The part of `step` that `other` (the same step in another chain, if it is) lacks."""
    if other is None:
        return (step.first, step.last)
    return (other.last + 1, step.last) if other.last < step.last else None


def game_of(step: Step | None) -> Game:
    """The game the steps in effect up to `step` make."""
    game = Game()
    for s in step.chain() if step is not None else []:
        for _, e in s.events:
            evolve_game(game, e)
    return game


def _undone(state: EncounterState, event: ev.Undone) -> None:
    led = state.ledger
    reverted, restored = undo_spans(led, event.to_version)
    target = step_at(led, event.to_version)
    state.game = game_of(target)
    led.head = target
    back = [u for u in led.undone if not any(a <= u[0] and u[1] <= b for a, b in restored)]
    led.undone = back + reverted
    led.last_undo = led.version


Apply = Callable[[Any, Any], None]
# Per event type, what folding one does: (ledger part, game part, kept in the steps,
# begins a batch without marks, begins one without marks when by_gm). One lookup per
# event on the hot path (the resolver folds some 160 events a fight); built on first
# use of each type.
_PLANS: dict[type[ev.Event], tuple[Apply | None, Apply | None, bool, bool, bool]] = {}


def _plan(kind: type[ev.Event]) -> tuple[Apply | None, Apply | None, bool, bool, bool]:
    kept = kind not in LEDGER_ONLY
    plan = (
        _LEDGER.get(kind),
        _GAME.get(kind) if kept else None,
        kept,
        kind in STEP_OPENERS,
        kind in _GM_STEPS,
    )
    _PLANS[kind] = plan
    return plan


def evolve(state: EncounterState, event: ev.Event, opens: bool | None = None) -> EncounterState:
    """Apply one stored event. Mutates and returns `state`.

    `opens`: does this event begin a command's batch (None: judge by its kind)?
    """
    led = state.ledger
    led.version += 1
    kind = type(event)
    apply_ledger, apply_game, kept, opener, gm_opener = _PLANS.get(kind) or _plan(kind)
    if opens is None:
        opens = opener or led.batch == 0 or (gm_opener and getattr(event, "by_gm", False))
    if opens:
        if led.version > 1:
            led.ends[led.version - 1] = led.head
        led.batch = led.version
    if kind is ev.Undone:
        assert isinstance(event, ev.Undone)
        _undone(state, event)
        return state
    if apply_ledger is not None:
        apply_ledger(led, event)
    head = led.head
    if kept:
        if head is None or head.first != led.batch:
            head = led.head = Step(led.batch, led.version, [], head)
        head.events.append((led.version, event))
        head.last = led.version
        if apply_game is not None:
            apply_game(state.game, event)
    elif head is not None and head.first == led.batch:
        head.last = led.version
    return state


def fold_batch(state: EncounterState, events: Iterable[ev.Event]) -> EncounterState:
    """Fold one command's events (its batch) onto `state`."""
    for i, event in enumerate(events):
        evolve(state, event, i == 0)
    return state


def replay(events: Iterable[ev.Event], state: EncounterState | None = None) -> EncounterState:
    """Fold events from the start (or onto `state`)."""
    return reduce(evolve, events, state if state is not None else EncounterState())
