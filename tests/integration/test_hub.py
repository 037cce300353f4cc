"""The live hub on a real store: one slow watcher is dropped, the others keep up."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import asyncpg

from domain import commands as cmd
from domain.state import GM
from server.hub import QUEUE, Hub, Watcher
from server.metrics import Metrics
from server.service import EncounterService, stream_of
from server.store import PostgresEventStore


async def test_a_watcher_whose_queue_fills_is_dropped_and_the_others_get_every_update(
    pool: asyncpg.Pool[Any], database_url: str
) -> None:
    store = PostgresEventStore(pool, notify_dsn=database_url)
    metrics = Metrics()
    svc = EncounterService(pool, store, metrics)
    hub = Hub(store, metrics)
    made = await svc.create("plain-d100", "Hub", {})
    stream = stream_of(made["id"])
    slow = Watcher(ws=None, role="public")  # type: ignore[arg-type]  # nobody drains it
    fast = Watcher(ws=None, role="public")  # type: ignore[arg-type]
    await hub.join(stream, slow, None)
    await hub.join(stream, fast, None)
    received: list[int] = []

    async def drain() -> None:
        while True:
            text = await fast.queue.get()
            if text is None:
                return
            received.append(json.loads(text)["version"])

    reader = asyncio.create_task(drain())
    for i in range(QUEUE + 5):
        await svc.execute(made["id"], cmd.Roll(expr="1d6", purpose=f"r{i}"), GM)
        await hub.refresh(hub.rooms[stream])
    await asyncio.sleep(0)
    assert slow.dropped and slow not in hub.rooms[stream].watchers
    assert metrics.ws_dropped == 1
    assert slow.queue.get_nowait() is None  # the socket pump closes it with 1013
    assert received[1:] == list(range(made["version"] + 1, made["version"] + QUEUE + 6))
    hub.leave(stream, fast)
    fast.queue.put_nowait(None)
    await reader


async def test_a_lost_notification_is_made_up_by_the_next_tick(
    pool: asyncpg.Pool[Any], database_url: str
) -> None:
    store = PostgresEventStore(pool, notify_dsn=database_url)
    metrics = Metrics()
    svc = EncounterService(pool, store, metrics)
    hub = Hub(store, metrics)  # not started: no NOTIFY reaches it
    made = await svc.create("plain-d100", "Quiet", {})
    other = await svc.create("plain-d100", "Idle", {})
    watcher = Watcher(ws=None, role="gm")  # type: ignore[arg-type]
    idle = Watcher(ws=None, role="gm")  # type: ignore[arg-type]
    await hub.join(stream_of(made["id"]), watcher, None)
    await hub.join(stream_of(other["id"]), idle, None)
    watcher.queue.get_nowait(), idle.queue.get_nowait()  # the snapshots
    await svc.execute(made["id"], cmd.Roll(expr="1d4", purpose="unheard"), GM)
    await hub.catch_up_all()
    update = json.loads(watcher.queue.get_nowait() or "")
    assert [e["data"]["purpose"] for e in update["events"]] == ["unheard"]
    assert idle.queue.empty()  # a room that did not move is not read
