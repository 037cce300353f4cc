"""Where the database is, its schema, and the connection pool."""

from __future__ import annotations

import hashlib
import logging
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import asyncpg
import asyncpg.transaction
from asyncpg.pool import PoolConnectionProxy

from server.store.port import Unavailable
from server.store.settings import DbSettings

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
    """Run schema.sql in one transaction (idempotent; safe from two processes at once),
    and note its digest (`schema_is_current`)."""
    sql = SCHEMA_PATH.read_text(encoding="utf-8")
    if isinstance(target, asyncpg.Pool):
        async with target.acquire() as conn, conn.transaction():
            await conn.execute(sql + ";\n" + _SQL_SCHEMA_MARKER)
            await conn.execute(_SQL_NOTE_SCHEMA, schema_digest())
    else:
        async with target.transaction():
            await target.execute(sql + ";\n" + _SQL_SCHEMA_MARKER)
            await target.execute(_SQL_NOTE_SCHEMA, schema_digest())


# Two small tables of this adapter's own, beside schema.sql (which others edit):
# - which schema.sql a database was last brought to, so a start that finds it current
#   writes nothing (the server may then start on a replica, or as a login role with only
#   fracas_app's rights, e.g. behind a transaction pooler);
# - one row /readyz rewrites: a write whose commit waits for synchronous standbys as any
#   command's does (a transaction id alone writes no WAL, and its commit waits for none).
_SQL_SCHEMA_MARKER = """
CREATE TABLE IF NOT EXISTS fracas_schema_applied (
  digest     text PRIMARY KEY,
  applied_at timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE IF NOT EXISTS fracas_ready (
  id int PRIMARY KEY CHECK (id = 1),
  at timestamptz NOT NULL
);
DO $$
BEGIN
  IF EXISTS (SELECT FROM pg_roles WHERE rolname = 'fracas_app') THEN
    GRANT SELECT, INSERT, UPDATE ON fracas_ready TO fracas_app;
    GRANT SELECT ON fracas_schema_applied TO fracas_app;
  END IF;
END;
$$"""
_SQL_NOTE_SCHEMA = "INSERT INTO fracas_schema_applied (digest) VALUES ($1) ON CONFLICT DO NOTHING"
_SQL_SCHEMA_CURRENT = "SELECT EXISTS (SELECT 1 FROM fracas_schema_applied WHERE digest = $1)"


def schema_digest() -> str:
    """What a start compares: schema.sql and this module's own tables, together."""
    return hashlib.sha256(SCHEMA_PATH.read_bytes() + _SQL_SCHEMA_MARKER.encode()).hexdigest()


async def schema_is_current(conn: asyncpg.Connection[Any] | PoolConnectionProxy[Any]) -> bool:
    """Whether this very schema.sql was applied to the database (a read only)."""
    try:
        return bool(await conn.fetchval(_SQL_SCHEMA_CURRENT, schema_digest()))
    except asyncpg.UndefinedTableError:
        return False


async def create_pool(
    url: str,
    *,
    role: str | None = None,
    min_size: int | None = None,
    max_size: int | None = None,
    settings: DbSettings | None = None,
) -> Pool:
    """A connection pool; with `role` (e.g. APP_ROLE) every connection acts as that role.

    The role is taken with `SET ROLE` once connected, not sent as a startup parameter
    (PgBouncer refuses unknown ones); the pool's reset keeps it (RESET ALL does not
    reset a role). Connections are made host by host (`connect`), each statement and
    each wait for a connection has its timeout (`settings`).
    """
    s = settings or DbSettings.resolve()
    pool = Pool(
        url,
        min_size=s.pool_min if min_size is None else min_size,
        max_size=s.pool_max if max_size is None else max_size,
        max_inactive_connection_lifetime=s.pool_idle,
        reset=_reset_if_dirty,
        init=_as_role(role) if role else None,
        connection_class=Connection,
        connect=_connector(s),
        acquire_timeout=s.acquire_timeout,
        max_queries=50_000,  # asyncpg's create_pool defaults
        loop=None,
        record_class=asyncpg.Record,
    )
    await pool
    return pool


