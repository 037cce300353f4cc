"""Where a command round trip's tail goes: bench/live.py's part 1 with every stage timed.

    /tmp/venv/bin/python bench/round_trip_tail.py [--url postgresql://.../bench_live]
        [--rate 100] [--seconds 15] [--trials 3] [--tail 0.99]

Two `fracas serve` instances on one database, run through bench/traced_serve.py (the
same server with timestamps at each stage, GC pauses and event-loop lag recorded); HTTP
commands to instance 1 at `--rate`/s, a spectator websocket on instance 2, as in
bench/live.py. Per trial it prints the round trip's p50/p99/max, then for the commands at
or above the `--tail` quantile the median and max of each stage beside the same for all
commands, the GC collections and loop stalls that overlapped them, the CPU shares
(client, servers, PostgreSQL, other processes) and the load average. Bounded: at most 5
trials of at most 60 s; every process is stopped in `finally`.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.harness import (
    ROOT,
    CpuLedger,
    Http,
    Proc,
    command,
    ensure_database,
    fire_paced,
    new_encounter,
    percentile,
    shares,
    spawn,
    spectator_socket,
    stop,
    stop_all_started,
    wait_ready,
)

DEFAULT_URL = "postgresql://postgres@127.0.0.1:5432/bench_live"
# (stage, from, to): consecutive points of one command's path, client and both servers.
STAGES = [
    ("client -> handler", "sent", "in"),
    ("token check", "in", "exec"),
    ("writer lock wait", "exec", "lock"),
    ("load (fold)", "lock", "loaded"),
    ("decide", "loaded", "decided"),
    ("pool + BEGIN", "decided", "append"),
    ("append", "append", "appended"),
    ("to COMMIT", "appended", "commit"),
    ("COMMIT", "commit", "committed"),
    ("commit -> NOTIFY at 2", "committed", "notified"),
    ("NOTIFY -> read starts", "notified", "read_start"),
    ("read + fan-out at 2", "read_start", "read_end"),
    ("queued -> client has it", "read_end", "got"),
]


async def start_traced(url: str, name: str, logdir: Path) -> tuple[Proc, Path]:
    trace = logdir / f"{name}.jsonl"
    argv = [sys.executable, str(ROOT / "bench" / "traced_serve.py"), str(trace), "serve",
            "--host", "127.0.0.1", "--database-url", url]  # fmt: skip
    p = spawn(name, argv, logdir)

    async def healthy() -> bool:
        async with Http(p.base, timeout=1) as c:
            return (await c.get("/healthz")).status_code == 200

    await wait_ready(p, healthy)
    return p, trace


def read_trace(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


async def trial(url: str, logdir: Path, rate: float, seconds: float, n: int) -> dict[str, Any]:
    one = two = None
    ws = None
    reader_task = None
    try:
        one, trace1 = await start_traced(url, f"tail{n}-one", logdir)
        two, trace2 = await start_traced(url, f"tail{n}-two", logdir)
        async with Http(one.base, timeout=10) as http:
            made = await new_encounter(http, rolls=20)
            eid, gm = made["id"], made["gm_token"]
            ws = await spectator_socket(two.ws, made)
            pts: dict[str, dict[str, Any]] = {}

            async def reader() -> None:
                while True:
                    raw = await ws.recv()
                    t = time.monotonic()
                    for e in json.loads(raw).get("events", ()):
                        data = e.get("data") or {}
                        key = data.get("purpose") or data.get("reason")
                        if key in pts:
                            pts[key].setdefault("got", t)

            async def send(body: dict[str, Any], key: str) -> None:
                rec = pts[key] = {"sent": time.monotonic()}
                with contextlib.suppress(Exception):
                    answer = await command(http, eid, gm, body)
                    rec["answered"] = time.monotonic()
                    rec["version"] = answer["version"]

            reader_task = asyncio.create_task(reader())
            cpu = CpuLedger({"one": one.pid, "two": two.pid})
            load_before = os.getloadavg()
            await fire_paced(rate, seconds, send, cpu)
            used = cpu.stop()
            deadline = time.monotonic() + 5
            measured = [k for k in pts if k.startswith("m")]
            while time.monotonic() < deadline and any("got" not in pts[k] for k in measured):
                await asyncio.sleep(0.05)
            await asyncio.sleep(1.0)  # the servers flush their traces twice a second
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
    return analyse(pts, measured, read_trace(trace1), read_trace(trace2), used, load_before)


def analyse(
    pts: dict[str, dict[str, Any]],
    measured: list[str],
    trace1: list[dict[str, Any]],
    trace2: list[dict[str, Any]],
    cpu: dict[str, float],
    load: tuple[float, float, float],
) -> dict[str, Any]:
    cmds = {r["key"]: r for r in trace1 if r["k"] == "cmd" and r.get("key")}
    notified: dict[int, float] = {}
    for r in trace2:
        if r["k"] == "notify" and str(r["version"]).isdigit():
            notified.setdefault(int(r["version"]), r["t"])
    reads = [r for r in trace2 if r["k"] == "read"]
    rows: list[dict[str, Any]] = []
    for key in measured:
        p = pts[key]
        if "got" not in p or key not in cmds or "version" not in p:
            continue
        row = {**cmds[key], **p}
        row["notified"] = notified.get(p["version"])
        read = next((r for r in reads if r["from"] < p["version"] <= r["to"]), None)
        if read is not None:
            row["read_start"], row["read_end"] = read["start"], read["end"]
        rows.append(row)
    total = sorted(r["got"] - r["sent"] for r in rows)
    cut = percentile(total, args_tail)
    tail = [r for r in rows if r["got"] - r["sent"] >= cut]

    def stage_ms(rs: list[dict[str, Any]]) -> dict[str, tuple[float, float]]:
        out = {}
        for name, a, b in STAGES:
            xs = [r[b] - r[a] for r in rs if r.get(a) is not None and r.get(b) is not None]
            out[name] = (statistics.median(xs) * 1000, max(xs) * 1000) if xs else (0.0, 0.0)
        return out

    def overlapping(trace: list[dict[str, Any]], rs: list[dict[str, Any]]) -> list[str]:
        seen = []
        for ev in trace:
            if ev["k"] == "gc":
                a, b, what = ev["start"], ev["end"], f"gc gen{ev['gen']}"
            elif ev["k"] == "lag":
                a, b, what = ev["t"], ev["t"] + ev["lag"], "loop stall"
            else:
                continue
            if b - a < 0.002:
                continue
            if any(r["sent"] <= b and a <= r["got"] for r in rs):
                seen.append(f"{what} {1000 * (b - a):.1f} ms")
        return seen

    gcs = {
        name: sorted((1000 * (e["end"] - e["start"]) for e in t if e["k"] == "gc"), reverse=True)
        for name, t in (("one", trace1), ("two", trace2))
    }
    return {
        "n": len(rows),
        "p50_ms": percentile(total, 0.5) * 1000,
        "p99_ms": percentile(total, 0.99) * 1000,
        "max_ms": total[-1] * 1000 if total else None,
        "tail_n": len(tail),
        "all": stage_ms(rows),
        "tail": stage_ms(tail),
        "tail_overlaps_one": overlapping(trace1, tail),
        "tail_overlaps_two": overlapping(trace2, tail),
        "gc_one_top_ms": [round(x, 1) for x in gcs["one"][:5]],
        "gc_two_top_ms": [round(x, 1) for x in gcs["two"][:5]],
        "gc_counts": {k: len(v) for k, v in gcs.items()},
        "idle_pool_at_lock_min": min((r.get("idle", 99) for r in rows), default=None),
        "cpu": shares(cpu),
        "load_before": load,
        "worst": sorted(rows, key=lambda r: r["sent"] - r["got"])[:3],
    }


args_tail = 0.99


def report(n: int, res: dict[str, Any]) -> str:
    lines = [
        f"trial {n}: {res['n']} commands, round trip p50 {res['p50_ms']:.1f} ms, "
        f"p99 {res['p99_ms']:.1f} ms, max {res['max_ms']:.1f} ms; load average "
        f"{res['load_before'][0]:.1f} before; {res['cpu']}",
        f"GC: {res['gc_counts']} collections, longest at 1 {res['gc_one_top_ms']} ms, "
        f"at 2 {res['gc_two_top_ms']} ms; fewest idle pool connections at the lock "
        f"{res['idle_pool_at_lock_min']}",
        f"overlapping the tail: at 1 {res['tail_overlaps_one'][:8]}, "
        f"at 2 {res['tail_overlaps_two'][:8]}",
        "",
        f"| stage | all: median | all: max | tail ({res['tail_n']}): median | tail: max |",
        "| --- | ---: | ---: | ---: | ---: |",
    ]
    for name, _, _ in STAGES:
        a, t = res["all"][name], res["tail"][name]
        lines.append(f"| {name} | {a[0]:.2f} | {a[1]:.2f} | {t[0]:.2f} | {t[1]:.2f} |")
    worst = res["worst"][0] if res["worst"] else None
    if worst:
        t0 = worst["sent"]
        path = ", ".join(
            f"{k} +{1000 * (worst[k] - t0):.1f}"
            for k in ("in", "exec", "lock", "loaded", "decided", "append", "appended",
                      "commit", "committed", "answered", "notified", "read_start",
                      "read_end", "got")
            if worst.get(k) is not None
        )  # fmt: skip
        lines.append(f"\nworst command ({worst['key']}, ms after send): {path}")
    return "\n".join(lines)


async def main(args: argparse.Namespace) -> None:
    logdir = Path(tempfile.mkdtemp(prefix="fracas-tail-"))
    print(f"server logs and traces in {logdir}", flush=True)
    await ensure_database(args.url)
    for n in range(1, args.trials + 1):
        res = await trial(args.url, logdir, args.rate, args.seconds, n)
        print(report(n, res), flush=True)
        print(flush=True)


def cli() -> int:
    global args_tail
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--url", default=DEFAULT_URL)
    p.add_argument("--rate", type=float, default=100.0)
    p.add_argument("--seconds", type=float, default=15.0)
    p.add_argument("--trials", type=int, default=3)
    p.add_argument("--tail", type=float, default=0.99)
    args = p.parse_args()
    if not (0 < args.rate <= 500 and 0 < args.seconds <= 60 and 1 <= args.trials <= 5):
        p.error("out of the bounded ranges")
    args_tail = args.tail
    try:
        asyncio.run(main(args))
    finally:
        stop_all_started()
    return 0


if __name__ == "__main__":
    sys.exit(cli())
