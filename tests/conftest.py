"""Shared fixtures.

Database: $TEST_DATABASE_URL (or $DATABASE_URL) names a server to use; without it an
embedded PostgreSQL is started in a temporary folder for the session. Either way each
session gets its own fresh database `fracas_test_<hex>` with schema.sql applied, so
several people or CI jobs can share one server.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import secrets
import shutil
import tempfile
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import asyncpg
import pytest
import pytest_asyncio

from server.store.db import APP_ROLE, apply_schema, create_pool, url_with_database
from server.store.embedded import EmbeddedPostgres
from server.store.postgres import PostgresEventStore


@contextlib.contextmanager
def _folder_outside_pytest_tmp() -> Iterator[Path]:
    # Not under tmp_path: as root the embedded server runs as the `pgserver` user, and
    # every pytest session chmods /tmp/pytest-of-root back to 0700 when it starts.
    path = Path(tempfile.mkdtemp(prefix="fracas-test-"))
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


@pytest.fixture
def scratch_dir() -> Iterator[Path]:
    """A fresh folder an embedded PostgreSQL may live in; removed afterwards."""
    with _folder_outside_pytest_tmp() as path:
        yield path


@pytest.fixture(scope="session")
def server_url() -> Iterator[str]:
    """URL of a database on the server the tests may use to create their own databases."""
    given = os.environ.get("TEST_DATABASE_URL") or os.environ.get("DATABASE_URL")
    if given:
        yield given
        return
    with _folder_outside_pytest_tmp() as home:
        embedded = EmbeddedPostgres(home, database="postgres")
        url = embedded.start()
        yield url
        embedded.stop()


@contextlib.asynccontextmanager
async def fresh_database(server_url: str) -> AsyncIterator[str]:
    """A new database `fracas_test_<hex>` on the server, schema.sql applied; dropped after."""
    name = f"fracas_test_{secrets.token_hex(6)}"
    admin = await asyncpg.connect(server_url)
    try:
        await admin.execute(f'CREATE DATABASE "{name}"')
    finally:
        await admin.close()
    url = url_with_database(server_url, name)
    conn = await asyncpg.connect(url)
    try:
        await apply_schema(conn)
    finally:
        await conn.close()
    try:
        yield url
    finally:
        admin = await asyncpg.connect(server_url)
        try:
            await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        finally:
            await admin.close()


@pytest_asyncio.fixture(scope="session", loop_scope="session")
async def database_url(server_url: str) -> AsyncIterator[str]:
    """A fresh database with schema.sql applied, dropped at the end of the session."""
    async with fresh_database(server_url) as url:
        yield url


@pytest_asyncio.fixture(scope="session", loop_scope="session")
async def pool(database_url: str) -> AsyncIterator[asyncpg.Pool[Any]]:
    """A pool connected as the database owner (may alter tables, disable triggers)."""
    owner_pool = await create_pool(database_url, min_size=1, max_size=8)
    yield owner_pool
    await asyncio.wait_for(owner_pool.close(), 10)


@pytest_asyncio.fixture(scope="session", loop_scope="session")
async def store(database_url: str) -> AsyncIterator[PostgresEventStore]:
    """The event store as the server runs it: every connection acts as fracas_app."""
    app_pool = await create_pool(database_url, role=APP_ROLE, min_size=1, max_size=12)
    yield PostgresEventStore(app_pool)
    await asyncio.wait_for(app_pool.close(), 10)
