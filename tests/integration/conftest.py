"""`stores`: each service test once on the memory store and once on PostgreSQL.

The memory variant needs no database (`pytest -k memory` runs without one); the
PostgreSQL one uses the session's fracas_app store. `another()` is what a second
server instance would hold: the same data, its own caches.
"""

from __future__ import annotations

import pytest

from server.store.memory import MemoryEventStore
from server.store.postgres import PostgresEventStore
from tests.integration.store_contract import Backend


@pytest.fixture(params=["memory", "postgresql"])
def stores(request: pytest.FixtureRequest) -> Backend:
    if request.param == "memory":
        memory = MemoryEventStore()
        return Backend(memory, lambda: memory)
    store: PostgresEventStore = request.getfixturevalue("store")
    return Backend(store, lambda: PostgresEventStore(store._pool))
