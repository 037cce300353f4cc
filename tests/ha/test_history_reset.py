"""No cache outlives its history (issue 23): when the database is behind what an instance
has seen, or holds another event where it had one, the instance drops that stream's
caches, reloads it, tells its watchers with a `reset`, and commands work again."""

from __future__ import annotations

import json
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.sync.client import connect

from domain import commands as cmd
from domain.chain import GENESIS
from domain.state import Principal
from server.services.encounters import EncounterService, stream_of
from server.services.metrics import Metrics
from server.store.memory import MemoryEventStore
from server.store.port import EventStore, HistoryRewritten, NewEvent
from server.store.postgres import PostgresEventStore
from tests.e2e.conftest import Api, start_server, stop_server
from tests.e2e.test_http import setup_fight
from tests.ha.tools import PG_BIN, Cluster

GM = Principal(role="gm")


def hit(n: int) -> NewEvent:
    return NewEvent("hit", {"n": n})


@pytest.fixture(params=["memory", "postgresql"])
def event_store(request: pytest.FixtureRequest) -> EventStore:
    if request.param == "memory":
        return MemoryEventStore()
    pg: PostgresEventStore = request.getfixturevalue("store")
    return pg


async def test_reading_on_from_a_tip_the_store_no_longer_holds_raises_history_rewritten(
    event_store: EventStore,
) -> None:
    stream = f"test-{time.monotonic_ns()}"
    appended = await event_store.append(stream, 0, [hit(n) for n in range(4)], {})
    facts, tip = await event_store.read_facts_on(stream, 2, appended[1].hash)
    assert [f["version"] for f in facts] == [3, 4] and tip == appended[3].hash
    assert await event_store.read_facts_on(stream, 4, appended[3].hash) == ([], appended[3].hash)
    everything, _ = await event_store.read_facts_on(stream, 0, GENESIS)
    assert len(everything) == 4
    upto, tip = await event_store.read_facts_on(stream, 1, appended[0].hash, upto=3)
    assert [f["version"] for f in upto] == [2, 3] and tip == appended[2].hash
    with pytest.raises(HistoryRewritten):  # the store is behind the reader
        await event_store.read_facts_on(stream, 6, "f" * 64)
    with pytest.raises(HistoryRewritten):  # the store holds another event at version 2
        await event_store.read_facts_on(stream, 2, appended[2].hash)


async def test_a_service_whose_store_holds_another_history_reloads_and_commands_work() -> None:
    first = MemoryEventStore()
    metrics = Metrics()
    svc = EncounterService(first, metrics)
    made = await svc.create("plain-d100", "Reset", {})
    eid = made["id"]
    for i in range(3):
        await svc.execute(eid, cmd.Roll(expr="1d20", purpose=f"a{i}"), GM)
    seen = (await svc.load(eid)).version

    # Another database (a restore of another copy): the same stream, other events, and
    # further along than what the instance cached.
    other = MemoryEventStore()
    facts = await first.read_facts(stream_of(eid), upto=seen - 2)
    await other.append(stream_of(eid), 0, [NewEvent(f["type"], f["data"]) for f in facts], {})
    await other.add_seeds(eid, await first.seeds(eid))
    svc.store = other
    again = await svc.load(eid)
    assert again.version == seen - 2
    assert metrics.history_resets == 1
    answer = await svc.execute(eid, cmd.Roll(expr="1d20", purpose="after"), GM)
    assert answer["version"] == seen - 1
    assert "fracas_history_resets_total 1" in metrics.render()


