"""The hub's fan-out below ASGI (server/ws_transport.py), against a real `fracas serve`.

The hub frames each role's update once and writes it to every watcher's transport from its
own task. What that path could break: a slow reader among fast ones (it must be the only
one dropped, with 1013 after every update it was sent, and resume with `after` with no gap
and no duplicate), a resume while commands keep coming (catch-up then live, no gap), and
many watchers of two roles (each role's bytes, the same for every watcher of the role).
"""

from __future__ import annotations

import contextlib
import json
import re
import socket
import threading
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect

from tests.e2e.conftest import Api, Instance, start_server, stop_server

BACKLOG = 4  # updates a client may be behind before 1013: small, so a few rolls reach it


@pytest.fixture(scope="module")
def server(database_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Instance]:
    """A server that drops a client 4 updates behind, and resets one only after 30 s."""
    log = tmp_path_factory.mktemp("fanout") / "serve.log"
    options = ["--ws-backlog", str(BACKLOG), "--ws-send-timeout", "30"]
    inst = start_server(database_url, str(log), options=options)
    yield inst
    stop_server(inst)


@pytest.fixture
def api(server: Instance) -> Iterator[Api]:
    client = Api(server.base)
    yield client
    client.http.close()


def dropped(inst: Instance) -> int:
    text = httpx.get(inst.base + "/metrics", timeout=10).text
    found = re.search(r"^fracas_websocket_dropped_total (\d+)$", text, re.M)
    assert found, text
    return int(found.group(1))


def roll(api: Api, made: dict[str, Any], purpose: str, pad: int = 0) -> int:
    body = {"type": "roll", "expr": "1d6", "purpose": f"{purpose} {'x' * pad}".strip()}
    version: int = api.ok(made["id"], made["gm_token"], body)["version"]
    return version


def watch(
    inst: Instance, eid: str, token: str, *, after: int | None = None, patch: bool = False
) -> ClientConnection:
    """A client whose own thread reads everything the server sends (no bound on its queue)."""
    url = f"{inst.ws}/ws/encounters/{eid}?token={token}"
    url += "" if after is None else f"&after={after}"
    url += "&patch=1" if patch else ""
    return connect(url, open_timeout=5, max_queue=None)


def slow_reader(inst: Instance, eid: str, token: str) -> ClientConnection:
    """A client that reads one message and then nothing until recv() is called: its socket
    buffer is small, and its thread stops reading with one message queued."""
    url = urlsplit(inst.base)
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.connect((url.hostname, url.port))
    return connect(
        f"{inst.ws}/ws/encounters/{eid}?token={token}", sock=sock, open_timeout=5, max_queue=1
    )


def recv(ws: ClientConnection) -> dict[str, Any]:
    message: dict[str, Any] = json.loads(ws.recv(timeout=10))
    return message


def purposes(msg: dict[str, Any]) -> list[str]:
    return [e["data"]["purpose"].split()[0] for e in msg["events"]]


def read_until(ws: ClientConnection, version: int) -> list[str]:
    """The raw texts up to the one at `version`; versions must rise strictly."""
    texts: list[str] = []
    last = -1
    while last < version:
        texts.append(str(ws.recv(timeout=10)))
        now = json.loads(texts[-1])["version"]
        assert now > last
        last = now
    return texts


