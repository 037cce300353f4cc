"""Event store benchmark, run by hand; results go to bench/RESULTS.md ("## Event store").

    /tmp/venv/bin/python bench/store.py [--url postgresql://postgres@127.0.0.1:5432/postgres]
                                        [--appends 1000] [--reps 5]

Side by side on one PostgreSQL, in a scratch database `fracas_bench` (dropped and made
again): (a) raw asyncpg, one INSERT per transaction; (b) Fracas `append`, same load;
(c) the `eventsourcing` library's PostgreSQL application recorder (psycopg), one event
per `insert_events`. Then the replay of a 10,000-event stream for (b) and (c), and
concurrent writers on different streams: NOTIFY after commit (Fracas), inside the
transaction (as before), and none. `--parts`: the trigger with one part taken out each.
Medians of `--reps` repetitions. Needs the `bench` extra (eventsourcing[postgres]).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import datetime
import os
import statistics
import sys
import time
import uuid
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import asyncpg
import msgspec

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.harness import ROOT, percentile
from bench.harness import machine as machine_facts
from server.store.db import _reset_if_dirty, apply_schema, create_pool, url_with_database
from server.store.port import NewEvent, Recorded
from server.store.postgres import PostgresEventStore

SCRATCH = "fracas_bench"
META = {"command_id": "bench", "actor": "gm", "rules_version": "bench-1"}
DATA = {"actor": "c-1", "target": "c-2", "roll": 57, "damage": 7, "note": "a goblin falls"}
REPLAY_EVENTS = 10_000


class Run(msgspec.Struct):
    rate: float  # events per second
    p50: float  # seconds
    p99: float


One = Callable[[int], Awaitable[None]]


async def interleaved(appenders: list[Callable[[], One]], n: int, chunk: int = 50) -> list[Run]:
    """n appends per store, run in alternating chunks so machine noise hits all alike."""
    ones = [make() for make in appenders]
    latencies: list[list[float]] = [[] for _ in ones]
    busy = [0.0 for _ in ones]
    for start in range(0, n, chunk):
        for k, one in enumerate(ones):
            began = time.perf_counter()
            for i in range(start, min(n, start + chunk)):
                t = time.perf_counter()
                await one(i)
                latencies[k].append(time.perf_counter() - t)
            busy[k] += time.perf_counter() - began
    return [
        Run(n / total, percentile(lat, 0.5), percentile(lat, 0.99))
        for lat, total in zip(latencies, busy, strict=True)
    ]


def median_run(runs: list[Run]) -> Run:
    return Run(
        statistics.median(r.rate for r in runs),
        statistics.median(r.p50 for r in runs),
        statistics.median(r.p99 for r in runs),
    )


# --- (a) raw asyncpg ------------------------------------------------------------------


def raw_inserts(pool: asyncpg.Pool[Any]) -> One:
    stream = f"raw-{uuid.uuid4()}"
    data, meta = msgspec.json.encode(DATA).decode(), msgspec.json.encode(META).decode()
    digest = "0" * 64

    async def one(i: int) -> None:
        await pool.execute(
            "INSERT INTO raw_events (stream, version, type, data, meta, recorded_at,"
            " prev_hash, hash) VALUES ($1, $2, 'bench_hit', $3::jsonb, $4::jsonb, now(), $5, $5)",
            stream,
            i + 1,
            data,
            meta,
            digest,
        )

    return one


# --- (b) Fracas -------------------------------------------------------------------------


def fracas_appends(store: PostgresEventStore) -> One:
    stream = f"encounter-{uuid.uuid4()}"
    event = [NewEvent("bench_hit", DATA)]

    async def one(i: int) -> None:
        await store.append(stream, i, event, META)

    return one


JSON_AGG_READ = """
SELECT json_agg(e ORDER BY e.version)::text FROM (
  SELECT stream, version, position, type, data, meta, prev_hash, hash
    FROM events WHERE stream = $1) e"""


async def fracas_replay(store: PostgresEventStore, reps: int) -> tuple[float, float]:
    stream = f"encounter-{uuid.uuid4()}"
    for start in range(0, REPLAY_EVENTS, 100):
        await store.append(stream, start, [NewEvent("bench_hit", DATA)] * 100, META)
    times = []
    for _ in range(reps):
        t = time.perf_counter()
        events = await store.read_stream(stream)
        times.append(time.perf_counter() - t)
        assert len(events) == REPLAY_EVENTS
    decoder = msgspec.json.Decoder(list[Recorded])
    as_one_array = []
    for _ in range(reps):  # the alternative: PostgreSQL builds one JSON array
        t = time.perf_counter()
        text = await store._pool.fetchval(JSON_AGG_READ, stream)
        assert len(decoder.decode(text)) == REPLAY_EVENTS
        as_one_array.append(time.perf_counter() - t)
    return statistics.median(times), statistics.median(as_one_array)


# --- (c) eventsourcing ------------------------------------------------------------------


def eventsourcing_recorder(url: str) -> Any:
    from eventsourcing.postgres import PostgresApplicationRecorder, PostgresDatastore

    parts = urlsplit(url)
    datastore = PostgresDatastore(
        dbname=parts.path.lstrip("/"),
        host=parts.hostname or "127.0.0.1",
        port=parts.port or 5432,
        user=parts.username or "postgres",
        password=parts.password or "",
        pool_size=2,
    )
    recorder = PostgresApplicationRecorder(datastore, events_table_name="es_events")
    recorder.create_table()
    return recorder


def eventsourcing_inserts(recorder: Any) -> One:
    from eventsourcing.persistence import StoredEvent

    originator = uuid.uuid4()
    state = msgspec.json.encode(DATA)

    async def one(i: int) -> None:
        recorder.insert_events([StoredEvent(originator, i + 1, "bench:Hit", state)])

    return one


def eventsourcing_replay(recorder: Any, reps: int) -> float:
    from eventsourcing.persistence import StoredEvent

    originator = uuid.uuid4()
    state = msgspec.json.encode(DATA)
    for start in range(0, REPLAY_EVENTS, 100):
        recorder.insert_events(
            [StoredEvent(originator, v, "bench:Hit", state) for v in range(start + 1, start + 101)]
        )
    times = []
    for _ in range(reps):
        t = time.perf_counter()
        events = recorder.select_events(originator)
        times.append(time.perf_counter() - t)
        assert len(events) == REPLAY_EVENTS
    return statistics.median(times)


# --- concurrent writers: the ordering choice -------------------------------------------

TRIGGER_START = "CREATE OR REPLACE FUNCTION fracas_events_before_insert()"
HEAD_READ = """  SELECT e.version, e.hash INTO v_version, v_hash
    FROM events e
   WHERE e.stream = NEW.stream
   ORDER BY e.version DESC
   LIMIT 1;"""


def trigger_function() -> str:
    """The CREATE statement of the trigger function that checks and orders every insert."""
    text = (ROOT / "schema.sql").read_text()
    start = text.index(TRIGGER_START)
    return text[start : text.index("$$;", start) + 3]


def critical_section(text: str) -> str:
    start = text.index("  v_done := pg_advisory_lock(")
    return text[start : text.index("  END;\n", start) + len("  END;\n")]


class Variant(msgspec.Struct, frozen=True):
    """The store's append against a copy of `events` whose trigger lacks one part."""

    name: str
    table: str  # "events" itself, or a copy made by `install`
    trigger: str | None  # the trigger function's CREATE statement, None for no trigger
    # "fracas": as the store does (in the statement when alone, else after commit);
    # "after": always after commit (the notifier); "inside": always in the statement; "none"
    notify: str


