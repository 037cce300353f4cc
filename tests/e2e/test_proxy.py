"""Three instances behind a real nginx (deploy/nginx.conf), one killed mid-fight.

nginx runs in the foreground from a config generated from deploy/nginx.conf with the
loopback ports substituted, with its own prefix, pid and logs in the test's temp folder
(never the system service). Skipped where nginx is not installed (.ci/run installs the
Debian package).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import subprocess
import threading
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidStatus
from websockets.sync.client import connect

from tests.e2e.conftest import Instance, free_port, start_server, stop_server

ROOT = Path(__file__).resolve().parents[2]


def _nginx() -> str | None:
    found = shutil.which("nginx")
    if found:
        return found
    return "/usr/sbin/nginx" if os.access("/usr/sbin/nginx", os.X_OK) else None


NGINX = _nginx()
pytestmark = pytest.mark.skipif(
    NGINX is None,
    reason="nginx is not installed: install the Debian package 'nginx' (.ci/run does)",
)


def nginx_config(folder: Path, ports: list[int], listen: int) -> Path:
    """deploy/nginx.conf with fracasN:800N -> 127.0.0.1:<port N>, inside a main config
    whose pid, logs and temp paths are all in `folder`."""
    site = (ROOT / "deploy" / "nginx.conf").read_text(encoding="utf-8")
    for number, port in enumerate(ports, start=1):
        upstream = f"fracas{number}:800{number}"
        assert upstream in site, f"deploy/nginx.conf no longer names {upstream}"
        site = site.replace(upstream, f"127.0.0.1:{port}")
    assert "listen 80;" in site
    site = site.replace("listen 80;", f"listen 127.0.0.1:{listen};")
    (folder / "fracas.conf").write_text(site, encoding="utf-8")
    # As root, workers would run as nobody, who may not enter the 0700 temp folder.
    user = "user root;\n" if os.geteuid() == 0 else ""
    main = folder / "nginx.conf"
    main.write_text(
        f"""{user}worker_processes 1;
