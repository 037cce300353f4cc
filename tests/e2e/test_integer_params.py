"""Integer parameters take ASCII digits only (issue 20 section 5): `¹`, `-1`, `x`, a
fraction or 5,000 digits are refused cleanly, 400 with a code on HTTP and a refused
handshake on a websocket (never a 1011, never a traceback in the log)."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest
from websockets.exceptions import InvalidStatus
from websockets.sync.client import connect

from server.http.bounds import MAX_PARAM
from server.live.params import MAX_VERSION, BadQuery, version_param
from tests.e2e.conftest import Api, Instance, start_server, stop_server

BAD = ["¹", "٣", "-1", "x", "1.5", "1e3", " 1", "", "9" * 5000, str(MAX_PARAM + 1)]


def test_the_websocket_bound_is_the_http_bound() -> None:
    assert MAX_VERSION == MAX_PARAM
    assert version_param("0") == 0 and version_param(str(MAX_PARAM)) == MAX_PARAM
    for raw in BAD:
        with pytest.raises(BadQuery):
            version_param(raw)


@pytest.mark.parametrize("raw", BAD)
def test_a_bad_integer_query_parameter_answers_400_invalid(api: Api, raw: str) -> None:
    made = api.create()
    eid, gm = made["id"], made["gm_token"]
    auth = {"Authorization": f"Bearer {gm}"}
    for path, name in (
        (f"/api/encounters/{eid}/events", "after"),
        (f"/api/encounters/{eid}/events", "limit"),
        (f"/api/encounters/{eid}", "at"),
        (f"/api/encounters/{eid}/log", "before"),
    ):
        r = api.http.get(path, params={name: raw}, headers=auth)
        assert r.status_code == 400, (path, name, raw, r.text)
        assert r.json()["error"]["code"] == "invalid"
    r = api.http.get(f"/api/encounters/{eid}/rolls/{httpx.URL(raw).raw_path.decode()}")
    assert r.status_code in (400, 404), r.text  # "" is another route: 404
    assert r.headers["content-type"].startswith("application/json")


def test_bad_after_values_refuse_the_websocket_without_a_1011_or_a_traceback(
    database_url: str, tmp_path: Path
) -> None:
    log = tmp_path / "serve.log"
    inst: Instance = start_server(database_url, str(log))
    try:
        encounter = {"ruleset": "plain-d100", "name": "Params"}
        made = httpx.post(f"{inst.base}/api/encounters", json=encounter).json()
        campaign = {"name": "W", "ruleset": "ranks-d100", "settings": {}}
        war = httpx.post(f"{inst.base}/api/campaigns", json=campaign).json()
        for raw in BAD:
            q = httpx.QueryParams({"after": raw})
            for path in (f"/ws/encounters/{made['id']}", f"/ws/campaigns/{war['id']}"):
                with pytest.raises(InvalidStatus) as refused:
                    connect(f"{inst.ws}{path}?{q}", open_timeout=5)
                assert refused.value.response.status_code == 403  # closed 4400 before accept
        with connect(f"{inst.ws}/ws/encounters/{made['id']}?after=1", open_timeout=5) as ws:
            assert '"update"' in str(ws.recv(timeout=5))  # a good one still works
    finally:
        stop_server(inst)
    text = log.read_text()
    assert "Traceback" not in text and "1011" not in text