def test_a_database_gone_back_in_time_under_a_running_instance_resets_watchers_and_serves(
    clusters: Callable[..., Cluster], tmp_path: Path
) -> None:
    pg = clusters()
    pg.sql("CREATE DATABASE fracas")
    log = tmp_path / "serve.log"
    server = start_server(pg.url_of("fracas"), str(log), options=["--command-timeout", "3"])
    api = Api(server.base)
    try:
        fight = setup_fight(api)
        eid, gm = fight["id"], fight["gm"]
        for i in range(3):
            api.ok(eid, gm, {"type": "roll", "expr": "1d20", "purpose": f"before{i}"})
        restored = api.board(eid)["version"]
        # The backup a restore will bring back, taken at `restored` while serving.
        pg.sql("CREATE DATABASE backup")
        dump = subprocess.run(
            [str(PG_BIN / "pg_dump"), "-h", "127.0.0.1", "-p", str(pg.port), "-U", "postgres",
             "fracas"], capture_output=True, check=True, timeout=60,
        )  # fmt: skip
        subprocess.run(
            [str(PG_BIN / "psql"), "-X", "-q", "-h", "127.0.0.1", "-p", str(pg.port), "-U",
             "postgres", "-d", "backup", "-v", "ON_ERROR_STOP=1"],
            input=dump.stdout, capture_output=True, check=True, timeout=60,
        )  # fmt: skip

        url = f"{server.ws}/ws/encounters/{eid}?token={fight['spectator']}"
        with connect(url, open_timeout=10) as ws:
            first = json.loads(ws.recv(timeout=10))
            assert first["type"] == "snapshot" and first["version"] == restored
            for i in range(3):
                api.ok(eid, gm, {"type": "roll", "expr": "1d20", "purpose": f"lost{i}"})
            ahead = api.board(eid)["version"]
            assert ahead == restored + 3
            seen = [json.loads(ws.recv(timeout=10)) for _ in range(3)]
            assert [m["version"] for m in seen] == [restored + 1, restored + 2, ahead]

            # The restore, under the running instance: the database it names is now the
            # backup, behind what the instance cached and sent.
            pg.sql("ALTER DATABASE fracas ALLOW_CONNECTIONS false")
            pg.sql(
                "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity"
                " WHERE datname = 'fracas'"
            )
            pg.sql("ALTER DATABASE fracas RENAME TO fracas_ahead")
            pg.sql("ALTER DATABASE backup RENAME TO fracas")

            reset = next_of_type(ws, "reset")
            assert reset["version"] == restored
            assert reset["board"]["version"] == restored
            # Commands work again, from the restored version, without a restart.
            answer = until_ok(api, eid, gm, {"type": "roll", "expr": "1d20", "purpose": "after"})
            assert answer["version"] == restored + 1
            update = next_of_type(ws, "update")
            assert update["version"] == restored + 1
        assert api.board(eid)["version"] == restored + 1
        metrics = api.http.get("/metrics").text
        resets = next(
            int(line.split()[1])
            for line in metrics.splitlines()
            if line.startswith("fracas_history_resets_total ")
        )
        assert resets >= 2  # the hub's room and the service's cache
        text = log.read_text(errors="replace")
        # The restore's outage is logged (the pool and LISTEN reconnecting), never a 500.
        assert "history reset" in text and '" 500' not in text
        assert server.proc.poll() is None
    finally:
        api.http.close()
        stop_server(server)


def next_of_type(ws: Any, kind: str, bound: float = 15.0) -> dict[str, Any]:
    deadline = time.monotonic() + bound
    while True:
        left = deadline - time.monotonic()
        message: dict[str, Any] = json.loads(ws.recv(timeout=left))
        assert message["type"] == kind, message  # nothing else comes first
        return message


def until_ok(api: Api, eid: str, token: str, body: dict[str, Any]) -> dict[str, Any]:
    deadline = time.monotonic() + 15
    while True:
        try:
            r = api.command(eid, token, body, key=body["purpose"])
        except httpx.TransportError:
            r = None
        if r is not None and r.status_code == 200:
            answer: dict[str, Any] = r.json()
            return answer
        assert r is None or r.status_code == 503, r.text
        assert time.monotonic() < deadline, "commands did not come back in 15 s"
        time.sleep(0.2)


async def test_a_webhook_fold_on_a_store_holding_another_history_is_folded_again() -> None:
    """The webhook worker's own fold is a cache too: on a database that holds another
    event where it had folded one, it is dropped and folded again from the store."""
    from projections.view import Projection
    from server.webhooks.delivery import Settings, Webhooks

    first = MemoryEventStore()
    svc = EncounterService(first, Metrics())
    eid = (await svc.create("plain-d100", "Hooked", {}))["id"]
    for i in range(3):
        await svc.execute(eid, cmd.Roll(expr="1d20", purpose=f"a{i}"), GM)
    stream = stream_of(eid)
    metrics = Metrics()
    hooks = Webhooks(first, Settings(), metrics)
    seen = await hooks._fold(stream, 4)
    assert seen.version == 4 and metrics.history_resets == 0

    # Another copy: the same first three events, then other rolls from version 4 on.
    other = MemoryEventStore()
    facts = await first.read_facts(stream, upto=3)
    await other.append(stream, 0, [NewEvent(f["type"], f["data"]) for f in facts], {})
    await other.add_seeds(eid, await first.seeds(eid))
    svc.store = other
    for i in range(3):
        await svc.execute(eid, cmd.Roll(expr="1d6", purpose=f"b{i}"), GM)
    hooks.store = other
    folded = await hooks._fold(stream, 5)
    assert metrics.history_resets == 1
    fresh = Projection(keep=0)
    fresh.extend(await other.read_facts(stream, upto=5))
    assert folded.version == 5 and folded.state == fresh.state
    again = await hooks._fold(stream, 6)  # the new history's fold is extended as usual
    assert again.version == 6 and metrics.history_resets == 1