def variants() -> list[Variant]:
    """The trigger with one part taken out each (not for use: measurement only)."""
    text = trigger_function()
    assert HEAD_READ in text, HEAD_READ
    section = critical_section(text)
    plain = (
        "  v_mark := pg_current_xact_id()::text::bigint;\n"
        "    NEW.position := nextval('events_position_seq');\n"
    )
    no_subxact = section.replace("  BEGIN\n", "", 1)
    no_subxact = no_subxact[: no_subxact.index("  EXCEPTION WHEN")]
    bodies = {
        "full": text,
        "no_head_read": text.replace(
            HEAD_READ, "  v_version := NEW.version - 1;\n  v_hash := NEW.prev_hash;"
        ),
        "no_critical_section": text.replace(section, plain),
        "no_exception_block": text.replace(section, no_subxact),
    }
    out = [Variant("Fracas as it is", "events", None, "fracas")]
    out += [Variant(n, f"bench_{n}", b, "fracas") for n, b in bodies.items()]
    out += [
        Variant("no_trigger (the INSERT alone)", "bench_no_trigger", None, "fracas"),
        Variant("NOTIFY always after commit", "events", None, "after"),
        Variant("NOTIFY always in the transaction", "events", None, "inside"),
        Variant("no NOTIFY at all", "events", None, "none"),
    ]
    return out  # fmt: skip


