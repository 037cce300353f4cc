"""Live fan-out benchmark, run by hand; results go to bench/RESULTS.md ("## Live fan-out").

    /tmp/venv/bin/python bench/live.py [--url postgresql://postgres@127.0.0.1:5432/bench_live]
        [--rate 100] [--seconds 15] [--trials 2] [--watchers 1000] [--updates 20]
        [--replay-events 10000] [--replay-commands 200] [--no-write] [--py-spy DIR]
        [--only round_trip|fanout|replay] [--compression both|deflate|off]

Everything runs against real `fracas serve` processes (`python -m server.cli.main serve`, uvicorn
with ws="websockets") on one PostgreSQL database, over loopback, with this process as the
only client:

1. Command round trip. Two instances on one database; a spectator websocket on instance 2;
   HTTP commands (`roll` 1d20, every 4th an `adjust`) sent open-loop to instance 1 at
   `--rate` per second for `--seconds`, `--trials` times (a fresh pair each); latency =
   HTTP send -> the websocket update carrying that command's event on instance 2 (NOTIFY
   crosses between the processes).
2. Fan-out. `--watchers` websockets on one encounter of one fresh instance, `--updates`
   commands at 1/s sent to that instance; latency = HTTP send -> each watcher's receipt.
   Server RSS (/proc/<pid>/status) before connecting and with every watcher idle, per
   watcher. Then a bare `websockets.asyncio.server.serve` process (this file, with
   `--bare-server`) that sends each connection one message on connect (as Fracas sends a
   snapshot), holds them and, on a trigger, `broadcast()`s the very text of a Fracas update
   captured in the Fracas run. Per-connection send cost is
   server CPU time (utime+stime from /proc/<pid>/stat) per update with N connections minus
   the same with 1 connection, divided by N - 1. Both servers are run twice: clients
   offering permessage-deflate (the websockets client's default, as browsers do) and
   clients with compression off.
3. Replay. A ~10,000-event encounter (rolls, every 5th an `adjust`), built in this process
   through `decide` exactly as the service does and appended in batches; then on a fresh
   server: the first GET of its board (cold load), uncached folds (`GET ?at=V`), and
   `--replay-commands` commands on it interleaved with as many on a 10-event encounter.

Every loop is bounded in count and time; every process and connection this script opens
is closed in `finally` blocks, also on error or Ctrl-C. Servers' logs go to a temp folder.
Needs `websockets` (a dev dependency) in the virtualenv; HTTP goes through a small
keep-alive client in bench/harness.py (httpx cost ~2 ms of client CPU per request here).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import datetime
import json
import re
import resource
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench.harness import (
    PRESETS,
    ROOT,
    STARTED,
    CpuLedger,
    Http,
    Proc,
    Tally,
    Watcher,
    bench_command,
    close_watchers,
    command,
    cpu_seconds,
    ensure_database,
    fire_paced,
    machine,
    ms,
    new_encounter,
    open_watchers,
    percentile,
    postgres_version,
    row,
    rss_kib,
    self_cpu,
    shares,
    spawn,
    spectator_socket,
    start_fracas,
    stop,
    stop_all_started,
    summary,
    verdict,
    wait_ready,
    write_section,
)

DEFAULT_URL = "postgresql://postgres@127.0.0.1:5432/bench_live"
SECTION = "## Live fan-out"
END_MARK = "<!-- end of the part bench/live.py writes; notes below are by hand -->"


async def start_bare(message: Path, name: str, logdir: Path) -> Proc:
    argv = [
        sys.executable,
        str(Path(__file__).resolve()),
        "--bare-server",
        "--message",
        str(message),
    ]
    p = spawn(name, argv, logdir)

    async def listening() -> bool:
        _, w = await asyncio.open_connection("127.0.0.1", p.port)
        w.close()
        await w.wait_closed()
        return True

    await wait_ready(p, listening)
    return p


# --- the bare websockets server (a subprocess of this script) ---------------------------


async def bare_server(port: int, message: Path) -> None:
    """Sends TEXT once to each connection on /watch (as Fracas sends a snapshot) and holds
    it; each message on /trigger broadcasts TEXT to all of them."""
    from websockets.asyncio.server import ServerConnection, broadcast, serve

    text = message.read_text(encoding="utf-8")
    watchers: set[ServerConnection] = set()

    async def handler(ws: ServerConnection) -> None:
        if ws.request is not None and ws.request.path == "/trigger":
            async for _ in ws:
                broadcast(watchers, text)
            return
        await ws.send(text)  # what a Fracas watcher gets on connect: its snapshot
        watchers.add(ws)
        try:
            await ws.wait_closed()
        finally:
            watchers.discard(ws)

    done = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, done.set)
    async with serve(handler, "127.0.0.1", port, max_size=2**24):
        await done.wait()


# --- 1. command round trip across two instances ----------------------------------------


async def round_trip(url: str, logdir: Path, rate: float, seconds: float) -> dict[str, Any]:
    one = two = None
    ws = None
    reader_task = None
    try:
        one = await start_fracas(url, "rt-one", logdir)
        two = await start_fracas(url, "rt-two", logdir)
        async with Http(one.base, timeout=10) as http:
            made = await new_encounter(http, rolls=20)
            eid, gm = made["id"], made["gm_token"]
            ws = await spectator_socket(two.ws, made)
            sent: dict[str, float] = {}
            got: dict[str, float] = {}
            answered: dict[str, float] = {}
            errors: list[str] = []
            updates = 0

            async def reader() -> None:
                nonlocal updates
                while True:
                    raw = await ws.recv()
                    t = time.perf_counter()
                    updates += 1
                    for e in json.loads(raw).get("events", ()):
                        data = e.get("data") or {}
                        key = data.get("purpose") or data.get("reason")
                        if key:
                            got.setdefault(key, t)

            async def send(body: dict[str, Any], key: str) -> None:
                t = time.perf_counter()
                sent[key] = t
                try:
                    await command(http, eid, gm, body)
                    answered[key] = time.perf_counter() - t
                except Exception as e:
                    errors.append(repr(e)[:200])

            reader_task = asyncio.create_task(reader())
            cpu = CpuLedger({"one": one.pid, "two": two.pid})
            total, span = await fire_paced(rate, seconds, send, cpu)
            used = cpu.stop()
            measured = [k for k in sent if k.startswith("m")]
            deadline = time.monotonic() + 5
            while time.monotonic() < deadline and any(k not in got for k in measured):
                await asyncio.sleep(0.05)
            lat = [got[k] - sent[k] for k in measured if k in got]
            scraped = (await http.get("/metrics")).text
            conflicts = re.search(r"^fracas_append_conflicts_total (\d+)", scraped, re.M)
            http_lat = [answered[k] for k in measured if k in answered]
            return {
                "commands": len(measured),
                "offered_rate": rate,
                "achieved_rate": round(total / span, 1) if span > 0 else None,
                "received": len(lat),
                "errors": len(errors),
                "conflicts_instance_1": int(conflicts.group(1)) if conflicts else None,
                "error_sample": errors[:3],
                "ws_messages": updates,
                "cpu": used,
                "round_trip": summary(lat),
                "http_answer": summary(http_lat),
            }
    finally:
        if reader_task is not None:
            reader_task.cancel()
            with contextlib.suppress(BaseException):
                await reader_task
        if ws is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(ws.close(), 5)
        stop(one)
        stop(two)


# --- 2. fan-out: Fracas and a bare websockets server -----------------------------------


@dataclass
class FanRun:
    """What one fan-out run measured."""

    server: str
    compression: str | None
    watchers: int
    connect_s: float = 0.0
    rss_before_kib: int = 0
    rss_idle_kib: int = 0
    latencies: list[float] = field(default_factory=list)
    latencies_one: list[float] = field(default_factory=list)  # the 1-watcher warm-up run
    spans: list[float] = field(default_factory=list)  # last - first receipt per update
    cpu_one: list[float] = field(default_factory=list)  # server CPU per update, 1 watcher
    cpu_many: list[float] = field(default_factory=list)  # server CPU per update, N watchers
    client_cpu: list[float] = field(default_factory=list)  # client CPU per update, N
    cpu_share: dict[str, float] = field(default_factory=dict)
    missed: int = 0
    message_bytes: int = 0

    def report(self) -> dict[str, Any]:
        n = self.watchers
        one = statistics.fmean(self.cpu_one) if self.cpu_one else 0.0
        many = statistics.fmean(self.cpu_many) if self.cpu_many else 0.0
        return {
            "server": self.server,
            "compression": self.compression or "off",
            "watchers": n,
            "message_bytes": self.message_bytes,
            "connect_s": round(self.connect_s, 2),
            "delivery": summary(self.latencies),
            "delivery_1_watcher": summary(self.latencies_one),
            "missed": self.missed,
            "span_p50_ms": ms(percentile(self.spans, 0.5)) if self.spans else None,
            "rss_before_mib": round(self.rss_before_kib / 1024, 1),
            "rss_idle_mib": round(self.rss_idle_kib / 1024, 1),
            "kib_per_watcher": round((self.rss_idle_kib - self.rss_before_kib) / n, 1),
            "cpu_ms_per_update_1": round(one * 1000, 2),
            "cpu_ms_per_update_n": round(many * 1000, 2),
            "send_cost_us_per_conn": round((many - one) / (n - 1) * 1e6, 1) if n > 1 else None,
            "client_cpu_ms_per_update_n": round(statistics.fmean(self.client_cpu) * 1000, 1)
            if self.client_cpu
            else None,
            "cpu": self.cpu_share,
        }


async def fracas_fanout(
    url: str,
    logdir: Path,
    n: int,
    updates: int,
    compression: str | None,
    spy: Path | None = None,
) -> tuple[FanRun, bytes]:
    run = FanRun("fracas", compression, n)
    server = None
    watchers: list[Watcher] = []
    tasks: list[asyncio.Task[None]] = []
    spy_proc: subprocess.Popen[bytes] | None = None
    try:
        server = await start_fracas(url, f"fan-fracas-{compression or 'off'}", logdir)
        async with Http(server.base, timeout=10) as http:
            made = await new_encounter(http, rolls=110)  # a full 100-line log on the board
            eid, gm = made["id"], made["gm_token"]
            uri = f"{server.ws}/ws/encounters/{eid}?token={made['spectator_token']}"

            async def update(i: int, tally: Tally, expect: int) -> tuple[float, int, float]:
                cpu0, me0 = cpu_seconds(server.pid), self_cpu()
                t = time.perf_counter()
                body = {"type": "roll", "expr": "1d20", "purpose": f"fan{i}"}
                version = int((await command(http, eid, gm, body))["version"])
                ok = await tally.wait(version, 10)
                run.missed += 0 if ok else expect - tally.counts.get(version, 0)
                await asyncio.sleep(0.02)  # let the server finish the round
                if expect > 1:
                    run.client_cpu.append(self_cpu() - me0)
                return cpu_seconds(server.pid) - cpu0, version, t

            # One watcher: warms the code paths, and gives the per-update cost without fan-out.
            solo = Watcher(uri, True, compression)
            solo_tally = Tally(1)
            await open_watchers([solo], solo_tally, tasks)
            solo_sends: dict[int, float] = {}
            for i in range(2 * updates):
                cpu, version, t = await update(1000 + i, solo_tally, 1)
                run.cpu_one.append(cpu)
                solo_sends[version] = t
                await asyncio.sleep(0.2)
            run.latencies_one = [t - solo_sends[k] for t, k in solo.got if k in solo_sends]
            await close_watchers([solo], tasks)
            await asyncio.sleep(1.0)
            run.rss_before_kib = rss_kib(server.pid)

            tally = Tally(n)
            watchers = [Watcher(uri, True, compression, keep_last=(i == 0)) for i in range(n)]
            run.connect_s = await open_watchers(watchers, tally, tasks)
            await asyncio.sleep(3.0)
            run.rss_idle_kib = rss_kib(server.pid)

            if spy is not None:
                exe = Path(sys.executable).parent / "py-spy"
                spy_proc = subprocess.Popen(
                    [
                        str(exe) if exe.exists() else "py-spy",
                        "record",
                        "--pid",
                        str(server.pid),
                        "--rate",
                        "500",
                        "--format",
                        "raw",
                        "--duration",
                        str(updates),
                        "--nonblocking",
                        "--output",
                        str(spy / f"fracas-{compression or 'off'}.txt"),
                    ],
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                )
                STARTED.append(spy_proc)
                await asyncio.sleep(0.5)
            sends: dict[int, float] = {}
            ledger = CpuLedger({"server": server.pid})
            ledger.start()
            next_at = time.perf_counter()
            for i in range(updates):
                next_at += 1.0
                cpu_used, version, t = await update(i, tally, n)
                run.cpu_many.append(cpu_used)
                sends[version] = t
                await asyncio.sleep(max(0.0, next_at - time.perf_counter()))
            run.cpu_share = ledger.stop()
            if spy_proc is not None:
                with contextlib.suppress(subprocess.TimeoutExpired):
                    spy_proc.wait(15)
            for w in watchers:
                for t, key in w.got:
                    if key in sends:
                        run.latencies.append(t - sends[key])
            for version in sends:
                times = [t for w in watchers for t, key in w.got if key == version]
                if times:
                    run.spans.append(max(times) - min(times))
            last = watchers[0].last
            run.message_bytes = len(last)
            return run, last
    finally:
        await close_watchers(watchers, tasks)
        if spy_proc is not None:
            with contextlib.suppress(subprocess.TimeoutExpired):
                spy_proc.wait(15)
            if spy_proc.poll() is None:
                spy_proc.kill()
                spy_proc.wait(5)
            with contextlib.suppress(ValueError):
                STARTED.remove(spy_proc)
        stop(server)


async def bare_fanout(
    message: Path, logdir: Path, n: int, updates: int, compression: str | None
) -> FanRun:
    from websockets.asyncio.client import connect

    run = FanRun("bare websockets", compression, n)
    run.message_bytes = len(message.read_bytes())
    server = None
    ctl = None
    watchers: list[Watcher] = []
    tasks: list[asyncio.Task[None]] = []
    try:
        server = await start_bare(message, f"fan-bare-{compression or 'off'}", logdir)
        ctl = await connect(
            f"{server.ws}/trigger", open_timeout=10, ping_interval=None, close_timeout=2
        )
        uri = f"{server.ws}/watch"

        async def update(key: int, tally: Tally, expect: int) -> tuple[float, float]:
            cpu0, me0 = cpu_seconds(server.pid), self_cpu()
            t = time.perf_counter()
            await ctl.send("go")
            ok = await tally.wait(key, 10)
            run.missed += 0 if ok else expect - tally.counts.get(key, 0)
            await asyncio.sleep(0.02)
            if expect > 1:
                run.client_cpu.append(self_cpu() - me0)
            return cpu_seconds(server.pid) - cpu0, t

        solo = Watcher(uri, False, compression)
        solo_tally = Tally(1)
        await open_watchers([solo], solo_tally, tasks)
        solo_sends: dict[int, float] = {}
        for i in range(2 * updates):
            cpu, t = await update(i, solo_tally, 1)
            run.cpu_one.append(cpu)
            solo_sends[i] = t
            await asyncio.sleep(0.2)
        run.latencies_one = [t - solo_sends[k] for t, k in solo.got if k in solo_sends]
        await close_watchers([solo], tasks)
        await asyncio.sleep(1.0)
        run.rss_before_kib = rss_kib(server.pid)

        tally = Tally(n)
        watchers = [Watcher(uri, False, compression) for _ in range(n)]
        run.connect_s = await open_watchers(watchers, tally, tasks)
        await asyncio.sleep(3.0)
        run.rss_idle_kib = rss_kib(server.pid)
        sends: dict[int, float] = {}
        ledger = CpuLedger({"server": server.pid})
        ledger.start()
        next_at = time.perf_counter()
        for i in range(updates):
            next_at += 1.0
            cpu, t = await update(i, tally, n)
            run.cpu_many.append(cpu)
            sends[i] = t
            await asyncio.sleep(max(0.0, next_at - time.perf_counter()))
        run.cpu_share = ledger.stop()
        for w in watchers:
            for t, key in w.got:
                if key in sends:
                    run.latencies.append(t - sends[key])
        for key in sends:
            times = [t for w in watchers for t, k in w.got if k == key]
            if times:
                run.spans.append(max(times) - min(times))
        return run
    finally:
        await close_watchers(watchers, tasks)
        if ctl is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(ctl.close(), 5)
        stop(server)


# --- 3. replay: a long stream costs what a short one does -------------------------------


async def grow(url: str, events: int) -> tuple[str, str, str, str, float]:
    """A ~`events`-event encounter and a 10-event one, built in this process.

    The big one goes through `decide` exactly as `EncounterService.execute` does (same
    roller, same principal), its events folded as they come, appended in batches of 500
    through the store (so hashes and positions are real). Returns ids, GM tokens, seconds.
    """
    import msgspec

    from domain import commands as cmd
    from domain import dice as dicelib
    from domain.encounter import decide
    from domain.events import event_data
    from domain.state import GM
    from projections.view import Projection
    from server.services.encounters import EncounterService, Roller, stream_of
    from server.services.metrics import Metrics
    from server.store import db
    from server.store.port import NewEvent
    from server.store.postgres import PostgresEventStore

    pool = await db.create_pool(url)
    try:
        store = PostgresEventStore(pool)
        svc = EncounterService(store, Metrics())

        async def made(rolls: int) -> tuple[str, str]:
            m = await svc.create("d20-na", "Replay bench", {})
            for i, (preset, side) in enumerate(PRESETS):
                c = cmd.decode_command(
                    msgspec.json.encode(
                        {
                            "type": "add_combatant",
                            "name": f"{preset}-{i}",
                            "side": side,
                            "preset": preset,
                        }
                    )
                )
                await svc.execute(m["id"], c, GM)
            for i in range(rolls):
                c = cmd.decode_command(
                    msgspec.json.encode({"type": "roll", "expr": "1d20", "purpose": f"s{i}"})
                )
                await svc.execute(m["id"], c, GM)
            return m["id"], m["gm_token"]

        small, small_gm = await made(0)
        pad = 10 - (await svc.load(small)).version
        for i in range(max(0, pad)):
            c = cmd.decode_command(
                msgspec.json.encode({"type": "roll", "expr": "1d20", "purpose": f"pad{i}"})
            )
            await svc.execute(small, c, GM)
        big, big_gm = await made(0)
        started = time.perf_counter()
        stream = stream_of(big)
        seeds = await store.seeds(big)
        proj = Projection()
        for r in await store.read_stream(stream):
            proj.apply(msgspec.to_builtins(r))
        expected = proj.version
        batch: list[NewEvent] = []
        for i in range(events * 2):  # bounded; stops once `events` reached
            if proj.version >= events:
                break
            body = bench_command(i, "b", 5)
            c = cmd.decode_command(msgspec.json.encode(body))
            led = proj.state.ledger
            roller = Roller(big, seeds, led.next_roll, dicelib.client_seed(led.entropy))
            for e in decide(proj.state, c, roller, GM):
                kind, data = event_data(e)
                proj.apply(
                    {"stream": stream, "version": proj.version + 1, "type": kind, "data": data}
                )
                batch.append(NewEvent(kind, data))
            if len(batch) >= 500 or proj.version >= events:
                meta = {"rules_version": "1", "actor": "gm", "command_id": uuid.uuid4().hex}
                await store.append(stream, expected, batch, meta)
                expected = proj.version
                batch = []
        return big, big_gm, small, small_gm, time.perf_counter() - started
    finally:
        await pool.close()


async def fold_in_process(url: str, eid: str, reps: int = 3) -> dict[str, Any]:
    """read_stream + to_builtins + projections.view.fold + board, timed apart (median)."""
    import msgspec

    from projections.board import board
    from projections.view import fold
    from server.services.encounters import stream_of
    from server.store import db
    from server.store.postgres import PostgresEventStore

    pool = await db.create_pool(url)
    try:
        store = PostgresEventStore(pool)
        parts: dict[str, list[float]] = {"read": [], "to_builtins": [], "fold": [], "board": []}
        count = 0
        for _ in range(reps):
            t0 = time.perf_counter()
            recs = await store.read_stream(stream_of(eid))
            t1 = time.perf_counter()
            envs = [msgspec.to_builtins(r) for r in recs]
            t2 = time.perf_counter()
            proj = fold(envs)
            t3 = time.perf_counter()
            msgspec.json.encode(board(proj, "public"))
            t4 = time.perf_counter()
            count = len(recs)
            for k, v in zip(parts, (t1 - t0, t2 - t1, t3 - t2, t4 - t3), strict=True):
                parts[k].append(v)
        out: dict[str, Any] = {"events": count}
        out.update({f"{k}_ms": ms(statistics.median(v)) for k, v in parts.items()})
        out["total_ms"] = round(sum(out[f"{k}_ms"] for k in parts), 2)
        return out
    finally:
        await pool.close()


async def replay(url: str, logdir: Path, events: int, commands: int) -> dict[str, Any]:
    big, big_gm, small, small_gm, build_s = await grow(url, events)
    offline = await fold_in_process(url, big)
    server = None
    try:
        server = await start_fracas(url, "replay", logdir)
        async with Http(server.base, timeout=30) as http:
            t = time.perf_counter()
            r = await http.get(f"/api/encounters/{big}")
            cold = time.perf_counter() - t
            r.raise_for_status()
            version = int(r.json()["version"])
            uncached: list[float] = []
            cached: list[float] = []
            for _ in range(5):
                t = time.perf_counter()
                at = await http.get(f"/api/encounters/{big}", params={"at": version})
                at.raise_for_status()
                uncached.append(time.perf_counter() - t)
                t = time.perf_counter()
                (await http.get(f"/api/encounters/{big}")).raise_for_status()
                cached.append(time.perf_counter() - t)
            for i in range(10):  # warm both, not counted
                await command(http, big, big_gm, bench_command(i, "wb", 0))
                await command(http, small, small_gm, bench_command(i, "ws", 0))
            on_big: list[float] = []
            on_small: list[float] = []
            for i in range(commands):  # interleaved, so machine noise hits both alike
                for eid, gm, out in ((big, big_gm, on_big), (small, small_gm, on_small)):
                    t = time.perf_counter()
                    await command(http, eid, gm, bench_command(i, "r", 4))
                    out.append(time.perf_counter() - t)
            return {
                "events": version,
                "build_s": round(build_s, 1),
                "cold_first_get_ms": ms(cold),
                "uncached_fold_get": summary(uncached),
                "cached_get": summary(cached),
                "in_process": offline,
                "command_big": summary(on_big),
                "command_small": summary(on_small),
                "ratio_p50": round(percentile(on_big, 0.5) / percentile(on_small, 0.5), 2),
            }
    finally:
        stop(server)


# --- report ----------------------------------------------------------------------------


def markdown(res: dict[str, Any]) -> str:
    m, rts, rp = res["machine"], res["round_trip"], res["replay"]
    fans = {(f["server"], f["compression"]): f for f in res["fanout"]}
    lines = [
        SECTION,
        "",
        f"`python bench/live.py` ({res['args']}), {res['date']}. {m['nproc']} vCPU "
        f"({m['cpu']}), Linux {m['kernel']}, Python {m['python']}, PostgreSQL "
        f"{res['postgres']} (local, loopback, default fsync/synchronous_commit), "
        f"uvicorn {res['versions']['uvicorn']}, websockets {res['versions']['websockets']}. "
        "The client (this one asyncio process: a minimal HTTP/1.1 client + websockets "
        "clients), the server process(es) and PostgreSQL all share the 2 cores (and other "
        "jobs may run on the machine: see the CPU shares), so every latency below includes "
        "client-side work and CPU contention.",
        "",
        "### 1. Command round trip (2 instances, one database)",
        "",
        f"HTTP command to instance 1 -> the websocket update carrying its event on a spectator "
        f"socket of instance 2. Per trial (fresh server pair each): {rts[0]['commands']} "
        f"commands (roll 1d20, every 4th an adjust), open-loop at {rts[0]['offered_rate']:g}/s, "
        "after 1 s of warm-up. Refused = 409 `conflict` after the service's 5 retries; "
        "conflicts = `fracas_append_conflicts_total` of instance 1 (warm-up included).",
        "",
        "| trial | achieved rate | received | refused | conflicts | measure | p50 | p90 | p99 "
        "| max | CPU during the trial |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for i, rt in enumerate(rts, start=1):
        lead = (
            f"| {i} | {rt['achieved_rate']}/s | {rt['received']} | {rt['errors']} "
            f"| {rt['conflicts_instance_1']} "
        )
        lines.append(
            lead + row("send -> update on instance 2", rt["round_trip"]) + f" {shares(rt['cpu'])} |"
        )
        lines.append("| | | | | " + row("send -> HTTP answer", rt["http_answer"]) + " |")
    p99s = [rt["round_trip"].get("p99_ms", 1e9) for rt in rts]
    lines += [
        "",
        f"Goal p99 < 25 ms: {verdict(max(p99s) < 25)} "
        f"(p99 per trial: {', '.join(f'{p} ms' for p in p99s)}).",
        "",
        f"### 2. Fan-out ({res['fanout'][0]['watchers']} watchers, one instance, 1 update/s)",
        "",
        "Latency: HTTP command send (Fracas) or trigger send (bare) -> each watcher's receipt, "
        "pooled over every update and watcher. Send cost: server CPU per update with N "
        "watchers minus with 1, over N - 1. Memory: server RSS with N idle watchers minus "
        "before connecting, over N (each connection has received one message: Fracas its "
        "snapshot, bare the same text as on an update). The bare server "
        "(`websockets.asyncio.server.serve` + `broadcast()`, its default settings) sends the "
        f"exact text of a Fracas update ({res['fanout'][0]['message_bytes']} bytes). Client "
        "compression: `deflate` = the websockets client offers permessage-deflate (its "
        "default, as browsers do), which each server then accepts with its own settings; "
        "`off` = not offered.",
        "",
        "| server | client compression | 1 watcher p50 / p99 | p50 | p99 | max "
        "| first->last receipt (p50) "
        "| CPU/update, 1 watcher | CPU/update, N | send cost per connection | RSS per watcher "
        "| missed |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for f in res["fanout"]:
        d, d1 = f["delivery"], f["delivery_1_watcher"]
        lines.append(
            f"| {f['server']} | {f['compression']} | {d1.get('p50_ms')} / {d1.get('p99_ms')} ms "
            f"| {d.get('p50_ms')} ms | {d.get('p99_ms')} ms "
            f"| {d.get('max_ms')} ms | {f['span_p50_ms']} ms | {f['cpu_ms_per_update_1']} ms "
            f"| {f['cpu_ms_per_update_n']} ms | {f['send_cost_us_per_conn']} µs "
            f"| {f['kib_per_watcher']} KiB | {f['missed']} |"
        )
    lines += ["", "Client CPU per update with N watchers and CPU over the N-watcher updates:", ""]
    for f in res["fanout"]:
        lines.append(
            f"- {f['server']}, compression {f['compression']}: client "
            f"{f['client_cpu_ms_per_update_n']} ms per update; {shares(f['cpu'])}."
        )
    lines += [
        "",
        "| goal | client compression | Fracas | bare | ratio Fracas/bare | verdict |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for comp in ("deflate", "off"):
        fr, br = fans.get(("fracas", comp)), fans.get(("bare websockets", comp))
        if not fr or not br:
            continue
        p99f, p99b = fr["delivery"].get("p99_ms", 1e9), br["delivery"].get("p99_ms", 1e9)
        cf, cb = fr["send_cost_us_per_conn"], br["send_cost_us_per_conn"]
        kf, kb = fr["kib_per_watcher"], br["kib_per_watcher"]
        ratio = round(cf / cb, 2) if cb and cb > 0 else None
        lines += [
            f"| fan-out p99 < 50 ms | {comp} | {p99f} ms | {p99b} ms | "
            f"{round(p99f / p99b, 2) if p99b else '-'} | {verdict(p99f < 50)} |",
            f"| send cost within 1.2x of bare | {comp} | {cf} µs | {cb} µs | {ratio} | "
            f"{verdict(ratio is not None and ratio <= 1.2)} |",
            f"| < 30 KiB per idle watcher | {comp} | {kf} KiB | {kb} KiB | "
            f"{round(kf / kb, 2) if kb > 0 else '-'} | {verdict(kf < 30)} |",
        ]
    off = rp["in_process"]
    lines += [
        "",
        f"### 3. Replay ({rp['events']}-event encounter)",
        "",
        f"Built in {rp['build_s']} s in-process (decide + batched appends). Then a fresh "
        "server process: its first GET of the board is the cold load; `GET ?at=V` folds the "
        f"stream uncached every time. {rp['command_big']['n']} commands (roll, every 4th "
        "adjust) on the big encounter, interleaved with as many on a 10-event one, each an "
        "HTTP round trip.",
        "",
        "| measure | p50 | p90 | p99 | max |",
        "| --- | --- | --- | --- | --- |",
        row(f"command on the {rp['events']}-event encounter", rp["command_big"]),
        row("command on the 10-event encounter", rp["command_small"]),
        row("GET board, cached", rp["cached_get"]),
        row("GET board ?at=V (uncached fold)", rp["uncached_fold_get"]),
        "",
        f"- Command cost ratio big/small (p50): **{rp['ratio_p50']}** "
        f"(goal: about 1, taken as <= 1.2: {verdict(rp['ratio_p50'] <= 1.2)}).",
        f"- Cold load (fresh process, first GET of the board): **{rp['cold_first_get_ms']} ms** "
        f"(goal < 100 ms: {verdict(rp['cold_first_get_ms'] < 100)}).",
        f"- In process, {off['events']} events (median of 3): read_stream {off['read_ms']} ms, "
        f"to_builtins {off['to_builtins_ms']} ms, `projections.view.fold` {off['fold_ms']} ms, "
        f"board + encode {off['board_ms']} ms; total {off['total_ms']} ms "
        f"({verdict(off['total_ms'] < 100)} against 100 ms).",
        "",
    ]
    return "\n".join(lines)


# --- main ------------------------------------------------------------------------------


async def main(args: argparse.Namespace) -> dict[str, Any]:
    from importlib.metadata import version

    logdir = Path(tempfile.mkdtemp(prefix="fracas-live-"))
    print(f"server logs in {logdir}", flush=True)
    await ensure_database(args.url)
    res: dict[str, Any] = {
        "date": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "machine": machine(),
        "postgres": await postgres_version(args.url),
        "versions": {"uvicorn": version("uvicorn"), "websockets": version("websockets")},
        "args": f"{args.trials} x {args.rate:g}/s for {args.seconds:g} s, "
        f"{args.watchers} watchers x {args.updates} updates, {args.replay_events} events, "
        f"{args.replay_commands} commands",
    }
    res["round_trip"] = []
    if args.only not in (None, "round_trip"):
        args.trials = 0
    else:
        print("1. round trip ...", flush=True)
    for _ in range(args.trials):
        res["round_trip"].append(await round_trip(args.url, logdir, args.rate, args.seconds))
        print(json.dumps(res["round_trip"][-1]), flush=True)

    res["fanout"] = []
    spy = Path(args.py_spy) if args.py_spy else None
    if spy:
        spy.mkdir(parents=True, exist_ok=True)
    for comp in () if args.only not in (None, "fanout") else COMPRESSIONS[args.compression]:
        print(f"2. fan-out, Fracas, compression {comp} ...", flush=True)
        compression = None if comp == "off" else "deflate"
        run, text = await fracas_fanout(
            args.url, logdir, args.watchers, args.updates, compression, spy
        )
        res["fanout"].append(run.report())
        print(json.dumps(res["fanout"][-1]), flush=True)
        message = logdir / "update.json"
        message.write_bytes(text)
        print(f"2. fan-out, bare websockets, compression {comp} ...", flush=True)
        bare = await bare_fanout(message, logdir, args.watchers, args.updates, compression)
        res["fanout"].append(bare.report())
        print(json.dumps(res["fanout"][-1]), flush=True)

    if args.only in (None, "replay"):
        print("3. replay ...", flush=True)
        res["replay"] = await replay(args.url, logdir, args.replay_events, args.replay_commands)
        print(json.dumps(res["replay"]), flush=True)
    return res


COMPRESSIONS = {"both": ("deflate", "off"), "deflate": ("deflate",), "off": ("off",)}


def cli() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--url", default=DEFAULT_URL)
    p.add_argument("--rate", type=float, default=100.0)
    p.add_argument("--seconds", type=float, default=15.0)
    p.add_argument("--trials", type=int, default=2, help="round-trip trials")
    p.add_argument("--watchers", type=int, default=1000)
    p.add_argument("--updates", type=int, default=20)
    p.add_argument("--replay-events", type=int, default=10_000)
    p.add_argument("--replay-commands", type=int, default=200)
    p.add_argument("--no-write", action="store_true", help="print only; leave RESULTS.md")
    p.add_argument(
        "--only", choices=("round_trip", "fanout", "replay"), help="one part (implies --no-write)"
    )
    p.add_argument("--compression", choices=tuple(COMPRESSIONS), default="both", help="fan-out")
    p.add_argument("--py-spy", metavar="DIR", help="record the Fracas fan-out server (raw)")
    p.add_argument("--bare-server", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--message", help=argparse.SUPPRESS)
    p.add_argument("--port", type=int, help=argparse.SUPPRESS)
    args = p.parse_args()
    if not (
        0 < args.rate <= 1000
        and 0 < args.seconds <= 120
        and 2 <= args.watchers <= 5000
        and 1 <= args.updates <= 120
        and 1 <= args.trials <= 5
        and 10 < args.replay_events <= 100_000
        and 1 <= args.replay_commands <= 5000
    ):
        p.error("out of the bounded ranges")

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = args.watchers * 2 + 256
    if soft < want:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(want, hard), hard))

    if args.bare_server:
        asyncio.run(bare_server(args.port, Path(args.message)))
        return 0

    def on_term(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, on_term)
    try:
        res = asyncio.run(main(args))
    finally:
        stop_all_started()
    if args.only is not None:
        return 0  # each part printed its JSON; the table needs every part
    text = markdown(res)
    print()
    print(text)
    if not args.no_write:
        write_section(ROOT / "bench" / "RESULTS.md", text, SECTION, END_MARK)
        print("appended to bench/RESULTS.md")
    return 0


if __name__ == "__main__":
    sys.exit(cli())
