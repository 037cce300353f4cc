"""Turn deadlines end to end (issue 25 section 3): three real `fracas serve` processes on
a database of their own share one test clock (`--clock-file`), a local receiver takes
the `deadline` webhook; the reminder arrives past half, the policy applies past the
deadline as one event in /events and on the board, and the GM's undo takes it back."""

from __future__ import annotations

import os
import time
from collections.abc import AsyncIterator, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
import pytest_asyncio

from tests.conftest import fresh_database
from tests.e2e.conftest import Api, start_server, stop_server
from tests.e2e.test_webhooks import FAST, Receiver, gm, wait_for

HOUR = 3600


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def deadline_database(server_url: str) -> AsyncIterator[str]:
    async with fresh_database(server_url) as url:
        yield url


@pytest.fixture(scope="module")
def clocked(
    deadline_database: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[list[Api], Path]]:
    """Three instances on one clock file (an offset in seconds), checking every 0.2 s."""
    logs = tmp_path_factory.mktemp("deadline-logs")
    clock = logs / "clock"
    clock.write_text("0")
    env = {**FAST, "FRACAS_DEADLINE_EVERY": "0.2"}
    with mock.patch.dict(os.environ, env):
        instances = [
            start_server(
                deadline_database, str(logs / f"{n}.log"), options=["--clock-file", str(clock)]
            )
            for n in range(3)
        ]
    apis = [Api(i.base) for i in instances]
    yield apis, clock
    for a in apis:
        a.http.close()
    for i in instances:
        stop_server(i)


def of(api: Api, eid: str, token: str, kind: str) -> list[dict[str, Any]]:
    return [e for e in api.events(eid, token) if e["type"] == kind]


def test_a_turn_is_reminded_then_passed_once_and_the_gm_undoes_it(
    clocked: tuple[list[Api], Path],
) -> None:
    apis, clock = clocked
    api = apis[0]
    receiver = Receiver()
    made = api.create(settings={"deadline.hours": 24, "deadline.policy": "pass"})
    eid, token = made["id"], made["gm_token"]
    hook = {"url": receiver.url, "kinds": ["deadline"]}
    r = api.http.put(f"/api/encounters/{eid}/webhook", json=hook, headers=gm(token))
    assert r.status_code == 200, r.text
    api.ok(eid, token, {"type": "add_combatant", "name": "Guard", "side": "w", "preset": "guard"})
    api.ok(eid, token, {"type": "add_combatant", "name": "Bandit", "side": "o", "preset": "bandit"})
    started = api.ok(eid, token, {"type": "start_combat", "dice": [50, 20]})
    board = api.board(eid)
    assert board["actor"] == "c1"
    shown = board["deadline"]
    assert shown["who"] == "c1" and shown["waiting"] == "turn" and shown["policy"] == "pass"
    assert shown["since"] == started["version"] and not shown["reminded"]
    due = datetime.fromisoformat(shown["due"])
    assert timedelta(hours=23) < due - datetime.now(UTC) <= timedelta(hours=24)
    assert api.board(eid, token)["deadline"] == shown  # the GM console reads the same

    time.sleep(1.0)  # a few rounds of the three watchers: nothing is due yet
    assert of(api, eid, token, "deadline_reminded") == []

    clock.write_text(str(13 * HOUR))  # past half
    wait_for(lambda: any(b["kind"] == "deadline" for b in receiver.bodies()))
    reminded = receiver.bodies()[0]
    assert reminded["combatant"] == "c1" and "Reminder: Guard's turn" in reminded["text"]
    wait_for(lambda: api.board(eid)["deadline"]["reminded"])
    time.sleep(1.0)  # three instances raced on it: one reminder
    assert len(of(api, eid, token, "deadline_reminded")) == 1
    assert api.board(eid)["actor"] == "c1"

    clock.write_text(str(25 * HOUR))  # past the deadline: the turn passes
    wait_for(lambda: api.board(eid)["actor"] == "c2")
    time.sleep(1.0)
    [passed] = of(api, eid, token, "deadline_passed")
    assert passed["data"] == {
        "who": "c1",
        "waiting": "turn",
        "since": started["version"],
        "pending_id": None,
        "hours": 24,
        "policy": "pass",
        "due": shown["due"],
    }
    assert passed["meta"]["actor"] == "deadline"
    after = api.events(eid, token, after=passed["version"])
    assert [e["type"] for e in after[:2]] == ["turn_ended", "turn_started"]
    board = api.board(eid)
    assert any("Deadline passed: Guard's turn waited 24 h" in line["text"] for line in board["log"])
    assert any("Délai dépassé" in line["text_fr"] for line in board["log"])
    # The Bandit's turn began on the moved clock: its deadline is a day from there.
    assert board["deadline"]["who"] == "c2" and not board["deadline"]["reminded"]
    wait_for(lambda: sum(b["kind"] == "deadline" for b in receiver.bodies()) >= 2)
    assert "Deadline passed" in receiver.bodies()[1]["text"]

    undo = api.ok(eid, token, {"type": "undo", "reason": "Guard was travelling"})
    board = api.board(eid)
    assert board["actor"] == "c1"
    assert board["deadline"]["who"] == "c1" and board["deadline"]["since"] == undo["version"]
    time.sleep(1.0)  # the wait starts again from the undo: nothing is due now
    assert len(of(api, eid, token, "deadline_passed")) == 1
    assert len(of(api, eid, token, "deadline_reminded")) == 1
    assert api.board(eid)["actor"] == "c1"
    receiver.down()