async def install(pool: asyncpg.Pool[Any], v: Variant) -> None:
    if v.table == "events":
        return
    await pool.execute(f"CREATE TABLE {v.table} (LIKE events INCLUDING ALL)")
    if v.trigger is not None:
        fn = f"bench_check_{v.table}"
        body = v.trigger.replace("fracas_events_before_insert()", f"{fn}()", 1)
        await pool.execute(body.replace("FROM events e", f"FROM {v.table} e"))
        await pool.execute(
            f"CREATE TRIGGER checks BEFORE INSERT ON {v.table} FOR EACH ROW EXECUTE FUNCTION {fn}()"
        )


# The 8-writer variants, for `main`: events itself, the NOTIFY moved or gone.
ORDERINGS = [v for v in variants() if v.table == "events"]


SQL_NAMES = (
    "_SQL_APPEND_ONE",
    "_SQL_APPEND_MANY",
    "_SQL_APPEND_ONE_NOTIFY",
    "_SQL_APPEND_MANY_NOTIFY",
)


@contextlib.contextmanager
def calling(store: PostgresEventStore, v: Variant) -> Iterator[None]:
    """store.append into `v.table`, with `v`'s NOTIFY."""
    from server.store import postgres as store_module

    saved = {name: getattr(store_module, name) for name in SQL_NAMES}
    for name, sql in saved.items():
        sql = sql.replace("INTO events", f"INTO {v.table}", 1)
        if v.trigger is None and v.table != "events":  # no trigger to replace the placeholder
            sql = sql.replace("(position, ", "(").replace("OVERRIDING SYSTEM VALUE\n", "")
            sql = sql.replace("VALUES (0, ", "VALUES (").replace("SELECT 0, ", "SELECT ")
        setattr(store_module, name, sql)
    if v.notify == "inside":  # always in the append's statement, so in its transaction
        store_module._SQL_APPEND_ONE = store_module._SQL_APPEND_ONE_NOTIFY.replace(
            "$9", "$1 || ':' || $2::text"
        )
    if v.notify != "fracas":
        store.notify_inline = False
    if v.notify in ("inside", "none"):
        store._notifier.add = lambda stream, version: None  # type: ignore[method-assign]
    try:
        yield
    finally:
        for name, sql in saved.items():
            setattr(store_module, name, sql)
        store.notify_inline = True
        if v.notify in ("inside", "none"):
            del store._notifier.add


async def concurrent_writers(
    store: PostgresEventStore, writers: int, each: int, v: Variant
) -> float:
    """Events/s with `writers` tasks appending to their own streams at once."""
    with calling(store, v):

        async def writer() -> None:
            stream = f"encounter-{uuid.uuid4()}"
            for i in range(each):
                await store.append(stream, i, [NewEvent("bench_hit", DATA)], META)

        started = time.perf_counter()
        await asyncio.gather(*(writer() for _ in range(writers)))
        rate = writers * each / (time.perf_counter() - started)
        await asyncio.sleep(0.05)  # let the last NOTIFY go before the next variant
        return rate


