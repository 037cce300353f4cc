"""The store port: what the application needs of a store, and nothing of how.

Two halves, one adapter object per backend (`Store`): the event log (`EventStore`, its
rows `NewEvent` and `Recorded`, `ConcurrencyError`, the wake-ups `Wakes`) and the side
tables (`SideTables`: tokens, dice seeds, command keys, webhooks and their deliveries,
mutable state that is not history, schema.sql). A transaction is opaque (`Tx`): only the
adapter that opened it knows what it is. `server.store.postgres_tables` is its
PostgreSQL half (a base of `server.store.postgres.PostgresEventStore`, so the adapter is one
object, and all the server's SQL lives in server/store.py and there);
`server.store.memory_tables` is the same port in memory. The same contract tests hold both
(tests/integration/tables_contract.py).

Writes that must land with others take `conn`, an open transaction from
`transaction()` (as `EventStore.append` does); without it each write commits alone.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, field
from datetime import datetime
from types import TracebackType
from typing import Any, Protocol

import msgspec


class Tx(Protocol):
    """An open transaction of the store, from `SideTables.transaction()`: opaque to its
    callers, who only pass it back to the same store's writes (`conn=`)."""


class Wake(msgspec.Struct, frozen=True):
    """Something may have been appended: re-read from your checkpoint.

    `stream` and `version` come from a NOTIFY; a tick or a reconnect leaves them None.
    """

    stream: str | None = None
    version: int | None = None


class ConcurrencyError(Exception):
    """The stream was not at the expected version, or another append won the race.

    `actual` is the stream's version when the store knows it, else None.
    """

    def __init__(self, stream: str, expected: int, actual: int | None) -> None:
        shown = "unknown" if actual is None else actual
        super().__init__(f"stream {stream!r}: expected version {expected}, actual {shown}")
        self.stream = stream
        self.expected = expected
        self.actual = actual


class HistoryRewritten(Exception):
    """The store does not hold the event a reader had seen at `version` (its stream ends
    before it, or holds another event there): the database was restored or failed over
    to a copy that is behind. A cache built on that history must be dropped."""

    def __init__(self, stream: str, version: int) -> None:
        super().__init__(f"stream {stream!r} no longer holds the event seen at version {version}")
        self.stream = stream
        self.version = version


class Unavailable(ConnectionError):
    """The database cannot serve this now (no host reachable in time, or only a read-only
    one: a standby, a failed-over primary): try again shortly. A ConnectionError, so every
    boundary that answers 503 for a lost connection answers 503 for it too."""


class NewEvent(msgspec.Struct, frozen=True):
    """An event to append: its snake_case type tag and its data (JSON values, no floats)."""

    type: str
    data: dict[str, Any]


class Recorded(msgspec.Struct, frozen=True):
    """A stored event: the envelope of CONTRACT section 5."""

    stream: str
    version: int
    position: int
    type: str
    data: dict[str, Any]
    meta: dict[str, Any]
    prev_hash: str
    hash: str


class Wakes(Protocol):
    """Wake-ups for readers of the log: an async context manager and iterator of `Wake`s.

    A wake only says "re-read from your checkpoint": a lost one loses nothing, and a
    periodic one (every `tick`) comes even when nothing was appended.
    """

    async def __aenter__(self) -> Wakes: ...

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None: ...

    def __aiter__(self) -> Wakes: ...

    async def __anext__(self) -> Wake: ...

    def drain(self) -> int:
        """Forget pending wakes (call right before re-reading); returns how many."""
        ...


class EventStore(Protocol):
    """The port the service, the hub, campaigns and webhooks depend on.

    Invariants every implementation keeps (tests/integration/store_contract.py):
    versions are gapless per stream from 1; an append lands whole or not at all, and
    only at the expected version (else ConcurrencyError, nothing appended); each event
    gets a global position, and read_all returns positions in order without ever
    skipping one that a later read could still show; the hash chain links every event
    to the one before it in its stream (GENESIS before version 1).
    """

    async def append(
        self,
        stream: str,
        expected_version: int,
        events: Sequence[NewEvent],
        meta: Mapping[str, Any],
        *,
        conn: Tx | None = None,
    ) -> list[Recorded]:
        """Append after `expected_version`, all or nothing; `recorded_at` goes into meta.

        `conn` is an open transaction to append in (PostgreSQL); a store without
        transactions ignores it and the events land at once.
        """
        ...

    async def read_stream(
        self, stream: str, after: int = 0, upto: int | None = None
    ) -> list[Recorded]:
        """Events of `stream` with after < version <= upto, in version order."""
        ...

    async def read_facts(
        self, stream: str, after: int = 0, upto: int | None = None
    ) -> list[dict[str, Any]]:
        """Like read_stream, as lean {stream, version, type, data} dicts for folds."""
        ...

    async def read_facts_on(
        self, stream: str, version: int, tip: str, upto: int | None = None
    ) -> tuple[list[dict[str, Any]], str]:
        """Like read_facts after `version` (up to `upto`, when given), for a reader whose
        last event there had hash `tip` (GENESIS at 0): the facts, and the hash of the
        last one returned (`tip` when none is).

        Raises HistoryRewritten if the stream holds no event at `version` or another one.
        """
        ...

    async def read_all(self, after_position: int, limit: int = 1000) -> list[Recorded]:
        """Up to `limit` events after `after_position`, in position order."""
        ...

    async def deadline_streams(self, after: str, limit: int) -> list[str]:
        """Up to `limit` streams after `after` (in stream order) of encounters that set a
        turn deadline (`deadline.hours` > 0) and are not closed: what the deadline
        watcher checks, a page at a time."""
        ...

    async def versions(self, streams: Sequence[str]) -> dict[str, int]:
        """The current version of each stream (0 for an empty one)."""
        ...

    async def head(self, stream: str) -> tuple[int, str]:
        """(version, hash) of the stream's last event; (0, GENESIS) for an empty stream."""
        ...

    def subscribe(self, *, tick: float = 1.0) -> Wakes:
        """Wake-ups on every append, plus one every `tick` seconds."""
        ...


