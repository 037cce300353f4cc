"""Capacity benchmark, run by hand; results go to bench/RESULTS.md ("## Capacity").

    .venv/bin/python bench/capacity.py [--url postgresql://postgres@127.0.0.1:5432/bench_capacity]
        [--instances 1,3] [--steps 10,50,100,200,300,400] [--watchers 5] [--rate 1]
        [--seconds 15] [--bound-ms 50] [--stop-ms 2000] [--budget 1500] [--no-write]

N encounters x M watchers x R commands/s per encounter, stepped up N by N until the p99
of command -> watcher passes the bound. For each instance count in --instances and each
step, everything is fresh: the database `bench_capacity` is dropped and made again, then
that many `fracas serve` processes start on it (loopback, free ports). The step then

1. makes N d20-na encounters (four preset combatants each) over HTTP, spread over the
   instances round-robin;
2. opens M spectator websockets per encounter, watcher j of encounter i on instance
   (i + j) mod k, so with several instances most updates cross between processes through
   PostgreSQL NOTIFY (`--placement spread`, the worst case: every instance folds every
   stream), or all on instance i mod k (`--placement encounter`: as deploy/nginx.conf's
   consistent hash of the encounter id places them);
3. sends commands open-loop at N x R per second for 2 s of warm-up and then `--seconds`
   measured (encounter i's commands go to instance i mod k: roll 1d20, every 4th an
   adjust), each an HTTP round trip on keep-alive connections;
4. measures, per (command, watcher), HTTP send -> the first update on that watcher whose
   version reaches the command's version; per command, send -> HTTP answer; CPU of the
   servers, of PostgreSQL (every `postgres` process: other users count too), of this
   client and of everything else over the measured window; each server's RSS at the end;
   the load average; and the client's event-loop lag (a 10 ms sleep's overshoot), which
   says when the client itself is the bottleneck.

A step passes if its p99 is under the bound with no command refused and no update missed.
Steps go on past a failing one (on a shared machine a small step may fail on noise while
a larger one passes) until a step is saturated: a refusal, a missed update, the sender
falling behind (under 90 % of the offered rate) or p99 over --stop-ms. --budget bounds
the whole run in seconds (steps not started in time are skipped). The first step (smallest N) is
the baseline of its run. Processes and connections are closed in `finally` blocks.
"""

from __future__ import annotations

import argparse
import asyncio
import bisect
import contextlib
import datetime
import json
import os
import resource
import signal
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
    Tally,
    Watcher,
    bench_command,
    close_watchers,
    machine,
    ms,
    new_encounter,
    open_watchers,
    percentile,
    postgres_version,
    rss_kib,
    start_fracas,
    stop,
    stop_all_started,
    summary,
    verdict,
    write_section,
)

DEFAULT_URL = "postgresql://postgres@127.0.0.1:5432/bench_capacity"
SECTION = "## Capacity"
END_MARK = "<!-- end of the part bench/capacity.py writes; notes below are by hand -->"
WARM_UP = 2.0


async def fresh_database(url: str) -> None:
    import asyncpg

    from server.store.db import url_with_database

    name = url.rsplit("/", 1)[1].split("?")[0]
    conn = await asyncpg.connect(url_with_database(url, "postgres"))
    try:
        await conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        await conn.execute(f'CREATE DATABASE "{name}"')
    finally:
        await conn.close()


async def loop_lag(samples: list[float], stop_at: asyncio.Event) -> None:
    """How late a 10 ms sleep wakes up: the client's own saturation."""
    while not stop_at.is_set():
        t = time.perf_counter()
        await asyncio.sleep(0.01)
        samples.append(time.perf_counter() - t - 0.01)


async def make_encounters(https: list[Http], n: int) -> list[dict[str, Any]]:
    made: list[dict[str, Any]] = [{} for _ in range(n)]
    gate = asyncio.Semaphore(16)

    async def one(i: int) -> None:
        async with gate:
            made[i] = await new_encounter(https[i % len(https)])

    await asyncio.wait_for(asyncio.gather(*(one(i) for i in range(n))), 30 + n * 0.5)
    return made


