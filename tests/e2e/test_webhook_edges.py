"""Webhook edges (issue 20 section 5) against real servers: IPv6 forms that wrap an internal
IPv4 address are refused when the GM sets the URL, and silent receivers hold only their
own webhook's deliveries."""

from __future__ import annotations

import os
import socket
import threading
import time
from collections.abc import AsyncIterator, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from unittest import mock

import pytest
import pytest_asyncio

from tests.conftest import fresh_database
from tests.e2e.conftest import Api, start_server, stop_server


def gm(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


@pytest.mark.parametrize(
    "host",
    [
        "[::127.0.0.1]",
        "[::ffff:0:7f00:1]",
        "[64:ff9b::7f00:1]",
        "[2002:7f00:1::1]",
        "[64:ff9b:1::a9fe:a9fe]",
        "[2001:0:4136:e378:8000:63bf:80ff:fffe]",
        "[::ffff:127.0.0.1]",
    ],
)
def test_a_webhook_url_on_an_ipv6_form_of_an_internal_ipv4_address_is_refused(
    api: Api, host: str
) -> None:
    made = api.create()
    url = f"http://{host}:8080/hook"
    r = api.http.put(
        f"/api/encounters/{made['id']}/webhook", json={"url": url}, headers=gm(made["gm_token"])
    )
    assert r.status_code == 422, r.text
    assert r.json()["error"]["code"] == "invalid"
    assert "loopback, private or link-local" in r.json()["error"]["message"]
    assert host.strip("[]") not in r.text  # the message never echoes the address


SLOW = {
    "FRACAS_WEBHOOK_ALLOW": "127.0.0.1",
    "FRACAS_WEBHOOK_TIMEOUT": "6",  # a silent receiver holds a delivery this long
    "FRACAS_WEBHOOK_RETRY": "30",
}


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def silent_database(server_url: str) -> AsyncIterator[str]:
    """A database of its own: only this module's instance delivers its webhooks."""
    async with fresh_database(server_url) as url:
        yield url


@pytest.fixture(scope="module")
def slow_hooks(silent_database: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Api]:
    logs = tmp_path_factory.mktemp("silent-webhooks")
    with mock.patch.dict(os.environ, SLOW):
        inst = start_server(silent_database, str(logs / "serve.log"))
    client = Api(inst.base)
    yield client
    client.http.close()
    stop_server(inst)


def hooked_encounter(api: Api, url: str) -> dict[str, Any]:
    made = api.create()
    eid, token = made["id"], made["gm_token"]
    r = api.http.put(f"/api/encounters/{eid}/webhook", json={"url": url, "kinds": ["round_started",
                     "turn_started"]}, headers=gm(token))  # fmt: skip
    assert r.status_code == 200, r.text
    api.ok(eid, token, {"type": "add_combatant", "name": "A", "side": "a", "preset": "guard"})
    api.ok(eid, token, {"type": "add_combatant", "name": "B", "side": "b", "preset": "bandit"})
    return {"id": eid, "gm": token}


def test_forty_silent_receivers_do_not_delay_a_healthy_webhooks_delivery(
    slow_hooks: Api,
) -> None:
    api = slow_hooks
    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen(256)  # the kernel completes connections; nobody ever reads or answers
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
    try:
        url = f"http://127.0.0.1:{silent.getsockname()[1]}/"
        quiet = [hooked_encounter(api, url) for _ in range(40)]
        ok = hooked_encounter(api, f"http://127.0.0.1:{healthy.server_address[1]}/hook")
        for f in quiet:  # two deliveries each (round and turn started), none ever answered
            api.ok(f["id"], f["gm"], {"type": "start_combat", "dice": [50, 20]})
        time.sleep(1.5)  # the silent ones are claimed and hang on their receivers
        sent = time.monotonic()
        api.ok(ok["id"], ok["gm"], {"type": "start_combat", "dice": [50, 20]})
        deadline = sent + 10
        while len(got) < 2 and time.monotonic() < deadline:
            time.sleep(0.02)
        assert len(got) == 2, "the healthy receiver did not get its two deliveries"
        # Well under one silent receiver's 6 s timeout: no shared pool to wait for.
        assert got[-1] - sent < 2.5, got[-1] - sent
    finally:
        healthy.shutdown()
        healthy.server_close()
        silent.close()