class Clock(Protocol):
    """The time the server reads (server/store/clock.py: the system's, or a test's)."""

    def now(self) -> datetime: ...


class AlreadyStored(Exception):
    """A row that is only ever inserted once (a dice seed, a token) was inserted again.

    Nothing was written: the first row stays as it was.
    """


class Grant(msgspec.Struct, frozen=True):
    """What a live token opens: its role and, for a player, its combatants."""

    role: str
    combatants: list[str]


class TokenRow(msgspec.Struct, frozen=True):
    """A live token as the GM lists it: never its secret nor its hash."""

    id: str
    role: str
    combatants: list[str]
    created_at: datetime
    last_used: datetime | None


class KeyOutcome(msgspec.Struct, frozen=True):
    """The stored outcome of an Idempotency-Key: its body's hash, status and outcome."""

    body_hash: str
    status: int
    outcome: dict[str, Any]


class WebhookConfig(msgspec.Struct, frozen=True):
    """An encounter's webhook as its GM sees it (no secret)."""

    id: str
    url: str
    format: str
    kinds: list[str]
    lang: str
    created_at: datetime


@dataclass(frozen=True)
class NewWebhook:
    """A webhook to store for `encounter` (its URL and secret kept out of repr, so out of
    any log line that prints one)."""

    id: str
    encounter: str
    url: str = field(repr=False)
    format: str
    kinds: list[str]
    lang: str
    base: str
    secret: str = field(repr=False)
    checkpoint: int


class WebhookHead(msgspec.Struct, frozen=True):
    """A webhook's checkpoint beside its encounter's current version (0: no events)."""

    id: str
    encounter: str
    checkpoint: int
    head: int


class LockedWebhook(msgspec.Struct, frozen=True):
    """A webhook held by the scanning transaction: what it needs to word deliveries."""

    id: str
    encounter: str
    format: str
    kinds: list[str]
    lang: str
    base: str
    checkpoint: int


class NewDelivery(msgspec.Struct, frozen=True):
    """A delivery to enqueue: unique per (webhook, version, kind)."""

    id: str
    webhook: str
    version: int
    kind: str
    body: str


class Delivery(msgspec.Struct, frozen=True):
    """A delivery as GET /api/encounters/{id}/webhook lists it."""

    id: str
    version: int
    kind: str
    state: str
    attempts: int
    last_status: int | None
    last_error: str | None
    created_at: datetime
    delivered_at: datetime | None
    next_at: datetime


class Claimed(msgspec.Struct, frozen=True):
    """A delivery a worker claimed: hidden from other workers until its lease runs out."""

    id: str
    body: str
    attempts: int
    created_at: datetime
    url: str
    secret: str
    webhook: str = ""  # the webhook's id: a worker counts what it has in flight per webhook


# The check a revocation listener runs to know it is still listening.
Alive = Callable[[], Awaitable[None]]