def with_variant(store: PostgresEventStore, v: Variant) -> One:
    """Sequential appends through store.append, into `v.table`."""
    stream = f"encounter-{uuid.uuid4()}"
    event = [NewEvent("bench_hit", DATA)]

    async def one(i: int) -> None:
        with calling(store, v):
            await store.append(stream, i, event, META)

    return one


async def parts(args: argparse.Namespace) -> None:
    """p50 of each variant beside Fracas as it is and raw INSERT, same run."""
    admin = await asyncpg.connect(args.url)
    await admin.execute(f"DROP DATABASE IF EXISTS {SCRATCH} WITH (FORCE)")
    await admin.execute(f"CREATE DATABASE {SCRATCH}")
    pg_version = await admin.fetchval("SELECT version()")
    await admin.close()
    # --no-sync: synchronous_commit off for these sessions, so that the WAL flush every
    # variant pays alike (and that other jobs' disk traffic stretches) leaves the figures
    # and what is left is the work each part does.
    settings = {"synchronous_commit": "off"} if args.no_sync else None
    pool = await asyncpg.create_pool(
        url_with_database(args.url, SCRATCH),
        min_size=2,
        max_size=10,
        server_settings=settings,
        reset=_reset_if_dirty,
    )
    try:
        await apply_schema(pool)
        await pool.execute("CREATE TABLE raw_events (LIKE events INCLUDING ALL)")
        found = variants()
        for v in found:
            await install(pool, v)
        store = PostgresEventStore(pool)
        appenders: list[Callable[[], One]] = [lambda: raw_inserts(pool)]
        appenders += [lambda v=v: with_variant(store, v) for v in found]  # type: ignore[misc]
        await interleaved(appenders, 100)
        runs = [await interleaved(appenders, args.appends) for _ in range(args.reps)]
        med = [median_run([r[k] for r in runs]) for k in range(len(appenders))]
        writers, each = 8, max(50, args.appends // 4)
        concurrent: dict[str, list[float]] = {v.name: [] for v in found}
        for _ in range(args.reps):
            for v in found:
                concurrent[v.name].append(await concurrent_writers(store, writers, each, v))
    finally:
        await pool.close()
    load = os.getloadavg()
    sync = "off (--no-sync)" if args.no_sync else "on"
    print(f"Machine: {machine(pg_version)}; load average {load[0]:.1f} {load[1]:.1f}.")
    print(f"synchronous_commit {sync}.")
    print(f"p50 of {args.appends} sequential appends, medians of {args.reps} runs, alternating;")
    print(f"{writers} writers x {each} appends on their own streams for events/s.\n")
    print("| variant | p50 append | vs raw | vs full | 8 writers events/s |")
    print("| --- | ---: | ---: | ---: | ---: |")
    raw, full = med[0], med[1]
    print(f"| raw asyncpg INSERT | {ms(raw.p50)} | 1.00x | | |")
    for v, run in zip(found, med[1:], strict=True):
        rate = statistics.median(concurrent[v.name])
        print(
            f"| {v.name} | {ms(run.p50)} | {run.p50 / raw.p50:.2f}x | {run.p50 / full.p50:.2f}x "
            f"| {rate:,.0f} |"
        )


# --- report -----------------------------------------------------------------------------


def machine(pg_version: str) -> str:
    m = machine_facts()
    return (
        f"{datetime.date.today().isoformat()}, {m['nproc']} CPUs ({m['cpu']}), "
        f"Linux {m['kernel']}, Python {m['python']}, {pg_version}"
    )


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.2f} ms"


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", default="postgresql://postgres@127.0.0.1:5432/postgres")
    parser.add_argument("--appends", type=int, default=1000)
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--parts", action="store_true", help="time the append trigger's parts")
    parser.add_argument("--no-sync", action="store_true", help="--parts: synchronous_commit off")
    parser.add_argument("--scratch", default=SCRATCH, help="the scratch database (dropped)")
    args = parser.parse_args()
    globals()["SCRATCH"] = args.scratch
    if args.parts:
        await parts(args)
        return

    admin = await asyncpg.connect(args.url)
    await admin.execute(f"DROP DATABASE IF EXISTS {SCRATCH} WITH (FORCE)")
    await admin.execute(f"CREATE DATABASE {SCRATCH}")
    pg_version = await admin.fetchval("SELECT version()")
    settings = await admin.fetch(
        "SELECT name, setting FROM pg_settings"
        " WHERE name IN ('fsync', 'synchronous_commit', 'shared_buffers')"
    )
    await admin.close()
    url = url_with_database(args.url, SCRATCH)

    pool = await create_pool(url, min_size=2, max_size=10)
    await apply_schema(pool)
    await pool.execute("CREATE TABLE raw_events (LIKE events INCLUDING ALL)")
    store = PostgresEventStore(pool)
    recorder = eventsourcing_recorder(url)

    appenders = [
        lambda: raw_inserts(pool),
        lambda: fracas_appends(store),
        lambda: eventsourcing_inserts(recorder),
    ]
    await interleaved(appenders, 100)  # warm up connections, caches, prepared statements
    runs: list[list[Run]] = []
    for rep in range(args.reps):
        runs.append(await interleaved(appenders, args.appends))
        print(f"rep {rep + 1}/{args.reps} done", file=sys.stderr)
    a, b, c = (median_run([r[k] for r in runs]) for k in range(3))

    replay_b, replay_b_array = await fracas_replay(store, args.reps)
    replay_c = eventsourcing_replay(recorder, args.reps)

    writers, each = 8, max(50, args.appends // 4)
    await concurrent_writers(store, writers, 20, ORDERINGS[0])  # warm up
    concurrent: dict[str, list[float]] = {v.name: [] for v in ORDERINGS}
    for _ in range(args.reps):
        for v in ORDERINGS:
            concurrent[v.name].append(await concurrent_writers(store, writers, each, v))
    await pool.close()
    recorder.datastore.close()

    setting = ", ".join(f"{r['name']}={r['setting']}" for r in settings)
    print(f"Machine: {machine(pg_version)}; {setting}.")
    print(
        f"{args.appends} sequential appends of one event per store and run, the stores"
        f" alternating every 50; medians of {args.reps} runs.\n"
    )
    print("| store | events/s | p50 append | p99 append | p50 vs raw | events/s vs raw |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    for name, run in (
        ("(a) raw asyncpg INSERT", a),
        ("(b) Fracas `append`", b),
        ("(c) eventsourcing (psycopg)", c),
    ):
        print(
            f"| {name} | {run.rate:,.0f} | {ms(run.p50)} | {ms(run.p99)} "
            f"| {run.p50 / a.p50:.2f}x | {run.rate / a.rate:.2f}x |"
        )
    print(f"\nReplay of one {REPLAY_EVENTS:,}-event stream (median of {args.reps}):\n")
    print("| store | replay |")
    print("| --- | ---: |")
    print(f"| (b) Fracas `read_stream` -> list[Recorded] | {ms(replay_b)} |")
    print(f"| (b') same, PostgreSQL json_agg + one msgspec decode | {ms(replay_b_array)} |")
    print(f"| (c) eventsourcing `select_events` -> list[StoredEvent] | {ms(replay_c)} |")
    print(f"\n{writers} concurrent writers on their own streams, {each} appends each:\n")
    print("| NOTIFY | events/s |")
    print("| --- | ---: |")
    for v in ORDERINGS:
        print(f"| {v.name} | {statistics.median(concurrent[v.name]):,.0f} |")


if __name__ == "__main__":
    asyncio.run(main())
