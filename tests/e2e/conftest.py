"""Real `fracas serve` processes on the session's test database, and HTTP/ws helpers."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import httpx
import pytest


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@dataclass
class Instance:
    """One running `fracas serve`."""

    base: str
    proc: subprocess.Popen[bytes]
    log: Any = None

    @property
    def ws(self) -> str:
        return self.base.replace("http://", "ws://")


def start_server(
    database_url: str,
    log_path: str | None = None,
    port: int | None = None,
    options: Sequence[str] = (),
    create_rate: int = 0,
) -> Instance:
    """`fracas serve` on `port` (a free one if not given) with more command line `options`;
    its output appends to log_path.

    `create_rate` is `--create-rate` (0, the tests' default: no limit on creations)."""
    port = port or free_port()
    log = open(log_path or os.devnull, "ab")  # noqa: SIM115 - closed in stop_server
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    env.pop("DATABASE_URL", None)
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "server.cli.main",
            "serve",
            "--port",
            str(port),
            "--database-url",
            database_url,
            *options,
            "--create-rate",
            str(create_rate),
        ],
        env=env,
        stdout=log,
        stderr=log,
    )
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            log.close()
            raise RuntimeError(f"fracas serve exited with {proc.returncode} (log: {log_path})")
        try:
            if httpx.get(base + "/healthz", timeout=1).status_code == 200:
                return Instance(base, proc, log)
        except httpx.HTTPError:
            time.sleep(0.05)
    proc.kill()
    proc.wait()
    log.close()
    raise RuntimeError("fracas serve did not become healthy in 30 s")


def stop_server(instance: Instance) -> None:
    instance.proc.terminate()
    try:
        instance.proc.wait(10)
    except subprocess.TimeoutExpired:
        instance.proc.kill()
        instance.proc.wait()
    if instance.log is not None:
        instance.log.close()


@pytest.fixture(scope="session")
def servers(
    database_url: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[Instance, Instance]]:
    """Two server processes on one database (their logs in the session's temp folder)."""
    logs = tmp_path_factory.mktemp("server-logs")
    one = start_server(database_url, str(logs / "one.log"))
    two = start_server(database_url, str(logs / "two.log"))
    yield one, two
    stop_server(one)
    stop_server(two)


class Api:
    """A small synchronous client for one instance."""

    def __init__(self, base: str) -> None:
        self.base = base
        self.http = httpx.Client(base_url=base, timeout=10)

    def create(self, ruleset: str = "plain-d100", **extra: Any) -> dict[str, Any]:
        r = self.http.post("/api/encounters", json={"ruleset": ruleset, "name": "Test", **extra})
        assert r.status_code == 201, r.text
        body: dict[str, Any] = r.json()
        return body

    def command(
        self, eid: str, token: str, body: dict[str, Any], key: str | None = None
    ) -> httpx.Response:
        headers = {"Authorization": f"Bearer {token}"}
        if key:
            headers["Idempotency-Key"] = key
        return self.http.post(f"/api/encounters/{eid}/commands", json=body, headers=headers)

    def ok(self, eid: str, token: str, body: dict[str, Any], key: str | None = None) -> Any:
        r = self.command(eid, token, body, key)
        assert r.status_code == 200, r.text
        return r.json()

    def board(self, eid: str, token: str | None = None) -> dict[str, Any]:
        """The board for the token's role (the public board without one)."""
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        r = self.http.get(f"/api/encounters/{eid}", headers=headers)
        assert r.status_code == 200, r.text
        board: dict[str, Any] = r.json()
        return board

    def events(self, eid: str, token: str, after: int = 0) -> list[dict[str, Any]]:
        r = self.http.get(
            f"/api/encounters/{eid}/events",
            params={"after": after},
            headers={"Authorization": f"Bearer {token}"},
        )
        assert r.status_code == 200, r.text
        events: list[dict[str, Any]] = r.json()["events"]
        return events


@pytest.fixture(scope="session")
def api(servers: tuple[Instance, Instance]) -> Iterator[Api]:
    client = Api(servers[0].base)
    yield client
    client.http.close()


@pytest.fixture(scope="session")
def api2(servers: tuple[Instance, Instance]) -> Iterator[Api]:
    client = Api(servers[1].base)
    yield client
    client.http.close()
