"""What only the PostgreSQL event store promises, against a real PostgreSQL (no mocks).

The contract every store keeps (versions, conflicts, atomic appends, order, wake-ups)
is in tests/integration/store_contract.py and runs here too, through
test_store_contract.py. These tests reach under the port: the database's own refusals,
the xmin horizon, privileges, the trigger, the LISTEN connection, schema.sql.
Stream names are fresh per test, so tests share one database without seeing each other.
"""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from typing import Any, TypeAlias

import asyncpg
import msgspec
import pytest

from domain.chain import GENESIS, first_break, link
from server.store.db import apply_schema
from server.store.port import ConcurrencyError, NewEvent, Recorded
from server.store.postgres import PostgresEventStore, tail

META = {"command_id": "c-1", "actor": "gm", "rules_version": "test-1"}
Pool: TypeAlias = "asyncpg.Pool[Any]"


def new_stream() -> str:
    return f"encounter-{uuid.uuid4()}"


def hit(n: int) -> NewEvent:
    return NewEvent("damage_dealt", {"target": "orc", "amount": n, "note": "épée"})


def envelopes(events: list[Recorded]) -> list[dict[str, Any]]:
    return [msgspec.structs.asdict(e) for e in events]


async def eventually_read_all(
    store: PostgresEventStore, after: int, streams: set[str], count: int
) -> list[Recorded]:
    """read_all until `count` events of `streams` show. Committed events can stay hidden
    a moment: a transaction still writing anywhere in the cluster (another test session
    on the same server) holds back the horizon."""
    for _ in range(200):
        ours = [e for e in await store.read_all(after) if e.stream in streams]
        if len(ours) >= count:
            return ours
        await asyncio.sleep(0.05)
    raise AssertionError(f"only {len(ours)} of {count} events became visible")


async def last_position(pool: Pool) -> int:
    return int(await pool.fetchval("SELECT coalesce(max(position), 0) FROM events"))


# --- appending ---------------------------------------------------------------


async def test_an_append_on_a_stale_cached_head_is_refused_by_the_database(
    store: PostgresEventStore, pool: Pool
) -> None:
    stream = new_stream()
    other_instance = PostgresEventStore(pool)
    await store.append(stream, 0, [hit(1)], META)
    await other_instance.read_stream(stream)  # caches version 1
    await store.append(stream, 1, [hit(2)], META)

    with pytest.raises(ConcurrencyError) as raised:
        await other_instance.append(stream, 1, [hit(3)], META)

    assert isinstance(raised.value.__cause__, asyncpg.SerializationError)
    assert raised.value.actual == 2
    assert [e.data["amount"] for e in await store.read_stream(stream)] == [1, 2]


async def test_a_refused_append_leaves_no_row_behind(store: PostgresEventStore, pool: Pool) -> None:
    """The contract checks this through the port; here no row of it exists either."""
    stream = new_stream()
    await store.append(stream, 0, [hit(1)], META)
    before = await last_position(pool)

    with pytest.raises(ValueError, match="refused"):  # the CHECK on type, in the database
        await store.append(stream, 1, [hit(2), NewEvent("Not Snake Case", {}), hit(3)], META)

    assert await pool.fetchval("SELECT count(*) FROM events WHERE position > $1", before) == 0
    assert await pool.fetchval("SELECT count(*) FROM events WHERE stream = $1", stream) == 1


INSERT_ROW = """
INSERT INTO events (position, stream, version, type, data, meta, recorded_at, prev_hash, hash)
OVERRIDING SYSTEM VALUE
SELECT 424242, $1, r.version, 'tested', '{}', $2::jsonb, now(), r.prev, r.hash
  FROM unnest($3::bigint[], $4::text[], $5::text[]) WITH ORDINALITY AS r(version, prev, hash, ord)
 ORDER BY r.ord
RETURNING position"""


def chained(stream: str, versions: range, prev: str = GENESIS) -> tuple[list[str], list[str]]:
    """(prev_hash, hash) lists of a run of `tested` events, built by hand."""
    prevs, hashes = [], []
    for version in versions:
        envelope = {"stream": stream, "version": version, "type": "tested", "data": {}}
        prevs.append(prev)
        prev = link(prev, {**envelope, "meta": META})
        hashes.append(prev)
    return prevs, hashes


async def insert_rows(
    conn: Any, stream: str, versions: list[int], prevs: list[str], hashes: list[str]
) -> list[int]:
    meta = msgspec.json.encode(META).decode()
    return [r[0] for r in await conn.fetch(INSERT_ROW, stream, meta, versions, prevs, hashes)]


