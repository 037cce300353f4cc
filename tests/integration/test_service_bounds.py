"""The service keeps no bookkeeping for encounters that do not exist, and bounds the rest."""

from __future__ import annotations

import uuid

import pytest

from domain.errors import NotFound
from server.services import encounters as service_module
from server.services.encounters import EncounterService
from server.services.metrics import Metrics
from tests.integration.store_contract import Backend


async def test_loading_unknown_encounters_leaves_no_lock_or_cache_entry_behind(
    stores: Backend,
) -> None:
    svc = EncounterService(stores.store, Metrics())
    for _ in range(50):
        with pytest.raises(NotFound):
            await svc.load(str(uuid.uuid4()))
    assert len(svc._locks) == 0
    assert len(svc._cache) == 0


async def test_the_seed_cache_keeps_only_the_most_recent_encounters(
    stores: Backend, monkeypatch: pytest.MonkeyPatch
) -> None:
    svc = EncounterService(stores.store, Metrics())
    svc._seeds.maxsize = 3
    made = [await svc.create("plain-d100", f"Seeds {i}", {}) for i in range(5)]
    assert list(svc._seeds) == [m["id"] for m in made[2:]]
    first = made[0]["id"]
    seeds = await svc._seeds_of(first)  # read back from the store when forgotten
    assert set(seeds) == {"main", "hidden"}
    assert first in svc._seeds and len(svc._seeds) == 3
    assert service_module.SEEDS_SIZE >= 1024
