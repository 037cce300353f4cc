"""Connection limits against a real server and real slow sockets (issue 20 section 5):
slowloris headers and slow bodies get 408 and are closed, idle keep-alive connections
close, and past the connection cap a new connection gets 503 while /healthz stays served
within it."""

from __future__ import annotations

import contextlib
import json
import socket
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.e2e.conftest import Instance, start_server, stop_server

HEADER_S, BODY_S, KEEP_S, CAP = 1.0, 1.5, 1.0, 40


@pytest.fixture(scope="module")
def limited(database_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Instance]:
    log = tmp_path_factory.mktemp("limits") / "serve.log"
    inst = start_server(
        database_url, str(log),
        options=["--header-timeout", str(HEADER_S), "--body-timeout", str(BODY_S),
                 "--keep-alive-timeout", str(KEEP_S), "--max-connections", str(CAP)],
    )  # fmt: skip
    yield inst
    stop_server(inst)


def raw(inst: Instance) -> socket.socket:
    port = int(inst.base.rsplit(":", 1)[1])
    s = socket.create_connection(("127.0.0.1", port), timeout=10)
    return s


def read_all(s: socket.socket, limit: float = 10.0) -> tuple[bytes, float]:
    """Everything the server sends until it closes, and when it closed (monotonic)."""
    s.settimeout(limit)
    out = b""
    try:
        while chunk := s.recv(65536):
            out += chunk
    except (TimeoutError, ConnectionResetError):
        pass
    return out, time.monotonic()


def closed_by_server(s: socket.socket, within: float) -> bool:
    s.settimeout(within)
    try:
        while s.recv(65536):
            pass
    except TimeoutError:
        return False
    except ConnectionResetError:
        return True
    return True


def test_slowloris_connections_get_408_and_are_closed_after_the_header_timeout(
    limited: Instance,
) -> None:
    socks = [raw(limited) for _ in range(20)]
    start = time.monotonic()
    for s in socks:
        s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n")  # and never the blank line
    for i in range(3):  # a byte now and then: keeps no keep-alive timer from firing
        time.sleep(0.3)
        for s in socks:
            with contextlib.suppress(OSError):
                s.sendall(f"X-{i}: y\r\n".encode())
    assert httpx.get(limited.base + "/healthz", timeout=5).status_code == 200
    for s in socks:
        answer, at = read_all(s)
        assert answer.startswith(b"HTTP/1.1 408"), answer[:80]
        assert b'"code": "timeout"' in answer
        assert at - start < HEADER_S + 2.0
        s.close()


def test_a_slow_body_gets_408_after_the_body_timeout_and_the_connection_closes(
    limited: Instance,
) -> None:
    made = httpx.post(limited.base + "/api/encounters",
                      json={"ruleset": "plain-d100", "name": "Slow"}).json()  # fmt: skip
    s = raw(limited)
    body = json.dumps({"type": "add_combatant", "name": "Drip", "side": "a", "preset": "guard"})
    s.sendall(
        f"POST /api/encounters/{made['id']}/commands HTTP/1.1\r\nHost: x\r\n"
        f"Authorization: Bearer {made['gm_token']}\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\n\r\n".encode()
    )
    start = time.monotonic()
    for ch in body[:12]:  # a byte every 0.2 s: never done within the deadline
        try:
            s.sendall(ch.encode())
        except OSError:
            break  # answered and closed meanwhile
        time.sleep(0.2)
    answer, at = read_all(s)
    assert answer.startswith(b"HTTP/1.1 408"), answer[:120]
    head, _, payload = answer.partition(b"\r\n\r\n")
    assert b"connection: close" in head.lower()
    assert json.loads(payload)["error"]["code"] == "timeout"
    assert BODY_S - 0.2 < at - start < BODY_S + 2.0
    board = httpx.get(f"{limited.base}/api/encounters/{made['id']}").json()
    assert board["combatants"] == []  # nothing appended
    s.close()


def test_an_idle_keep_alive_connection_is_closed_after_the_keep_alive_timeout(
    limited: Instance,
) -> None:
    s = raw(limited)
    s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
    s.settimeout(5)
    assert s.recv(65536).startswith(b"HTTP/1.1 200")
    assert closed_by_server(s, KEEP_S + 2.0)
    s.close()


def test_past_the_connection_cap_a_new_connection_gets_503_and_healthz_recovers(
    limited: Instance,
) -> None:
    idle = []
    try:
        for _ in range(CAP):
            idle.append(raw(limited))
        time.sleep(0.2)
        s = raw(limited)
        s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        answer, _ = read_all(s, 5)
        s.close()
        assert answer.startswith(b"HTTP/1.1 503"), answer[:80]
        assert b"retry-after: 2" in answer.lower()
        assert json.loads(answer.partition(b"\r\n\r\n")[2])["error"]["code"] == "unavailable"
    finally:
        for c in idle:
            c.close()
    deadline = time.monotonic() + 5
    while True:  # the idle ones gone, the server answers again
        try:
            if httpx.get(limited.base + "/healthz", timeout=2).status_code == 200:
                break
        except httpx.HTTPError:
            pass
        assert time.monotonic() < deadline
        time.sleep(0.1)


def test_the_unit_file_raises_the_open_file_limit_and_nginx_has_the_matching_limits() -> None:
    root = Path(__file__).resolve().parents[2] / "deploy"
    unit = (root / "fracas@.service").read_text().splitlines()
    assert "LimitNOFILE=65536" in unit
    nginx = (root / "nginx.conf").read_text()
    for directive in ("client_header_timeout", "client_body_timeout", "keepalive_timeout",
                      "limit_conn_zone", "limit_conn "):  # fmt: skip
        assert directive in nginx, directive
