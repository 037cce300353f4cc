"""The live hub on a real store: one slow watcher is dropped, the others keep up."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import asyncpg

from domain import commands as cmd
from domain.state import GM
from server.live.hub import QUEUE, Hub, Watcher
from server.services.encounters import EncounterService, stream_of
from server.services.metrics import Metrics
from server.store.postgres import PostgresEventStore


async def test_a_watcher_whose_queue_fills_is_dropped_and_the_others_get_every_update(
    pool: asyncpg.Pool[Any], database_url: str
) -> None:
    store = PostgresEventStore(pool, notify_dsn=database_url)
    metrics = Metrics()
    svc = EncounterService(store, metrics)
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
    svc = EncounterService(store, metrics)
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


class HeldStore(PostgresEventStore):
    """The real store, but a read of `held` waits for `release` (and reads are counted)."""

    def __init__(self, pool: asyncpg.Pool[Any], dsn: str) -> None:
        super().__init__(pool, notify_dsn=dsn)
        self.held: str | None = None
        self.release = asyncio.Event()
        self.waiting = asyncio.Event()
        self.reads: dict[str, int] = {}

    async def read_stream(self, stream: str, after: int = 0, upto: int | None = None) -> Any:
        self.reads[stream] = self.reads.get(stream, 0) + 1
        if stream == self.held:
            self.waiting.set()
            await self.release.wait()
        return await super().read_stream(stream, after=after, upto=upto)


async def next_update(w: Watcher) -> dict[str, Any]:
    text: str | None = await asyncio.wait_for(w.queue.get(), 10)
    message: dict[str, Any] = json.loads(text or "")
    return message


async def test_a_stream_whose_read_is_held_does_not_delay_another_streams_update(
    pool: asyncpg.Pool[Any], database_url: str
) -> None:
    store = HeldStore(pool, database_url)
    metrics = Metrics()
    svc = EncounterService(store, metrics)
    hub = Hub(store, metrics)
    slow, fast = (
        await svc.create("plain-d100", "Slow", {}),
        await svc.create("plain-d100", "Fast", {}),
    )
    a, b = Watcher(ws=None, role="gm"), Watcher(ws=None, role="gm")  # type: ignore[arg-type]
    await hub.join(stream_of(slow["id"]), a, None)
    await hub.join(stream_of(fast["id"]), b, None)
    await next_update(a), await next_update(b)  # the snapshots
    hub.start()
    try:
        await asyncio.sleep(0.2)  # LISTEN is up
        store.held = stream_of(slow["id"])
        await svc.execute(slow["id"], cmd.Roll(expr="1d6", purpose="held"), GM)
        await asyncio.wait_for(store.waiting.wait(), 10)  # A's read has started and waits
        for i in range(10):  # woken ten times while it is being read
            await svc.execute(slow["id"], cmd.Roll(expr="1d6", purpose=f"more{i}"), GM)
        done = await svc.execute(fast["id"], cmd.Roll(expr="1d6", purpose="free"), GM)
        update = await next_update(b)  # B's update arrives while A's read is still held
        assert update["version"] == done["version"] and a.queue.empty()
        assert [e["data"]["purpose"] for e in update["events"]] == ["free"]
        store.release.set()
        purposes: list[str] = []
        while len(purposes) < 11:
            purposes += [e["data"]["purpose"] for e in (await next_update(a))["events"]]
        assert purposes == ["held", *(f"more{i}" for i in range(10))]
        # The ten wake-ups during the held read came to one more read (plus the join's;
        # a 1 s tick, if the machine is slow enough for one, may add another).
        assert store.reads[stream_of(slow["id"])] <= 4
    finally:
        await hub.stop()


class DiesAfterCommit(PostgresEventStore):
    """The real store, but its NOTIFYs are never sent: as if the process died right after
    each commit, between the commit and the notification (a busy server notifies after
    commit: server/store.py)."""

    def __init__(self, pool: asyncpg.Pool[Any]) -> None:
        super().__init__(pool)
        self.notify_inline = False  # always after commit, as under concurrent appends
        self._notifier.add = lambda stream, version: None  # type: ignore[method-assign]


async def test_an_append_whose_notify_never_comes_reaches_the_other_instance_within_a_tick(
    pool: asyncpg.Pool[Any], database_url: str
) -> None:
    """Two instances on one database. The other instance's appends keep NOTIFYs flowing
    (so no quiet second ever comes), and still the silent append reaches its watcher:
    the hub's tick re-reads from the checkpoints every second whatever else arrives."""
    metrics = Metrics()
    silent = EncounterService(DiesAfterCommit(pool), metrics)
    store = PostgresEventStore(pool, notify_dsn=database_url)
    svc = EncounterService(store, metrics)
    hub = Hub(store, metrics)
    quiet, busy = (
        await svc.create("plain-d100", "Quiet", {}),
        await svc.create("plain-d100", "Busy", {}),
    )
    watcher, other = Watcher(ws=None, role="gm"), Watcher(ws=None, role="gm")  # type: ignore[arg-type]
    await hub.join(stream_of(quiet["id"]), watcher, None)
    await hub.join(stream_of(busy["id"]), other, None)
    await next_update(watcher), await next_update(other)  # the snapshots
    hub.start()
    stop = asyncio.Event()

    async def traffic() -> int:
        count = 0
        while not stop.is_set():
            await svc.execute(busy["id"], cmd.Roll(expr="1d6", purpose=f"busy{count}"), GM)
            count += 1
            await asyncio.sleep(0.05)
        return count

    try:
        await asyncio.sleep(0.2)  # LISTEN is up
        running = asyncio.create_task(traffic())
        done = await silent.execute(quiet["id"], cmd.Roll(expr="1d4", purpose="unheard"), GM)
        update = await next_update(watcher)  # within a tick or two, not at the next NOTIFY
        assert update["version"] == done["version"]
        assert [e["data"]["purpose"] for e in update["events"]] == ["unheard"]
        stop.set()
        sent = await running
        seen: list[str] = []
        while len(seen) < sent:  # the other stream got every one of its updates meanwhile
            seen += [e["data"]["purpose"] for e in (await next_update(other))["events"]]
        assert seen == [f"busy{i}" for i in range(sent)]
    finally:
        stop.set()
        await hub.stop()
