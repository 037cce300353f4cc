"""Turn deadlines for play-by-post (`deadline.hours`, `deadline.policy`): what is waiting
now, since which version, and which step of its deadline is due at a given time.

Pure: the time comes in as an argument (the server's clock), the wait's start as the
time its version was recorded. The decider (`apply_deadline` in domain/encounter.py)
checks the wait named is still the one waiting and not marked yet.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, Literal

from domain import events as ev
from domain.state import EncounterState

POLICIES = ("alert", "no_defense", "pass")
MAX_HOURS = 336  # two weeks: a play-by-post turn longer than that is no deadline

Waiting = Literal["turn", "defence"]
Step = Literal["remind", "pass"]


@dataclass(frozen=True)
class Wait:
    """Who the fight waits on, for what, since which version (the turn's start, the
    attack's `reaction_awaited`, or the last undo if later: an undo restarts the wait)."""

    who: str
    waiting: Waiting
    since: int
    pending_id: int | None = None


def hours_of(settings: Mapping[str, Any]) -> int:
    hours = settings.get("deadline.hours", 0)
    return hours if type(hours) is int else 0


def policy_of(settings: Mapping[str, Any]) -> str:
    policy = settings.get("deadline.policy", "alert")
    return policy if policy in POLICIES else "alert"


def waiting(state: EncounterState) -> Wait | None:
    """The current wait of an open, started fight: the first pending defence, else the
    actor's turn; None when nothing waits on anyone."""
    led, game = state.ledger, state.game
    if led.closed or not game.started:
        return None
    if game.pending:
        p = game.pending[0]
        began = _found(state, lambda e: isinstance(e, ev.ReactionAwaited) and e.pending_id == p.id)
        return Wait(p.target, "defence", max(began, led.last_undo), p.id)
    if game.actor is not None and game.actor in game.combatants:
        actor = game.actor
        began = _found(state, lambda e: isinstance(e, ev.TurnStarted) and e.actor == actor)
        return Wait(actor, "turn", max(began, led.last_undo))
    return None


def _found(state: EncounterState, match: Any) -> int:
    """The version of the latest event in effect that `match`es (0 if none): the steps
    are walked from the newest, so a wait's start is found in the last few."""
    step = state.ledger.head
    while step is not None:
        for version, event in reversed(step.events):
            if match(event):
                return version
        step = step.before
    return 0


def due_at(start: datetime, hours: int) -> tuple[datetime, datetime]:
    """(the reminder's time, the deadline) of a wait that began at `start`."""
    return start + timedelta(hours=hours) / 2, start + timedelta(hours=hours)


def due_step(state: EncounterState, wait: Wait, start: datetime, now: datetime) -> Step | None:
    """What is due at `now` for `wait` (begun at `start`): the passing past the deadline,
    the reminder past half of it, each once per wait; None when nothing is."""
    hours = hours_of(state.ledger.settings)
    if hours <= 0 or wait.since in state.ledger.passed:
        return None
    remind, due = due_at(start, hours)
    if now >= due:
        return "pass"
    if now >= remind and wait.since not in state.ledger.reminded:
        return "remind"
    return None


def iso(when: datetime) -> str:
    """An aware datetime as 2026-12-01T10:00:00Z (seconds: what a page shows)."""
    return when.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def parse_time(text: str) -> datetime | None:
    """A recorded_at (2026-12-01T10:00:00.123456Z) as an aware datetime; None if not one."""
    try:
        when = datetime.fromisoformat(text)
    except (TypeError, ValueError):
        return None
    return when if when.tzinfo is not None else when.replace(tzinfo=UTC)
