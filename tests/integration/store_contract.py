"""The contract of the `EventStore` port, for every implementation.

Not collected by itself (no `test_` prefix): tests/integration/test_store_contract.py
runs `StoreContract` once per store, each subclass giving its own `backend` fixture
(the way pyeventsourcing reuses tests/persistence.py for each of its backends). Only
the port is used here, never SQL: what only PostgreSQL promises is tested in
tests/integration/test_store.py.

Stream names are fresh per test, so tests may share one store without seeing each other.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import re
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import msgspec
import pytest

from domain.chain import GENESIS, first_break
from server.store.port import ConcurrencyError, NewEvent, Recorded, Store
from server.store.postgres import tail

META = {"command_id": "c-1", "actor": "gm", "rules_version": "test-1"}


@dataclass(frozen=True)
class Backend:
    """A store under test, and a way to get another handle on the same data.

    `another()` is what a second server instance would hold: the same events, its own
    caches (the PostgreSQL adapter caches stream heads).
    """

    store: Store
    another: Callable[[], Store]


def new_stream() -> str:
    return f"encounter-{uuid.uuid4()}"


def hit(n: int) -> NewEvent:
    return NewEvent("damage_dealt", {"target": "orc", "amount": n, "note": "épée"})


def envelopes(events: list[Recorded]) -> list[dict[str, Any]]:
    return [msgspec.structs.asdict(e) for e in events]


async def next_wake_for(wakes: Any, stream: str) -> int:
    async for wake in wakes:
        if wake.stream == stream:
            return int(wake.version)
    raise AssertionError("the wake-ups ended")


class StoreContract:
    """What every EventStore promises. Subclasses define the `backend` fixture."""

    async def test_an_empty_stream_has_version_zero_and_the_genesis_hash(
        self, backend: Backend
    ) -> None:
        store = backend.store
        assert await store.head(new_stream()) == (0, GENESIS)
        assert await store.read_stream(new_stream()) == []
        assert await store.read_facts(new_stream()) == []

    async def test_an_append_returns_the_stored_envelopes_with_their_positions(
        self, backend: Backend
    ) -> None:
        store, stream = backend.store, new_stream()
        appended = await store.append(stream, 0, [hit(3), hit(4)], META)

        assert [e.version for e in appended] == [1, 2]
        assert appended[1].position > appended[0].position > 0
        assert appended[0].prev_hash == GENESIS and appended[1].prev_hash == appended[0].hash
        assert appended[0].meta == {**META, "recorded_at": appended[0].meta["recorded_at"]}
        recorded_at = appended[0].meta["recorded_at"]
        assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z", recorded_at)
        assert appended[0].data == {"target": "orc", "amount": 3, "note": "épée"}
        assert await store.read_stream(stream) == appended
        assert await store.head(stream) == (2, appended[1].hash)
        assert first_break(envelopes(appended)) is None

    async def test_read_stream_returns_the_versions_between_after_and_upto(
        self, backend: Backend
    ) -> None:
        store, stream = backend.store, new_stream()
        appended = await store.append(stream, 0, [hit(n) for n in range(5)], META)

        assert await store.read_stream(stream, after=1, upto=3) == appended[1:3]
        assert await store.read_stream(stream, after=3) == appended[3:]
        assert await store.read_stream(stream, upto=2) == appended[:2]
        assert await store.read_stream(stream, after=5) == []

    async def test_read_facts_gives_what_a_fold_needs_of_the_same_versions(
        self, backend: Backend
    ) -> None:
        store, stream = backend.store, new_stream()
        appended = await store.append(stream, 0, [hit(n) for n in range(5)], META)

        facts = await store.read_facts(stream, after=1, upto=3)
        assert facts == [
            {
                "stream": stream,
                "version": e.version,
                "type": e.type,
                "data": e.data,
                # the step it belongs to, and when (a deadline counts from it)
                "meta": {
                    "command_id": e.meta.get("command_id"),
                    "recorded_at": e.meta["recorded_at"],
                },
            }
            for e in appended[1:3]
        ]
        assert await store.read_facts(stream, after=5) == []

    async def test_deadline_streams_are_the_open_encounters_with_a_deadline(
        self, backend: Backend
    ) -> None:
        store = backend.store
        tag = uuid.uuid4().hex[:8]
        opened = [
            (f"encounter-{tag}-a", {"deadline.hours": 24}),
            (f"encounter-{tag}-b", {}),
            (f"encounter-{tag}-c", {"deadline.hours": 0}),
            (f"encounter-{tag}-d", {"deadline.hours": 48}),
            (f"encounter-{tag}-e", {"deadline.hours": 1}),
        ]
        for stream, settings in opened:
            data = {"encounter_id": stream, "ruleset": "plain-d100", "name": "T",
                    "settings": settings}  # fmt: skip
            await store.append(stream, 0, [NewEvent("encounter_opened", data)], META)
        await store.append(f"encounter-{tag}-e", 1, [NewEvent("encounter_closed", {})], META)
        found = await store.deadline_streams(f"encounter-{tag}", 1000)
        mine = [s for s in found if s.startswith(f"encounter-{tag}")]
        assert mine == [f"encounter-{tag}-a", f"encounter-{tag}-d"]
        page = await store.deadline_streams(f"encounter-{tag}-a", 1)
        assert page == [f"encounter-{tag}-d"]

    async def test_changing_what_was_read_changes_nothing_stored(self, backend: Backend) -> None:
        store, stream = backend.store, new_stream()
        [appended] = await store.append(stream, 0, [hit(1)], META)
        appended.data["amount"] = 99
        [read] = await store.read_stream(stream)
        read.data["amount"] = 98
        (await store.read_facts(stream))[0]["data"]["amount"] = 97

        [again] = await store.read_stream(stream)
        assert again.data["amount"] == 1
        assert first_break(envelopes([again])) is None

    async def test_a_wrong_expected_version_raises_concurrency_error_and_appends_nothing(
        self, backend: Backend
    ) -> None:
        store, stream = backend.store, new_stream()
        await store.append(stream, 0, [hit(1), hit(2)], META)

        for wrong in (0, 1, 3):
            with pytest.raises(ConcurrencyError) as raised:
                await store.append(stream, wrong, [hit(9)], META)
            assert (raised.value.stream, raised.value.expected, raised.value.actual) == (
                stream,
                wrong,
                2,
            )

        assert [e.version for e in await store.read_stream(stream)] == [1, 2]
        assert await store.versions([stream]) == {stream: 2}

    async def test_a_multi_event_append_is_atomic(self, backend: Backend) -> None:
        store, stream = backend.store, new_stream()
        [first] = await store.append(stream, 0, [hit(1)], META)

        # Type tags are snake_case: the second event is refused, so none of them lands.
        with pytest.raises(ValueError, match="refused"):
            await store.append(stream, 1, [hit(2), NewEvent("Not Snake Case", {}), hit(3)], META)
        # A float has no canonical form, so it cannot be hashed: refused likewise.
        with pytest.raises(ValueError, match="float"):
            await store.append(stream, 1, [hit(2), NewEvent("healed", {"hp": 1.5})], META)
        with pytest.raises(ValueError):
            await store.append(stream, 1, [], META)

        assert await store.read_stream(stream) == [first]
        assert await store.head(stream) == (1, first.hash)
        [second, third] = await store.append(stream, 1, [hit(2), hit(3)], META)
        assert (second.version, second.prev_hash, third.version) == (2, first.hash, 3)

    async def test_eight_racing_writers_leave_a_gapless_stream_and_every_loser_gets_a_conflict(
        self, backend: Backend
    ) -> None:
        stream, writers, wins_each = new_stream(), 8, 5
        first_round = asyncio.Barrier(writers)
        conflicts: list[ConcurrencyError] = []
        wins: dict[int, int] = {}

        async def writer(n: int) -> None:
            own = backend.another()  # like another server instance
            wins[n] = 0
            first = True
            while wins[n] < wins_each:
                version, _ = await own.head(stream)
                if first:  # everyone read version 0: all but one must lose
                    await first_round.wait()
                    first = False
                try:
                    await own.append(stream, version, [NewEvent("raced", {"writer": n})], META)
                except ConcurrencyError as e:
                    conflicts.append(e)
                    continue
                wins[n] += 1

        await asyncio.gather(*(writer(n) for n in range(writers)))

        events = await backend.store.read_stream(stream)
        assert [e.version for e in events] == list(range(1, writers * wins_each + 1))
        assert wins == dict.fromkeys(range(writers), wins_each)
        assert len(conflicts) >= writers - 1
        assert first_break(envelopes(events)) is None

    async def test_a_tailing_reader_sees_every_event_once_in_position_order(
        self, backend: Backend
    ) -> None:
        store, rng = backend.store, random.Random(20261129)
        [marker] = await store.append(new_stream(), 0, [hit(0)], META)
        plans = [[rng.randint(1, 3) for _ in range(15)] for _ in range(4)]
        streams = {new_stream() for _ in plans}
        expected_count = sum(map(sum, plans))
        appended: list[Recorded] = []

        async def writer(stream: str, sizes: list[int]) -> None:
            version = 0
            for size in sizes:
                await asyncio.sleep(rng.random() / 200)
                batch = [NewEvent("tick_counted", {"i": version + i}) for i in range(size)]
                appended.extend(await store.append(stream, version, batch, META))
                version += size

        async def reader() -> list[Recorded]:
            seen: list[Recorded] = []
            last = marker.position
            tailing = tail(store, marker.position, limit=7, tick=0.2)
            async with contextlib.aclosing(tailing) as events:
                async for event in events:
                    assert event.position > last  # in order, each once
                    last = event.position
                    if event.stream in streams:  # other tests may share the store
                        seen.append(event)
                    if len(seen) == expected_count:
                        return seen
            raise AssertionError("tail ended")

        results = await asyncio.wait_for(
            asyncio.gather(
                reader(), *(writer(s, sizes) for s, sizes in zip(streams, plans, strict=True))
            ),
            timeout=60,
        )
        assert sorted(appended, key=lambda e: e.position) == results[0]

    async def test_versions_gives_each_streams_version(self, backend: Backend) -> None:
        store, one, two, empty = backend.store, new_stream(), new_stream(), new_stream()
        await store.append(one, 0, [hit(1), hit(2)], META)
        await store.append(two, 0, [hit(1)], META)
        assert await store.versions([one, two, empty]) == {one: 2, two: 1, empty: 0}
        assert await store.versions([]) == {}

    async def test_the_subscription_wakes_on_every_append_and_drains(
        self, backend: Backend
    ) -> None:
        store, stream = backend.store, new_stream()
        async with store.subscribe(tick=0.2) as wakes:
            await store.append(stream, 0, [hit(1)], META)
            assert await asyncio.wait_for(next_wake_for(wakes, stream), 10) == 1
            await store.append(stream, 1, [hit(2), hit(3)], META)
            assert await asyncio.wait_for(next_wake_for(wakes, stream), 10) == 3

            wakes.drain()
            # Nothing more of ours is appended: the next wake is a tick (or another
            # test's append), never a repeat of ours.
            quiet = await asyncio.wait_for(anext(wakes), 10)
            assert quiet.stream != stream

    async def test_the_tick_comes_even_while_appends_keep_the_subscription_busy(
        self, backend: Backend
    ) -> None:
        """The safety net of a lost wake-up: a periodic Wake() every tick, however many
        appends wake the subscription meanwhile (here one every 20 ms, ten a tick)."""
        store, stream = backend.store, new_stream()
        stop = asyncio.Event()

        async def busy() -> None:
            version = 0
            while not stop.is_set():
                await store.append(stream, version, [hit(version + 1)], META)
                version += 1
                await asyncio.sleep(0.02)

        async with store.subscribe(tick=0.2) as wakes:
            running = asyncio.create_task(busy())
            try:
                loop = asyncio.get_running_loop()
                start, ticks, woken = loop.time(), 0, 0
                while loop.time() - start < 1.5:
                    wake = await asyncio.wait_for(anext(wakes), 10)
                    if wake.stream is None:
                        ticks += 1
                    elif wake.stream == stream:
                        woken += 1
                assert woken >= 10  # the appends did keep it busy
                assert ticks >= 3  # ~7 ticks of 0.2 s in 1.5 s; none if a busy queue starves them
            finally:
                stop.set()
                await running
