"""`fracas serve` with a timestamp at every stage of a command, for bench/round_trip_tail.py.

    python bench/traced_serve.py TRACE.jsonl serve --database-url URL --port N ...

Bench only: it wraps a few functions of the server before starting it, and writes to
TRACE.jsonl (flushed twice a second) one JSON object per line:

- {"k": "cmd", key, in, exec, lock, loaded, decided, append, appended, commit, committed,
  out, idle}: one HTTP command, by its roll's `purpose` or adjust's `reason`: the handler
  entered, `execute` entered (after the token check), the per-stream writer lock held,
  the projection loaded, decided, the append sent and answered, the commit sent and
  done, the handler returned; `idle` = idle pool connections when the lock was taken.
- {"k": "notify", stream, version, t}: a NOTIFY reached the hub's subscription.
- {"k": "read", stream, from, to, start, end}: the hub's read and fan-out of one stream.
- {"k": "gc", gen, start, end}: a collection (gc.callbacks), whatever its length.
- {"k": "lag", t, lag}: the event loop woke more than 2 ms late from a 10 ms sleep.

Times are time.monotonic() (CLOCK_MONOTONIC: one clock for every process of the machine).
"""

from __future__ import annotations

import asyncio
import contextvars
import gc
import json
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

now = time.monotonic
LINES: list[dict[str, Any]] = []
TASKS: list[asyncio.Task[None]] = []
CURRENT: contextvars.ContextVar[dict[str, Any] | None] = contextvars.ContextVar(
    "traced_command", default=None
)


def mark(stage: str) -> None:
    rec = CURRENT.get()
    if rec is not None and stage not in rec:
        rec[stage] = now()


def install(path: Path) -> None:
    import asyncpg.transaction
    from starlette.routing import Route

    import server.http.encounters as encounters
    import server.services.encounters as service
    from server.live.hub import Hub
    from server.store.listen import Subscription
    from server.store.postgres import PostgresEventStore

    post_command = encounters.post_command

    async def traced_post(request: Any) -> Any:
        rec: dict[str, Any] = {"k": "cmd", "in": now()}
        CURRENT.set(rec)
        try:
            return await post_command(request)
        finally:
            rec["out"] = now()
            LINES.append(rec)

    # The route list is built at import: swap the commands route in it (create_app reads
    # the list when it is called, after this).
    for i, route in enumerate(encounters.routes):
        if getattr(route, "path", "") == "/api/encounters/{id}/commands":
            encounters.routes[i] = Route(route.path, traced_post, methods=["POST"])

    execute = service.EncounterService.execute

    async def traced_execute(self: Any, eid: str, command: Any, *args: Any, **kw: Any) -> Any:
        rec = CURRENT.get()
        if rec is not None:
            rec["exec"] = now()
            rec["key"] = getattr(command, "purpose", None) or getattr(command, "reason", None)
        return await execute(self, eid, command, *args, **kw)

    setattr(service.EncounterService, "execute", traced_execute)  # noqa: B010

    attempt = service.EncounterService._attempt

    async def traced_attempt(self: Any, *args: Any, **kw: Any) -> Any:
        mark("lock")
        rec = CURRENT.get()
        if rec is not None and "idle" not in rec:
            rec["idle"] = self.store._pool.get_idle_size()  # bench-only: the adapter's pool
        return await attempt(self, *args, **kw)

    setattr(service.EncounterService, "_attempt", traced_attempt)  # noqa: B010

    load = service.EncounterService.load

    async def traced_load(self: Any, *args: Any, **kw: Any) -> Any:
        out = await load(self, *args, **kw)
        mark("loaded")
        return out

    setattr(service.EncounterService, "load", traced_load)  # noqa: B010

    decide = getattr(service, "decide_and_fold")  # noqa: B009 - not exported, wrapped here

    def traced_decide(*args: Any, **kw: Any) -> Any:
        out = decide(*args, **kw)
        mark("decided")
        return out

    setattr(service, "decide_and_fold", traced_decide)  # noqa: B010

    append = PostgresEventStore.append

    async def traced_append(self: Any, *args: Any, **kw: Any) -> Any:
        mark("append")
        out = await append(self, *args, **kw)
        mark("appended")
        return out

    setattr(PostgresEventStore, "append", traced_append)  # noqa: B010

    aexit: Any = asyncpg.transaction.Transaction.__aexit__

    async def traced_aexit(self: Any, *args: Any) -> None:
        rec = CURRENT.get()
        if rec is not None and "appended" in rec:
            mark("commit")
        await aexit(self, *args)
        if rec is not None and "appended" in rec:
            mark("committed")

    setattr(asyncpg.transaction.Transaction, "__aexit__", traced_aexit)  # noqa: B010

    on_notify = Subscription._on_notify

    def traced_notify(self: Any, conn: object, pid: int, channel: str, payload: object) -> None:
        stream, _, version = str(payload).rpartition(":")
        LINES.append({"k": "notify", "stream": stream, "version": version, "t": now()})
        on_notify(self, conn, pid, channel, payload)

    setattr(Subscription, "_on_notify", traced_notify)  # noqa: B010

    catch_up = Hub._catch_up

    async def traced_catch_up(self: Any, room: Any) -> None:
        start, before = now(), room.proj.version
        await catch_up(self, room)
        if room.proj.version != before:
            LINES.append(
                {"k": "read", "stream": room.stream, "from": before, "to": room.proj.version,
                 "start": start, "end": now()}
            )  # fmt: skip

    setattr(Hub, "_catch_up", traced_catch_up)  # noqa: B010

    started: dict[int, float] = {}

    def on_gc(phase: str, info: dict[str, Any]) -> None:
        gen = info["generation"]
        if phase == "start":
            started[gen] = now()
        elif gen in started:
            LINES.append({"k": "gc", "gen": gen, "start": started.pop(gen), "end": now()})

    gc.callbacks.append(on_gc)

    import uvicorn.server

    startup = uvicorn.server.Server.startup

    async def traced_startup(self: Any, *args: Any, **kw: Any) -> Any:
        loop = asyncio.get_running_loop()
        TASKS.extend([loop.create_task(_lag()), loop.create_task(_flush(path))])
        return await startup(self, *args, **kw)

    setattr(uvicorn.server.Server, "startup", traced_startup)  # noqa: B010


async def _lag() -> None:
    while True:
        t = now()
        await asyncio.sleep(0.01)
        late = now() - t - 0.01
        if late > 0.002:
            LINES.append({"k": "lag", "t": t + 0.01, "lag": late})


async def _flush(path: Path) -> None:
    with path.open("a", encoding="utf-8") as out:
        while True:
            await asyncio.sleep(0.5)
            lines, LINES[:] = LINES[:], []
            for line in lines:
                out.write(json.dumps(line) + "\n")
            out.flush()


def main() -> int:
    path = Path(sys.argv[1])
    install(path)
    from server.cli.main import main as cli

    return cli(sys.argv[2:])


if __name__ == "__main__":
    sys.exit(main())