async def test_any_insert_is_checked_and_ordered_by_the_database_not_only_the_servers(
    store: PostgresEventStore,
) -> None:
    """The app role may INSERT into events; the trigger makes every INSERT an append."""
    pool, stream = store._pool, new_stream()  # the server's own role, fracas_app
    prevs, hashes = chained(stream, range(1, 4))

    [first] = await insert_rows(pool, stream, [1], prevs[:1], hashes[:1])
    assert first != 424242  # the trigger gives the position, whatever the INSERT says
    with pytest.raises(asyncpg.SerializationError, match="at version 1, not 2") as raised:
        await insert_rows(pool, stream, [3], prevs[2:], hashes[2:])  # skips version 2
    assert raised.value.detail == "1"
    with pytest.raises(asyncpg.SerializationError, match="at version 1, not 0"):
        await insert_rows(pool, stream, [1], prevs[:1], hashes[:1])  # version 1 again
    with pytest.raises(asyncpg.CheckViolationError, match="fracas_bad_chain"):
        await insert_rows(pool, stream, [2], ["f" * 64], hashes[1:2])
    # A batch is checked row by row, each against the row stored before it.
    with pytest.raises(asyncpg.CheckViolationError, match="fracas_bad_chain"):
        await insert_rows(pool, stream, [2, 3], [prevs[1], "e" * 64], hashes[1:])
    assert await store.versions([stream]) == {stream: 1}

    second, third = await insert_rows(pool, stream, [2, 3], prevs[1:], hashes[1:])
    assert first < second < third
    events = await store.read_stream(stream)
    assert [e.version for e in events] == [1, 2, 3]
    assert first_break(envelopes(events)) is None


async def next_wake(wakes: Any, streams: set[str]) -> tuple[str, int]:
    async for wake in wakes:
        if wake.stream in streams:
            return wake.stream, int(wake.version)
    raise AssertionError("subscription ended")


@pytest.mark.parametrize("inline", [True, False], ids=["in-the-statement", "after-commit"])
async def test_an_append_in_a_transaction_notifies_once_committed_and_never_if_rolled_back(
    store: PostgresEventStore, pool: Pool, inline: bool
) -> None:
    """Either way the store notifies (in the append's statement when it is alone, after
    commit when others are under way: server.store.db.Connection says when a transaction ends)."""
    kept, dropped, later = new_stream(), new_stream(), new_stream()
    ours = {kept, dropped, later}
    store.notify_inline = inline
    async with store.subscribe(tick=0.2) as wakes:
        async with pool.acquire() as conn:
            with contextlib.suppress(RuntimeError):
                async with conn.transaction():
                    await store.append(dropped, 0, [hit(1)], META, conn=conn)
                    raise RuntimeError("the command failed after its append")
            async with conn.transaction():
                await store.append(kept, 0, [hit(1), hit(2)], META, conn=conn)
        assert await asyncio.wait_for(next_wake(wakes, ours), 10) == (kept, 2)
        await store.append(later, 0, [hit(1)], META)  # autocommit: notified at once
        assert await asyncio.wait_for(next_wake(wakes, ours), 10) == (later, 1)
    assert await store.versions([dropped]) == {dropped: 0}


async def test_appends_under_way_at_once_each_wake_the_listeners(store: PostgresEventStore) -> None:
    """The first goes with its NOTIFY in its statement, the others after their commits."""
    streams = [new_stream() for _ in range(8)]
    async with store.subscribe(tick=0.2) as wakes:
        await asyncio.gather(*(store.append(s, 0, [hit(1), hit(2)], META) for s in streams))
        woken: set[str] = set()
        while len(woken) < len(streams):
            woken.add((await asyncio.wait_for(next_wake(wakes, set(streams)), 10))[0])
    assert store._in_flight == 0


# --- reading everything, in order ----------------------------------------------


async def test_a_reader_does_not_see_past_an_append_that_has_not_committed(
    store: PostgresEventStore, pool: Pool
) -> None:
    start = await last_position(pool)
    slow, fast = new_stream(), new_stream()
    prevs, hashes = chained(slow, range(1, 2))
    async with pool.acquire() as conn:
        transaction = conn.transaction()
        await transaction.start()
        [slow_position] = await insert_rows(conn, slow, [1], prevs, hashes)  # a plain INSERT
        [fast_event] = await store.append(fast, 0, [hit(1)], META)
        assert fast_event.position > slow_position

        assert [e for e in await store.read_all(start) if e.stream in (slow, fast)] == []

        await transaction.commit()
    ours = await eventually_read_all(store, start, {slow, fast}, 2)
    assert [e.stream for e in ours] == [slow, fast]


