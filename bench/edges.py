"""Issue 20 section 5, by hand: slow clients and silent webhook receivers, on a given tree.

Serves one `fracas serve` from the source tree `--tree` (default: this checkout; give
another checkout, e.g. main, for a baseline in the same run) on a fresh database, then:

1. slowloris: `--slow` connections send a request's headers a line every second and never
   finish; after `--hold` seconds, how many the server still holds open, and how long
   `/healthz` takes meanwhile;
2. silent receivers: `--silent` encounters whose webhook goes to a listener that accepts
   and never answers (FRACAS_WEBHOOK_TIMEOUT=10), each queueing two deliveries, then one
   encounter with a healthy receiver: how long its delivery takes to arrive.

    .venv/bin/python bench/edges.py [--tree /work/main] [--url postgresql://...]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import secrets
import socket
import subprocess
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parent.parent


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def serve(tree: Path, url: str) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    env = {**os.environ, "FRACAS_WEBHOOK_ALLOW": "127.0.0.1", "FRACAS_WEBHOOK_TIMEOUT": "10",
           "FRACAS_WEBHOOK_RETRY": "60"}  # fmt: skip
    env.pop("DATABASE_URL", None)
    log = tempfile.NamedTemporaryFile(prefix="fracas-edges-", suffix=".log", delete=False)  # noqa: SIM115
    proc = subprocess.Popen(
        [sys.executable, "-m", "server.cli.main", "serve", "--port", str(port),
         "--database-url", url, "--create-rate", "0"],
        stdout=log, stderr=subprocess.STDOUT, env=env, cwd=tree,
    )  # fmt: skip
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        with contextlib.suppress(httpx.HTTPError):
            if httpx.get(base + "/healthz", timeout=1).status_code == 200:
                return proc, base
        time.sleep(0.1)
    proc.kill()
    raise SystemExit("the server did not start")


def slowloris(base: str, count: int, hold: float) -> tuple[int, float]:
    port = int(base.rsplit(":", 1)[1])
    socks = []
    for _ in range(count):
        s = socket.create_connection(("127.0.0.1", port))
        s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n")
        s.setblocking(False)
        socks.append(s)
    started = time.monotonic()
    n = 0
    while time.monotonic() - started < hold:
        time.sleep(1.0)
        n += 1
        for s in socks:
            with contextlib.suppress(OSError):
                s.sendall(f"X-{n}: y\r\n".encode())
    t0 = time.perf_counter()
    httpx.get(base + "/healthz", timeout=30)
    healthz_ms = (time.perf_counter() - t0) * 1000
    open_ = 0
    for s in socks:
        try:
            s.recv(1)  # an answer (408) or the end: the server let it go
        except BlockingIOError:
            open_ += 1  # nothing to read and not closed: still held
        except OSError:
            pass
        s.close()
    return open_, healthz_ms


def silent_receivers(base: str, count: int) -> float:
    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen(1024)
    got: list[float] = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            self.rfile.read(int(self.headers["Content-Length"]))
            got.append(time.monotonic())
            self.send_response(200)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args: Any) -> None:
            pass

    healthy = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=healthy.serve_forever, daemon=True).start()
    http = httpx.Client(base_url=base, timeout=30)

    def encounter(url: str) -> dict[str, Any]:
        made: dict[str, Any] = http.post(
            "/api/encounters", json={"ruleset": "plain-d100", "name": "b"}
        ).json()
        auth = {"Authorization": f"Bearer {made['gm_token']}"}
        hook = {"url": url, "kinds": ["round_started", "turn_started"]}
        path = f"/api/encounters/{made['id']}/webhook"
        http.put(path, headers=auth, json=hook).raise_for_status()
        for name, preset in (("A", "guard"), ("B", "bandit")):
            http.post(f"/api/encounters/{made['id']}/commands", headers=auth,
                      json={"type": "add_combatant", "name": name, "side": name,
                            "preset": preset}).raise_for_status()  # fmt: skip
        return {**made, "auth": auth}

    def start(made: dict[str, Any]) -> None:
        http.post(f"/api/encounters/{made['id']}/commands", headers=made["auth"],
                  json={"type": "start_combat", "dice": [50, 20]}).raise_for_status()  # fmt: skip

    quiet = [encounter(f"http://127.0.0.1:{silent.getsockname()[1]}/") for _ in range(count)]
    ok = encounter(f"http://127.0.0.1:{healthy.server_address[1]}/")
    for made in quiet:
        start(made)
    time.sleep(1.5)
    sent = time.monotonic()
    start(ok)
    while not got and time.monotonic() - sent < 60:
        time.sleep(0.01)
    healthy.shutdown()
    silent.close()
    http.close()
    return (got[0] - sent) if got else float("inf")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tree", type=Path, default=ROOT)
    parser.add_argument("--url", default="postgresql://postgres@127.0.0.1:5432/postgres")
    parser.add_argument("--slow", type=int, default=300)
    parser.add_argument("--hold", type=float, default=15.0)
    parser.add_argument("--silent", type=int, default=40)
    args = parser.parse_args()
    import asyncpg

    name = f"fracas_bench_{secrets.token_hex(4)}"

    async def admin(sql: str) -> None:
        conn = await asyncpg.connect(args.url)
        try:
            await conn.execute(sql)
        finally:
            await conn.close()

    asyncio.run(admin(f'CREATE DATABASE "{name}"'))
    proc, base = serve(args.tree, args.url.rsplit("/", 1)[0] + "/" + name)
    try:
        held, healthz = slowloris(base, args.slow, args.hold)
        print(f"tree {args.tree}: slowloris {args.slow} connections, after {args.hold:g} s: "
              f"{held} still held; /healthz meanwhile {healthz:.1f} ms")  # fmt: skip
        delay = silent_receivers(base, args.silent)
        print(f"tree {args.tree}: {args.silent} silent receivers: healthy delivery after "
              f"{delay:.2f} s; load average {os.getloadavg()[0]:.2f}")  # fmt: skip
    finally:
        proc.terminate()
        proc.wait(10)
        asyncio.run(admin(f'DROP DATABASE "{name}" WITH (FORCE)'))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
