"""GET /metrics of a real server after real traffic: every family has HELP and TYPE,
`promtool check metrics` passes (where Debian's prometheus is installed, as .ci/run
does), and the series an operator needs move with what the server did: commands by
type and outcome, the append latency, the hub's wake-to-send lag, websockets by role,
webhook deliveries by outcome and the database pool."""

from __future__ import annotations

import re
import shutil
import subprocess
from collections.abc import Iterator

import httpx
import pytest
from websockets.sync.client import connect

from server.services.metrics import sample_page
from tests.e2e.conftest import Api, Instance, start_server, stop_server


@pytest.fixture(scope="module")
def server(database_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Instance]:
    logs = tmp_path_factory.mktemp("metrics-logs")
    instance = start_server(database_url, str(logs / "server.log"))
    yield instance
    stop_server(instance)


def _value(page: str, series: str) -> float:
    found = re.search(rf"^{re.escape(series)} (\S+)$", page, re.M)
    assert found, (series, page)
    return float(found[1])


def _families(page: str) -> tuple[set[str], set[str], set[str]]:
    helps = set(re.findall(r"^# HELP (\S+) ", page, re.M))
    types = set(re.findall(r"^# TYPE (\S+) ", page, re.M))
    samples = {re.sub(r"_(bucket|sum|count)$", "", s) for s in re.findall(r"^(\w+)", page, re.M)}
    return helps, types, samples


def test_the_metrics_follow_what_the_server_did(server: Instance) -> None:
    api = Api(server.base)
    made = api.create("plain-d100")
    eid, gm = made["id"], made["gm_token"]
    with (
        connect(f"{server.ws}/ws/encounters/{eid}?token={gm}") as ws_gm,
        connect(f"{server.ws}/ws/encounters/{eid}") as ws_public,
    ):
        ws_gm.recv(timeout=5)
        ws_public.recv(timeout=5)
        during = httpx.get(server.base + "/metrics").text
        assert _value(during, 'fracas_websocket_connections{role="gm"}') == 1
        assert _value(during, 'fracas_websocket_connections{role="spectator"}') == 1
        api.ok(eid, gm, {"type": "add_combatant", "name": "A", "side": "a", "preset": "guard"})
        ws_gm.recv(timeout=5)  # the update reached the socket: the hub measured its lag
        refused = api.command(eid, gm, {"type": "end_turn", "actor": "nobody"})
        assert refused.status_code in (404, 409, 422), refused.text
    api.http.close()
    page = httpx.get(server.base + "/metrics").text
    assert _value(page, 'fracas_commands_total{type="add_combatant",outcome="ok"}') >= 1
    refusal = re.search(r'^fracas_commands_total\{type="end_turn",outcome="(\w+)"\} 1$', page, re.M)
    assert refusal and refusal[1] != "ok", page
    assert _value(page, "fracas_append_seconds_count") >= 1
    assert _value(page, "fracas_hub_wake_to_send_seconds_count") >= 1
    assert _value(page, 'fracas_db_pool_connections{state="max"}') >= 1
    assert _value(page, "fracas_db_pool_waiting") == 0
    assert _value(page, 'fracas_webhook_deliveries_total{status="delivered"}') == 0
    helps, types, samples = _families(page)
    assert samples <= helps and samples <= types, samples - (helps & types)


@pytest.mark.skipif(shutil.which("promtool") is None, reason="Debian's prometheus (.ci/run)")
def test_promtool_finds_nothing_to_say_about_a_real_page(server: Instance) -> None:
    for page in (httpx.get(server.base + "/metrics").text, sample_page()):
        run = subprocess.run(
            ["promtool", "check", "metrics"], input=page, capture_output=True, text=True,
            timeout=60, check=False,
        )  # fmt: skip
        assert run.returncode == 0 and not run.stdout.strip(), run.stdout + run.stderr


def test_a_page_without_help_is_what_promtool_refuses() -> None:
    # The check above can fail: the same page stripped of its HELP lines is refused.
    if shutil.which("promtool") is None:
        pytest.skip("Debian's prometheus (.ci/run)")
    bare = "\n".join(line for line in sample_page().splitlines() if not line.startswith("# HELP"))
    run = subprocess.run(
        ["promtool", "check", "metrics"], input=bare + "\n", capture_output=True, text=True,
        timeout=60, check=False,
    )  # fmt: skip
    assert run.returncode != 0 and "no help text" in run.stdout + run.stderr
