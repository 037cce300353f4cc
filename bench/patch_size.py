"""Update sizes on the live feed: whole boards against `patch=1`, over a scripted fight.

Starts one `fracas serve` on --url (a database it may create tables in), plays the
six-combatant d20-na fight of tests/e2e/scripted_fight.py (a hidden GM roll every third
move) --fights times (the server's dice make each fight different; the figures pool
them), and records every update a GM, a player (one combatant's token) and a spectator
receive with and without `patch=1`. Prints the median, p90 and max bytes per stream
(UTF-8, as sent) and the median of its parts, as a Markdown table, where the patch
bytes go by board key, and the time to encode one median update the old way
(json.dumps of to_builtins, ASCII) and the new (msgspec). Run by hand:
`python -m bench.patch_size --url postgresql://...`; run from another checkout's
folder (the script copied there) to measure that checkout's server the same way.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import httpx
import msgspec
from websockets.sync.client import connect

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from server.live.hub import message
from tests.e2e.conftest import Instance, start_server, stop_server
from tests.e2e.scripted_fight import open_fight, play


def collect(url: str, out: list[str], until: list[int], stop: threading.Event) -> None:
    with connect(url, open_timeout=5, max_size=None) as ws:
        while not stop.is_set():
            try:
                raw = ws.recv(timeout=0.5)
            except TimeoutError:
                continue
            out.append(str(raw))


def _size(value: object) -> int:
    """Bytes of `value` as compact UTF-8 JSON (what the server sends)."""
    return len(json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode())


def watch_one(
    inst: Instance,
    http: httpx.Client,
    fight: dict[str, Any],
    steps: int,
    streams: dict[str, list[str]],
) -> int:
    """Play one fight with a GM, a player and a spectator watching, each with and
    without `patch=1`; their messages are added to `streams`. The last version."""
    stop = threading.Event()
    threads = []
    player = next(iter(fight["players"].values()))
    for role, token in (("gm", fight["gm"]), ("player", player),
                        ("spectator", fight["spectator"])):  # fmt: skip
        for kind in ("board", "patch"):
            q = f"token={token}" + ("&patch=1" if kind == "patch" else "")
            out = streams.setdefault(f"{role} {kind}", [])
            t = threading.Thread(
                target=collect,
                args=(f"{inst.ws}/ws/encounters/{fight['id']}?{q}", out, [], stop),
                daemon=True,
            )
            t.start()
            threads.append(t)
    time.sleep(0.5)
    last = play(http, fight, steps)
    time.sleep(1.0)
    stop.set()
    for t in threads:
        t.join()
    return last


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--url", required=True)
    p.add_argument("--steps", type=int, default=200)
    p.add_argument("--fights", type=int, default=5, help="fights pooled (default 5)")
    args = p.parse_args()
    log = Path(tempfile.mkdtemp()) / "serve.log"
    inst = start_server(args.url, str(log))
    try:
        http = httpx.Client(base_url=inst.base, timeout=10)
        streams: dict[str, list[str]] = {}
        for _ in range(args.fights):  # the server's dice decide each fight's length
            fight = open_fight(http)
            last = watch_one(inst, http, fight, args.steps, streams)
            print(f"fight: {len(fight['players'])} combatants, last version {last}")
        medians: dict[str, str] = {}
        print("| stream | updates | median update | its events | its board / patch | p90 | max |")
        print("| --- | --- | --- | --- | --- | --- | --- |")
        for name, msgs in streams.items():
            updates = [m for m in msgs if json.loads(m)["type"] == "update"]
            sizes = sorted(len(m.encode()) for m in updates)
            med = statistics.median(sizes)
            medians[name] = next(m for m in updates if len(m.encode()) >= med)
            parts = [json.loads(m) for m in updates]
            key = "patch" if "patch" in name else "board"
            ev = statistics.median(_size(u["events"]) for u in parts)
            rest = statistics.median(_size(u.get(key)) for u in parts)
            role, kind = name.split()
            print(
                f"| {role}, {'patch=1' if kind == 'patch' else 'board'} | {len(sizes)} | "
                f"{med:,.0f} B | {ev:,.0f} B | {rest:,.0f} B | "
                f"{sizes[int(0.9 * (len(sizes) - 1))]:,} B | {sizes[-1]:,} B |"
            )
        for role in ("gm", "player", "spectator"):
            shares: dict[str, int] = {}
            for u in (json.loads(m) for m in streams[f"{role} patch"]):
                for op in u.get("patch", []):
                    top = op["path"].split("/")[1] if op["path"] else ""
                    shares[top] = shares.get(top, 0) + _size(op)
            total = sum(shares.values()) or 1
            print(
                f"{role} patch bytes by board key:",
                ", ".join(
                    f"{k} {v / total:.0%}"
                    for k, v in sorted(shares.items(), key=lambda kv: -kv[1])[:5]
                ),
            )
        body = json.loads(medians["gm board"])
        n = 2000
        t0 = time.perf_counter()
        for _ in range(n):
            json.dumps(msgspec.to_builtins(body), ensure_ascii=True, separators=(",", ":"))
        old = (time.perf_counter() - t0) / n
        t0 = time.perf_counter()
        for _ in range(n):
            message(body)
        new = (time.perf_counter() - t0) / n
        size = len(medians["gm board"])
        print(
            f"encode one {size} B update: json.dumps {old * 1e6:.0f} us, "
            f"msgspec (UTF-8 kept) {new * 1e6:.0f} us"
        )
    finally:
        stop_server(inst)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
