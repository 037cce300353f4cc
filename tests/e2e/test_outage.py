"""PostgreSQL restarted in the middle of a fight: clients are told to retry, nothing is
lost or doubled, watchers resume with no gap.

The test starts its OWN embedded PostgreSQL in a scratch folder (never the machine's, nor
the session's test server), a real `fracas serve` on it, a websocket watcher and a client
that sends commands with Idempotency-Keys and retries on 503 and on connection errors.
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from server.store.embedded import EmbeddedPostgres
from tests.e2e.conftest import Api, Instance, start_server, stop_server
from tests.e2e.test_http import setup_fight

BOUND = 60.0  # seconds any wait below may take before the test gives up (hang guard)


@dataclass
class Client:
    """Sends `roll` commands (every third an `adjust`), each retried with its key."""

    base: str
    eid: str
    gm: str
    acked: dict[str, dict[str, Any]] = field(default_factory=dict)
    refusals: list[tuple[int, dict[str, str], Any]] = field(default_factory=list)
    unexpected: list[str] = field(default_factory=list)
    transport_errors: int = 0
    acked_at: list[float] = field(default_factory=list)
    done: threading.Event = field(default_factory=threading.Event)

    def body(self, i: int) -> dict[str, Any]:
        key = f"k{i}"
        if i % 3 == 2:
            delta = -1 if i % 2 else 1
            return {
                "type": "adjust",
                "combatant": "c1",
                "resource": "hp",
                "delta": delta,
                "reason": key,
            }
        return {"type": "roll", "expr": "1d20", "purpose": key}

    def run(self) -> None:
        headers = {"Authorization": f"Bearer {self.gm}"}
        with httpx.Client(base_url=self.base, timeout=10) as http:
            i = 0
            deadline = time.monotonic() + 3 * BOUND
            while not self.done.is_set() and time.monotonic() < deadline:
                key = f"k{i}"
                while time.monotonic() < deadline:
                    try:
                        r = http.post(
                            f"/api/encounters/{self.eid}/commands",
                            json=self.body(i),
                            headers={**headers, "Idempotency-Key": key},
                        )
                    except httpx.TransportError:
                        self.transport_errors += 1
                        time.sleep(0.2)
                        continue
                    if r.status_code == 200:
                        self.acked[key] = r.json()
                        self.acked_at.append(time.monotonic())
                        break
                    body = _json(r)
                    if r.status_code == 503:
                        self.refusals.append((r.status_code, dict(r.headers), body))
                        time.sleep(float(r.headers.get("retry-after", "1")))
                        continue
                    self.unexpected.append(f"{r.status_code} {r.text[:300]}")
                    return
                i += 1
                time.sleep(0.02)


@dataclass
class Watcher:
    """A spectator websocket that reconnects with `after` and keeps every message."""

    ws_base: str
    eid: str
    token: str
    messages: list[dict[str, Any]] = field(default_factory=list)
    reconnects: int = 0
    stop: threading.Event = field(default_factory=threading.Event)

    @property
    def version(self) -> int:
        return self.messages[-1]["version"] if self.messages else 0

    def run(self) -> None:
        deadline = time.monotonic() + 3 * BOUND
        while not self.stop.is_set() and time.monotonic() < deadline:
            url = f"{self.ws_base}/ws/encounters/{self.eid}?token={self.token}"
            if self.messages:
                url += f"&after={self.version}"
            try:
                with connect(url, open_timeout=5) as ws:
                    while not self.stop.is_set():
                        try:
                            self.messages.append(json.loads(ws.recv(timeout=0.5)))
                        except TimeoutError:
                            continue
            except (ConnectionClosed, OSError):
                self.reconnects += 1
                time.sleep(0.2)


def _json(r: httpx.Response) -> Any:
    try:
        return r.json()
    except ValueError:
        return r.text


def _wait(cond: Any, what: str, client: Client) -> None:
    deadline = time.monotonic() + BOUND
    while not cond():
        assert time.monotonic() < deadline, (
            f"gave up waiting for {what}: {len(client.acked)} acknowledged,"
            f" {len(client.refusals)} answers 503, {client.transport_errors} connection errors,"
            f" unexpected: {client.unexpected}"
        )
        time.sleep(0.05)


def test_a_postgres_restart_mid_fight_loses_and_doubles_no_acknowledged_command(
    scratch_dir: Path,
) -> None:
    pg = EmbeddedPostgres(scratch_dir / "home", database="fracas")
    url = pg.start()
    server: Instance | None = None
    threads: list[threading.Thread] = []
    client: Client | None = None
    watcher: Watcher | None = None
    api: Api | None = None
    try:
        server = start_server(url, str(scratch_dir / "serve.log"))
        api = Api(server.base)
        fight = setup_fight(api)
        client = Client(server.base, fight["id"], fight["gm"])
        watcher = Watcher(server.ws, fight["id"], fight["spectator"])
        threads = [threading.Thread(target=t.run, daemon=True) for t in (watcher, client)]
        for t in threads:
            t.start()
        _wait(lambda: len(client.acked) >= 10, "10 acknowledged commands", client)

        pg.stop()  # mid-fight: the client keeps sending
        _wait(
            lambda: len(client.refusals) >= 2 or client.unexpected,
            "commands answered 503 during the outage",
            client,
        )
        assert client.unexpected == []
        health = api.http.get("/healthz")
        assert health.status_code == 503
        assert health.json() == {"status": "down", "database": "unreachable"}
        assert health.headers["retry-after"].isdigit()
        outage_acks = len(client.acked)

        assert pg.start() == url  # the same socket, the same data
        restarted = time.monotonic()
        _wait(
            lambda: len(client.acked) >= outage_acks + 10, "10 commands after the restart", client
        )
        recovery = next(t for t in client.acked_at if t > restarted) - restarted
        print(
            f"first command acknowledged {recovery:.2f} s after PostgreSQL was back;"
            f" {len(client.refusals)} answers 503, {client.transport_errors} connection errors"
        )
        client.done.set()
        threads[1].join(BOUND)
        _wait(
            lambda: watcher.version >= max(a["version"] for a in client.acked.values()),
            "the watcher to catch up",
            client,
        )
        watcher.stop.set()
        threads[0].join(BOUND)

        assert client.unexpected == []
        for status, headers, body in client.refusals:
            assert status == 503
            assert body["error"]["code"] == "unavailable", body
            assert headers["retry-after"].isdigit()

        # Every acknowledged command is in the stream once, as its answer said.
        stream = api.events(fight["id"], fight["gm"])
        by_version = {e["version"]: e for e in stream}
        for answer in client.acked.values():
            for event in answer["events"]:
                assert by_version[event["version"]]["hash"] == event["hash"]
        keys = [
            e["data"].get("purpose") or e["data"].get("reason")
            for e in stream
            if e["type"] in ("die_rolled", "resource_changed")
        ]
        ours = [k for k in keys if k and k.startswith("k")]
        assert sorted(ours) == sorted(client.acked), "lost or doubled commands"

        # The watcher saw every version exactly once, in order, across the outage.
        first = watcher.messages[0]
        assert first["type"] == "snapshot"
        seen = [e["version"] for m in watcher.messages[1:] for e in m["events"]]
        assert seen == list(range(first["version"] + 1, stream[-1]["version"] + 1))
    finally:
        if client is not None:
            client.done.set()
        if watcher is not None:
            watcher.stop.set()
        for t in threads:
            t.join(10)
        if api is not None:
            api.http.close()
        if server is not None:
            stop_server(server)
        pg.stop()
