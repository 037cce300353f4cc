"""Webhooks end to end: real servers, a real HTTP receiver on 127.0.0.1 (CONTRACT section 8).

Two `fracas serve` processes share the session's database with FRACAS_WEBHOOK_ALLOW set
to 127.0.0.1 and short timeouts and backoff, so retries happen within the test.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import socket
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from unittest import mock

import pytest
import pytest_asyncio

from tests.conftest import fresh_database
from tests.e2e.conftest import Api, free_port, start_server, stop_server

FAST = {
    "FRACAS_WEBHOOK_ALLOW": "127.0.0.1",
    "FRACAS_WEBHOOK_TIMEOUT": "1",
    "FRACAS_WEBHOOK_RETRY": "0.2",
    "FRACAS_WEBHOOK_RETRY_MAX": "1",
}


class Receiver:
    """An HTTP server on 127.0.0.1 that records every POST; it can go down and come back."""

    def __init__(self, status: int = 200) -> None:
        self.port = free_port()
        self.status = status
        self.got: list[tuple[dict[str, str], bytes]] = []
        self.lock = threading.Lock()
        self.server: ThreadingHTTPServer | None = None
        self.up()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/hook?x=1"

    def up(self) -> None:
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers["Content-Length"]))
                with receiver.lock:
                    receiver.got.append(({k.lower(): v for k, v in self.headers.items()}, body))
                self.send_response(receiver.status)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        ThreadingHTTPServer.allow_reuse_address = True
        self.server = ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def down(self) -> None:
        assert self.server is not None
        self.server.shutdown()
        self.server.server_close()
        self.server = None

    def bodies(self) -> list[dict[str, Any]]:
        with self.lock:
            return [json.loads(b) for _, b in self.got]

    def ids(self) -> list[str]:
        with self.lock:
            return [h["x-fracas-delivery"] for h, _ in self.got]


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def hook_database(server_url: str) -> AsyncIterator[str]:
    """A database of its own: every instance on a database delivers its webhooks, and the
    session's other servers are not allowed to call 127.0.0.1."""
    async with fresh_database(server_url) as url:
        yield url


@pytest.fixture(scope="module")
def hooked(
    hook_database: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[Api, Api]]:
    """Two instances allowed to call 127.0.0.1, with a 1 s timeout and fast retries."""
    logs = tmp_path_factory.mktemp("webhook-logs")
    with mock.patch.dict(os.environ, FAST):
        one = start_server(hook_database, str(logs / "one.log"))
        two = start_server(hook_database, str(logs / "two.log"))
    apis = Api(one.base), Api(two.base)
    yield apis
    for a in apis:
        a.http.close()
    stop_server(one)
    stop_server(two)


def wait_for(what: Callable[[], bool], seconds: float = 20.0) -> None:
    deadline = time.monotonic() + seconds
    while not what():
        assert time.monotonic() < deadline, "the condition did not come true in time"
        time.sleep(0.05)