async def test_an_append_after_other_writes_in_its_transaction_does_not_let_readers_skip(
    store: PostgresEventStore, pool: Pool
) -> None:
    """A has the older transaction id but takes its position after B: A waits for B."""
    start = await last_position(pool)
    a_stream, b_stream = new_stream(), new_stream()
    async with pool.acquire() as a, pool.acquire() as b:
        a_tx, b_tx = a.transaction(), b.transaction()
        await a_tx.start()
        await a.execute(  # any write that gives A its transaction id first
            "INSERT INTO tokens (token_hash, scope, role)"
            " VALUES ($1, gen_random_uuid(), 'spectator')",
            a_stream,
        )
        await b_tx.start()
        [b_event] = await store.append(b_stream, 0, [hit(1)], META, conn=b)
        [a_event] = await store.append(a_stream, 0, [hit(2)], META, conn=a)
        await a_tx.commit()
        assert a_event.position > b_event.position

        assert [e for e in await store.read_all(start) if e.stream in (a_stream, b_stream)] == []

        await b_tx.commit()
    assert await eventually_read_all(store, start, {a_stream, b_stream}, 2) == [b_event, a_event]


async def test_an_append_failing_inside_the_critical_section_leaves_no_lock_behind(
    store: PostgresEventStore, pool: Pool
) -> None:
    stream = new_stream()
    prevs, hashes = chained(stream, range(1, 2))
    advisory_locks = "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND pid = $1"
    async with pool.acquire() as conn:
        transaction = conn.transaction()
        await transaction.start()
        try:  # setval will be refused, inside the critical section
            await conn.execute("REVOKE UPDATE ON SEQUENCE events_xact_mark FROM fracas_app")
            await conn.execute("SET LOCAL ROLE fracas_app")
            with pytest.raises(asyncpg.InsufficientPrivilegeError, match="events_xact_mark"):
                async with conn.transaction():
                    await insert_rows(conn, stream, [1], prevs, hashes)
            assert await conn.fetchval(advisory_locks, conn.get_server_pid()) == 0
        finally:
            await transaction.rollback()  # the grant comes back
    assert (await store.append(stream, 0, [hit(1)], META))[0].version == 1


# --- append-only and least privilege --------------------------------------------

CHANGES = [
    "UPDATE events SET type = 'rewritten' WHERE position = $1",
    "DELETE FROM events WHERE position = $1",
    "TRUNCATE events",
]


@pytest.mark.parametrize("statement", CHANGES, ids=["update", "delete", "truncate"])
@pytest.mark.parametrize(
    ("role", "refusal"),
    [(None, "append-only"), ("fracas_app", "permission denied")],
    ids=["owner", "fracas_app"],
)
async def test_events_cannot_be_changed_or_removed(
    store: PostgresEventStore, pool: Pool, statement: str, role: str | None, refusal: str
) -> None:
    [event] = await store.append(new_stream(), 0, [hit(1)], META)
    args = (event.position,) if "$1" in statement else ()
    async with pool.acquire() as conn:
        with pytest.raises(asyncpg.PostgresError, match=refusal):
            async with conn.transaction():
                if role:
                    await conn.execute(f"SET LOCAL ROLE {role}")
                await conn.execute(statement, *args)
    assert await store.read_stream(event.stream) == [event]


async def test_fracas_app_cannot_update_events_even_with_the_trigger_disabled(
    store: PostgresEventStore, pool: Pool
) -> None:
    [event] = await store.append(new_stream(), 0, [hit(1)], META)
    async with pool.acquire() as conn:
        with pytest.raises(asyncpg.InsufficientPrivilegeError):
            async with conn.transaction():  # rolled back: the trigger comes back
                await conn.execute("ALTER TABLE events DISABLE TRIGGER events_append_only_rows")
                await conn.execute("SET LOCAL ROLE fracas_app")
                await conn.execute(
                    "UPDATE events SET type = 'x' WHERE position = $1", event.position
                )
    enabled = await pool.fetchval(
        "SELECT tgenabled::text FROM pg_trigger WHERE tgname = 'events_append_only_rows'"
    )
    assert enabled == "O"


# --- the hash chain ---------------------------------------------------------------


async def test_a_stream_verifies_and_a_row_altered_behind_the_trigger_is_detected(
    store: PostgresEventStore, pool: Pool
) -> None:
    stream = new_stream()
    await store.append(stream, 0, [hit(1), hit(2)], META)
    await store.append(stream, 2, [hit(3)], META)
    assert first_break(envelopes(await store.read_stream(stream))) is None

    async with pool.acquire() as conn, conn.transaction():
        await conn.execute("ALTER TABLE events DISABLE TRIGGER events_append_only_rows")
        await conn.execute(
            "UPDATE events SET data = jsonb_set(data, '{amount}', '20')"
            " WHERE stream = $1 AND version = 2",
            stream,
        )
        await conn.execute("ALTER TABLE events ENABLE TRIGGER events_append_only_rows")

    tampered = await store.read_stream(stream)
    assert tampered[1].data["amount"] == 20
    assert first_break(envelopes(tampered)) == "version 2: hash does not match its content"


