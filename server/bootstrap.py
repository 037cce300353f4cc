"""The composition root of the offline commands (`fracas export`, `verify`, `audit`,
`simulate --save`): the same database resolution, schema, adapters and service as
`fracas serve` (whose root is server/app.py), for commands that run without a server."""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit


class UserError(Exception):
    """A mistake on the command line or in its environment: one line on stderr, exit 2."""

    def __init__(self, message: str, code: int = 2) -> None:
        super().__init__(message)
        self.code = code


def fracas_home() -> Path | None:
    """$FRACAS_HOME if set; else the embedded server picks its default (server/embedded.py)."""
    raw = os.environ.get("FRACAS_HOME")
    return Path(raw) if raw else None


def configured_url(flag: str | None) -> str | None:
    """The --database-url flag, else $DATABASE_URL; None means the embedded PostgreSQL."""
    return flag or os.environ.get("DATABASE_URL") or None


def where(url: str, database: bool = True) -> str:
    """host:port (and /database) of a PostgreSQL URL, never its user or password."""
    try:
        parts = urlsplit(url)
        query = parse_qs(parts.query)
        host = parts.hostname or (query.get("host") or [""])[0] or "localhost"
        port = parts.port or int((query.get("port") or ["5432"])[0])
    except ValueError:
        return "an unreadable database URL"
    name = unquote(parts.path.lstrip("/")) or (query.get("dbname") or [""])[0]
    place = f"{host}:{port}" if not host.startswith("/") else f"{host} (socket)"
    return f"{place}/{name}" if name and database else place


def data_location(flag: str | None) -> str:
    """Where `fracas serve` keeps its data, in words (no password)."""
    url = configured_url(flag)
    if url is not None:
        return f"PostgreSQL at {where(url)}"
    from server.store.embedded import default_home

    home = (fracas_home() or default_home()).expanduser().resolve()
    return f"embedded PostgreSQL in {home / 'pgdata'}"


def db_settings(flags: dict[str, Any]) -> Any:
    """The database settings (a DbSettings): each of `flags` that is not None, else its
    FRACAS_* variable, else its default; a bad value is a UserError."""
    from server.store.settings import DbSettings

    try:
        return DbSettings.resolve(flags)
    except ValueError as e:
        raise UserError(str(e)) from None


async def open_pool(url: str, settings: Any = None) -> Any:
    """`db.open_app_pool` (with `settings`, a DbSettings, else the environment's), its
    failures to connect turned into one-line UserErrors."""
    import asyncpg

    from server.store import db

    try:
        return await db.open_app_pool(url, settings)
    except (OSError, TimeoutError) as e:
        raise UserError(f"cannot reach PostgreSQL at {where(url, False)}: {_why(e)}") from None
    except asyncpg.PostgresError as e:
        raise UserError(f"PostgreSQL at {where(url)} refused the connection: {e}") from None
    except (asyncpg.InterfaceError, ValueError, OverflowError):
        # The exception's text may quote the URL, password included: say it in our words.
        raise UserError(
            "the database URL is not a PostgreSQL URL (postgresql://user@host:port/database)"
        ) from None


def _why(error: OSError | TimeoutError) -> str:
    if isinstance(error, ConnectionRefusedError):
        return "connection refused"
    if isinstance(error, TimeoutError):
        return "no answer in time"
    return error.strerror or type(error).__name__


async def migrate(url: str | None) -> str:
    """`fracas migrate`: bring the database to this schema.sql; what was done, in words."""
    import asyncpg

    from server.store import db

    resolved, stop = db.resolve_database_url(url, fracas_home())
    try:
        applied = await db.migrate(resolved)
    except (OSError, TimeoutError) as e:
        raise UserError(f"cannot reach PostgreSQL at {where(resolved, False)}: {_why(e)}") from None
    except asyncpg.PostgresError as e:
        raise UserError(f"PostgreSQL at {where(resolved)} refused the schema: {e}") from None
    finally:
        if stop is not None:
            stop()
    done = "schema applied" if applied else "schema already current"
    return f"{done}: PostgreSQL at {where(resolved)}"


async def check_reachable(url: str, settings: Any = None) -> None:
    """Connect once (schema applied) and close, or a UserError saying why not."""
    pool = await open_pool(url, settings)
    await pool.close()


async def with_service(url: str | None, work: Callable[[Any], Awaitable[int]]) -> int:
    """Run `work(service)` on the database the flag, $DATABASE_URL or the embedded default names."""
    from server.services.encounters import EncounterService
    from server.services.metrics import Metrics
    from server.store import db
    from server.store.postgres import PostgresEventStore

    resolved, stop = db.resolve_database_url(url, fracas_home())
    try:
        pool = await open_pool(resolved)
        try:
            svc = EncounterService(PostgresEventStore(pool), Metrics())
            return await work(svc)
        finally:
            await pool.close()
    finally:
        if stop is not None:
            stop()
