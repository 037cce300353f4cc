"""Webhooks tell the story in order (issue 25 section 2), against two real servers and a
local receiver: one webhook's deliveries arrive in version order under a burst of
commands sent through both instances, even when the receiver fails its first answers;
Discord messages tell the step's lines, then the announcement, then the link, by names,
within 2,000 characters (a 2,000-character dispute reason included)."""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from tests.e2e.conftest import Api
from tests.e2e.test_webhooks import fight, gm, hook_database, hooked, wait_for

__all__ = ["hook_database", "hooked"]  # the fixtures, shared with test_webhooks.py
ID = re.compile(r"\bc\d+\b|player:|gm:")


class Flaky:
    """A receiver that answers 500 to its first `fails` POSTs, then 200; it records every
    attempt's body and whether it was accepted."""

    def __init__(self, fails: int = 0) -> None:
        self.fails = fails
        self.tried: list[tuple[bool, dict[str, Any]]] = []
        self.lock = threading.Lock()
        flaky = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                with flaky.lock:
                    ok = len(flaky.tried) >= flaky.fails
                    flaky.tried.append((ok, body))
                self.send_response(200 if ok else 500)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/hook"

    def accepted(self) -> list[dict[str, Any]]:
        with self.lock:
            return [b for ok, b in self.tried if ok]

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def flaky() -> Iterator[Flaky]:
    receiver = Flaky(fails=3)
    yield receiver
    receiver.close()


@pytest.fixture
def receiver() -> Iterator[Flaky]:
    receiver = Flaky()
    yield receiver
    receiver.close()


def test_a_burst_of_thirty_commands_arrives_in_version_order_past_failed_answers(
    hooked: tuple[Api, Api], flaky: Flaky
) -> None:
    api, api2 = hooked
    f = fight(api, flaky.url)
    api.ok(f["id"], f["gm"], {"type": "start_combat", "dice": [50, 20]})
    for n in range(15):  # 30 commands through both instances: each dispute is announced
        client = api if n % 2 else api2
        client.ok(f["id"], f["gm"], {"type": "roll", "expr": "1d6", "purpose": f"r{n}"})
        client.ok(f["id"], f["player"], {"type": "dispute", "roll": n + 1, "reason": f"#{n}"})
    wait_for(lambda: len(flaky.accepted()) >= 17, seconds=60)  # round, turn, 15 disputes
    with flaky.lock:
        tried = [b["version"] for _, b in flaky.tried]
    accepted = [b["version"] for b in flaky.accepted()]
    assert len(tried) == len(accepted) + 3  # the three 500s were retried, not skipped
    assert tried == sorted(tried)  # never a later version before an earlier one
    assert accepted == sorted(set(accepted)) and len(accepted) == 17
    disputes = [b for b in flaky.accepted() if b["kind"] == "dispute_opened"]
    assert [b["text"].rsplit("#", 1)[1] for b in disputes] == [str(n) for n in range(15)]
    r = api.http.get(f"/api/encounters/{f['id']}/webhook/deliveries?limit=50", headers=gm(f["gm"]))
    assert {d["status"] for d in r.json()["deliveries"]} == {"delivered"}
    assert f["secret"] not in r.text and flaky.url not in r.text


def test_a_discord_message_tells_the_blow_then_whose_turn_then_the_link_by_names(
    hooked: tuple[Api, Api], receiver: Flaky
) -> None:
    api, _ = hooked
    f = fight(api, receiver.url, format="discord")
    eid, token = f["id"], f["gm"]
    api.ok(eid, token, {"type": "start_combat", "dice": [50, 20]})  # Guard's turn
    attack = {"type": "act", "actor": "c1", "action": "attack", "target": "c2", "dice": [10]}
    api.ok(eid, token, attack)  # a hit: Bandit must answer
    wait_for(lambda: len(receiver.accepted()) >= 3)
    messages = [b["content"] for b in receiver.accepted()]
    awaited = messages[2]
    *lines, text, link = awaited.split("\n")
    assert link.endswith(f"/e/{eid}")
    assert "Bandit" in text and "Guard" in text  # the announcement: who must answer whom
    assert any("Guard hits Bandit: 10" in line for line in lines), lines  # the blow, its roll
    for message in messages:
        assert not ID.search(message), message
        assert len(message) <= 2000


def test_a_two_thousand_character_dispute_reason_still_fits_a_discord_message(
    hooked: tuple[Api, Api], receiver: Flaky
) -> None:
    api, _ = hooked
    f = fight(api, receiver.url, format="discord", kinds=["dispute_opened"])
    eid = f["id"]
    api.ok(eid, f["gm"], {"type": "start_combat", "dice": [50, 20]})
    api.ok(eid, f["gm"], {"type": "roll", "expr": "1d6", "purpose": "luck " + "z" * 1990})
    api.ok(eid, f["player"], {"type": "dispute", "roll": 1, "reason": "w" * 2000})
    wait_for(lambda: len(receiver.accepted()) >= 1)
    (body,) = receiver.accepted()
    said = body["content"]
    assert len(said.encode("utf-16-le")) // 2 <= 2000
    assert said.endswith(f"/e/{eid}") and "disputed by Bandit" in said
    assert "…" in said and not ID.search(said)


def test_a_json_body_carries_the_same_lines_beside_the_documented_fields(
    hooked: tuple[Api, Api], receiver: Flaky
) -> None:
    api, _ = hooked
    f = fight(api, receiver.url, kinds=["reaction_awaited"], lang="fr")
    eid, token = f["id"], f["gm"]
    api.ok(eid, token, {"type": "start_combat", "dice": [50, 20]})
    attack = {"type": "act", "actor": "c1", "action": "attack", "target": "c2", "dice": [10]}
    api.ok(eid, token, attack)
    wait_for(lambda: len(receiver.accepted()) >= 1)
    (body,) = receiver.accepted()
    assert set(body) == {"encounter", "version", "kind", "combatant", "text", "link", "lines"}
    assert body["combatant"] == "c2" and "Bandit" in body["text"]
    # Everything since the webhook was set: the fight begins, round 1, Guard's turn, the roll.
    assert any("Guard" in line for line in body["lines"]) and body["lines"]
    assert not any(ID.search(line) for line in body["lines"]), body["lines"]
