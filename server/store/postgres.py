"""The event store: a small port (`EventStore`) and its PostgreSQL adapter.

All the SQL of the event log lives in schema.sql (its checks: the trigger
`events_append_checks`) and in this module. asyncpg errors are translated here (the side
tables' in server/store_tables.py): a stale expected version or a lost race becomes
`ConcurrencyError`, data the database refuses becomes `ValueError`.
The rows an append writes (versions, prev_hash, hash, recorded_at) are built by the pure
`domain.chain.chain_rows`; this adapter only writes them. `server.store.memory` is the
same port in memory, held to the same contract tests (tests/integration/store_contract.py).
The side tables (tokens, dice seeds, command keys, webhooks) are the other half of the
port, `Store` (`server.store.port`): their SQL is in server/store_tables.py, a base of
PostgresEventStore.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncGenerator, Mapping, Sequence
from typing import Any

import asyncpg
import msgspec
from asyncpg.pool import PoolConnectionProxy

from domain.chain import GENESIS, chain_rows
from server.store.clock import SYSTEM, Clock
from server.store.db import connect_hosts
from server.store.listen import Conn as _Conn
from server.store.listen import Subscription, as_conn
from server.store.port import (
    ConcurrencyError,
    EventStore,
    HistoryRewritten,
    NewEvent,
    Recorded,
    Tx,
    Wakes,
    lean_meta,
)
from server.store.postgres_tables import PostgresTables, Touches
from server.store.settings import DbSettings

log = logging.getLogger(__name__)

_HEAD_CACHE_SIZE = 10_000


# Built once: a decoder is pure and reusable (msgspec perf tips).
_ENCODER = msgspec.json.Encoder()
_DECODE_OBJECT = msgspec.json.Decoder(dict[str, Any]).decode

# data and meta come back as text and are decoded by msgspec, row by row: measured
# faster than having PostgreSQL build one JSON array (json_agg) and decoding that once
# (bench/RESULTS.md: 10,000 events in ~58 ms against ~100 ms).
_COLUMNS = "stream, version, position, type, data::text, meta::text, prev_hash, hash"
# One INSERT per append: the trigger events_append_checks (schema.sql) refuses a row that
# is not its stream's next version or does not chain to its head, and gives each row its
# position and xact_id (the 0 is a placeholder, so no position is drawn twice). A batch
# comes in version order; recorded_at goes as the very text that was hashed.
_SQL_APPEND_ONE = """
INSERT INTO events (position, stream, version, type, data, meta, recorded_at, prev_hash, hash)
OVERRIDING SYSTEM VALUE
VALUES (0, $1, $2, $3, $4::jsonb, $5::jsonb, $6::text::timestamptz, $7, $8)
RETURNING position"""
_SQL_APPEND_MANY = """
INSERT INTO events (position, stream, version, type, data, meta, recorded_at, prev_hash, hash)
OVERRIDING SYSTEM VALUE
SELECT 0, $1, $2 + e.ord, e.type, e.data, $5::jsonb, $6::text::timestamptz, e.prev, e.hash
  FROM unnest($3::text[], $4::jsonb[], $7::text[], $8::text[])
       WITH ORDINALITY AS e(type, data, prev, hash, ord)
 ORDER BY e.ord
