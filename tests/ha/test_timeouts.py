"""Timeouts everywhere (issue 23): a frozen host, a read-only host and a stalled synchronous
standby are each answered, `503 unavailable` with Retry-After when the database cannot
serve, within the configured time, never a hang or a 500; and without a restart once the
database is back. Each test runs real `fracas serve` processes on throwaway clusters."""

from __future__ import annotations

import contextlib
import functools
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx

from tests.e2e.conftest import Api, Instance, start_server, stop_server
from tests.e2e.test_http import setup_fight
from tests.ha.tools import Cluster, Proxy, multi_host

CONNECT, COMMAND, ACQUIRE = 1.0, 2.0, 3.0
OPTIONS = ["--connect-timeout", str(CONNECT), "--command-timeout", str(COMMAND),
           "--acquire-timeout", str(ACQUIRE)]  # fmt: skip
SLACK = 1.5  # seconds of HTTP, scheduling and a loaded 2-core machine on top of a timeout


def roll(purpose: str) -> dict[str, Any]:
    return {"type": "roll", "expr": "1d20", "purpose": purpose}


def timed(call: Callable[[], httpx.Response]) -> tuple[httpx.Response, float]:
    started = time.monotonic()
    answer = call()
    return answer, time.monotonic() - started


def assert_unavailable(r: httpx.Response) -> None:
    assert r.status_code == 503, r.text
    assert r.json()["error"]["code"] == "unavailable"
    assert r.headers["retry-after"].isdigit()


def until_ok(api: Api, eid: str, gm: str, purpose: str, bound: float = 15.0) -> float:
    """Send the command with its key until it is answered 200; seconds it took."""
    started = time.monotonic()
    while True:
        r = api.command(eid, gm, roll(purpose), key=purpose)
        if r.status_code == 200:
            return time.monotonic() - started
        assert r.status_code == 503, r.text
        assert time.monotonic() - started < bound, f"still 503 after {bound} s"
        time.sleep(0.2)


def rolls_for(api: Api, eid: str, gm: str, purpose: str) -> int:
    return sum(
        1
        for e in api.events(eid, gm)
        if e["type"] == "die_rolled" and e["data"].get("purpose") == purpose
    )


@contextlib.contextmanager
def serving(url: str, log: Path, *extra: str) -> Iterator[tuple[Instance, Api]]:
    """A `fracas serve` with the tests' timeouts, and a client of it; both closed after."""
    server = start_server(url, str(log), options=[*OPTIONS, *extra])
    api = Api(server.base)
    try:
        yield server, api
    finally:
        api.http.close()
        stop_server(server)


def test_a_frozen_first_host_costs_one_connect_timeout_then_the_second_host_serves(
    clusters: Callable[..., Cluster], proxies: Callable[..., Proxy], tmp_path: Path
) -> None:
    pg = clusters()
    pg.sql("CREATE DATABASE fracas")
    frozen = proxies("127.0.0.1", pg.port, frozen=True)  # accepts, never answers
    url = multi_host(pg.url_of("fracas"), f"127.0.0.1:{frozen.port}", f"127.0.0.1:{pg.port}")
    started = time.monotonic()
    with serving(url, tmp_path / "serve.log") as (_server, api):
        # Startup makes a handful of connections (schema, pool, LISTEN), one connect
        # timeout each; with asyncpg's shared timeout it never got past the first host.
        startup = time.monotonic() - started
        assert startup < 20, f"serve took {startup:.1f} s to answer"
        fight = setup_fight(api)
        for i in range(5):
            r, took = timed(functools.partial(api.command, fight["id"], fight["gm"], roll(f"r{i}")))
            assert r.status_code == 200, r.text
            assert took < CONNECT + SLACK
        print(f"startup through a frozen first host: {startup:.1f} s")


def test_a_host_frozen_under_a_running_instance_is_answered_503_in_time_then_serves_again(
    clusters: Callable[..., Cluster], proxies: Callable[..., Proxy], tmp_path: Path
) -> None:
    pg = clusters()
    pg.sql("CREATE DATABASE fracas")
    proxy = proxies("127.0.0.1", pg.port)
    url = multi_host(pg.url_of("fracas"), f"127.0.0.1:{proxy.port}", attrs=None)
    with serving(url, tmp_path / "serve.log") as (server, api):
        fight = setup_fight(api)
        eid, gm = fight["id"], fight["gm"]
        proxy.freeze()  # as if PostgreSQL were SIGSTOPped: connections hang, none refused
        r, took = timed(lambda: api.command(eid, gm, roll("k1"), key="k1"))
        assert_unavailable(r)
        assert took < COMMAND + SLACK, f"answered after {took:.1f} s"
        health, took = timed(lambda: api.http.get("/healthz"))
        assert health.status_code == 503
        assert took < ACQUIRE + SLACK
        # Its connections were dropped: a new one waits for one connect timeout per try,
        # within the acquire timeout.
        r, took = timed(lambda: api.command(eid, gm, roll("k2"), key="k2"))
        assert_unavailable(r)
        assert took < ACQUIRE + SLACK, f"answered after {took:.1f} s"

        proxy.thaw()
        back = until_ok(api, eid, gm, "k1")
        until_ok(api, eid, gm, "k2")
        assert rolls_for(api, eid, gm, "k1") == 1 and rolls_for(api, eid, gm, "k2") == 1
        assert server.proc.poll() is None  # no restart
        print(f"frozen host: commands answered again {back:.2f} s after the thaw")


