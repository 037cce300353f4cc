"""Memory soak, run by hand; results go to bench/RESULTS.md ("## Memory soak").

    .venv/bin/python bench/soak.py [--url postgresql://postgres@127.0.0.1:5432/postgres]
        [--encounters 10] [--watchers 10] [--rate 2] [--minutes 30] [--sample 10]
        [--tracemalloc DIR] [--no-write]

One real `fracas serve` process on a fresh database `bench_soak_<hex>` (created on the
URL's server, dropped at the end), over loopback, this process the only client:
`--encounters` d20-na encounters (four combatants each), `--watchers` spectator websockets
on each, and `--rate` commands per second on each encounter (a `roll` 1d20, every 4th an
`adjust`, as bench/live.py sends) for `--minutes`. Every `--sample` seconds the server's
RSS (/proc/<pid>/status VmRSS) and CPU time are recorded. Watchers that are dropped resume
with `after` and count any version gap.

`--tracemalloc DIR` runs the server under tracemalloc (25 frames; slower) and has it write
a snapshot to DIR at every sample (SIGUSR1); the report then lists the allocation sites
that grew most from half-way through the run to its end.

Reuses bench/live.py's HTTP client, process helpers and command shapes by import. Every
loop is bounded in count and time; every process and connection is closed in `finally`.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import datetime
import json
import os
import re
import secrets
import signal
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import harness as live

DEFAULT_URL = "postgresql://postgres@127.0.0.1:5432/postgres"
SECTION = "## Memory soak"
END_MARK = "<!-- end of the part bench/soak.py writes; notes below are by hand -->"
FIRST_EVENT_RE = re.compile(rb'"events":\[\{[^{]*?"version":(\d+)')


# --- the traced server (a subprocess of this script) ---------------------------------


def traced_serve(snapshots: Path, argv: list[str]) -> int:
    """`fracas serve` under tracemalloc; SIGUSR1 writes a snapshot to `snapshots`."""
    import tracemalloc

    from server.cli.main import main

    tracemalloc.start(25)
    count = [0]

    def dump(signum: int, frame: Any) -> None:
        count[0] += 1
        tracemalloc.take_snapshot().dump(str(snapshots / f"snap-{count[0]:04d}.pickle"))

    signal.signal(signal.SIGUSR1, dump)
    return main(argv)


def top_growth(first: Path, last: Path, limit: int = 12) -> list[dict[str, Any]]:
    import tracemalloc

    old = tracemalloc.Snapshot.load(str(first))
    new = tracemalloc.Snapshot.load(str(last))
    keep = [tracemalloc.Filter(False, tracemalloc.__file__)]
    stats = new.filter_traces(keep).compare_to(old.filter_traces(keep), "traceback")
    out = []
    for s in stats[:limit]:
        frames = [f"{'/'.join(f.filename.split('/')[-2:])}:{f.lineno}" for f in s.traceback]
        # Oldest frame first: the allocation itself, then our own callers of it.
        full = [f.filename for f in s.traceback]
        ours = [fr for fr, name in zip(frames, full, strict=True) if "site-packages" not in name]
        shown = list(reversed(ours[-4:] or frames[-4:]))
        if frames[-1] not in shown:
            shown.insert(0, frames[-1])
        out.append(
            {
                "kib": round(s.size_diff / 1024, 1),
                "count": s.count_diff,
                "where": " <- ".join(shown),
            }
        )
    return out


# --- watchers that resume ------------------------------------------------------------


@dataclass(eq=False)
class Resumer:
    """A spectator websocket that reconnects with `after` and counts version gaps."""

    uri: str
    version: int = 0
    received: int = 0
    gaps: int = 0
    drops: int = 0
    stop: asyncio.Event = field(default_factory=asyncio.Event)
    ready: asyncio.Event = field(default_factory=asyncio.Event)

    async def run(self) -> None:
        from websockets.asyncio.client import connect

        for _ in range(1000):  # bounded reconnects
            if self.stop.is_set():
                return
            uri = self.uri + (f"&after={self.version}" if self.version else "")
            try:
                async with connect(uri, open_timeout=30, ping_interval=None, max_size=2**24) as ws:
                    await self._read(ws)
            except Exception:  # dropped (1013) or refused: resume from our version
                self.drops += 1
                await asyncio.sleep(0.5)

    async def _read(self, ws: Any) -> None:
        while not self.stop.is_set():
            try:
                raw = await asyncio.wait_for(ws.recv(decode=False), 1.0)
            except TimeoutError:
                continue
            m = live.VERSION_RE.search(raw, 0, 64)
            v = int(m.group(1)) if m else -1
            if b'"type":"update"' in raw[:40]:
                # An update may carry several commands' events: a gap is a first event
                # past the one after the last version seen (a spectator sees every
                # event of these commands).
                first = FIRST_EVENT_RE.search(raw)
                if first and self.version and int(first.group(1)) > self.version + 1:
                    self.gaps += int(first.group(1)) - self.version - 1
            self.version = max(self.version, v)
            self.received += 1
            self.ready.set()


# --- the soak ------------------------------------------------------------------------


async def drive(
    http: live.Http, made: dict[str, Any], rate: float, until: float, i: int, errors: list[str]
) -> int:
    """Commands at `rate`/s on one encounter until `until`; returns how many succeeded."""
    gm, eid = made["gm_token"], made["id"]
    sent = 0
    start = time.monotonic() + i * (1.0 / rate) / 10  # stagger the encounters
    n = 0
    while True:
        due = start + n / rate
        if due >= until or time.monotonic() >= until:  # a server that fell behind, too
            return sent
        await asyncio.sleep(max(0.0, due - time.monotonic()))
        try:
            await live.command(http, eid, gm, live.bench_command(n, f"s{i}-", 4))
            sent += 1
        except Exception as e:  # counted and reported, the soak goes on
            if len(errors) < 20:
                errors.append(repr(e)[:200])
        n += 1


async def soak(args: argparse.Namespace) -> dict[str, Any]:
    import asyncpg

    from server.store.db import url_with_database

    name = f"bench_soak_{secrets.token_hex(4)}"
    admin = await asyncpg.connect(args.url)
    await admin.execute(f'CREATE DATABASE "{name}"')
    await admin.close()
    url = url_with_database(args.url, name)
    logdir = Path(tempfile.mkdtemp(prefix="fracas-soak-"))
    print(f"database {name}; server log in {logdir}", flush=True)
    proc: live.Proc | None = None
    resumers: list[Resumer] = []
    tasks: list[asyncio.Task[Any]] = []
    try:
        proc = await start(url, logdir, args.tracemalloc)
        samples: list[dict[str, Any]] = []
        errors: list[str] = []
        async with live.Http(proc.base, timeout=30) as http:
            made = [await live.new_encounter(http) for _ in range(args.encounters)]
            for m in made:
                for _ in range(args.watchers):
                    r = Resumer(f"{proc.ws}/ws/encounters/{m['id']}?token={m['spectator_token']}")
                    resumers.append(r)
                    tasks.append(asyncio.create_task(r.run()))
            await asyncio.wait_for(asyncio.gather(*(r.ready.wait() for r in resumers)), 120)
            t0 = time.monotonic()
            until = t0 + args.minutes * 60
            drivers = [
                asyncio.create_task(drive(http, m, args.rate, until, i, errors))
                for i, m in enumerate(made)
            ]
            while time.monotonic() < until:
                samples.append(sample(proc, t0, resumers, args.tracemalloc))
                print(json.dumps(samples[-1]), flush=True)
                await asyncio.sleep(min(args.sample, max(0.0, until - time.monotonic())))
            sent = sum(await asyncio.gather(*drivers))
            await asyncio.sleep(2)  # the last updates reach the watchers
            samples.append(sample(proc, t0, resumers, args.tracemalloc))
        res = report(args, samples, sent, errors, resumers, made)
        res["database"] = name
        if args.tracemalloc:
            res["growth"] = growth(Path(args.tracemalloc), len(samples))
        return res
    finally:
        for r in resumers:
            r.stop.set()
        for t in tasks:
            t.cancel()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(asyncio.gather(*tasks, return_exceptions=True), 10)
        live.stop(proc)
        admin = await asyncpg.connect(args.url)
        await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        await admin.close()


async def start(url: str, logdir: Path, traced: str | None) -> live.Proc:
    os.environ["FRACAS_CREATE_RATE"] = "0"  # the soak opens its encounters at once
    if not traced:
        return await live.start_fracas(url, "soak", logdir)
    Path(traced).mkdir(parents=True, exist_ok=True)
    argv = [sys.executable, str(Path(__file__).resolve()), "--traced-serve", traced, "--"]
    argv += ["serve", "--host", "127.0.0.1", "--database-url", url]
    p = live.spawn("soak", argv, logdir)

    async def healthy() -> bool:
        async with live.Http(p.base, timeout=1) as c:
            status: int = (await c.get("/healthz")).status_code
            return status == 200

    await live.wait_ready(p, healthy, 60)
    return p


def sample(
    proc: live.Proc, t0: float, resumers: list[Resumer], traced: str | None
) -> dict[str, Any]:
    if traced:
        os.kill(proc.pid, signal.SIGUSR1)
    return {
        "t": round(time.monotonic() - t0, 1),
        "rss_kib": live.rss_kib(proc.pid),
        "cpu_s": round(live.cpu_seconds(proc.pid), 1),
        "received": sum(r.received for r in resumers),
        "gaps": sum(r.gaps for r in resumers),
        "drops": sum(r.drops for r in resumers),
    }


def growth(folder: Path, n: int) -> list[dict[str, Any]]:
    time.sleep(5)  # the last snapshot is written
    snaps = sorted(folder.glob("snap-*.pickle"))
    if len(snaps) < 3:
        return []
    # From half-way (the bounded log tails have filled by then) to the end.
    return top_growth(snaps[len(snaps) // 2], snaps[-1])


def slope_kib_per_min(points: list[dict[str, Any]]) -> float:
    if len(points) < 2:
        return 0.0
    xs = [p["t"] / 60 for p in points]
    ys = [p["rss_kib"] for p in points]
    return float(statistics.linear_regression(xs, ys).slope)


def report(
    args: argparse.Namespace,
    samples: list[dict[str, Any]],
    sent: int,
    errors: list[str],
    resumers: list[Resumer],
    made: list[dict[str, Any]],
) -> dict[str, Any]:
    n = len(samples)
    thirds = [samples[: n // 3], samples[n // 3 : 2 * n // 3], samples[2 * n // 3 :]]
    return {
        "date": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "machine": live.machine(),
        "args": f"{args.encounters} encounters x {args.watchers} watchers x {args.rate:g} "
        f"commands/s each, {args.minutes:g} min, sample every {args.sample:g} s"
        + (", under tracemalloc" if args.tracemalloc else ""),
        "commands": sent,
        "expected": int(args.encounters * args.rate * args.minutes * 60),
        "errors": errors,
        "received": sum(r.received for r in resumers),
        "gaps": sum(r.gaps for r in resumers),
        "drops": sum(r.drops for r in resumers),
        "rss_first_kib": samples[0]["rss_kib"],
        "rss_last_kib": samples[-1]["rss_kib"],
        "rss_max_kib": max(s["rss_kib"] for s in samples),
        "slope_kib_min": [round(slope_kib_per_min(t), 1) for t in thirds],
        "cpu_s": samples[-1]["cpu_s"] - samples[0]["cpu_s"],
        "samples": samples,
    }


def markdown(res: dict[str, Any]) -> str:
    m = res["machine"]
    mib = 1024
    lines = [
        SECTION,
        "",
        f"`bench/soak.py` — {res['args']}; one `fracas serve` on a fresh database, "
        f"{m['nproc']} cores ({m['cpu']}), Python {m['python']}, {res['date']}.",
        "",
        "| measure | value |",
        "| --- | --- |",
        f"| commands acknowledged | {res['commands']} of {res['expected']} scheduled"
        f" ({len(res['errors'])} errors) |",
        f"| websocket messages received | {res['received']} (version gaps: {res['gaps']},"
        f" reconnects: {res['drops']}) |",
        f"| RSS first / last / max | {res['rss_first_kib'] / mib:.1f} /"
        f" {res['rss_last_kib'] / mib:.1f} / {res['rss_max_kib'] / mib:.1f} MiB |",
        "| RSS slope per third of the run | "
        + " / ".join(f"{s / mib:+.2f}" for s in res["slope_kib_min"])
        + " MiB/min |",
        f"| server CPU | {res['cpu_s']:.0f} s |",
        "",
        "RSS by minute (MiB):",
        "",
        "| min | " + " | ".join(str(int(s["t"] // 60)) for s in _per_minute(res)) + " |",
        "| --- | " + " | ".join("---" for _ in _per_minute(res)) + " |",
        "| RSS | " + " | ".join(f"{s['rss_kib'] / mib:.1f}" for s in _per_minute(res)) + " |",
    ]
    if res.get("growth"):
        lines += ["", "Allocation sites that grew most (tracemalloc, half-way -> end):", ""]
        lines += ["| KiB | blocks | where |", "| --- | --- | --- |"]
        lines += [f"| {g['kib']} | {g['count']} | `{g['where']}` |" for g in res["growth"]]
    return "\n".join(lines) + "\n"


def _per_minute(res: dict[str, Any]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    seen: set[int] = set()
    for s in res["samples"]:
        minute = int(s["t"] // 60)
        if minute not in seen and (minute % 3 == 0 or s is res["samples"][-1]):
            seen.add(minute)
            out.append(s)
    return out


def write_section(path: Path, text: str) -> None:
    live.write_section(path, text, SECTION, END_MARK)


def cli() -> int:
    if len(sys.argv) > 2 and sys.argv[1] == "--traced-serve":
        rest = sys.argv[3:]
        return traced_serve(Path(sys.argv[2]), rest[1:] if rest[:1] == ["--"] else rest)
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--url", default=DEFAULT_URL, help="a server where a database may be created")
    p.add_argument("--encounters", type=int, default=10)
    p.add_argument("--watchers", type=int, default=10, help="per encounter")
    p.add_argument("--rate", type=float, default=2.0, help="commands per second per encounter")
    p.add_argument("--minutes", type=float, default=30.0)
    p.add_argument("--sample", type=float, default=10.0, help="seconds between RSS samples")
    p.add_argument("--tracemalloc", metavar="DIR", default=None)
    p.add_argument("--json", metavar="FILE", default=None, help="also write the raw results")
    p.add_argument("--no-write", action="store_true", help="print only; leave RESULTS.md")
    args = p.parse_args()
    if not (
        1 <= args.encounters <= 200
        and 0 <= args.watchers <= 100
        and 0 < args.rate <= 50
        and 0 < args.minutes <= 240
        and 1 <= args.sample <= 600
    ):
        p.error("out of the bounded ranges")

    def on_term(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, on_term)
    try:
        res = asyncio.run(soak(args))
    finally:
        live.stop_all_started()
    if args.json:
        Path(args.json).write_text(json.dumps(res, indent=1))
    text = markdown(res)
    print()
    print(text)
    if not args.no_write:
        write_section(live.ROOT / "bench" / "RESULTS.md", text)
        print("appended to bench/RESULTS.md")
    return 0


if __name__ == "__main__":
    sys.exit(cli())