# --- live subscription --------------------------------------------------------------


async def next_notice_for(wakes: Any, stream: str) -> int:
    async for wake in wakes:
        if wake.stream == stream:
            return int(wake.version)
    raise AssertionError("subscription ended")


async def test_the_subscription_wakes_on_append_and_survives_its_connection_being_killed(
    store: PostgresEventStore, pool: Pool
) -> None:
    stream = new_stream()
    async with store.subscribe(tick=0.2) as wakes:
        await store.append(stream, 0, [hit(1)], META)
        assert await asyncio.wait_for(next_notice_for(wakes, stream), 10) == 1

        killed = wakes.backend_pid
        assert await pool.fetchval("SELECT pg_terminate_backend($1)", killed)

        async def reconnected() -> None:
            async for _ in wakes:
                if wakes.reconnects:
                    return

        await asyncio.wait_for(reconnected(), 10)
        assert wakes.backend_pid not in (None, killed)

        await store.append(stream, 1, [hit(2)], META)
        assert await asyncio.wait_for(next_notice_for(wakes, stream), 10) == 2


async def test_tail_delivers_events_appended_while_its_connection_was_down(
    store: PostgresEventStore, pool: Pool
) -> None:
    stream = new_stream()
    start = await last_position(pool)
    async with (
        store.subscribe(tick=0.2) as wakes,
        contextlib.aclosing(tail(store, start, wakes=wakes)) as events,
    ):
        await store.append(stream, 0, [hit(1)], META)
        assert (await asyncio.wait_for(anext(events), 10)).version == 1

        # Its NOTIFY goes nowhere: the append lands while nobody listens.
        await pool.execute("SELECT pg_terminate_backend($1)", wakes.backend_pid)
        await store.append(stream, 1, [hit(2)], META)

        second = await asyncio.wait_for(anext(events), 10)
        assert (second.stream, second.version) == (stream, 2)


# --- schema ---------------------------------------------------------------------------


async def test_schema_sql_applied_again_and_concurrently_is_harmless(
    store: PostgresEventStore, pool: Pool
) -> None:
    [event] = await store.append(new_stream(), 0, [hit(1)], META)

    await apply_schema(pool)
    async with pool.acquire() as one, pool.acquire() as two:
        await asyncio.gather(apply_schema(one), apply_schema(two))

    assert await store.read_stream(event.stream) == [event]
    assert (await store.append(event.stream, 1, [hit(2)], META))[0].version == 2


# What the server does to each table: it reads and inserts everywhere, updates tokens
# (last_used, revoked_at) and webhooks (checkpoint, deliveries), deletes only webhooks.
GRANTS = {
    "events": {"SELECT", "INSERT"},
    "command_keys": {"SELECT", "INSERT"},
    "dice_seeds": {"SELECT", "INSERT"},
    "tokens": {"SELECT", "INSERT", "UPDATE"},
    "webhooks": {"SELECT", "INSERT", "UPDATE", "DELETE"},
    "webhook_deliveries": {"SELECT", "INSERT", "UPDATE", "DELETE"},
}
PRIVILEGES = ["SELECT", "INSERT", "UPDATE", "DELETE", "TRUNCATE", "REFERENCES", "TRIGGER"]


@pytest.mark.parametrize("table", sorted(GRANTS))
async def test_the_server_role_holds_only_the_privileges_the_server_uses(
    pool: Pool, table: str
) -> None:
    held = {
        p
        for p in PRIVILEGES
        if await pool.fetchval("SELECT has_table_privilege('fracas_app', $1, $2)", table, p)
    }
    assert held == GRANTS[table]


async def test_appends_inside_transactions_never_wait_for_a_second_pooled_connection(
    database_url: str,
) -> None:
    """As many callers as the pool has connections, each appending inside its own
    transaction to a stream the store has not seen: the head is read on the caller's
    connection, so none of them waits for a connection that only another caller can free."""
    from server.store.db import create_pool

    small = await create_pool(database_url, min_size=1, max_size=2)
    try:
        store = PostgresEventStore(small)
        both_hold_one = asyncio.Barrier(2)

        async def append_in_transaction() -> int:
            async with small.acquire() as conn, conn.transaction():
                await both_hold_one.wait()  # every connection of the pool is now held
                recorded = await store.append(new_stream(), 0, [hit(1)], META, conn=conn)
                return recorded[-1].version

        # The bound only turns a deadlock into a failure; it is not a speed assertion.
        versions = await asyncio.wait_for(
            asyncio.gather(append_in_transaction(), append_in_transaction()), 30
        )
        assert list(versions) == [1, 1]
    finally:
        await asyncio.wait_for(small.close(), 10)
