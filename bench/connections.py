"""Connections one instance holds, run by hand; figures in deploy/SCALING.md ("Connections").

    .venv/bin/python bench/connections.py [--baseline /work/main] [--clients 8] [--seconds 6]

For each source tree (the baseline's, if given, then this one), in the same run: a
throwaway PostgreSQL cluster (tests/ha/tools.py), one `fracas serve` from that tree on
it, its connections counted (pg_stat_activity) idle, at their peak under `--clients`
clients sending commands for `--seconds`, and after 35 s idle.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx

HERE = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(HERE))

from tests.ha.tools import Cluster, free_port, scratch  # noqa: E402


def measure(tree: Path, clients: int, seconds: float) -> str:
    pg = Cluster(scratch("fracas-conn-")).init().start()
    try:
        pg.sql("CREATE DATABASE fracas")
        port = free_port()
        env = {**os.environ, "PYTHONPATH": str(tree)}
        env.pop("DATABASE_URL", None)
        proc = subprocess.Popen(
            [sys.executable, "-m", "server.cli.main", "serve", "--port", str(port),
             "--database-url", pg.url_of("fracas"), "--create-rate", "0"],
            cwd=tree, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        base = f"http://127.0.0.1:{port}"
        for _ in range(300):
            try:
                if httpx.get(base + "/healthz", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.1)

        def count() -> int:
            return int(
                pg.sql(
                    "SELECT count(*) FROM pg_stat_activity"
                    " WHERE datname = 'fracas' AND pid <> pg_backend_pid()"
                )
            )

        idle = count()
        made = [
            httpx.post(base + "/api/encounters", json={"ruleset": "plain-d100", "name": "c"}).json()
            for _ in range(clients)
        ]
        stop = threading.Event()
        sent = [0]

        def client(eid: str, token: str) -> None:
            with httpx.Client(base_url=base, timeout=10) as http:
                while not stop.is_set():
                    http.post(
                        f"/api/encounters/{eid}/commands",
                        json={"type": "roll", "expr": "1d20", "purpose": f"p{sent[0]}"},
                        headers={"Authorization": f"Bearer {token}"},
                    )
                    sent[0] += 1

        threads = [threading.Thread(target=client, args=(m["id"], m["gm_token"])) for m in made]
        for t in threads:
            t.start()
        peak, started = 0, time.monotonic()
        while time.monotonic() - started < seconds:
            peak = max(peak, count())
            time.sleep(0.2)
        stop.set()
        for t in threads:
            t.join()
        time.sleep(35)
        after = count()
        proc.terminate()
        proc.wait(10)
        return (
            f"{tree}: {idle} idle, {peak} at the peak under {clients} clients"
            f" ({sent[0]} commands in {seconds:.0f} s), {after} after 35 s idle"
        )
    finally:
        pg.remove()


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--baseline", type=Path, default=None, help="another source tree (main)")
    p.add_argument("--clients", type=int, default=8)
    p.add_argument("--seconds", type=float, default=6.0)
    args = p.parse_args()
    for tree in [t for t in (args.baseline, HERE) if t is not None]:
        print(measure(tree, args.clients, args.seconds), flush=True)


if __name__ == "__main__":
    main()
