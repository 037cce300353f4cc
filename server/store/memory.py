"""The event store port in memory: for tests, demos and a server without PostgreSQL.

It keeps the invariants of `server.store.postgres.EventStore` the way the PostgreSQL adapter does,
and the same contract tests hold it to them (tests/integration/store_contract.py):

* versions are gapless per stream; an append at any other than the current version
  raises ConcurrencyError and appends nothing;
* a multi-event append is atomic: the rows are built (and any float or bad type tag
  refused) before anything is stored, then stored without an `await` in between, so no
  other task of the event loop ever sees half of it;
* positions are global and given in commit order, so read_all never skips one;
* events are kept as JSON text and decoded on every read, like the database does: a
  caller that changes what it read changes nothing stored.

It is asyncio-safe, not thread-safe: use it from one event loop. Every call yields to
the loop once before it looks at anything (as a database round trip would), so races
between tasks happen here as they do against PostgreSQL. The side tables and the
transactions (one at a time, undone whole if they raise) are its base,
`server.store.memory_tables.MemoryTables`: an append inside a transaction is undone with it.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
from collections.abc import Mapping, Sequence
from types import TracebackType
from typing import Any

import msgspec

from domain.chain import GENESIS, chain_rows
from server.store.clock import SYSTEM, Clock
from server.store.memory_tables import MemoryTables
from server.store.port import (
    ConcurrencyError,
    HistoryRewritten,
    NewEvent,
    Recorded,
    Tx,
    Wake,
    lean_meta,
)

# The CHECK of events.type in schema.sql: the same events are refused on both stores.
_TYPE_TAG = re.compile(r"[a-z][a-z0-9_]*")
_ENCODE = msgspec.json.Encoder().encode
_DECODE_OBJECT = msgspec.json.Decoder(dict[str, Any]).decode


class _Stored(msgspec.Struct, frozen=True):
    """One event as kept: its data and meta as JSON text."""

    stream: str
    version: int
    position: int
    type: str
    data: bytes
    meta: bytes
    prev_hash: str
    hash: str

    def recorded(self) -> Recorded:
        return Recorded(
            self.stream,
            self.version,
            self.position,
            self.type,
            _DECODE_OBJECT(self.data),
            _DECODE_OBJECT(self.meta),
            self.prev_hash,
            self.hash,
        )


class MemorySubscription:
    """Wake-ups from a MemoryEventStore: the same face as `server.store.listen.Subscription`.

    Registered with its store while entered; every append puts a Wake(stream, version)
    in its queue, and a Wake() comes every `tick` seconds whatever else came. A full
    queue drops wakes, which is harmless: one pending wake already means "re-read".
    """

    def __init__(self, store: MemoryEventStore, *, tick: float = 1.0) -> None:
        self._store = store
        self._tick = tick
        self._queue: asyncio.Queue[Wake] = asyncio.Queue(maxsize=1024)
        self._next_tick: float | None = None  # loop time of the next periodic Wake
        self.reconnects = 0  # never: there is no connection to lose

    async def __aenter__(self) -> MemorySubscription:
        self._store._subscribers.add(self)
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._store._subscribers.discard(self)

    def __aiter__(self) -> MemorySubscription:
        return self

    async def __anext__(self) -> Wake:
        # As server.store.listen: the tick comes every `tick` seconds however many wakes
        # arrive meanwhile, so a wake dropped by a full queue is made up within a tick
        # even while other streams keep the queue busy.
        loop = asyncio.get_running_loop()
        if self._next_tick is None:
            self._next_tick = loop.time() + self._tick
        left = self._next_tick - loop.time()
        if left > 0:
            try:
                return await asyncio.wait_for(self._queue.get(), left)
            except TimeoutError:
                pass
        self._next_tick = loop.time() + self._tick
        return Wake()

    def drain(self) -> int:
        """Forget pending wakes (call right before re-reading); returns how many."""
        count = 0
        while not self._queue.empty():
            self._queue.get_nowait()
            count += 1
        return count

    def _put(self, wake: Wake) -> None:
        with contextlib.suppress(asyncio.QueueFull):
            self._queue.put_nowait(wake)


class MemoryEventStore(MemoryTables):
    """The store in the process's memory (events and side tables); gone with the process."""

    def __init__(self, clock: Clock = SYSTEM) -> None:
        super().__init__()
        self.clock = clock  # what `recorded_at` is stamped from
        self._streams: dict[str, list[_Stored]] = {}
        self._log: list[_Stored] = []  # every event, in position order
        self._subscribers: set[MemorySubscription] = set()

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

        Raises ConcurrencyError if the stream is elsewhere, ValueError for data the
        PostgreSQL store would refuse too (an empty batch, a float, a bad type tag).
        Inside the task's open transaction (`conn` or not), it is undone with it.
        """
        tx = await self._turn()
        if not events:
            raise ValueError("append needs at least one event")
        if not stream:
            raise ValueError("the store refused the events: empty stream name")
        bad = [e.type for e in events if not _TYPE_TAG.fullmatch(e.type)]
        if bad:
            raise ValueError(f"the store refused the events of {stream!r}: type {bad[0]!r}")
        # Nothing below awaits: the check and the write are one step of the event loop.
        kept = self._streams.get(stream, [])
        version = len(kept)
        if version != expected_version:
            raise ConcurrencyError(stream, expected_version, version)
        rows = chain_rows(
            stream,
            expected_version,
            kept[-1].hash if kept else GENESIS,
            [(e.type, msgspec.to_builtins(e.data)) for e in events],
            msgspec.to_builtins(dict(meta)),
            self.clock.stamp(),
        )
        meta_json = _ENCODE(rows[0]["meta"])
        new = [
            _Stored(
                stream,
                number,
                len(self._log) + offset,
                row["type"],
                _ENCODE(row["data"]),
                meta_json,
                row["prev_hash"],
                row["hash"],
            )
            for offset, (number, row) in enumerate(
                enumerate(rows, start=expected_version + 1), start=1
            )
        ]
        self._streams.setdefault(stream, kept).extend(new)
        self._log.extend(new)
        if tx is not None:  # one transaction at a time: these are the last rows
            tx.undo.append(lambda: self._unappend(stream, expected_version))
        wake = Wake(stream, new[-1].version)
        for subscriber in self._subscribers:
            subscriber._put(wake)
        return [s.recorded() for s in new]

    async def read_stream(
        self, stream: str, after: int = 0, upto: int | None = None
    ) -> list[Recorded]:
        """Events of `stream` with after < version <= upto, in version order."""
        await self._turn()
        return [s.recorded() for s in self._range(stream, after, upto)]

    async def read_facts(
        self, stream: str, after: int = 0, upto: int | None = None
    ) -> list[dict[str, Any]]:
        """Lean envelopes {stream, version, type, data, meta: {command_id}} of `stream`,
        for folds only."""
        await self._turn()
        return [
            {
                "stream": stream,
                "version": s.version,
                "type": s.type,
                "data": _DECODE_OBJECT(s.data),
                "meta": _lean(s.meta),
            }
            for s in self._range(stream, after, upto)
        ]

    async def read_facts_on(
        self, stream: str, version: int, tip: str, upto: int | None = None
    ) -> tuple[list[dict[str, Any]], str]:
        """Facts after `version` (to `upto`) if the stream still holds `tip` there, and
        the last one's hash."""
        await self._turn()
        kept = self._streams.get(stream, [])
        if version > 0 and (len(kept) < version or kept[version - 1].hash != tip):
            raise HistoryRewritten(stream, version)
        new = self._range(stream, version, upto)
        facts = [
            {"stream": stream, "version": s.version, "type": s.type,
             "data": _DECODE_OBJECT(s.data), "meta": _lean(s.meta)}
            for s in new
        ]  # fmt: skip
        return facts, (new[-1].hash if new else tip)

    async def read_all(self, after_position: int, limit: int = 1000) -> list[Recorded]:
        """Up to `limit` events after `after_position`, in position order."""
        await self._turn()
        start = max(after_position, 0)  # positions are 1, 2, ... : index = position - 1
        return [s.recorded() for s in self._log[start : start + max(limit, 0)]]

    async def versions(self, streams: Sequence[str]) -> dict[str, int]:
        """The current version of each stream (0 for an empty one)."""
        await self._turn()
        return {s: len(self._streams.get(s, ())) for s in streams}

    async def deadline_streams(self, after: str, limit: int) -> list[str]:
        await self._turn()
        found = []
        for stream in sorted(s for s in self._streams if s > after):
            kept = self._streams[stream]
            first = kept[0]
            settings = _DECODE_OBJECT(first.data).get("settings") or {}
            hours = settings.get("deadline.hours", 0) if first.type == "encounter_opened" else 0
            if type(hours) is int and hours > 0 and all(s.type != "encounter_closed" for s in kept):
                found.append(stream)
            if len(found) >= limit:
                break
        return found

    async def head(self, stream: str) -> tuple[int, str]:
        """(version, hash) of the stream's last event; (0, GENESIS) for an empty stream."""
        await self._turn()
        kept = self._streams.get(stream)
        if not kept:
            return 0, GENESIS
        return kept[-1].version, kept[-1].hash

    def subscribe(self, *, tick: float = 1.0) -> MemorySubscription:
        """Wake-ups on every append, plus one every `tick` seconds as a safety net."""
        return MemorySubscription(self, tick=tick)

    def _unappend(self, stream: str, version: int) -> None:
        """Drop what the stream got after `version`, from it and from the log."""
        kept = self._streams[stream]
        dropped = len(kept) - version
        del kept[version:], self._log[len(self._log) - dropped :]
        if not kept:
            del self._streams[stream]

    def _version_of(self, encounter: str) -> int:
        return len(self._streams.get(f"encounter-{encounter}", ()))

    def _range(self, stream: str, after: int, upto: int | None) -> list[_Stored]:
        kept = self._streams.get(stream, [])
        end = len(kept) if upto is None else max(min(upto, len(kept)), 0)
        return kept[max(after, 0) : end]


def _lean(meta_json: bytes) -> dict[str, Any]:
    meta = _DECODE_OBJECT(meta_json)
    return lean_meta(
        meta.get("command_id"), meta.get("blind"), meta.get("veiled"), meta.get("recorded_at")
    )
