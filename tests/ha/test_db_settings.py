"""Database settings in one place: flags and FRACAS_* variables alike, the app role by
SET ROLE, connections made host by host (server/store/settings.py, server/store/db.py)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from server.store.db import APP_ROLE, create_pool, hosts_of
from server.store.settings import DbSettings


def test_a_flag_wins_over_its_variable_which_wins_over_the_default() -> None:
    env = {"FRACAS_POOL_MAX": "7", "FRACAS_COMMAND_TIMEOUT": "2.5", "FRACAS_POOL_MIN": "3"}
    s = DbSettings.resolve({"pool_max": 20, "pool_min": None}, env)
    assert (s.pool_max, s.pool_min, s.command_timeout) == (20, 3, 2.5)
    assert s.connect_timeout == DbSettings().connect_timeout
    assert DbSettings.resolve({}, {"FRACAS_LISTEN_URL": "postgresql://h/db"}).listen_url == (
        "postgresql://h/db"
    )


def test_an_empty_app_role_keeps_the_url_users_rights_and_other_empty_values_are_unset() -> None:
    s = DbSettings.resolve({}, {"FRACAS_APP_ROLE": "", "FRACAS_POOL_MAX": ""})
    assert s.app_role == "" and s.pool_max == DbSettings().pool_max


@pytest.mark.parametrize(
    ("env", "named"),
    [
        ({"FRACAS_POOL_MAX": "many"}, "FRACAS_POOL_MAX"),
        ({"FRACAS_POOL_MIN": "5", "FRACAS_POOL_MAX": "2"}, "FRACAS_POOL_MIN"),
        ({"FRACAS_CONNECT_TIMEOUT": "0"}, "FRACAS_CONNECT_TIMEOUT"),
        ({"FRACAS_STATEMENT_CACHE_SIZE": "-1"}, "FRACAS_STATEMENT_CACHE_SIZE"),
    ],
)
def test_a_bad_value_is_refused_naming_its_variable(env: dict[str, str], named: str) -> None:
    with pytest.raises(ValueError, match=named):
        DbSettings.resolve({}, env)


def test_fracas_serve_refuses_a_bad_setting_in_one_line_before_serving() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "server.cli.main", "serve", "--database-url",
         "postgresql://nobody@127.0.0.1:1/x", "--pool-min", "9", "--pool-max", "2"],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "fracas serve: pool sizes: 0 <= FRACAS_POOL_MIN <= FRACAS_POOL_MAX, max >= 1"
    ]


def test_a_multi_host_url_is_tried_one_host_at_a_time_keeping_user_database_and_options() -> None:
    url = "postgresql://u:p@a:1,b:2/db?target_session_attrs=read-write"
    assert hosts_of(url) == [
        "postgresql://u:p@a:1/db?target_session_attrs=read-write",
        "postgresql://u:p@b:2/db?target_session_attrs=read-write",
    ]
    assert hosts_of("postgresql://u@a:1/db") == ["postgresql://u@a:1/db"]
    assert hosts_of("postgresql://a,b?sslmode=disable") == [
        "postgresql://a/?sslmode=disable",
        "postgresql://b/?sslmode=disable",
    ]


async def test_the_app_role_is_taken_by_set_role_not_as_a_startup_parameter(
    database_url: str,
) -> None:
    settings = DbSettings(application_name="fracas-settings-test", statement_cache_size=0)
    pool = await create_pool(database_url, role=APP_ROLE, min_size=1, max_size=1,
                             settings=settings)  # fmt: skip
    try:
        async with pool.acquire() as conn:
            assert await conn.fetchval("SELECT current_user") == APP_ROLE
            # A startup parameter would be the session's default: RESET ROLE would keep it.
            await conn.execute("RESET ROLE")
            assert await conn.fetchval("SELECT current_user") != APP_ROLE
            await conn.execute("SET ROLE " + APP_ROLE)
            assert await conn.fetchval("SHOW application_name") == "fracas-settings-test"
    finally:
        await pool.close()