def test_a_slow_reader_is_dropped_with_1013_after_what_it_was_sent_and_resumes_gap_free(
    server: Instance, api: Api
) -> None:
    made = api.create()
    token = made["spectator_token"]
    before = dropped(server)
    with contextlib.ExitStack() as stack:
        fast = [stack.enter_context(watch(server, made["id"], token)) for _ in range(3)]
        (start,) = {recv(ws)["version"] for ws in fast}  # each one's snapshot
        slow = stack.enter_context(slow_reader(server, made["id"], token))
        assert recv(slow)["type"] == "snapshot"
        rolls = 0
        while dropped(server) == before:  # big updates fill the slow one's buffers
            assert rolls < 300, "the slow reader was never dropped"
            roll(api, made, f"flood{rolls}", pad=1900)
            rolls += 1
        assert dropped(server) == before + 1
        last = roll(api, made, "after")
        flood = [f"flood{i}" for i in range(rolls)]

        for ws in fast:  # every fast watcher got every update, in order
            got = [p for t in read_until(ws, last) for p in purposes(json.loads(t))]
            assert got == [*flood, "after"]

        # The slow one reads what it was sent, in order and whole, then the 1013.
        seen: list[str] = []
        mark = start
        with pytest.raises(ConnectionClosed) as closed:
            while True:
                msg = recv(slow)
                assert msg["type"] == "update" and msg["version"] > mark
                assert msg["events"][0]["version"] == mark + 1
                mark = msg["version"]
                seen += purposes(msg)
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 1013
        assert seen == flood[: len(seen)] and len(seen) < rolls

    with watch(server, made["id"], token, after=mark) as again:
        caught = recv(again)
        assert caught["type"] == "update" and caught["version"] == last
        assert caught["events"][0]["version"] == mark + 1
        live = roll(api, made, "live")
        assert [*seen, *purposes(caught)] == [*flood, "after"]
        update = recv(again)
        assert update["version"] == live and purposes(update) == ["live"]


def test_a_resume_while_commands_keep_coming_gets_each_event_once_in_order(
    server: Instance, api: Api
) -> None:
    made = api.create()
    mark = roll(api, made, "before")
    last: list[int] = []
    failed: list[BaseException] = []

    def keep_rolling() -> None:
        writer_api = Api(server.base)
        try:
            for i in range(40):
                last.append(roll(writer_api, made, f"r{i}"))
        except BaseException as e:  # seen by the test's thread below
            failed.append(e)
        finally:
            writer_api.http.close()

    writer = threading.Thread(target=keep_rolling)
    writer.start()
    try:
        while len(last) < 5 and writer.is_alive():  # the writer is under way
            threading.Event().wait(0.01)
        with watch(server, made["id"], made["gm_token"], after=mark) as ws:
            first = recv(ws)  # the catch-up, while commands keep coming
            assert first["type"] == "update" and "board" in first
            versions = [e["version"] for e in first["events"]]
            writer.join(60)
            assert not failed and len(last) == 40
            now = first["version"]
            while now < last[-1]:
                msg = recv(ws)
                assert msg["version"] > now
                now = msg["version"]
                versions += [e["version"] for e in msg["events"]]
    finally:
        writer.join(60)
    assert versions == list(range(mark + 1, last[-1] + 1))


def test_many_watchers_of_two_roles_each_get_their_roles_bytes(server: Instance, api: Api) -> None:
    made = api.create()
    eid, gm, spectator = made["id"], made["gm_token"], made["spectator_token"]
    groups: dict[str, list[ClientConnection]] = {}
    with contextlib.ExitStack() as stack:
        for name, token, patch, count in (
            ("gm", gm, False, 12),
            ("spectator", spectator, False, 12),
            ("gm patch", gm, True, 4),
            ("spectator patch", spectator, True, 4),
        ):
            groups[name] = [
                stack.enter_context(watch(server, eid, token, patch=patch)) for _ in range(count)
            ]
        # Every watcher has its snapshot before the first command: one taken after the
        # hidden roll would rightly differ from one taken before it.
        start = api.board(eid, gm)["version"]
        snapshots = {
            name: [read_until(ws, start) for ws in conns] for name, conns in groups.items()
        }
        body = {"type": "roll", "expr": "1d20", "hidden": True, "purpose": "ambush"}
        api.ok(eid, gm, body)
        last = roll(api, made, "open")
        texts = {
            name: [[*snapshots[name][i], *read_until(ws, last)] for i, ws in enumerate(conns)]
            for name, conns in groups.items()
        }
    for name, per_watcher in texts.items():
        assert all(t == per_watcher[0] for t in per_watcher), name  # one role, one text
        assert json.loads(per_watcher[0][0])["type"] == "snapshot"
        if "patch" in name and len(per_watcher[0]) > 1:
            assert all("patch" in json.loads(t) for t in per_watcher[0][1:]), name
        carried = "".join(per_watcher[0])
        assert ("ambush" in carried) == name.startswith("gm"), name
        assert '"open"' in carried or "open" in carried
    assert texts["gm"][0] != texts["spectator"][0]