class SideTables(Protocol):
    """The side tables' half of the store port (invariants: schema.sql, and the
    contract tests in tests/integration/store_contract.py)."""

    def transaction(self) -> AbstractAsyncContextManager[Tx]:
        """An open transaction: pass it as `conn`; all of it lands, or none if it raises."""
        ...

    async def ping(self) -> None:
        """Return if the store answers; raise (the driver's error) if it does not."""
        ...

    async def writable(self) -> None:
        """Return once a write can be committed now; else raise Unavailable (a standby,
        a read-only server) or TimeoutError (a commit that waits, e.g. for a lost
        synchronous standby)."""
        ...

    # --- tokens (stored as hashes only) -----------------------------------------------
    async def add_token(
        self,
        scope: str,
        token_hash: str,
        role: str,
        combatants: Sequence[str],
        token_id: str,
        *,
        conn: Tx | None = None,
    ) -> None:
        """Store a token for `scope` (an encounter or War id); AlreadyStored if taken."""
        ...

    async def grant(self, scope: str, token_hash: str) -> Grant | None:
        """What a live token opens on `scope`, or None; notes its use (once a minute)."""
        ...

    async def live_tokens(self, scope: str) -> list[TokenRow]:
        """The live tokens of `scope`: oldest first, then gm, spectator, player."""
        ...

    async def token_id(self, scope: str, token_hash: str) -> str | None:
        """The public id of a live token of `scope`."""
        ...

    async def revoke_token(self, scope: str, token_id: str) -> bool:
        """Revoke a live token and tell every listener; False if there was none."""
        ...

    async def revoked_among(self, token_ids: Sequence[str]) -> list[str]:
        """The ids in `token_ids` whose token was revoked."""
        ...

    def listen_revoked(
        self, on_revoked: Callable[[str], None]
    ) -> AbstractAsyncContextManager[Alive]:
        """While entered, `on_revoked(token_id)` for every revocation (any instance).

        Yields a check that raises once the listener is lost (then re-enter).
        """
        ...

    # --- dice seeds (inserted and read, never updated) --------------------------------
    async def add_seeds(
        self, encounter: str, seeds: Mapping[str, bytes], *, conn: Tx | None = None
    ) -> None:
        """Store an encounter's seeds by id; AlreadyStored (nothing written) if one exists."""
        ...

    async def seeds(self, encounter: str) -> dict[str, bytes]:
        """Every seed of the encounter, by seed id."""
        ...

    # --- command keys (one key, one outcome, per caller) -------------------------------
    async def keep_outcome(
        self,
        stream: str,
        caller: str,
        key_hash: str,
        body_hash: str,
        status: int,
        outcome: Mapping[str, Any],
        *,
        conn: Tx | None = None,
    ) -> bool:
        """Keep the key's first outcome; False (nothing written) if it has one already."""
        ...

    async def outcome_of(self, stream: str, caller: str, key_hash: str) -> KeyOutcome | None:
        """The outcome this caller's key has on `stream`, or None."""
        ...

    # --- webhooks and their deliveries -------------------------------------------------
    async def set_webhook(self, hook: NewWebhook) -> None:
        """The encounter's one webhook, replacing (with its deliveries) any it had."""
        ...

    async def webhook_of(self, encounter: str) -> WebhookConfig | None:
        """The encounter's webhook, or None."""
        ...

    async def recent_deliveries(self, hook_id: str, limit: int) -> list[Delivery]:
        """The webhook's latest deliveries, newest first (then highest version)."""
        ...

    async def drop_webhook(self, encounter: str) -> bool:
        """Remove the encounter's webhook and its deliveries; False if it had none."""
        ...

    async def webhook_heads(self) -> list[WebhookHead]:
        """Every webhook's checkpoint beside its encounter's version."""
        ...

    async def lock_webhook(self, hook_id: str, *, conn: Tx) -> LockedWebhook | None:
        """Hold the webhook for `conn`'s transaction; None if gone or held elsewhere."""
        ...

    async def hold_webhook(self, encounter: str, *, conn: Tx) -> LockedWebhook | None:
        """The encounter's webhook, held for `conn`'s transaction (waiting for a scanner
        that holds it); None if it has none."""
        ...

    async def enqueue(
        self, deliveries: Sequence[NewDelivery], *, conn: Tx, replace: bool = False
    ) -> None:
        """Add pending deliveries, due now; one already there for its
        (webhook, version, kind) is left as it is, or with `replace` made a new pending
        delivery (the new id and body, no attempt yet)."""
        ...

    async def move_checkpoint(self, hook_id: str, version: int, *, conn: Tx) -> None:
        """The last version the webhook's deliveries were made from."""
        ...

    async def claim_due(
        self, limit: int, lease: float, *, busy: Sequence[str] = ()
    ) -> list[Claimed]:
        """Up to `limit` deliveries, each the head of its webhook's queue (its pending
        delivery first in (version, kind) order, `test` after the others of a version)
        if that head is due, oldest due first; each hidden from other claims for `lease`
        seconds and its attempt counted. One webhook's deliveries go one at a time, in
        order: the next is not claimed while the head is pending (leased or waiting to
        be retried). None of the `busy` webhooks' (ids)."""
        ...

    async def delivered(self, delivery_id: str, status: int | None) -> None:
        """A claimed delivery got a 2xx: done for good."""
        ...

    async def delivery_failed(
        self, delivery_id: str, status: int | None, give_up: bool, delay: float, error: str
    ) -> None:
        """A pending delivery's attempt failed: due again in `delay` s, or `failed`."""
        ...


class Store(EventStore, SideTables, Protocol):
    """The whole store port: the event log and the side tables, one adapter per backend
    (PostgresEventStore, server.store.memory.MemoryEventStore)."""


def lean_meta(
    command_id: str | None,
    blind: str | None,
    veiled: bool | None,
    recorded_at: str | None = None,
) -> dict[str, Any]:
    """What of an event's meta a fold needs (`read_facts`): its command (the step it
    belongs to) and whether it was veiled from non-GM readers (projections/filter.py);
    `blind` says the mark exists (events appended before blinds have neither); when it
    was recorded (a wait's deadline counts from it: domain/deadline.py)."""
    meta: dict[str, Any] = {"command_id": command_id}
    if blind is not None:
        meta["blind"] = blind
    if veiled:
        meta["veiled"] = True
    if recorded_at is not None:
        meta["recorded_at"] = recorded_at
    return meta
