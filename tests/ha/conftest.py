"""Fixtures of the operators' tests: throwaway clusters, own databases, frozen proxies."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterator

import pytest
import pytest_asyncio

from tests.conftest import fresh_database
from tests.ha.tools import Cluster, Proxy, have_postgres_binaries, scratch


@pytest.fixture
def clusters() -> Iterator[Callable[..., Cluster]]:
    """Make and start throwaway PostgreSQL clusters (`conf`: postgresql.conf lines);
    each is stopped and removed after the test."""
    if not have_postgres_binaries():
        pytest.skip("PostgreSQL 15 server binaries (/usr/lib/postgresql/15/bin) are missing")
    made: list[Cluster] = []

    def make(conf: dict[str, str] | None = None) -> Cluster:
        cluster = Cluster(scratch("fracas-cluster-"), conf)
        made.append(cluster)
        return cluster.init().start()

    yield make
    for cluster in made:
        cluster.remove()


@pytest.fixture
def proxies() -> Iterator[Callable[..., Proxy]]:
    """TCP proxies (closed after the test) that can freeze like a SIGSTOPped host."""
    made: list[Proxy] = []

    def make(host: str, port: int, *, frozen: bool = False) -> Proxy:
        proxy = Proxy(host, port, frozen=frozen)
        made.append(proxy)
        return proxy

    yield make
    for proxy in made:
        proxy.close()


@pytest_asyncio.fixture
async def own_database(server_url: str) -> AsyncIterator[str]:
    """A database of this test alone on the session's server (schema applied)."""
    async with fresh_database(server_url) as url:
        yield url
