"""The server's own connections act with least privilege."""

from __future__ import annotations

import asyncpg
import pytest

from server.store.db import APP_ROLE, open_app_pool


async def test_the_server_pool_acts_as_fracas_app_and_cannot_rewrite_history(
    database_url: str,
) -> None:
    pool = await open_app_pool(database_url)
    try:
        assert await pool.fetchval("SELECT current_user") == APP_ROLE
        with pytest.raises(asyncpg.InsufficientPrivilegeError):
            await pool.execute("UPDATE events SET type = 'x' WHERE false")
        with pytest.raises(asyncpg.InsufficientPrivilegeError):
            await pool.execute("DELETE FROM events WHERE false")
        assert await pool.fetchval("SELECT count(*) >= 0 FROM events")
    finally:
        await pool.close()