RETURNING position"""
# The same, also queueing the stream's NOTIFY ($9) in the append's own transaction (in
# RETURNING: cheaper than a CTE around the INSERT; a batch's identical payloads are one).
_NOTIFYING = ", pg_notify('fracas_events', $9)"
_SQL_APPEND_ONE_NOTIFY = _SQL_APPEND_ONE + _NOTIFYING
_SQL_APPEND_MANY_NOTIFY = _SQL_APPEND_MANY + _NOTIFYING
# One statement for every stream that moved since the last one, after their commits:
# a transaction of its own that writes no WAL, so its commit waits for no flush.
_SQL_NOTIFY = "SELECT pg_notify('fracas_events', p) FROM unnest($1::text[]) AS p"
_SQL_HEAD = "SELECT version, hash FROM events WHERE stream = $1 ORDER BY version DESC LIMIT 1"
# One index probe per stream, in one round trip: the live hub's once-a-second safety net.
_SQL_VERSIONS = """
SELECT s.stream, (SELECT max(e.version) FROM events e WHERE e.stream = s.stream)
  FROM unnest($1::text[]) AS s(stream)"""
_SQL_READ_STREAM = f"""
SELECT {_COLUMNS} FROM events
 WHERE stream = $1 AND version > $2 AND version <= $3
 ORDER BY version"""
# A fold needs no meta, hashes or positions: reading only version, type and data (and the
# last hash, to remember the head) halves what a cold load of a long stream reads.
# Encounters with a turn deadline and no close, a page at a time (the partial index).
_SQL_DEADLINE_STREAMS = """
SELECT o.stream FROM events o
 WHERE o.version = 1 AND o.type = 'encounter_opened' AND o.data->'settings' ? 'deadline.hours'
   AND o.stream > $1
   AND jsonb_typeof(o.data->'settings'->'deadline.hours') = 'number'
   AND (o.data->'settings'->>'deadline.hours')::numeric > 0
   AND NOT EXISTS (SELECT 1 FROM events c WHERE c.stream = o.stream
                    AND c.type = 'encounter_closed')
 ORDER BY o.stream LIMIT $2"""
_SQL_READ_FACTS = """
SELECT version, type, data::text, hash, meta->>'command_id', meta->>'blind',
       (meta->>'veiled')::boolean, meta->>'recorded_at' FROM events
 WHERE stream = $1 AND version > $2 AND version <= $3
 ORDER BY version"""
# The same from the reader's last version on, that row without its data: its hash tells
# whether the stream still holds what the reader folded (server/services/encounters.py).
_SQL_READ_FACTS_ON = """
SELECT version, type, CASE WHEN version > $2 THEN data::text END, hash,
       meta->>'command_id', meta->>'blind', (meta->>'veiled')::boolean,
       meta->>'recorded_at' FROM events
 WHERE stream = $1 AND version >= $2 AND version <= $3
 ORDER BY version"""
# Only rows below the snapshot's xmin: every writer that might still commit a lower
# position has finished (schema.sql, "Ordering for tailing readers"). The scalar
# subquery makes the snapshot an InitPlan, evaluated once.
_SQL_READ_ALL = f"""
SELECT {_COLUMNS} FROM events
 WHERE position > $1
   AND xact_id < (SELECT pg_snapshot_xmin(pg_current_snapshot()))
 ORDER BY position
 LIMIT $2"""


def _recorded(rows: list[asyncpg.Record]) -> list[Recorded]:
    decode = _DECODE_OBJECT
    return [Recorded(r[0], r[1], r[2], r[3], decode(r[4]), decode(r[5]), r[6], r[7]) for r in rows]


class PostgresEventStore(PostgresTables):
    """The store on PostgreSQL via asyncpg (schema.sql must be applied): the events
    here, the side tables in its base `server.store.postgres_tables.PostgresTables`.

    Keeps a small cache stream -> (version, hash) of heads it has seen, so an append
    knows its prev_hash without an extra round trip. A stale entry costs one `head()`
    call, never a wrong hash: the row at a given version never changes.
    """

    def __init__(
        self,
        pool: asyncpg.Pool[Any],
        notify_dsn: str | None = None,
        settings: DbSettings | None = None,
        clock: Clock = SYSTEM,
    ) -> None:
        """`notify_dsn`: where the LISTEN connections go, direct (never through a
        transaction pooler); None: on connections borrowed from the pool. `clock`: what
        `recorded_at` is stamped from (a test's clock moves it: server/store/clock.py)."""
        self._pool = pool
        self.clock = clock
        self._notify_dsn = notify_dsn
        self._settings = settings or DbSettings()
        self.touches = Touches(pool)
        self._heads: dict[str, tuple[int, str]] = {}
        self._notifier = Notifier(pool)
        self._in_flight = 0  # appends of this store whose transaction has not ended
        # NOTIFY in the append's statement when it is the only one under way (see append)
        self.notify_inline = True

    async def append(
        self,
        stream: str,
        expected_version: int,
        events: Sequence[NewEvent],
        meta: Mapping[str, Any],
        *,
        conn: Tx | None = None,
    ) -> list[Recorded]:
        """Append `events` after `expected_version`; all or nothing.

        Adds `recorded_at` to `meta` (so it is hashed). Raises ConcurrencyError if the
        stream is elsewhere, ValueError for data that cannot be stored or hashed.
        Pass `conn` to append inside the caller's open transaction (e.g. with the
        idempotency answer); the events then land only if that transaction commits.
        """
        if not events:
            raise ValueError("append needs at least one event")
        # The head is read on the caller's connection: a second connection from the pool,
        # while the caller holds one, deadlocks once every connection is held that way
        # (ten encounters created at once on a pool of ten did).
        pg = None if conn is None else as_conn(conn)
        version, prev_hash = await self._head_for(stream, expected_version, pg)
        if version != expected_version:
            raise ConcurrencyError(stream, expected_version, version)

        rows = chain_rows(
            stream,
            expected_version,
            prev_hash,
            [(e.type, msgspec.to_builtins(e.data)) for e in events],
            msgspec.to_builtins(dict(meta)),
            self.clock.stamp(),
        )
        full_meta, previous = rows[0]["meta"], rows[-1]["hash"]

        encode = _ENCODER.encode
        runner = self._pool if pg is None else pg
        new_version = expected_version + len(rows)
        # Where the NOTIFY goes. A NOTIFY in the transaction takes a database-wide lock
        # from pre-commit to the end of the commit, so notifying appends commit one at a
        # time, WAL flush included (bench/RESULTS.md: 1.5-2.3x fewer appends/s under 8
        # writers). But sent after commit it costs a statement of its own. So: when no
        # other append of this process is under way (nothing to serialise with here),
        # in the append's own statement; otherwise after commit, by the notifier, which
        # sends many streams in one statement. After commit needs to know when the
        # transaction ends: a server.store.db.Connection says so (`on_end`); on a plain
        # asyncpg connection in a transaction the NOTIFY stays in the statement.
        in_transaction = pg is not None and pg.is_in_transaction()
        on_end = getattr(pg, "on_end", None) if in_transaction else None
        inline = (in_transaction and on_end is None) or (
            self.notify_inline and self._in_flight == 0
        )
        self._in_flight += 1
        meta_text, recorded_at = encode(full_meta).decode(), full_meta["recorded_at"]
        notice = f"{stream}:{new_version}"
        try:
            if len(rows) == 1:
                r = rows[0]
                args = [stream, expected_version + 1, r["type"], encode(r["data"]).decode(),
                        meta_text, recorded_at, prev_hash, r["hash"]]  # fmt: skip
                if inline:
                    positions = [await runner.fetchval(_SQL_APPEND_ONE_NOTIFY, *args, notice)]
                else:
                    positions = [await runner.fetchval(_SQL_APPEND_ONE, *args)]
            else:
                args = [stream, expected_version, [r["type"] for r in rows],
                        [encode(r["data"]).decode() for r in rows], meta_text, recorded_at,
                        [r["prev_hash"] for r in rows], [r["hash"] for r in rows]]  # fmt: skip
                if inline:
                    found = await runner.fetch(_SQL_APPEND_MANY_NOTIFY, *args, notice)
                else:
                    found = await runner.fetch(_SQL_APPEND_MANY, *args)
                positions = [f[0] for f in found]
        except BaseException as e:
            self._in_flight -= 1
            if isinstance(e, asyncpg.SerializationError):  # fracas_conflict, from the trigger
                self._heads.pop(stream, None)
                actual = int(e.detail) if e.detail and e.detail.isdigit() else None
                raise ConcurrencyError(stream, expected_version, actual) from e
            if isinstance(e, asyncpg.UniqueViolationError):  # a concurrent append won
                self._heads.pop(stream, None)
                raise ConcurrencyError(stream, expected_version, None) from e
            if isinstance(e, asyncpg.IntegrityConstraintViolationError | asyncpg.DataError):
                raise ValueError(f"the store refused the events of {stream!r}: {e}") from e
            raise

        def ended(committed: bool) -> None:
            self._in_flight -= 1
            if committed and not inline:
                self._notifier.add(stream, new_version)

        if not in_transaction:
            self._remember(stream, new_version, previous)
            ended(True)
        else:  # may still roll back: do not cache a head that might never exist
            self._heads.pop(stream, None)
            if on_end is not None:
                on_end(ended)
            else:
                ended(False)  # notified in the statement; the end is not ours to see
        return [
            Recorded(
                stream=stream,
                version=number,
                position=position,
                type=r["type"],
                data=r["data"],
                meta=dict(full_meta),
                prev_hash=r["prev_hash"],
                hash=r["hash"],
            )
            for number, (r, position) in enumerate(
                zip(rows, positions, strict=True), start=expected_version + 1
            )
        ]

    async def read_stream(
        self, stream: str, after: int = 0, upto: int | None = None
    ) -> list[Recorded]:
        """Events of `stream` with after < version <= upto, in version order."""
        limit = upto if upto is not None else 2**62
        events = _recorded(await self._pool.fetch(_SQL_READ_STREAM, stream, after, limit))
        if events and upto is None:
            self._remember(stream, events[-1].version, events[-1].hash)
        return events

    async def read_facts(
        self, stream: str, after: int = 0, upto: int | None = None
    ) -> list[dict[str, Any]]:
        """Lean envelopes {stream, version, type, data, meta: {command_id}} of `stream`, for
        folds only (the command id cuts the stream into the steps an undo reverts whole).

        Like read_stream, a read to the end remembers the head, so the next append
        knows its prev_hash without asking.
        """
        limit = upto if upto is not None else 2**62
        decode = _DECODE_OBJECT
        rows = await self._pool.fetch(_SQL_READ_FACTS, stream, after, limit)
        if rows and upto is None:
            self._remember(stream, rows[-1][0], rows[-1][3])
        return [
            {
                "stream": stream,
                "version": r[0],
                "type": r[1],
                "data": decode(r[2]),
                "meta": lean_meta(r[4], r[5], r[6], r[7]),
            }
            for r in rows
        ]

    async def read_facts_on(
        self, stream: str, version: int, tip: str, upto: int | None = None
    ) -> tuple[list[dict[str, Any]], str]:
        """Facts after `version` (to `upto`) if the stream still holds `tip` there, and the
        last one's hash (one query: the row at `version` comes along, without its data)."""
        limit = upto if upto is not None else 2**62
        rows = await self._pool.fetch(_SQL_READ_FACTS_ON, stream, version, limit)
        if version > 0:
            if not rows or rows[0][0] != version or rows[0][3] != tip:
                self._heads.pop(stream, None)
                raise HistoryRewritten(stream, version)
            rows = rows[1:]
        if not rows:
            return [], tip
        if upto is None:  # read to the end: the head, for the next append
            self._remember(stream, rows[-1][0], rows[-1][3])
        decode = _DECODE_OBJECT
        facts = [
            {"stream": stream, "version": r[0], "type": r[1], "data": decode(r[2]),
             "meta": lean_meta(r[4], r[5], r[6], r[7])}
            for r in rows
        ]  # fmt: skip
        return facts, rows[-1][3]

    async def read_all(self, after_position: int, limit: int = 1000) -> list[Recorded]:
        """Up to `limit` events after `after_position`, in position order, never skipping one."""
        return _recorded(await self._pool.fetch(_SQL_READ_ALL, after_position, limit))

    async def deadline_streams(self, after: str, limit: int) -> list[str]:
        rows = await self._pool.fetch(_SQL_DEADLINE_STREAMS, after, limit)
        return [r[0] for r in rows]

    async def versions(self, streams: Sequence[str]) -> dict[str, int]:
        """The current version of each stream (0 for an empty one), in one query."""
        rows = await self._pool.fetch(_SQL_VERSIONS, list(streams))
        return {r[0]: r[1] or 0 for r in rows}

    async def head(self, stream: str, *, conn: Tx | None = None) -> tuple[int, str]:
        """(version, hash) of the stream's last event; (0, GENESIS) for an empty stream.

        Read on `conn` when given (inside the caller's transaction), else from the pool.
        """
        pg = None if conn is None else as_conn(conn)
        runner = self._pool if pg is None else pg
        row = await runner.fetchrow(_SQL_HEAD, stream)
        if row is None:
            return 0, GENESIS
        if pg is None or not pg.is_in_transaction():  # else it might yet roll back
            self._remember(stream, row["version"], row["hash"])
        return row["version"], row["hash"]

    def subscribe(self, *, tick: float = 1.0) -> Subscription:
        """Wake-ups on every append (LISTEN), plus one every `tick` seconds as a safety net."""
        if self._notify_dsn is not None:
            dsn, settings = self._notify_dsn, self._settings

            async def connect() -> _Conn:
                return await connect_hosts(dsn, settings)

            async def release(conn: _Conn) -> None:
                await conn.close(timeout=2)

            return Subscription(connect, release, tick=tick)

        async def acquire() -> _Conn:
            return await self._pool.acquire()

        async def give_back(conn: _Conn) -> None:
            assert isinstance(conn, PoolConnectionProxy)
            await self._pool.release(conn, timeout=2)

        return Subscription(acquire, give_back, tick=tick)

    async def _head_for(
        self, stream: str, expected_version: int, conn: _Conn | None
    ) -> tuple[int, str]:
        cached = self._heads.get(stream)
        if cached is not None and cached[0] == expected_version:
            return cached
        return await self.head(stream, conn=conn)

    def _remember(self, stream: str, version: int, digest: str) -> None:
        self._heads.pop(stream, None)
        if len(self._heads) >= _HEAD_CACHE_SIZE:
            del self._heads[next(iter(self._heads))]  # oldest entry
        self._heads[stream] = (version, digest)


class Notifier:
    """Sends the NOTIFYs of appends after their commit (when several are under way).

    `add` never waits: the command that appended is answered without this round trip.
    At most one statement per `interval` (1 ms): a stream moved with nothing sent in the
    last millisecond is notified at once, and streams that move meanwhile go together in
    the next statement (one payload per stream, its latest version), so a busy instance
    pays one statement per millisecond, not one per append. A notification that is
    never sent (the statement fails, the process dies right after a commit) loses
    nothing: readers re-read from their checkpoints at every tick
    (server/subscription.py).
    """

    def __init__(self, pool: asyncpg.Pool[Any], interval: float = 0.001) -> None:
        self._pool = pool
        self._interval = interval
        self._pending: dict[str, int] = {}
        self._task: asyncio.Task[None] | None = None
        self._last = float("-inf")  # loop time of the last statement sent
        self.sent = 0  # statements sent (for tests and diagnostics)

    def add(self, stream: str, version: int) -> None:
        if self._pending.get(stream, 0) < version:
            self._pending[stream] = version
        task = self._task
        loop = asyncio.get_running_loop()
        if task is None or task.done() or task.get_loop() is not loop:
            self._task = loop.create_task(self._run())

    async def _run(self) -> None:
        loop = asyncio.get_running_loop()
        while self._pending:
            wait = self._last + self._interval - loop.time()
            if wait > 0:
                await asyncio.sleep(wait)
            batch, self._pending = self._pending, {}
            self._last = loop.time()
            try:
                await self._pool.execute(_SQL_NOTIFY, [f"{s}:{v}" for s, v in batch.items()])
                self.sent += 1
            except Exception as e:  # the next tick covers them
                log.warning("notifier: %d notifications not sent (%s)", len(batch), e)


async def tail(
    store: EventStore,
    after_position: int = 0,
    *,
    limit: int = 1000,
    tick: float = 1.0,
    wakes: Wakes | None = None,
) -> AsyncGenerator[Recorded, None]:
    """Every event after `after_position`, in position order, without end.

    Listens first, then reads; sleeps only when a read came back short. Pass `wakes`
    to share entered wake-ups; otherwise it opens its own, so close the
    generator with `contextlib.aclosing` to release the connection.
    """
    async with contextlib.AsyncExitStack() as stack:
        if wakes is None:
            wakes = await stack.enter_async_context(store.subscribe(tick=tick))
        position = after_position
        while True:
            batch = await store.read_all(position, limit)
            for event in batch:
                yield event
                position = event.position
            if len(batch) < limit:
                await anext(wakes)
                wakes.drain()
