"""Reads do not write (issue 23): a token check only reads (its use is written in the
background, at most once a minute per token), a start on a current schema writes
nothing, so both work on a read-only database (a replica); /readyz says whether this
instance can commit a write now."""

from __future__ import annotations

import asyncio
import hashlib
import time
import uuid

import asyncpg

from server.store.db import APP_ROLE, create_pool, open_app_pool
from server.store.postgres import PostgresEventStore


def digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


async def stored_last_use(url: str, token_hash: str) -> object:
    conn = await asyncpg.connect(url)
    try:
        return await conn.fetchval("SELECT last_used FROM tokens WHERE token_hash = $1", token_hash)
    finally:
        await conn.close()


async def test_a_token_check_writes_its_use_later_in_a_batch_and_once_a_minute(
    own_database: str,
) -> None:
    pool = await create_pool(own_database, role=APP_ROLE, min_size=1, max_size=2)
    try:
        store = PostgresEventStore(pool)
        eid = str(uuid.uuid4())
        hashes = [digest(f"{eid}-{n}") for n in range(3)]
        for n, h in enumerate(hashes):
            await store.add_token(eid, h, "spectator", [], f"t{n}-{eid}")
        for h in hashes:
            assert await store.grant(eid, h) is not None
        # Nothing written on the read path...
        assert [await stored_last_use(own_database, h) for h in hashes] == [None] * 3
        # ...but shown at once in the GM's list, and written in one batch soon after.
        assert all(t.last_used is not None for t in await store.live_tokens(eid))
        deadline = time.monotonic() + 10
        while await stored_last_use(own_database, hashes[-1]) is None:
            assert time.monotonic() < deadline, "the uses were never written"
            await asyncio.sleep(0.1)
        assert all([await stored_last_use(own_database, h) for h in hashes])
        assert store.touches.batches == 1
        for _ in range(5):
            await store.grant(eid, hashes[0])  # within the minute: nothing more to write
        await asyncio.sleep(1.5)
        assert store.touches.batches == 1
    finally:
        await pool.close()


async def test_a_read_only_database_serves_token_checks_and_a_start_on_a_current_schema(
    own_database: str,
) -> None:
    pool = await open_app_pool(own_database)  # the schema, applied and noted
    store = PostgresEventStore(pool)
    eid = str(uuid.uuid4())
    await store.add_token(eid, digest(eid), "gm", [], f"gm-{eid}")
    await pool.close()
    admin = await asyncpg.connect(own_database)
    # The name from the server itself: the URL may carry it before a ?host= query.
    name = await admin.fetchval("SELECT current_database()")
    try:
        await admin.execute(f'ALTER DATABASE "{name}" SET default_transaction_read_only = on')
    finally:
        await admin.close()
    # A replica, as far as the server can tell: every new session is read-only.
    pool = await open_app_pool(own_database)
    try:
        store = PostgresEventStore(pool)
        assert await pool.fetchval("SHOW transaction_read_only") == "on"
        grant = await store.grant(eid, digest(eid))
        assert grant is not None and grant.role == "gm"
        assert await store.read_stream(f"encounter-{eid}") == []
        await asyncio.sleep(1.5)  # the background write fails, logged, and nothing breaks
        assert await store.grant(eid, digest(eid)) is not None
    finally:
        await pool.close()
        admin = await asyncpg.connect(
            own_database, server_settings={"default_transaction_read_only": "off"}
        )
        try:
            await admin.execute(f'ALTER DATABASE "{name}" RESET default_transaction_read_only')
        finally:
            await admin.close()
