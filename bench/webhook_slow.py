"""Does a webhook receiver that never answers slow commands? (issue 11, by hand)

One `fracas serve` (loopback only) on a fresh database of the given server; two
encounters side by side: one with a webhook to a local receiver that accepts the TCP
connection and never answers, one without. Commands alternate between them (bounded
count), and the HTTP round trip of each is timed. Prints p50/p99 of both and their ratio.

    .venv/bin/python bench/webhook_slow.py [--url postgresql://...] [--commands 400]
"""

from __future__ import annotations

import argparse
import os
import secrets
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
FRACAS = str(Path(sys.executable).parent / "fracas")


def silent_receiver() -> tuple[int, list[socket.socket]]:
    """A TCP listener that accepts and keeps every connection, answering nothing."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(64)
    held: list[socket.socket] = []

    def accept() -> None:
        while True:
            conn, _ = listener.accept()
            held.append(conn)

    threading.Thread(target=accept, daemon=True).start()
    port: int = listener.getsockname()[1]
    return port, held


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p / 100 * len(ordered)))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", default="postgresql://postgres@127.0.0.1:5432/postgres")
    parser.add_argument("--commands", type=int, default=400, help="per encounter (<= 5000)")
    args = parser.parse_args()
    count = max(10, min(args.commands, 5000))
    import asyncio

    import asyncpg  # the bench's own database, created and dropped here

    name = f"fracas_bench_{secrets.token_hex(4)}"

    async def admin(sql: str) -> None:
        conn = await asyncpg.connect(args.url)
        try:
            await conn.execute(sql)
        finally:
            await conn.close()

    asyncio.run(admin(f'CREATE DATABASE "{name}"'))
    url = args.url.rsplit("/", 1)[0] + "/" + name
    receiver, held = silent_receiver()
    port = free_port()
    env = {**os.environ, "FRACAS_WEBHOOK_ALLOW": "127.0.0.1", "FRACAS_WEBHOOK_TIMEOUT": "30"}
    log = tempfile.NamedTemporaryFile(  # noqa: SIM115 - the server's log, kept for reading
        prefix="fracas-bench-", suffix=".log", delete=False
    )
    proc = subprocess.Popen(
        [FRACAS, "serve", "--port", str(port), "--database-url", url, "--create-rate", "0"],
        stdout=log, stderr=subprocess.STDOUT, env=env, cwd=ROOT,
    )  # fmt: skip
    base = f"http://127.0.0.1:{port}"
    try:
        with httpx.Client(base_url=base, timeout=30) as http:
            deadline = time.monotonic() + 60
            while True:
                try:
                    if http.get("/healthz").status_code == 200:
                        break
                except httpx.HTTPError:
                    pass
                if time.monotonic() > deadline:
                    raise SystemExit("the server did not start")
                time.sleep(0.1)
            tables = {}
            for label in ("silent webhook", "no webhook"):
                made = http.post("/api/encounters", json={"ruleset": "plain-d100", "name": label})
                made.raise_for_status()
                tables[label] = made.json()
            hooked = tables["silent webhook"]
            put = http.put(
                f"/api/encounters/{hooked['id']}/webhook",
                json={"url": f"http://127.0.0.1:{receiver}/hook", "format": "json"},
                headers={"Authorization": f"Bearer {hooked['gm_token']}"},
            )
            put.raise_for_status()
            times: dict[str, list[float]] = {label: [] for label in tables}
            for i in range(count):
                for label, t in tables.items():
                    body = {"type": "roll", "expr": "1d20", "purpose": f"r{i}"}
                    started = time.perf_counter()
                    r = http.post(
                        f"/api/encounters/{t['id']}/commands",
                        json=body,
                        headers={"Authorization": f"Bearer {t['gm_token']}"},
                    )
                    times[label].append((time.perf_counter() - started) * 1000)
                    r.raise_for_status()
                # a dispute is a delivered kind: each one queues a delivery that never ends
                if i % 10 == 0:
                    seq = http.get(f"/api/encounters/{hooked['id']}").json()["dice"]["rolls"]
                    http.post(
                        f"/api/encounters/{hooked['id']}/commands",
                        json={"type": "dispute", "roll": seq, "reason": "bench"},
                        headers={"Authorization": f"Bearer {hooked['gm_token']}"},
                    ).raise_for_status()
        print(f"{count} commands per encounter, alternating; receiver connections held: "
              f"{len(held)}; load average {os.getloadavg()[0]:.2f}")  # fmt: skip
        for label, ms in times.items():
            p50, p99 = statistics.median(ms), percentile(ms, 99)
            print(f"{label:15} p50 {p50:6.2f} ms  p99 {p99:6.2f} ms")
        hook, plain = times["silent webhook"], times["no webhook"]
        print(f"ratio p50 {statistics.median(hook) / statistics.median(plain):.2f}x  "
              f"p99 {percentile(hook, 99) / percentile(plain, 99):.2f}x")  # fmt: skip
    finally:
        proc.terminate()
        proc.wait(timeout=20)
        asyncio.run(admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
