"""The store contract, once per store: the events (tests/integration/store_contract.py)
and the side tables (tests/integration/tables_contract.py)."""

from __future__ import annotations

import pytest

from server.store.memory import MemoryEventStore
from server.store.postgres import PostgresEventStore
from tests.integration.store_contract import Backend, StoreContract
from tests.integration.tables_contract import TablesContract


class TestPostgresEventStore(StoreContract, TablesContract):
    """Against the real PostgreSQL, through connections acting as fracas_app."""

    @pytest.fixture
    def backend(self, store: PostgresEventStore) -> Backend:
        # Another instance shares the pool but not the head cache.
        return Backend(store, lambda: PostgresEventStore(store._pool))


class TestMemoryEventStore(StoreContract, TablesContract):
    """In memory: a fresh store per test."""

    @pytest.fixture
    def backend(self) -> Backend:
        store = MemoryEventStore()
        return Backend(store, lambda: store)
