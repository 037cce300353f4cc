"""The embedded PostgreSQL: started on demand under $FRACAS_HOME, kept across restarts."""

from __future__ import annotations

import asyncio
from pathlib import Path

import asyncpg
import pytest

from server.store.db import resolve_database_url
from server.store.embedded import default_home


async def test_without_a_database_url_an_embedded_server_starts_and_keeps_its_data(
    scratch_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("DATABASE_URL", raising=False)
    monkeypatch.setenv("FRACAS_HOME", str(scratch_dir / "home"))

    url, stop = await asyncio.to_thread(resolve_database_url, None, None)
    assert stop is not None
    assert "/fracas?host=" in url and str(scratch_dir / "home" / "pgdata") in url
    conn = await asyncpg.connect(url)
    await conn.execute("CREATE TABLE kept (note text); INSERT INTO kept VALUES ('still here')")
    await conn.close()
    await asyncio.to_thread(stop)

    with pytest.raises((OSError, asyncpg.PostgresError)):
        await asyncpg.connect(url, timeout=5)

    url_again, stop_again = await asyncio.to_thread(resolve_database_url, None, None)
    assert stop_again is not None
    try:
        conn = await asyncpg.connect(url_again)
        assert await conn.fetchval("SELECT note FROM kept") == "still here"
        await conn.close()
    finally:
        await asyncio.to_thread(stop_again)


def test_a_flag_wins_over_database_url_which_wins_over_the_embedded_server(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("DATABASE_URL", "postgresql://env@/db")
    assert resolve_database_url("postgresql://flag@/db", None) == ("postgresql://flag@/db", None)
    assert resolve_database_url(None, None) == ("postgresql://env@/db", None)


def test_the_default_home_is_fracas_home_else_var_lib_for_root_else_the_user_data_dir(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("FRACAS_HOME", "/srv/fracas")
    assert default_home() == Path("/srv/fracas")

    monkeypatch.delenv("FRACAS_HOME")
    monkeypatch.setattr("os.geteuid", lambda: 0)
    assert default_home() == Path("/var/lib/fracas")

    monkeypatch.setattr("os.geteuid", lambda: 1000)
    monkeypatch.setenv("HOME", "/home/someone")
    assert default_home() == Path("/home/someone/.local/share/fracas")
