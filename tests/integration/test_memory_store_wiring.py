"""The service and the live hub on the in-memory store: the port is all they need.

The events and the side tables (dice seeds, tokens, command keys) live in memory: no
database at all. The hub hears appends through the memory store's wake-ups, as it hears
NOTIFY on PostgreSQL.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from domain import commands as cmd
from domain.chain import first_break
from domain.state import GM
from server.live.hub import Hub, Watcher
from server.services.encounters import EncounterService, envelope, stream_of
from server.services.metrics import Metrics
from server.store.memory import MemoryEventStore


async def next_update(w: Watcher) -> dict[str, Any]:
    text: str | None = await asyncio.wait_for(w.queue.get(), 10)
    message: dict[str, Any] = json.loads(text or "")
    return message


async def test_commands_land_in_the_memory_store_and_reach_a_watcher_through_its_wake_ups() -> None:
    store, metrics = MemoryEventStore(), Metrics()
    svc = EncounterService(store, metrics)
    hub = Hub(store, metrics)
    made = await svc.create("plain-d100", "In memory", {})
    stream = stream_of(made["id"])
    watcher = Watcher(ws=None, role="gm")  # type: ignore[arg-type]
    await hub.join(stream, watcher, None)
    assert (await next_update(watcher))["version"] == made["version"]  # the snapshot
    hub.start()
    try:
        await asyncio.sleep(0)  # the hub subscribes
        done = await svc.execute(made["id"], cmd.Roll(expr="1d6", purpose="heard"), GM)
        update = await next_update(watcher)
        assert update["version"] == done["version"]
        assert [e["data"]["purpose"] for e in update["events"]] == ["heard"]
    finally:
        await hub.stop()
    stored = await store.read_stream(stream)
    assert stored[-1].version == done["version"]
    assert first_break([envelope(e) for e in stored]) is None