def test_a_read_only_first_host_is_passed_over_for_the_writable_one(
    clusters: Callable[..., Cluster], tmp_path: Path
) -> None:
    standby_like = clusters({"default_transaction_read_only": "on"})
    standby_like.sql("CREATE DATABASE fracas")
    primary = clusters()
    primary.sql("CREATE DATABASE fracas")
    url = multi_host(
        primary.url_of("fracas"), f"127.0.0.1:{standby_like.port}", f"127.0.0.1:{primary.port}"
    )
    with serving(url, tmp_path / "serve.log") as (_server, api):
        fight = setup_fight(api)
        api.ok(fight["id"], fight["gm"], roll("written"))
        stream = f"encounter-{fight['id']}"
        count = f"SELECT count(*) FROM events WHERE stream = '{stream}'"
        assert int(primary.sql(count, "fracas")) >= 4
        assert standby_like.sql(
            "SELECT count(*) FROM pg_tables WHERE tablename = 'events'", "fracas"
        ) == "0"  # fmt: skip


def test_a_server_turned_read_only_answers_writes_503_reads_200_and_writes_again_after(
    clusters: Callable[..., Cluster], tmp_path: Path
) -> None:
    pg = clusters()
    pg.sql("CREATE DATABASE fracas")
    log = tmp_path / "serve.log"
    drop = (
        "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity"
        " WHERE datname = 'fracas' AND pid <> pg_backend_pid()"
    )
    with serving(pg.url_of("fracas"), log) as (server, api):
        fight = setup_fight(api)
        eid, gm = fight["id"], fight["gm"]
        # A failed-over primary come back as a standby, as the pool sees it: connected
        # sessions end, new ones are read-only.
        pg.sql("ALTER DATABASE fracas SET default_transaction_read_only = on")
        pg.sql(drop)
        deadline = time.monotonic() + 10
        while True:
            r, took = timed(lambda: api.command(eid, gm, roll("k1"), key="k1"))
            assert_unavailable(r)
            assert took < ACQUIRE + SLACK
            if "read-only" in log.read_text(errors="replace") or time.monotonic() > deadline:
                break
            time.sleep(0.2)
        assert "read-only" in log.read_text(errors="replace")
        assert api.board(eid)["version"] >= 4  # reads still served
        assert_unavailable(api.http.get("/readyz"))
        assert '" 500' not in log.read_text(errors="replace")  # 503s, never a 500

        pg.sql("ALTER DATABASE fracas RESET default_transaction_read_only")
        pg.sql(drop)
        back = until_ok(api, eid, gm, "k1")
        assert rolls_for(api, eid, gm, "k1") == 1
        assert server.proc.poll() is None
        assert server.proc.poll() is None  # no restart
        print(f"read-only server: commands answered again {back:.2f} s after it was writable")


def test_a_stalled_synchronous_standby_is_answered_503_within_the_command_timeout(
    clusters: Callable[..., Cluster], tmp_path: Path
) -> None:
    pg = clusters()
    pg.sql("CREATE DATABASE fracas")
    with serving(pg.url_of("fracas"), tmp_path / "serve.log") as (server, api):
        fight = setup_fight(api)
        eid, gm = fight["id"], fight["gm"]
        # A synchronous standby that is gone: every commit waits for it.
        pg.sql("ALTER SYSTEM SET synchronous_standby_names = 'absent_standby'")
        pg.sql("SELECT pg_reload_conf()")
        time.sleep(0.5)
        r, took = timed(lambda: api.command(eid, gm, roll("k1"), key="k1"))
        assert_unavailable(r)
        assert took < COMMAND + SLACK, f"answered after {took:.1f} s"
        assert api.board(eid)["version"] >= 4  # reads do not wait for the standby
        ready, took = timed(lambda: api.http.get("/readyz"))
        assert_unavailable(ready)  # a load balancer takes this instance out
        assert took < COMMAND + SLACK
        assert api.http.get("/healthz").status_code == 200  # alive all the same

        pg.sql("ALTER SYSTEM RESET synchronous_standby_names")
        pg.sql("SELECT pg_reload_conf()")
        until_ok(api, eid, gm, "k1")
        # The cancelled commit had landed locally: the retry with its key replays it.
        assert rolls_for(api, eid, gm, "k1") == 1
        assert server.proc.poll() is None  # no restart