class Pool(asyncpg.Pool):
    """asyncpg's pool with a default acquire timeout (the pool's own fetch, execute, ...
    wait at most that long for a connection), that drops a connection which timed out
    or hit a read-only server, and moves every connection when a server turns read-only
    (a failed-over primary): a new connection goes to a writable host."""

    def __init__(self, *args: Any, acquire_timeout: float, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.acquire_timeout = acquire_timeout

    def acquire(self, *, timeout: float | None = None) -> Any:
        return super().acquire(timeout=self.acquire_timeout if timeout is None else timeout)

    async def release(self, connection: Any, *, timeout: float | None = None) -> None:
        con = getattr(connection, "_con", None)
        if isinstance(con, Connection) and con.stale is not None and not con.is_closed():
            if con.stale == "read-only":
                await self.expire_connections()  # every idle one goes to the same host
            con.terminate()  # a cancel to a frozen host may never be answered: drop it
        await super().release(connection, timeout=timeout)


def _as_role(role: str) -> Callable[[asyncpg.Connection[Any]], Any]:
    async def init(conn: asyncpg.Connection[Any]) -> None:
        await conn.execute("SET ROLE " + _ident(role))

    return init


def _ident(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


# --- connecting, host by host --------------------------------------------------------


class NoHostAvailable(Unavailable):
    """No host of a multi-host URL could be connected to as asked (down, frozen,
    read-only); its strerror says why, host by host (never a password)."""

    def __init__(self, reasons: list[str]) -> None:
        super().__init__(0, "no usable host (" + "; ".join(reasons) + ")")

    def __str__(self) -> str:
        return str(self.strerror)


def hosts_of(url: str) -> list[str]:
    """One single-host URL per host of a multi-host URL (postgresql://u@h1:1,h2:2/db?...),
    in order; a single-host URL (or one whose hosts are in its query) as it is."""
    scheme, sep, rest = url.partition("://")
    if not sep:
        return [url]
    netloc, slash, tail = rest.partition("/")
    if not slash:
        netloc, _, query = rest.partition("?")
        tail = "?" + query if query else ""
        slash = "/" if query else ""
    userinfo, at, hostlist = netloc.rpartition("@")
    if "," not in hostlist:
        return [url]
    return [f"{scheme}://{userinfo}{at}{h}{slash}{tail}" for h in hostlist.split(",") if h]


def _connector(settings: DbSettings) -> Callable[..., Any]:
    async def connect(dsn: str, **kwargs: Any) -> asyncpg.Connection[Any]:
        return await connect_hosts(dsn, settings, **kwargs)

    return connect


async def connect_hosts(
    url: str, settings: DbSettings | None = None, **kwargs: Any
) -> asyncpg.Connection[Any]:
    """Connect to the first host of `url` that answers in time and matches its
    target_session_attrs, each host with its own `connect_timeout`.

    asyncpg's own timeout covers all the hosts of a URL together: a first host that
    accepts and never answers used that budget whole, and the second was never tried.
    """
    s = settings or DbSettings.resolve()
    kwargs.pop("loop", None)
    kwargs.setdefault("statement_cache_size", s.statement_cache_size)
    kwargs.setdefault("command_timeout", s.command_timeout)
    given = kwargs.pop("server_settings", None) or {}
    server_settings = {"application_name": s.application_name, **given}
    hosts = hosts_of(url)
    if len(hosts) == 1:  # its own errors, as asyncpg raises them
        one: asyncpg.Connection[Any] = await asyncpg.connect(
            url, timeout=s.connect_timeout, server_settings=server_settings, **kwargs
        )
        return one
    reasons: list[str] = []
    for host in hosts:
        try:
            conn: asyncpg.Connection[Any] = await asyncpg.connect(
                host, timeout=s.connect_timeout, server_settings=server_settings, **kwargs
            )
            return conn
        except (OSError, TimeoutError, asyncpg.TargetServerAttributeNotMatched) as e:
            reasons.append(f"{_place(host)}: {_reason(e)}")
        except asyncpg.CannotConnectNowError as e:  # starting up, shutting down, recovering
            reasons.append(f"{_place(host)}: {e.sqlstate}")
    raise NoHostAvailable(reasons)


def _place(url: str) -> str:
    netloc = url.partition("://")[2].partition("/")[0].partition("?")[0]
    return netloc.rpartition("@")[2] or "localhost"


def _reason(e: BaseException) -> str:
    if isinstance(e, TimeoutError):
        return "no answer in time"
    if isinstance(e, asyncpg.TargetServerAttributeNotMatched):
        return "not a server of the asked kind (target_session_attrs)"
    if isinstance(e, ConnectionRefusedError):
        return "connection refused"
    return type(e).__name__


# A write on a standby (25006), or a server recovering or refusing for now (57P03).
_READ_ONLY = (asyncpg.ReadOnlySQLTransactionError, asyncpg.CannotConnectNowError)


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
        # Why this connection must not be reused ("timeout", "read-only"), else None:
        # the pool (`Pool.release`) drops it rather than wait on a frozen host or keep
        # writing to a server that became a standby.
        self.stale: str | None = None

    async def execute(self, query: str, *args: Any, timeout: float | None = None) -> str:
        try:
            return await super().execute(query, *args, timeout=timeout)
        except TimeoutError:
            self.stale = "timeout"
            raise
        except _READ_ONLY as e:
            self.stale = "read-only"
            raise Unavailable("the database server is read-only now (a standby?)") from e

    async def _do_execute(self, *args: Any, **kwargs: Any) -> Any:
        # Every prepared statement (fetch, fetchval, fetchrow, execute with arguments)
        # runs through here.
        try:
            return await super()._do_execute(*args, **kwargs)  # type: ignore[misc]
        except TimeoutError:
            self.stale = "timeout"
            raise
        except _READ_ONLY as e:
            self.stale = "read-only"
            raise Unavailable("the database server is read-only now (a standby?)") from e

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
    connection; the append trigger releases its advisory lock), so only a connection left
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


async def migrate(url: str, settings: DbSettings | None = None) -> bool:
    """Apply schema.sql as the URL's user unless it is current; whether it was applied."""
    owner = await connect_hosts(url, settings or DbSettings.resolve())
    try:
        if await schema_is_current(owner):
            return False
        await apply_schema(owner)
        return True
    finally:
        await owner.close()


async def open_app_pool(url: str, settings: DbSettings | None = None) -> Pool:
    """Apply the schema as the URL's user, then pool connections acting as fracas_app.

    Least privilege: the server itself may only SELECT and INSERT on the event log. If
    the URL's user may not take that role (no CREATEROLE on an existing database), the
    pool keeps the user's own rights and says so. `settings.app_role` "" keeps them anyway.
    """
    s = settings or DbSettings.resolve()
    owner = await connect_hosts(url, s)
    try:
        if not await schema_is_current(owner):
            await apply_schema(owner)
        role = s.app_role
        can = bool(role) and await owner.fetchval(
            "SELECT pg_has_role(current_user, $1, 'MEMBER') FROM pg_roles WHERE rolname = $1",
            role,
        )
    finally:
        await owner.close()
    if can:
        return await create_pool(url, role=role, settings=s)
    if role:
        log.warning("cannot act as %s: the server keeps the rights of the URL's user", role)
    return await create_pool(url, settings=s)
