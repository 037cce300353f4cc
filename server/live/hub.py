"""Live fan-out: PostgreSQL NOTIFY wakes the hub, the hub reads from its checkpoint.

The hub never hears of appends from the in-process command path, so two server processes
on one database serve each other's watchers. Each watched encounter has a room with its
own projection fold and checkpoint (the last version broadcast).

Wake-ups are handled concurrently: a NOTIFY starts a read of its stream (at most
READERS at once across rooms), and the NOTIFYs that arrive for a stream while it is
being read coalesce into one more read. A stream whose read is slow holds up only
itself. Per update, each role's board is built once, diffed once against that role's
previous board (`patch=1` watchers, server/patch.py) and each message encoded once with
msgspec and framed once; the same bytes go to every watcher of that role, written to each
transport from the reader's task (a watcher's `Direct` sender, server/ws_transport.py), or
for a connection served through plain ASGI queued to its mailbox. A watcher too far behind
(its transport full and `QUEUE` updates waiting, or its mailbox full) is dropped with 1013
and resumes with `after`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import msgspec
from starlette.websockets import WebSocket

from domain.chain import GENESIS
from projections.board import board
from projections.filter import filter_events, secret_resources
from projections.view import Projection
from server.live.transport import BACKLOG, Direct, Shared
from server.live.updates import patch_update, scoped, whole_view
from server.services.encounters import KEEP_LINES, envelope
from server.services.metrics import Metrics
from server.store.port import EventStore

log = logging.getLogger(__name__)
QUEUE = BACKLOG


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
    """One websocket, with its role and the way to it: its connection's `Direct` sender,
    or else an outgoing mailbox that a pump task sends through ASGI (server/live.py).

    `patch` watchers get each update as a JSON Patch from the board they last received.
    """

    ws: WebSocket
    role: str
    patch: bool = False
    direct: Direct | None = None
    queue: Mailbox = field(default_factory=lambda: Mailbox(QUEUE))
    dropped: bool = False
    revoked: bool = False  # its token was revoked: closed 4401
    kind: str = ""  # its token's role (gm, player, spectator), for the metrics

    def deliver(self, out: Shared) -> bool:
        """Send or queue a message; False if the watcher is too far behind (drop it)."""
        if self.direct is not None:
            return self.direct.send_shared(out)
        if self.queue.full():
            return False
        self.queue.put_nowait(out.text)
        return True

    def end(self, *, after_queued: bool) -> None:
        """Close the socket (4401 if revoked, 1013 if dropped, else 1001): after what is
        queued, or now."""
        if self.direct is not None:
            code = 4401 if self.revoked else 1013 if self.dropped else 1001
            self.direct.end(code, after_backlog=after_queued)
        elif not after_queued or self.queue.full():
            self.queue.end()
        else:
            self.queue.put_nowait(None)


@dataclass(eq=False)
class Room:
    """One watched encounter: its fold, its checkpoint and its watchers."""

    stream: str
    proj: Projection = field(default_factory=lambda: Projection(keep=KEEP_LINES))
    watchers: set[Watcher] = field(default_factory=set)
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    # The board per role at the current version, as plain JSON: built once, shared by
    # the snapshot, the catch-up update and the next update's patch.
    boards: dict[str, Any] = field(default_factory=dict)
    # The snapshot text per role at the current version: a crowd joining at once shares
    # one string instead of building a board each.
    snapshots: dict[str, Shared] = field(default_factory=dict)
    reading: bool = False  # a read of the stream is under way (Hub._drive)
    woke: float | None = None  # when a wake-up first asked for a read (the lag metric)
    dirty: bool = False  # woken while being read: read once more
    tip: str = GENESIS  # the hash of the last event folded: the next must chain to it

    def new_fold(self) -> Any:
        """An empty fold of this kind of room (a War's room folds otherwise)."""
        return type(self)(self.stream).proj

    def board_now(self, role: str) -> Any:
        """The role's board at the current version, built at most once (a `patch=1`
        view, server/updates.py, is cut from its whole board)."""
        built = self.boards.get(role)
        if built is None:
            if whole_view(role) == role:
                built = msgspec.to_builtins(self.board(role))
            else:
                built = scoped(role, self.board_now)
            self.boards[role] = built
        return built

    def snapshot(self, role: str) -> Shared:
        text = self.snapshots.get(role)
        if text is None:
            text = self.snapshots[role] = message(
                {"type": "snapshot", "version": self.proj.version, "board": self.board_now(role)}
            )
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


_encode = msgspec.json.Encoder().encode


def message(body: dict[str, Any]) -> Shared:
    """One websocket message, encoded once (msgspec writes UTF-8, what a text frame
    carries) and framed once for every watcher of a role (server/ws_transport.py)."""
    return Shared(_encode(body))


READERS = 16  # streams read and fanned out at once


class Hub:
    """All rooms of this process, fed by one LISTEN connection."""

    def __init__(self, store: EventStore, metrics: Metrics, readers: int = READERS) -> None:
        self.store = store
        self.metrics = metrics
        self.rooms: dict[str, Room] = {}
        self._task: asyncio.Task[None] | None = None
        self._readers = asyncio.Semaphore(readers)
        self._drives: set[asyncio.Task[None]] = set()
        self._sweep: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._task = asyncio.create_task(self._run())

    async def stop(self) -> None:
        for task in [self._task, self._sweep, *self._drives]:
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
        for room in list(self.rooms.values()):
            for w in list(room.watchers):
                w.end(after_queued=True)

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
        # Nothing here awaits a read: each wake starts (or marks) its room's reader, so
        # one slow stream never delays another's wake-up.
        async with self.store.subscribe(tick=1.0) as sub:
            async for wake in sub:
                if wake.stream is None:
                    if self._sweep is None or self._sweep.done():
                        self._sweep = asyncio.create_task(self._sweep_all())
                    continue
                room = self.rooms.get(wake.stream)
                if room is not None and (wake.version is None or wake.version > room.proj.version):
                    self.wake(room)

    def wake(self, room: Room) -> None:
        """Read the room's stream soon: now if no read is under way, else once more after it."""
        if room.woke is None:
            room.woke = time.perf_counter()
        if room.reading:
            room.dirty = True
            return
        room.reading = True
        task = asyncio.create_task(self._drive(room))
        self._drives.add(task)
        task.add_done_callback(self._drives.discard)

    async def _drive(self, room: Room) -> None:
        try:
            while True:
                room.dirty = False
                async with self._readers:
                    try:
                        await self.refresh(room)
                    except Exception:  # a bad room must not stop every other room's updates
                        log.exception("hub refresh of %s failed", room.stream)
                if not room.dirty or self.rooms.get(room.stream) is not room:
                    return
        finally:
            room.reading = False

    async def _sweep_all(self) -> None:
        try:
            await self.catch_up_all()
        except Exception:
            log.exception("hub catch-up failed")

    async def catch_up_all(self) -> None:
        """A tick or a reconnect (a notification may have been lost): one query for every
        watched stream, then read only the rooms that moved, concurrently."""
        rooms = list(self.rooms.values())
        if not rooms:
            return
        heads = await self.store.versions([r.stream for r in rooms])
        # A head below what a room has folded: the database went back (restored, or
        # failed over behind this instance). Read, it resets the room.
        moved = [r for r in rooms if heads.get(r.stream, 0) != r.proj.version]

        async def one(room: Room) -> None:
            async with self._readers, room.lock:
                if heads.get(room.stream, 0) < room.proj.version and await self._behind(room):
                    await self._reset(room, room.proj.version)
                else:
                    await self._catch_up(room)

        await asyncio.gather(*(one(r) for r in moved))

    async def _catch_up(self, room: Room) -> None:
        """Read the room's stream past its checkpoint and broadcast it (lock held)."""
        recs = await self.store.read_stream(room.stream, after=room.proj.version)
        if not recs:
            room.woke = None
            return
        if room.proj.version and recs[0].prev_hash != room.tip:
            await self._reset(room, room.proj.version)  # another history than the folded
            return
        envs = [envelope(r) for r in recs]
        before = room.boards
        room.proj.extend(envs)
        room.tip = recs[-1].hash
        room.boards = {}
        room.snapshots.clear()
        if not room.watchers:
            return
        version = room.proj.version
        by_role: dict[str, list[Watcher]] = {}
        for w in room.watchers:
            by_role.setdefault(w.role, []).append(w)
        seen: dict[str, list[Any]] = {}  # filtered once per whole board ("gm", "public")
        for role, watchers in by_role.items():
            new = room.board_now(role)
            whole = whole_view(role)
            events = seen.get(whole)
            if events is None:
                events = seen[whole] = room.visible(envs, whole)
            full = patched = None
            old = before.get(role)
            for w in watchers:
                if w.patch:
                    if patched is None:
                        patched = message(patch_update(version, events, old, new))
                    self._offer(room, w, patched)
                else:
                    if full is None:
                        full = message(
                            {"type": "update", "version": version, "events": events,
                             "board": new}
                        )  # fmt: skip
                    self._offer(room, w, full)
        if room.woke is not None:
            self.metrics.hub_lag.observe(time.perf_counter() - room.woke)
            room.woke = None

    async def _behind(self, room: Room) -> bool:
        """Whether the store's head of the room's stream is below what the room folded,
        or at it with another event (lock held: the room cannot move meanwhile)."""
        head, digest = await self.store.head(room.stream)
        return head < room.proj.version or (head == room.proj.version and digest != room.tip)

    async def _reset(self, room: Room, seen: int) -> None:
        """The store no longer holds what the room folded (lock held): fold the stream
        again and send each watcher `{"type": "reset", "version", "board"}` (CONTRACT
        section 7), from which versions increase again."""
        recs = await self.store.read_stream(room.stream)
        log.warning(
            "history reset: %s is at version %d in the database, behind or beside the %d"
            " this instance had seen; %d watchers reset",
            room.stream,
            recs[-1].version if recs else 0,
            seen,
            len(room.watchers),
        )
        self.metrics.history_resets += 1
        room.proj = room.new_fold()
        room.proj.extend([envelope(r) for r in recs])
        room.tip = recs[-1].hash if recs else GENESIS
        room.boards = {}
        room.snapshots.clear()
        sent: dict[str, Shared] = {}
        for w in list(room.watchers):
            if not recs:  # the whole encounter is gone: nothing to show
                room.watchers.discard(w)
                w.end(after_queued=True)
                continue
            out = sent.get(w.role)
            if out is None:
                body = {
                    "type": "reset",
                    "version": room.proj.version,
                    "board": room.board_now(w.role),
                }
                out = sent[w.role] = message(body)
            self._offer(room, w, out)

    async def refresh(self, room: Room) -> None:
        async with room.lock:
            await self._catch_up(room)

    def _offer(self, room: Room, w: Watcher, out: Shared) -> None:
        if not w.deliver(out):
            # Slow client: drop it rather than slow everyone (CONTRACT section 7). It
            # gets what it was sent, then 1013, and resumes with `after`.
            w.dropped = True
            room.watchers.discard(w)
            self.metrics.ws_dropped += 1
            w.end(after_queued=True)

    async def join(
        self, stream: str, w: Watcher, after: int | None, make_room: Callable[[str], Room] = Room
    ) -> None:
        """Register a watcher, first queueing its snapshot or the updates it missed.

        Either carries the whole board: a `patch` watcher's patches start from it."""
        room = self.rooms.get(stream)
        if room is None:
            room = self.rooms[stream] = make_room(stream)
        async with room.lock:
            if room.proj.version and await self._behind(room):  # still that history?
                await self._reset(room, room.proj.version)
            await self._catch_up(room)
            version = room.proj.version
            if after is None or after > version:
                text = room.snapshot(w.role)
            else:
                missed = await self.store.read_stream(stream, after=after, upto=version)
                envs = [envelope(r) for r in missed]
                events, board_ = room.visible(envs, w.role), room.board_now(w.role)
                text = message(
                    patch_update(version, events, None, board_) if w.patch else
                    {"type": "update", "version": version, "events": events, "board": board_}
                )  # fmt: skip
            w.deliver(text)  # the first message: nothing is queued before it
            room.watchers.add(w)
            self.metrics.ws_opened(w.kind or w.role)

    def leave(self, stream: str, w: Watcher) -> None:
        room = self.rooms.get(stream)
        self.metrics.ws_closed(w.kind or w.role)
        if room is None:
            return
        room.watchers.discard(w)
        if not room.watchers:
            del self.rooms[stream]