def gm(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def fight(api: Api, url: str, **hook: Any) -> dict[str, Any]:
    """An encounter with a webhook, Guard (c1) and Bandit (c2, a player's)."""
    made = api.create()
    eid, token = made["id"], made["gm_token"]
    r = api.http.put(f"/api/encounters/{eid}/webhook", json={"url": url, **hook}, headers=gm(token))
    assert r.status_code == 200, r.text
    api.ok(eid, token, {"type": "add_combatant", "name": "Guard", "side": "w", "preset": "guard"})
    bandit = api.ok(
        eid, token, {"type": "add_combatant", "name": "Bandit", "side": "o", "preset": "bandit"}
    )
    return {"id": eid, "gm": token, "secret": r.json()["secret"], "player": bandit["player_token"]}


def play_every_kind(api: Api, f: dict[str, Any]) -> None:
    eid, token = f["id"], f["gm"]
    api.ok(eid, token, {"type": "start_combat", "dice": [50, 20]})  # round 1, Guard's turn
    attack = {"type": "act", "actor": "c1", "action": "attack", "target": "c2", "dice": [10]}
    api.ok(eid, token, attack)  # a hit: Bandit's answer is awaited
    api.ok(eid, f["player"], {"type": "dispute", "roll": 1, "reason": "too lucky"})
    api.ok(eid, token, {"type": "close"})


def test_every_kind_arrives_signed_with_the_public_board_link(hooked: tuple[Api, Api]) -> None:
    api, _ = hooked
    receiver = Receiver()
    f = fight(api, receiver.url)
    play_every_kind(api, f)
    kinds = {"round_started", "turn_started", "reaction_awaited", "dispute_opened"}
    kinds.add("encounter_closed")
    wait_for(lambda: {b["kind"] for b in receiver.bodies()} >= kinds)
    for headers, raw in receiver.got:
        expected = hmac.new(f["secret"].encode(), raw, hashlib.sha256).hexdigest()
        assert headers["x-fracas-signature"] == f"sha256={expected}"
        body = json.loads(raw)
        assert body["encounter"] == f["id"]
        assert body["link"].endswith(f"/e/{f['id']}")
        assert "token" not in body["link"] and f["gm"] not in raw.decode()
    turn = next(b for b in receiver.bodies() if b["kind"] == "turn_started")
    assert turn["combatant"] == "c1" and "Guard" in turn["text"]
    awaited = next(b for b in receiver.bodies() if b["kind"] == "reaction_awaited")
    assert awaited["combatant"] == "c2"
    receiver.down()


def test_a_french_discord_webhook_posts_content_in_french(hooked: tuple[Api, Api]) -> None:
    api, _ = hooked
    receiver = Receiver(status=204)
    f = fight(api, receiver.url, format="discord", lang="fr", kinds=["turn_started"])
    api.ok(f["id"], f["gm"], {"type": "start_combat", "dice": [50, 20]})
    wait_for(lambda: len(receiver.got) >= 1)
    (body,) = receiver.bodies()
    assert set(body) == {"content", "allowed_mentions"}
    assert "c'est au tour de Guard" in body["content"]
    receiver.down()


def test_a_receiver_down_for_a_while_gets_every_delivery_once_it_is_back(
    hooked: tuple[Api, Api],
) -> None:
    api, _ = hooked
    receiver = Receiver()
    f = fight(api, receiver.url)
    receiver.down()
    play_every_kind(api, f)

    def attempted_twice() -> bool:
        r = api.http.get(f"/api/encounters/{f['id']}/webhook", headers=gm(f["gm"]))
        ds = sorted(r.json()["deliveries"], key=lambda d: d["version"])
        return len(ds) == 5 and ds[0]["attempts"] >= 2

    wait_for(attempted_twice)
    r = api.http.get(f"/api/encounters/{f['id']}/webhook", headers=gm(f["gm"]))
    held = sorted(r.json()["deliveries"], key=lambda d: d["version"])[1:]
    assert [d["attempts"] for d in held] == [0, 0, 0, 0]  # the first one holds the queue
    receiver.up()
    wait_for(lambda: len(receiver.got) >= 5)
    time.sleep(1.5)  # room for a duplicate to show up, were there one
    assert len(set(receiver.ids())) == len(receiver.ids()) == 5
    versions = [b["version"] for b in receiver.bodies()]
    assert versions == sorted(versions)
    r = api.http.get(f"/api/encounters/{f['id']}/webhook", headers=gm(f["gm"]))
    assert {d["status"] for d in r.json()["deliveries"]} == {"delivered"}
    receiver.down()


def test_two_instances_deliver_each_event_once(hooked: tuple[Api, Api]) -> None:
    api, api2 = hooked
    receiver = Receiver()
    f = fight(api, receiver.url, kinds=["dispute_opened"])
    api.ok(f["id"], f["gm"], {"type": "start_combat", "dice": [50, 20]})
    for n in range(12):  # commands through both instances; both scan and deliver
        client = api if n % 2 else api2
        client.ok(f["id"], f["gm"], {"type": "roll", "expr": "1d6", "purpose": f"r{n}"})
        client.ok(f["id"], f["player"], {"type": "dispute", "roll": n + 1, "reason": f"#{n}"})
    wait_for(lambda: len(receiver.got) >= 12)
    time.sleep(1.5)
    versions = [b["version"] for b in receiver.bodies()]
    assert len(versions) == len(set(versions)) == 12
    assert len(set(receiver.ids())) == 12
    receiver.down()


def test_a_receiver_that_never_answers_times_out_and_is_retried_while_commands_go_on(
    hooked: tuple[Api, Api],
) -> None:
    api, _ = hooked
    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen(64)  # the kernel completes connections; nobody ever reads or answers
    url = f"http://127.0.0.1:{silent.getsockname()[1]}/"
    try:
        f = fight(api, url, kinds=["turn_started", "round_started"])
        api.ok(f["id"], f["gm"], {"type": "start_combat", "dice": [50, 20]})
        for n in range(5):
            api.ok(f["id"], f["gm"], {"type": "roll", "expr": "1d6", "purpose": f"r{n}"})

        def retried() -> bool:
            r = api.http.get(f"/api/encounters/{f['id']}/webhook", headers=gm(f["gm"]))
            ds = r.json()["deliveries"]
            return len(ds) == 2 and max(d["attempts"] for d in ds) >= 2

        wait_for(retried)
        r = api.http.get(f"/api/encounters/{f['id']}/webhook", headers=gm(f["gm"]))
        first, second = sorted(r.json()["deliveries"], key=lambda d: d["version"])
        assert first["status"] == "pending" and "no answer within" in first["last_error"]
        assert (second["status"], second["attempts"]) == ("pending", 0)  # held behind it
    finally:
        silent.close()


def test_a_loopback_url_is_refused_unless_the_operator_allows_it(api: Api) -> None:
    # `api` runs without FRACAS_WEBHOOK_ALLOW.
    made = api.create()
    for url in ("http://127.0.0.1:9/x", "http://localhost/", "http://[::1]/", "http://10.1.2.3/"):
        r = api.http.put(
            f"/api/encounters/{made['id']}/webhook", json={"url": url}, headers=gm(made["gm_token"])
        )
        assert r.status_code == 422, (url, r.text)
        assert r.json()["error"]["code"] == "invalid"
        assert "FRACAS_WEBHOOK_ALLOW" in r.json()["error"]["message"]
    r = api.http.put(
        f"/api/encounters/{made['id']}/webhook",
        json={"url": "ftp://example.org/"},
        headers=gm(made["gm_token"]),
    )
    assert r.status_code == 422


def test_only_the_gm_sees_sets_and_removes_the_webhook(hooked: tuple[Api, Api]) -> None:
    api, _ = hooked
    receiver = Receiver()
    f = fight(api, receiver.url)
    path = f"/api/encounters/{f['id']}/webhook"
    assert api.http.get(path).status_code == 401
    assert api.http.get(path, headers=gm(f["player"])).status_code == 403
    r = api.http.put(path, json={"url": receiver.url}, headers=gm(f["player"]))
    assert r.status_code == 403
    shown = api.http.get(path, headers=gm(f["gm"])).json()
    assert shown["url"] == receiver.url and "secret" not in shown
    assert len(shown["kinds"]) == 6  # every kind, the turn deadline's included
    assert api.http.delete(path, headers=gm(f["gm"])).status_code == 200
    assert api.http.get(path, headers=gm(f["gm"])).status_code == 404
    api.ok(f["id"], f["gm"], {"type": "start_combat", "dice": [50, 20]})
    time.sleep(1.5)
    assert receiver.got == []
    receiver.down()
