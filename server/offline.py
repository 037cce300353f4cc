"""Commands that work on the database without a running server (the CLI's subcommands):
the same database resolution, schema and service as `fracas serve`."""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any


def fracas_home() -> Path | None:
    """$FRACAS_HOME if set; else the embedded server picks its default (server/embedded.py)."""
    raw = os.environ.get("FRACAS_HOME")
    return Path(raw) if raw else None


async def with_service(url: str | None, work: Callable[[Any], Awaitable[int]]) -> int:
    """Run `work(service)` on the database the flag, $DATABASE_URL or the embedded default names."""
    from server import db
    from server.metrics import Metrics
    from server.service import EncounterService
    from server.store import PostgresEventStore

    resolved, stop = db.resolve_database_url(url, fracas_home())
    try:
        pool = await db.open_app_pool(resolved)
        try:
            svc = EncounterService(pool, PostgresEventStore(pool), Metrics())
            return await work(svc)
        finally:
            await pool.close()
    finally:
        if stop is not None:
            stop()
