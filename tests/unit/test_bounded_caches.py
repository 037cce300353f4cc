"""The server's bounded bookkeeping: the LRU map and the creation rate limit (no I/O)."""

from __future__ import annotations

import asyncio

import pytest

from server.http.ratelimit import DEFAULT_PER_MINUTE, RateLimiter, configured
from server.services.lru import Lru


def test_an_lru_forgets_the_least_recently_used_entry_first() -> None:
    lru: Lru[str, int] = Lru(2)
    lru["a"] = 1
    lru["b"] = 2
    assert lru.get("a") == 1  # "a" is now the most recent
    lru["c"] = 3
    assert list(lru) == ["a", "c"]
    assert lru.setdefault("a", 9) == 1
    assert lru.pop("zzz") is None


def test_an_lru_never_drops_an_entry_it_is_told_to_keep() -> None:
    async def run() -> None:
        held, free = asyncio.Lock(), asyncio.Lock()
        await held.acquire()
        lru: Lru[str, asyncio.Lock] = Lru(1, keep=asyncio.Lock.locked)
        lru["held"] = held
        lru["free"] = free
        assert list(lru) == ["held", "free"]  # over its size while the oldest is held
        lru["other"] = asyncio.Lock()
        assert list(lru) == ["held", "other"]
        held.release()
        lru["last"] = asyncio.Lock()
        assert list(lru) == ["last"]

    asyncio.run(run())


def test_creations_are_limited_per_address_and_refill_over_the_minute() -> None:
    limit = RateLimiter(3)
    assert [limit.take("10.0.0.1", now=0.0) for _ in range(3)] == [0.0, 0.0, 0.0]
    wait = limit.take("10.0.0.1", now=0.0)
    assert wait == pytest.approx(20.0)  # one creation every 20 s at 3 per minute
    assert limit.retry_after(wait) == 20
    assert limit.take("10.0.0.2", now=0.0) == 0.0  # another address has its own bucket
    assert limit.take("10.0.0.1", now=21.0) == 0.0


def test_a_limit_of_zero_is_no_limit_and_the_buckets_are_bounded() -> None:
    assert all(RateLimiter(0).take("a", now=0.0) == 0.0 for _ in range(1000))
    limit = RateLimiter(1, addresses=10)
    for i in range(100):
        limit.take(f"10.0.0.{i}", now=0.0)
    assert len(limit._buckets) == 10


def test_the_limit_comes_from_the_flag_else_the_environment_else_sixty(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("FRACAS_CREATE_RATE", raising=False)
    assert configured(None) == DEFAULT_PER_MINUTE == 60
    monkeypatch.setenv("FRACAS_CREATE_RATE", "5")
    assert configured(None) == 5
    assert configured(0) == 0
    monkeypatch.setenv("FRACAS_CREATE_RATE", "lots")
    with pytest.raises(ValueError):
        configured(None)
