"""Live fan-out: PostgreSQL NOTIFY wakes the hub, the hub reads from its checkpoint.

The hub never hears of appends from the in-process command path, so two server processes
on one database serve each other's watchers. Each watched encounter has a room with its
own projection fold and checkpoint (the last version broadcast). Each update is encoded
once per role ("gm", "public") and the same text goes to every watcher of that role. A
watcher whose queue is full is dropped with 1013 and resumes with `after`.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import msgspec
from starlette.websockets import WebSocket

from projections.board import board
from projections.filter import filter_events, secret_resources
from projections.view import Projection
from server.metrics import Metrics
from server.service import KEEP_LINES, envelope
from server.store import PostgresEventStore

log = logging.getLogger(__name__)
QUEUE = 256


class Mailbox:
    """A bounded outgoing queue for one watcher: a deque and at most one waiting getter.

    asyncio.Queue keeps three deques and an Event per instance; with a thousand idle
    watchers that overhead showed in the memory per connection (bench/RESULTS.md).
    """

    __slots__ = ("_items", "_maxsize", "_waiter")

    def __init__(self, maxsize: int) -> None:
        self._items: deque[str | None] = deque()
        self._maxsize = maxsize
        self._waiter: asyncio.Future[None] | None = None

    def full(self) -> bool:
        return len(self._items) >= self._maxsize

    def empty(self) -> bool:
        return not self._items

    def put_nowait(self, item: str | None) -> None:
        """Queue an item, or raise asyncio.QueueFull."""
        if self.full():
            raise asyncio.QueueFull
        self._items.append(item)
        if self._waiter is not None and not self._waiter.done():
            self._waiter.set_result(None)

    def end(self) -> None:
        """Drop whatever is queued and queue the end (None), full or not."""
        self._items.clear()
        self.put_nowait(None)

    def get_nowait(self) -> str | None:
        if not self._items:
            raise asyncio.QueueEmpty
        return self._items.popleft()

    async def get(self) -> str | None:
        while not self._items:
            self._waiter = asyncio.get_running_loop().create_future()
            try:
                await self._waiter
            finally:
                self._waiter = None
        return self._items.popleft()


@dataclass(eq=False, slots=True)
class Watcher:
    """One websocket, with its role and an outgoing mailbox."""

    ws: WebSocket
    role: str
    queue: Mailbox = field(default_factory=lambda: Mailbox(QUEUE))
    dropped: bool = False
    revoked: bool = False  # its token was revoked: closed 4401


@dataclass(eq=False)
class Room:
    """One watched encounter: its fold, its checkpoint and its watchers."""

    stream: str
    proj: Projection = field(default_factory=lambda: Projection(keep=KEEP_LINES))
    watchers: set[Watcher] = field(default_factory=set)
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    # The snapshot text per role at the current version: a crowd joining at once shares
    # one string instead of building a board each.
    snapshots: dict[str, str] = field(default_factory=dict)

    def snapshot(self, role: str) -> str:
        text = self.snapshots.get(role)
        if text is None:
            text = self.snapshots[role] = message("snapshot", self.proj.version, self.board(role))
        return text

    # What a room sends: an encounter's board and its events filtered per role. Another
    # stream's room (a War's, server/live_war.py) overrides these two and `proj`.
    def board(self, role: str) -> dict[str, Any]:
        return board(self.proj, role)

    def visible(self, envs: list[dict[str, Any]], role: str) -> list[Any]:
        return visible_to(self.proj, envs, role)


def visible_to(proj: Projection, envs: list[dict[str, Any]], role: str) -> list[Any]:
    state = proj.state
    return filter_events(envs, role, secret_resources(state), state.ledger.hidden_rolls)


def message(kind: str, version: int, board_: dict[str, Any], events: Any = None) -> str:
    """One websocket message as ASCII-only JSON text.

    The server encodes the text to UTF-8 again for every connection; on pure ASCII that
    is a copy (0.4 us for an 18 KB update), on text with an arrow or an accent it is a
    real transcode (11 us), paid per watcher. Escaping once here is cheaper.
    """
    body: dict[str, Any] = {"type": kind, "version": version}
    if events is not None:
        body["events"] = events
    body["board"] = board_
    return json.dumps(msgspec.to_builtins(body), ensure_ascii=True, separators=(",", ":"))


class Hub:
    """All rooms of this process, fed by one LISTEN connection."""

    def __init__(self, store: PostgresEventStore, metrics: Metrics) -> None:
        self.store = store
        self.metrics = metrics
        self.rooms: dict[str, Room] = {}
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._task = asyncio.create_task(self._run())

    async def stop(self) -> None:
        if self._task:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        for room in list(self.rooms.values()):
            for w in list(room.watchers):
                try:
                    w.queue.put_nowait(None)  # after what is queued
                except asyncio.QueueFull:
                    w.queue.end()

    async def _run(self) -> None:
        # The subscription reconnects by itself; this loop only covers a failure to open
        # it at all (the database down at start). Watchers catch up on the next wake.
        while True:
            try:
                await self._listen()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("hub subscription failed; retrying in 1 s")
                await asyncio.sleep(1.0)

    async def _listen(self) -> None:
        async with self.store.subscribe(tick=1.0) as sub:
            async for wake in sub:
                try:
                    if wake.stream is not None:
                        if wake.stream in self.rooms:
                            await self.refresh(self.rooms[wake.stream])
                    else:
                        await self.catch_up_all()
                except Exception:  # a bad room must not stop every other room's updates
                    log.exception("hub refresh failed")

    async def catch_up_all(self) -> None:
        """A tick or a reconnect (a notification may have been lost): one query for every
        watched stream, then read only the rooms that moved."""
        rooms = list(self.rooms.values())
        if not rooms:
            return
        heads = await self.store.versions([r.stream for r in rooms])
        for room in rooms:
            if heads.get(room.stream, 0) > room.proj.version:
                await self.refresh(room)

    async def _catch_up(self, room: Room) -> None:
        """Read the room's stream past its checkpoint and broadcast it (lock held)."""
        recs = await self.store.read_stream(room.stream, after=room.proj.version)
        if not recs:
            return
        envs = [envelope(r) for r in recs]
        room.proj.extend(envs)
        room.snapshots.clear()
        if not room.watchers:
            return
        version = room.proj.version
        for role in {w.role for w in room.watchers}:
            text = message("update", version, room.board(role), room.visible(envs, role))
            for w in [w for w in room.watchers if w.role == role]:
                self._offer(room, w, text)

    async def refresh(self, room: Room) -> None:
        async with room.lock:
            await self._catch_up(room)

    def _offer(self, room: Room, w: Watcher, text: str) -> None:
        try:
            w.queue.put_nowait(text)
        except asyncio.QueueFull:
            # Slow client: drop it rather than slow everyone (CONTRACT section 7).
            w.dropped = True
            room.watchers.discard(w)
            self.metrics.ws_dropped += 1
            w.queue.end()

    async def join(
        self, stream: str, w: Watcher, after: int | None, make_room: Callable[[str], Room] = Room
    ) -> None:
        """Register a watcher, first queueing its snapshot or the updates it missed."""
        room = self.rooms.get(stream)
        if room is None:
            room = self.rooms[stream] = make_room(stream)
        async with room.lock:
            await self._catch_up(room)
            version = room.proj.version
            if after is None or after > version:
                text = room.snapshot(w.role)
            else:
                missed = await self.store.read_stream(stream, after=after, upto=version)
                envs = [envelope(r) for r in missed]
                text = message("update", version, room.board(w.role), room.visible(envs, w.role))
            w.queue.put_nowait(text)
            room.watchers.add(w)
            self.metrics.ws_connections += 1

    def leave(self, stream: str, w: Watcher) -> None:
        room = self.rooms.get(stream)
        self.metrics.ws_connections -= 1
        if room is None:
            return
        room.watchers.discard(w)
        if not room.watchers:
            del self.rooms[stream]