pid {folder}/nginx.pid;
error_log {folder}/error.log info;
events {{ worker_connections 1024; }}
http {{
    access_log {folder}/access.log;
    client_body_temp_path {folder}/body;
    proxy_temp_path {folder}/proxy;
    fastcgi_temp_path {folder}/fastcgi;
    uwsgi_temp_path {folder}/uwsgi;
    scgi_temp_path {folder}/scgi;
    include {folder}/fracas.conf;
}}
""",
        encoding="utf-8",
    )
    return main


@contextlib.contextmanager
def proxy_over_three(database_url: str, folder: Path) -> Iterator[tuple[str, list[Instance]]]:
    """Three `fracas serve` on the database and nginx in front: (proxy base, instances)."""
    assert NGINX is not None
    instances: list[Instance] = []
    nginx: subprocess.Popen[bytes] | None = None
    try:
        for number in range(1, 4):
            instances.append(start_server(database_url, str(folder / f"fracas{number}.log")))
        ports = [int(i.base.rsplit(":", 1)[1]) for i in instances]
        listen = free_port()
        conf = nginx_config(folder, ports, listen)
        argv = [NGINX, "-p", str(folder), "-c", str(conf), "-e", str(folder / "error.log")]
        with open(folder / "nginx.out", "ab") as out:
            nginx = subprocess.Popen([*argv, "-g", "daemon off;"], stdout=out, stderr=out)
        base = f"http://127.0.0.1:{listen}"
        deadline = time.monotonic() + 20
        while True:
            if nginx.poll() is not None:
                raise RuntimeError(f"nginx exited: {(folder / 'nginx.out').read_text()}")
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(base + "/healthz", timeout=1).status_code == 200:
                    break
            if time.monotonic() > deadline:
                raise RuntimeError("nginx did not answer in 20 s")
            time.sleep(0.05)
        yield base, instances
    finally:
        if nginx is not None:
            nginx.send_signal(signal.SIGQUIT)  # graceful: workers finish, then exit
            try:
                nginx.wait(10)
            except subprocess.TimeoutExpired:
                nginx.kill()
                nginx.wait()
        for instance in instances:
            stop_server(instance)


@dataclass
class Watcher:
    """A spectator socket through the proxy that reconnects with after=<last version>."""

    url: str
    snapshot: int = -1
    versions: list[int] = field(default_factory=list)
    purposes: list[str] = field(default_factory=list)
    reconnects: int = 0
    errors: list[str] = field(default_factory=list)
    ready: threading.Event = field(default_factory=threading.Event)
    stop: threading.Event = field(default_factory=threading.Event)

    @property
    def last(self) -> int:
        return self.versions[-1] if self.versions else self.snapshot

    def run(self) -> None:
        deadline = time.monotonic() + 120  # bounded, whatever happens
        while not self.stop.is_set() and time.monotonic() < deadline:
            url = self.url if self.snapshot < 0 else f"{self.url}&after={self.last}"
            try:
                with connect(url, open_timeout=5, close_timeout=1) as ws:
                    while not self.stop.is_set():
                        try:
                            raw = ws.recv(timeout=0.2)
                        except TimeoutError:
                            continue
                        self.take(json.loads(raw))
            except (ConnectionClosed, InvalidHandshake, InvalidStatus, OSError) as e:
                if self.stop.is_set():
                    return
                self.errors.append(repr(e)[:200])
                self.reconnects += 1
                time.sleep(0.1)

    def take(self, message: dict[str, Any]) -> None:
        if message["type"] == "snapshot":
            assert self.snapshot < 0, "a second snapshot: the reconnect lost its after="
            self.snapshot = message["version"]
            self.ready.set()
        elif message["type"] == "update":
            for event in message["events"]:
                self.versions.append(event["version"])
                if event["type"] == "die_rolled":
                    self.purposes.append(event["data"]["purpose"])


def websocket_count(instance: Instance) -> int:
    text = httpx.get(instance.base + "/metrics", timeout=5).text
    # One gauge per role (gm, player, spectator): the instance's sockets are their sum.
    found = re.findall(r"^fracas_websocket_connections\{role=\"\w+\"\} (\d+)", text, re.M)
    assert found, text
    return sum(int(n) for n in found)


def send_until_it_lands(http: httpx.Client, eid: str, gm: str, purpose: str) -> int:
    """One roll with an Idempotency-Key, sent again with the same key when the proxy
    answers 502 or the connection breaks (the instance died under it): the stored
    outcome comes back if the first attempt was applied. Returns the attempts needed."""
    body = {"type": "roll", "expr": "1d6", "purpose": purpose}
    headers = {"Authorization": f"Bearer {gm}", "Idempotency-Key": purpose}
    for attempt in range(1, 6):
        try:
            r = http.post(f"/api/encounters/{eid}/commands", json=body, headers=headers)
        except httpx.TransportError:
            time.sleep(0.2)
            continue
        if r.status_code in (502, 503, 504):
            time.sleep(0.2)
            continue
        assert r.status_code == 200, r.text
        return attempt
    raise AssertionError(f"{purpose}: not applied after 5 attempts")


def test_watchers_and_commands_fail_over_to_the_other_instances_when_one_is_killed(
    database_url: str, tmp_path: Path
) -> None:
    with proxy_over_three(database_url, tmp_path) as (base, instances):
        ws_base = base.replace("http://", "ws://")
        with httpx.Client(base_url=base, timeout=10) as http:
            made = http.post("/api/encounters", json={"ruleset": "plain-d100", "name": "Proxy"})
            assert made.status_code == 201, made.text
            eid, gm = made.json()["id"], made.json()["gm_token"]
            spectator = made.json()["spectator_token"]
            add = {"type": "add_combatant", "name": "Guard", "side": "watch", "preset": "guard"}
            r = http.post(
                f"/api/encounters/{eid}/commands",
                json=add,
                headers={"Authorization": f"Bearer {gm}"},
            )
            assert r.status_code == 200, r.text

            watchers = [
                Watcher(f"{ws_base}/ws/encounters/{eid}?token={spectator}") for _ in range(6)
            ]
            threads = [threading.Thread(target=w.run, daemon=True) for w in watchers]
            try:
                for w, t in zip(watchers, threads, strict=True):
                    t.start()
                    assert w.ready.wait(10), w.errors
                counts = [websocket_count(i) for i in instances]
                # One encounter, one instance (the consistent hash of its id, issue 26).
                assert sorted(counts) == [0, 0, 6], counts
                victim = instances[counts.index(max(counts))]
                on_victim = max(counts)
                survivors = [i for i in instances if i is not victim]

                def kill_victim() -> None:
                    victim.proc.send_signal(signal.SIGKILL)
                    victim.proc.wait(10)

                purposes = [f"p-{uuid.uuid4().hex[:8]}-{n}" for n in range(40)]
                attempts: list[int] = []
                killer = threading.Thread(target=kill_victim)
                for n, purpose in enumerate(purposes):
                    if n == 15:  # mid-fight, while commands keep coming: kill -9
                        killer.start()
                    attempts.append(send_until_it_lands(http, eid, gm, purpose))
                killer.join(10)

                events = http.get(
                    f"/api/encounters/{eid}/events",
                    params={"after": 0},
                    headers={"Authorization": f"Bearer {gm}"},
                ).json()["events"]
                final = events[-1]["version"]
                deadline = time.monotonic() + 20
                while time.monotonic() < deadline and any(w.last < final for w in watchers):
                    time.sleep(0.1)
                # Those on the killed instance came back through the proxy on the others.
                assert sum(websocket_count(i) for i in survivors) == 6
            finally:
                for w in watchers:
                    w.stop.set()
                for t in threads:
                    t.join(10)

            # The log: versions gapless, every command applied exactly once.
            assert [e["version"] for e in events] == list(range(1, final + 1))
            rolled = [e["data"]["purpose"] for e in events if e["type"] == "die_rolled"]
            assert rolled == purposes
            assert all(a <= 5 for a in attempts)

            # Every watcher, reconnected or not, saw each version once and in order.
            for w in watchers:
                assert w.versions == list(range(w.snapshot + 1, final + 1)), w.errors
                assert w.purposes == purposes
            assert sum(1 for w in watchers if w.reconnects > 0) >= on_victim
