"""Where the database is, its schema, and the connection pool."""

from __future__ import annotations

import logging
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import asyncpg
import asyncpg.transaction
from asyncpg.pool import PoolConnectionProxy

SCHEMA_PATH = Path(__file__).resolve().parents[2] / "schema.sql"
APP_ROLE = "fracas_app"
log = logging.getLogger(__name__)


def resolve_database_url(
    flag: str | None, home: Path | None = None
) -> tuple[str, Callable[[], None] | None]:
    """The --database-url flag, else $DATABASE_URL, else the embedded PostgreSQL.

    Returns the URL and, for the embedded server only, a callable that stops it.
    Starting the embedded server blocks for seconds: call this before serving, or
    via asyncio.to_thread.
    """
    if flag:
        return flag, None
    from_env = os.environ.get("DATABASE_URL")
    if from_env:
        return from_env, None
    from server.store.embedded import start_embedded

    return start_embedded(home)


async def apply_schema(
    target: asyncpg.Pool[Any] | asyncpg.Connection[Any] | PoolConnectionProxy[Any],
) -> None:
    """Run schema.sql in one transaction (idempotent; safe from two processes at once)."""
    sql = SCHEMA_PATH.read_text(encoding="utf-8")
    if isinstance(target, asyncpg.Pool):
        async with target.acquire() as conn, conn.transaction():
            await conn.execute(sql)
    else:
        async with target.transaction():
            await target.execute(sql)


async def create_pool(
    url: str, *, role: str | None = None, min_size: int = 2, max_size: int = 10
) -> asyncpg.Pool[Any]:
    """A connection pool; with `role` (e.g. APP_ROLE) every connection acts as that role.

    The role is set at connection start, so the pool's reset (RESET ALL) keeps it.
    """
    settings = {"role": role} if role else None
    return await asyncpg.create_pool(
        url,
        min_size=min_size,
        max_size=max_size,
        server_settings=settings,
        max_inactive_connection_lifetime=300,
        reset=_reset_if_dirty,
        connection_class=Connection,
    )


class Connection(asyncpg.Connection):
    """asyncpg's connection, plus callbacks run once its transaction has ended.

    The event store appends inside its caller's transaction and may say so (NOTIFY)
    only after the commit: `on_end(callback)` queues a plain function, called with True
    right after the outermost `async with conn.transaction()` (or its `commit()`)
    succeeds, with False if it rolls back. Outside a transaction it is called at once.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._on_end: list[Callable[[bool], None]] = []

    def transaction(
        self, *, isolation: Any = None, readonly: bool = False, deferrable: bool = False
    ) -> _Transaction:
        self._check_open()  # type: ignore[attr-defined]
        return _Transaction(self, isolation, readonly, deferrable)

    def on_end(self, callback: Callable[[bool], None]) -> None:
        if self.is_in_transaction():
            self._on_end.append(callback)
        else:
            callback(True)

    def _ended(self, committed: bool) -> None:
        callbacks, self._on_end = self._on_end, []
        for callback in callbacks:
            try:
                callback(committed)
            except Exception:  # one failing callback must not skip the others
                log.exception("end-of-transaction callback failed")


class _Transaction(asyncpg.transaction.Transaction):
    """A transaction block that runs its connection's end-of-transaction callbacks."""

    __slots__ = ()

    async def start(self) -> None:
        conn = self._conn()
        if isinstance(conn, Connection) and not conn.is_in_transaction():
            conn._ended(False)  # left by a transaction that was reset, not ended
        await super().start()

    async def __aexit__(self, extype: Any, ex: Any, tb: Any) -> None:
        try:
            await super().__aexit__(extype, ex, tb)
        except BaseException:
            self._ended(False)
            raise
        self._ended(extype is None)

    async def commit(self) -> None:
        try:
            await super().commit()
        except BaseException:
            self._ended(False)
            raise
        self._ended(True)

    async def rollback(self) -> None:
        try:
            await super().rollback()
        finally:
            self._ended(False)

    def _ended(self, ok: bool) -> None:
        conn = self._conn()
        if isinstance(conn, Connection) and not self._nested:  # type: ignore[attr-defined]
            conn._ended(ok)

    def _conn(self) -> object:
        return self._connection  # type: ignore[attr-defined]


async def _reset_if_dirty(conn: asyncpg.Connection[Any]) -> None:
    """Reset a released connection only if it is still inside a transaction.

    asyncpg's default reset costs a round trip on every release (~0.2 ms here). The
    server keeps no session state on pooled connections (LISTEN has its own
    connection; fracas_append releases its advisory lock), so only a connection left
    in a transaction, by a cancel, needs it.
    """
    if conn.is_in_transaction():
        await conn.reset()
        if isinstance(conn, Connection):
            conn._ended(False)  # rolled back by the reset


def url_with_database(url: str, database: str) -> str:
    """The same server URL pointing at another database."""
    parts = urlsplit(url)
    return urlunsplit(parts._replace(path="/" + database))


async def open_app_pool(url: str) -> asyncpg.Pool[Any]:
    """Apply the schema as the URL's user, then pool connections acting as fracas_app.

    Least privilege: the server itself may only SELECT and INSERT on the event log. If
    the URL's user may not take that role (no CREATEROLE on an existing database), the
    pool keeps the user's own rights and says so.
    """
    owner = await asyncpg.connect(url)
    try:
        await apply_schema(owner)
        can = await owner.fetchval(
            "SELECT pg_has_role(current_user, $1, 'MEMBER') FROM pg_roles WHERE rolname = $1",
            APP_ROLE,
        )
    finally:
        await owner.close()
    if can:
        return await create_pool(url, role=APP_ROLE)
    log.warning("cannot act as %s: the server keeps the rights of the URL's user", APP_ROLE)
    return await create_pool(url)
