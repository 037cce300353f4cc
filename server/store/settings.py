"""How the server talks to PostgreSQL, in one place: pool, timeouts, statement cache, names.

Every setting is a `fracas serve` flag and a FRACAS_* environment variable alike (the flag
wins); `DbSettings.resolve(flags)` reads both. The offline commands (`export`, `verify`,
...) read the environment only. docs/operating.md, "Database settings", has the table.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any


@dataclass(frozen=True, slots=True)
class DbSettings:
    """The database settings of one process (defaults suit one PostgreSQL, direct)."""

    pool_min: int = 1
    pool_max: int = 10
    # Seconds an idle pooled connection is kept: a burst's extra connections go back to
    # the server soon, so several instances do not hold max_connections between bursts.
    pool_idle: float = 30.0
    # asyncpg's prepared statement cache per connection; 0 for PgBouncer's transaction
    # mode, where a statement prepared on one server connection is not on the next.
    statement_cache_size: int = 100
    # Per host of a multi-host URL: a frozen first host costs this, then the next is tried.
    connect_timeout: float = 3.0
    # Per statement (a COMMIT waiting for a lost synchronous standby included).
    command_timeout: float = 10.0
    # Waiting for a pooled connection (and connecting it, if the pool must).
    acquire_timeout: float = 10.0
    application_name: str = "fracas"
    # LISTEN/NOTIFY wake-ups on their own direct connections: behind PgBouncer in
    # transaction mode, LISTEN must bypass it. None: the database URL.
    listen_url: str | None = None
    # The role every pooled connection takes with SET ROLE after connecting (least
    # privilege, schema.sql); "" keeps the URL user's own rights.
    app_role: str = "fracas_app"

    @classmethod
    def resolve(
        cls, flags: Mapping[str, Any] | None = None, environ: Mapping[str, str] | None = None
    ) -> DbSettings:
        """Each setting from `flags` (None: not given), else FRACAS_<NAME>, else its default.

        Raises ValueError naming the variable for a value out of range.
        """
        env = os.environ if environ is None else environ
        given = dict(flags or {})
        values: dict[str, Any] = {}
        for f in fields(cls):
            raw = given.get(f.name)
            if raw is None:
                raw = env.get(ENV[f.name])
                if raw is None or (raw == "" and f.name != "app_role"):
                    continue
                raw = _parse(f.name, raw)
            values[f.name] = raw
        settings = cls(**values)
        settings.check()
        return settings

    def check(self) -> None:
        if not 0 <= self.pool_min <= self.pool_max or self.pool_max < 1:
            raise ValueError("pool sizes: 0 <= FRACAS_POOL_MIN <= FRACAS_POOL_MAX, max >= 1")
        if self.statement_cache_size < 0:
            raise ValueError("FRACAS_STATEMENT_CACHE_SIZE must be 0 or more")
        for name in ("connect_timeout", "command_timeout", "acquire_timeout", "pool_idle"):
            if not 0 < getattr(self, name) <= 3600:
                raise ValueError(f"{ENV[name]} must be seconds between 0 and 3600")


ENV = {
    "pool_min": "FRACAS_POOL_MIN",
    "pool_max": "FRACAS_POOL_MAX",
    "pool_idle": "FRACAS_POOL_IDLE",
    "statement_cache_size": "FRACAS_STATEMENT_CACHE_SIZE",
    "connect_timeout": "FRACAS_CONNECT_TIMEOUT",
    "command_timeout": "FRACAS_COMMAND_TIMEOUT",
    "acquire_timeout": "FRACAS_ACQUIRE_TIMEOUT",
    "application_name": "FRACAS_APPLICATION_NAME",
    "listen_url": "FRACAS_LISTEN_URL",
    "app_role": "FRACAS_APP_ROLE",
}
_INTS = {"pool_min", "pool_max", "statement_cache_size"}
_FLOATS = {"pool_idle", "connect_timeout", "command_timeout", "acquire_timeout"}


def _parse(name: str, raw: str) -> Any:
    try:
        if name in _INTS:
            return int(raw)
        if name in _FLOATS:
            return float(raw)
    except ValueError:
        kind = "a whole number" if name in _INTS else "seconds"
        raise ValueError(f"{ENV[name]} must be {kind}, got {raw!r}") from None
    return raw