async def step(
    url: str,
    logdir: Path,
    k: int,
    n: int,
    m: int,
    rate: float,
    seconds: float,
    placement: str = "spread",
    extra: list[str] | None = None,
) -> dict[str, Any]:
    """One step: k fresh instances, n encounters x m watchers, n x rate commands/s."""
    await fresh_database(url)
    servers: list[Proc] = []
    watchers: list[Watcher] = []
    tasks: list[asyncio.Task[None]] = []
    https: list[Http] = []
    lag_stop = asyncio.Event()
    lag_task: asyncio.Task[None] | None = None
    load_before = os.getloadavg()
    try:
        for j in range(k):
            # every encounter is made from this one address: no creation rate limit
            servers.append(
                await start_fracas(
                    url, f"cap-{k}x{n}-{j + 1}", logdir, ["--create-rate", "0", *(extra or [])]
                )
            )
        https = [Http(s.base, timeout=30, size=256) for s in servers]
        setup0 = time.monotonic()
        made = await make_encounters(https, n)
        tally = Tally(10**9)  # per-version counts are not used here: receipts are
        owners: list[tuple[int, Watcher]] = []
        for i, enc in enumerate(made):
            for j in range(m):
                # spread: watcher j on instance (i + j) mod k (the worst case: every
                # instance folds every stream); encounter: all on instance i mod k, as
                # deploy/nginx.conf's hash of the encounter id places them.
                s = servers[(i + j) % k if placement == "spread" else i % k]
                uri = f"{s.ws}/ws/encounters/{enc['id']}?token={enc['spectator_token']}"
                w = Watcher(uri, True, None)
                watchers.append(w)
                owners.append((i, w))
        connect_s = await open_watchers(watchers, tally, tasks)
        setup_s = time.monotonic() - setup0

        sends: list[tuple[int, int, float]] = []  # (encounter, version, send time)
        http_lat: list[float] = []
        errors: list[str] = []

        async def send(i: int, body: dict[str, Any], measured: bool) -> None:
            enc = made[i]
            t = time.perf_counter()
            try:
                r = await https[i % k].post(
                    f"/api/encounters/{enc['id']}/commands",
                    json=body,
                    headers={"Authorization": f"Bearer {enc['gm_token']}"},
                )
                if r.status_code != 200:
                    raise RuntimeError(f"{r.status_code} {r.text[:200]}")
                version = int(r.json()["version"])
            except Exception as e:  # counted and reported
                if measured:
                    errors.append(repr(e)[:200])
                return
            if measured:
                http_lat.append(time.perf_counter() - t)
                sends.append((i, version, t))

        lags: list[float] = []
        lag_task = asyncio.create_task(loop_lag(lags, lag_stop))
        total_rate = n * rate
        warm = int(WARM_UP * total_rate)
        count = warm + int(seconds * total_rate)
        ledger = CpuLedger({f"s{j}": s.pid for j, s in enumerate(servers)})
        inflight: list[asyncio.Task[None]] = []
        loop = asyncio.get_running_loop()
        t0 = loop.time() + 0.05
        late = 0.0
        for c in range(count):
            if c == warm:
                ledger.start()
                lags.clear()
            delay = t0 + c / total_rate - loop.time()
            if delay > 0:
                await asyncio.sleep(delay)
            elif c >= warm:
                late = max(late, -delay)
            i = c % n
            body = bench_command(c // n, f"e{i}-", 4)
            inflight.append(asyncio.create_task(send(i, body, c >= warm)))
            if len(inflight) > 4096:
                inflight = [t for t in inflight if not t.done()]
        span = loop.time() - t0 - warm / total_rate
        await asyncio.wait_for(asyncio.gather(*inflight), 60)
        used = ledger.stop()
        lag_stop.set()
        rss = [rss_kib(s.pid) for s in servers]

        # Every watcher of encounter i should reach each version sent to i.
        by_encounter: dict[int, list[tuple[int, float]]] = {}
        for i, version, t in sends:
            by_encounter.setdefault(i, []).append((version, t))
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            behind = sum(
                1
                for i, w in owners
                if i in by_encounter
                and (not w.got or w.got[-1][1] < max(v for v, _ in by_encounter[i]))
            )
            if not behind:
                break
            await asyncio.sleep(0.1)
        latencies: list[float] = []
        missed = 0
        for i, w in owners:
            got = [g for g in w.got if g[1] >= 0]
            versions = [v for _, v in got]
            for version, t in by_encounter.get(i, ()):
                at = bisect.bisect_left(versions, version)
                if at == len(versions):
                    missed += 1
                else:
                    latencies.append(got[at][0] - t)
        p99 = percentile(latencies, 0.99) if latencies else float("inf")
        return {
            "instances": k,
            "encounters": n,
            "watchers": n * m,
            "offered_rate": round(total_rate, 1),
            "achieved_rate": round(len(sends) / span, 1) if span > 0 else None,
            "sender_late_ms": ms(late),
            "commands": len(sends),
            "refused": len(errors),
            "error_sample": errors[:3],
            "missed": missed,
            "setup_s": round(setup_s, 1),
            "connect_s": round(connect_s, 1),
            "to_watcher": summary(latencies),
            "http": summary(http_lat),
            "client_lag": summary(lags),
            "cpu": used,
            "rss_mib": [round(x / 1024, 1) for x in rss],
            "load_before": [round(x, 2) for x in load_before],
            "load_after": [round(x, 2) for x in os.getloadavg()],
            "p99_ms": ms(p99),
        }
    finally:
        lag_stop.set()
        if lag_task is not None:
            with contextlib.suppress(BaseException):
                await asyncio.wait_for(lag_task, 2)
        await close_watchers(watchers, tasks)
        for h in https:
            await h.__aexit__(None, None, None)
        for s in servers:
            stop(s)


def passed(r: dict[str, Any], bound_ms: float) -> bool:
    return bool(r["p99_ms"] < bound_ms and r["refused"] == 0 and r["missed"] == 0)


def saturated(r: dict[str, Any], stop_ms: float) -> bool:
    done = r["achieved_rate"] or 0.0
    return bool(
        r["refused"] or r["missed"] or done < 0.9 * r["offered_rate"] or r["p99_ms"] > stop_ms
    )


def largest(steps: list[dict[str, Any]], k: int, bound_ms: float) -> int:
    """The largest N of k instances that passed `bound_ms`, 0 if none did."""
    return max(
        (r["encounters"] for r in steps if r["instances"] == k and passed(r, bound_ms)),
        default=0,
    )


# --- report ----------------------------------------------------------------------------


def per_command(r: dict[str, Any], share: str) -> float:
    """CPU milliseconds per command (its fan-out to every watcher included)."""
    done = r["achieved_rate"] or 0.0
    return round(r["cpu"][share] * 10 / done, 2) if done else 0.0


def markdown(res: dict[str, Any]) -> str:
    m = res["machine"]
    bound = res["bound_ms"]
    lines = [
        SECTION,
        "",
        f"`python bench/capacity.py` ({res['args']}), {res['date']}. {m['nproc']} vCPU "
        f"({m['cpu']}), Linux {m['kernel']}, Python {m['python']}, PostgreSQL "
        f"{res['postgres']} (loopback, default fsync/synchronous_commit). One client "
        "process (keep-alive HTTP + websockets clients), the servers and PostgreSQL share "
        "the 2 cores with other agents' test suites: the load average before and after "
        "each step is in its row (1-minute figure).",
        "",
        f"Each step: fresh database, fresh instances, N d20-na encounters x "
        f"{res['watchers']} spectator websockets each, {res['rate']:g} command/s per "
        f"encounter open-loop for {res['seconds']:g} s after {WARM_UP:g} s of warm-up. "
        "*to watcher* = HTTP send -> the update reaching that version on each watcher, "
        "pooled over every command and watcher; *HTTP* = send -> answer. CPU in % of one "
        "core (200 % = the machine). *lag* = the client's event-loop lag p99 (when it "
        "grows, the client is part of what is measured). *CPU per command*: the servers' "
        "and PostgreSQL's CPU over the window divided by the commands done (fan-out to "
        f"{res['watchers']} watchers included). The first step of each run is its baseline.",
        "",
        "| instances | N | watchers | cmd/s offered / done | to watcher p50 / p90 / p99 "
        "| HTTP p50 / p90 / p99 | refused | missed | CPU servers / PostgreSQL / client / "
        "other | CPU per command, servers / PostgreSQL | RSS per server | lag p99 "
        "| load before / after | verdict |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for r in res["steps"]:
        w, h, c = r["to_watcher"], r["http"], r["cpu"]
        lines.append(
            f"| {r['instances']} | {r['encounters']} | {r['watchers']} "
            f"| {r['offered_rate']:g} / {r['achieved_rate']} "
            f"| {w.get('p50_ms')} / {w.get('p90_ms')} / {w.get('p99_ms')} ms "
            f"| {h.get('p50_ms')} / {h.get('p90_ms')} / {h.get('p99_ms')} ms "
            f"| {r['refused']} | {r['missed']} "
            f"| {c['servers_pct']} / {c['postgres_pct']} / {c['client_pct']} / "
            f"{c['other_pct']} % "
            f"| {per_command(r, 'servers_pct')} / {per_command(r, 'postgres_pct')} ms "
            f"| {', '.join(f'{x:g}' for x in r['rss_mib'])} MiB "
            f"| {r['client_lag'].get('p99_ms')} ms "
            f"| {r['load_before'][0]} / {r['load_after'][0]} "
            f"| {'pass' if passed(r, bound) else 'FAIL'} |"
        )
    lines.append("")
    for k in res["instance_counts"]:
        looser = ", ".join(
            f"{largest(res['steps'], k, b) or 'none'} under {b:g} ms" for b in (100, 250, 1000)
        )
        lines.append(
            f"- {k} instance(s): the largest passing step is "
            f"**{largest(res['steps'], k, bound) or 'none'} encounters** "
            f"(x {res['watchers']} watchers x {res['rate']:g} command/s, p99 < {bound:g} ms); "
            f"with looser bounds on the same steps: {looser}."
        )
    goal = largest(res["steps"], 1, bound)
    lines += [
        f"- Goal 400 encounters x 5 watchers x 1 command/s with p99 < 50 ms on one "
        f"instance: {verdict(goal >= 400 and res['watchers'] >= 5 and bound <= 50)}.",
        "",
    ]
    return "\n".join(lines)


# --- main ------------------------------------------------------------------------------


async def main(args: argparse.Namespace) -> dict[str, Any]:
    logdir = Path(tempfile.mkdtemp(prefix="fracas-capacity-"))
    print(f"server logs in {logdir}", flush=True)
    await fresh_database(args.url)
    res: dict[str, Any] = {
        "date": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "machine": machine(),
        "postgres": await postgres_version(args.url),
        "args": f"instances {args.instances}, steps {args.steps}, {args.watchers} watchers, "
        f"{args.rate:g}/s, {args.seconds:g} s, bound {args.bound_ms:g} ms, "
        f"placement {args.placement}{', serve ' + args.serve_args if args.serve_args else ''}",
        "watchers": args.watchers,
        "rate": args.rate,
        "seconds": args.seconds,
        "bound_ms": args.bound_ms,
        "steps": [],
        "instance_counts": args.instance_counts,
    }
    started = time.monotonic()
    for k in args.instance_counts:
        for n in args.step_sizes:
            if time.monotonic() - started > args.budget:
                print(f"budget of {args.budget} s spent: {k} x {n} skipped", flush=True)
                break
            print(f"{k} instance(s), {n} encounters ...", flush=True)
            r = await step(
                args.url, logdir, k, n, args.watchers, args.rate, args.seconds,
                args.placement, args.serve_args.split(),
            )  # fmt: skip
            r["placement"] = args.placement
            res["steps"].append(r)
            print(json.dumps(r), flush=True)
            if saturated(r, args.stop_ms):
                break
    return res


def cli() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--url", default=DEFAULT_URL)
    p.add_argument("--instances", default="1,3", help="instance counts, e.g. 1,3")
    p.add_argument("--steps", default="10,50,100,200,300,400", help="encounter counts")
    p.add_argument("--watchers", type=int, default=5, help="watchers per encounter")
    p.add_argument("--rate", type=float, default=1.0, help="commands/s per encounter")
    p.add_argument("--seconds", type=float, default=15.0)
    p.add_argument("--bound-ms", type=float, default=50.0)
    p.add_argument("--stop-ms", type=float, default=2000.0, help="p99 that ends a run")
    p.add_argument("--budget", type=float, default=1500.0, help="seconds for the whole run")
    p.add_argument("--no-write", action="store_true", help="print only; leave RESULTS.md")
    p.add_argument(
        "--placement",
        choices=("spread", "encounter"),
        default="spread",
        help="watchers of an encounter spread over the instances (default), or all on the"
        " instance its commands go to (deploy/nginx.conf's hash)",
    )
    p.add_argument(
        "--serve-args", default="", help="more `fracas serve` options, e.g. '--loop asyncio'"
    )
    args = p.parse_args()
    args.instance_counts = [int(x) for x in args.instances.split(",")]
    args.step_sizes = sorted(int(x) for x in args.steps.split(","))
    if not (
        all(1 <= k <= 4 for k in args.instance_counts)
        and all(1 <= n <= 1000 for n in args.step_sizes)
        and 1 <= args.watchers <= 20
        and 0 < args.rate <= 10
        and 1 <= args.seconds <= 120
        and 0 < args.bound_ms <= args.stop_ms <= 60_000
        and 10 <= args.budget <= 3600
        and max(args.step_sizes) * args.watchers <= 10_000
        and max(args.step_sizes) * args.rate <= 2000
    ):
        p.error("out of the bounded ranges")

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = max(args.step_sizes) * args.watchers * 2 + 1024
    if soft < want:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(want, hard), hard))

    def on_term(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, on_term)
    try:
        res = asyncio.run(main(args))
    finally:
        stop_all_started()
    text = markdown(res)
    print()
    print(text)
    if not args.no_write:
        write_section(ROOT / "bench" / "RESULTS.md", text, SECTION, END_MARK)
        print("written to bench/RESULTS.md")
    return 0


if __name__ == "__main__":
    sys.exit(cli())
