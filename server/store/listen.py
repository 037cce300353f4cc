"""LISTEN/NOTIFY wake-ups for readers of the event log.

NOTIFY only wakes: a consumer re-reads from its checkpoint, so a notification lost
while the connection was down loses nothing.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from types import TracebackType
from typing import Any, TypeAlias, cast

import asyncpg
from asyncpg.pool import PoolConnectionProxy

from server.store.port import Tx, Wake

log = logging.getLogger(__name__)

CHANNEL = "fracas_events"
Conn: TypeAlias = "asyncpg.Connection[Any] | PoolConnectionProxy[Any]"
_Conn = Conn


def as_conn(tx: Tx) -> Conn:
    """The asyncpg connection behind a transaction this adapter opened (`Tx` is opaque
    to everyone else)."""
    return cast(Conn, tx)


_CONNECTION_ERRORS = (OSError, TimeoutError, asyncpg.PostgresError, asyncpg.InterfaceError)


class Subscription:
    """LISTEN on a dedicated connection; an async iterator of `Wake`s.

    NOTIFY only wakes: a consumer re-reads from its checkpoint, so a notification lost
    while the connection was down loses nothing. If the connection drops it reconnects
    with backoff and yields a Wake. A periodic Wake, every `tick` seconds whatever else
    arrives, covers events whose NOTIFY was lost and events that were still behind the
    xmin horizon when their NOTIFY arrived.
    """

    def __init__(
        self,
        connect: Callable[[], Awaitable[_Conn]],
        release: Callable[[_Conn], Awaitable[None]],
        *,
        tick: float = 1.0,
        max_backoff: float = 5.0,
    ) -> None:
        self._connect = connect
        self._release = release
        self._tick = tick
        self._max_backoff = max_backoff
        self._conn: _Conn | None = None
        # None in the queue means "the connection died"; a full queue drops wakes,
        # which is harmless since one pending wake already means "re-read".
        self._queue: asyncio.Queue[Wake | None] = asyncio.Queue(maxsize=1024)
        self._next_tick = 0.0  # loop time of the next periodic Wake (set when opened)
        self.reconnects = 0

    async def __aenter__(self) -> Subscription:
        await self._open()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self._drop()

    def __aiter__(self) -> Subscription:
        return self

    async def __anext__(self) -> Wake:
        loop = asyncio.get_running_loop()
        while True:
            if self._conn is None or _closed(self._conn):
                await self._reopen()
                self._next_tick = loop.time() + self._tick
                return Wake()
            # The tick comes every `tick` seconds however many NOTIFYs arrive meanwhile:
            # it is what bounds the delay of an append whose NOTIFY is lost (the server
            # notifies after commit, so a crash in between loses one), even while other
            # streams keep the queue busy.
            left = self._next_tick - loop.time()
            if left <= 0:
                self._next_tick = loop.time() + self._tick
                if await self._alive():
                    return Wake()
                continue
            try:
                item = await asyncio.wait_for(self._queue.get(), left)
            except TimeoutError:
                continue
            if item is not None:
                return item

    def drain(self) -> int:
        """Forget pending wakes (call right before re-reading); returns how many."""
        count = 0
        while not self._queue.empty():
            self._queue.get_nowait()
            count += 1
        return count

    @property
    def backend_pid(self) -> int | None:
        """The PostgreSQL pid of the listening connection (for tests and diagnostics)."""
        return None if self._conn is None else self._conn.get_server_pid()

    async def _open(self) -> None:
        conn = await self._connect()
        conn.add_termination_listener(self._on_terminated)
        await conn.add_listener(CHANNEL, self._on_notify)
        self._conn = conn
        self._next_tick = asyncio.get_running_loop().time() + self._tick

    async def _drop(self) -> None:
        conn, self._conn = self._conn, None
        if conn is None or _closed(conn):  # a dead pooled connection is already discarded
            return
        conn.remove_termination_listener(self._on_terminated)
        try:
            await asyncio.wait_for(conn.remove_listener(CHANNEL, self._on_notify), 2)
        except Exception:  # killed but not yet noticed, or busy: discard it
            conn.terminate()
        with contextlib.suppress(*_CONNECTION_ERRORS):
            await self._release(conn)

    async def _reopen(self) -> None:
        await self._drop()
        delay = 0.05
        while True:
            try:
                await self._open()
            except _CONNECTION_ERRORS as e:
                log.warning("subscription: reconnect failed (%s), retry in %.2fs", e, delay)
                await asyncio.sleep(delay)
                delay = min(delay * 2, self._max_backoff)
                continue
            self.reconnects += 1
            return

    async def _alive(self) -> bool:
        assert self._conn is not None
        try:
            await asyncio.wait_for(self._conn.fetchval("SELECT 1"), self._tick)
        except _CONNECTION_ERRORS:
            self._conn.terminate()
            return False
        return True

    def _on_notify(self, conn: object, pid: int, channel: str, payload: object) -> None:
        stream, _, version = str(payload).rpartition(":")
        self._put(Wake(stream, int(version)) if version.isdigit() else Wake())

    def _on_terminated(self, conn: object) -> None:
        self._put(None)

    def _put(self, item: Wake | None) -> None:
        with contextlib.suppress(asyncio.QueueFull):
            self._queue.put_nowait(item)


def _closed(conn: _Conn) -> bool:
    try:
        return conn.is_closed()
    except asyncpg.InterfaceError:  # a pool proxy whose connection was lost
        return True
