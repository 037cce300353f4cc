"""Websockets that shed bad clients (CONTRACT section 7), against a real `fracas serve`.

A client that stops reading is reset once its updates have waited `--ws-send-timeout`
seconds (1 s here); a frame over the limit closes 1009, a binary one 1003, one that is not
UTF-8 1007; the watchers that behave keep getting every update.
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import re
import socket
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect

from tests.e2e.conftest import Api, Instance, start_server, stop_server

SEND_TIMEOUT = "1"


@pytest.fixture(scope="module")
def shedding(
    database_url: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[Instance, Path]]:
    """A server that resets a websocket after 1 s of unread updates, and its log file."""
    log = tmp_path_factory.mktemp("shedding") / "serve.log"
    inst = start_server(database_url, str(log), options=["--ws-send-timeout", SEND_TIMEOUT])
    yield inst, log
    stop_server(inst)


@pytest.fixture
def api(shedding: tuple[Instance, Path]) -> Iterator[Api]:
    client = Api(shedding[0].base)
    yield client
    client.http.close()


def roll(api: Api, made: dict[str, Any], purpose: str) -> None:
    """A roll whose purpose (padded to near its 2000-character limit) makes a big update:
    a few dozen fill the stuck client's buffers over loopback."""
    padded = f"{purpose} {'x' * 1900}"
    api.ok(made["id"], made["gm_token"], {"type": "roll", "expr": "1d6", "purpose": padded})


def connections(inst: Instance) -> int:
    text = httpx.get(inst.base + "/metrics", timeout=10).text
    # One gauge per role (gm, player, spectator): the instance's sockets are their sum.
    found = re.findall(r"^fracas_websocket_connections\{role=\"\w+\"\} (\d+)$", text, re.M)
    assert found, text
    return sum(int(n) for n in found)


def eventually(check: Any, what: str, tries: int = 200) -> None:
    for _ in range(tries):
        if check():
            return
        time.sleep(0.05)
    raise AssertionError(f"never happened: {what}")


def never_reading_socket(inst: Instance, eid: str) -> socket.socket:
    """A raw TCP client that does the websocket handshake, reads the 101 and nothing more.

    Its receive buffer is made small before connecting, so the server's updates pile up on
    the server's side after a few of them."""
    url = urlsplit(inst.base)
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.settimeout(10)
    sock.connect((url.hostname, url.port))
    key = base64.b64encode(os.urandom(16)).decode()
    sock.sendall(
        (
            f"GET /ws/encounters/{eid} HTTP/1.1\r\nHost: {url.netloc}\r\n"
            "Upgrade: websocket\r\nConnection: Upgrade\r\n"
            f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n"
        ).encode()
    )
    head = b""
    while not head.endswith(b"\r\n\r\n"):  # byte by byte: not one byte of the snapshot
        byte = sock.recv(1)
        assert byte, head
        head += byte
    assert head.startswith(b"HTTP/1.1 101"), head
    return sock


def closed_by_server(sock: socket.socket) -> str:
    """Read what is left until the server's end: "reset" or "eof" (a timeout fails)."""
    try:
        while sock.recv(65536):
            pass
    except ConnectionResetError:
        return "reset"
    return "eof"


def flood_until_reset(api: Api, inst: Instance, made: dict[str, Any], before: int) -> int:
    """Roll until the gauge is back to `before` (the stuck socket gone); rolls made."""
    for i in range(400):
        roll(api, made, f"flood{i}")
        if connections(inst) == before:
            return i + 1
    raise AssertionError("the never-reading socket was still counted after 400 updates")


def test_a_never_reading_websocket_is_closed_within_the_deadline_and_leaves_the_gauge(
    shedding: tuple[Instance, Path], api: Api
) -> None:
    inst, _ = shedding
    made = api.create()
    before = connections(inst)
    sock = never_reading_socket(inst, made["id"])
    with sock:
        eventually(lambda: connections(inst) == before + 1, "the socket joined")
        flood_until_reset(api, inst, made, before)
        # Reset, not a polite close that would have to wait for this client to read.
        assert closed_by_server(sock) == "reset"
    assert connections(inst) == before


def test_a_normal_watcher_gets_every_update_while_a_stuck_one_is_shed(
    shedding: tuple[Instance, Path], api: Api
) -> None:
    inst, _ = shedding
    made = api.create()
    before = connections(inst)
    with connect(f"{inst.ws}/ws/encounters/{made['id']}", open_timeout=5) as good:
        last = json.loads(good.recv(timeout=5))["version"]
        stuck = never_reading_socket(inst, made["id"])
        with stuck:
            eventually(lambda: connections(inst) == before + 2, "both sockets joined")
            rolls = flood_until_reset(api, inst, made, before + 1)
            assert closed_by_server(stuck) == "reset"
        roll(api, made, "after")
        purposes: list[str] = []
        while "after" not in purposes:
            msg = json.loads(good.recv(timeout=10))
            assert msg["type"] == "update" and msg["version"] > last
            last = msg["version"]
            purposes += [e["data"]["purpose"].split()[0] for e in msg["events"]]
        assert purposes == [f"flood{i}" for i in range(rolls)] + ["after"]
        assert connections(inst) == before + 1


@contextlib.contextmanager
def watch(inst: Instance, eid: str) -> Iterator[ClientConnection]:
    """A well-behaved client, past its snapshot.

    Its send buffer is small, as on a real network: a big frame is still being sent when
    the server has read its header and answered (over loopback it would be all sent)."""
    url = urlsplit(inst.base)
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 8192)
    sock.connect((url.hostname, url.port))
    with connect(f"{inst.ws}/ws/encounters/{eid}", sock=sock, open_timeout=5) as ws:
        assert json.loads(ws.recv(timeout=5))["type"] == "snapshot"
        yield ws


def close_code(ws: ClientConnection) -> int | None:
    """The close code the server sent, as the client saw it (None: no close frame read)."""
    with pytest.raises(ConnectionClosed) as closed:
        ws.recv(timeout=10)
    return closed.value.rcvd.code if closed.value.rcvd else None


def test_a_one_mebibyte_client_frame_closes_1009(shedding: tuple[Instance, Path], api: Api) -> None:
    inst, _ = shedding
    made = api.create()
    before = connections(inst)
    with watch(inst, made["id"]) as ws:
        ws.send(json.dumps({"type": "ping", "pad": "x" * (1 << 20)}))
        assert close_code(ws) == 1009
    eventually(lambda: connections(inst) == before, "the socket left the gauge")


def test_a_binary_frame_closes_1003_without_a_traceback(
    shedding: tuple[Instance, Path], api: Api
) -> None:
    inst, log = shedding
    made = api.create()
    start = log.stat().st_size
    with watch(inst, made["id"]) as ws:
        ws.send(b'{"type": "ping"}')
        assert close_code(ws) == 1003
    with watch(inst, made["id"]) as ws:  # the server is fine afterwards
        ws.send(json.dumps({"type": "ping"}))
        assert json.loads(ws.recv(timeout=5))["type"] == "pong"
    with log.open("rb") as f:
        f.seek(start)
        assert b"Traceback" not in f.read()


def test_a_text_frame_that_is_not_utf8_closes_1007_without_a_traceback(
    shedding: tuple[Instance, Path], api: Api
) -> None:
    inst, log = shedding
    made = api.create()
    start = log.stat().st_size
    with watch(inst, made["id"]) as ws:
        ws.send(b'{"type": "\xff"}', text=True)
        assert close_code(ws) == 1007
    with log.open("rb") as f:
        f.seek(start)
        assert b"Traceback" not in f.read()
