"""A War's links (issue 20 section 4): a War's GM token manages nothing on an encounter
route, the War has its own token routes, and a revoked token is refused everywhere: 401 on
HTTP (`/verify` included) and its War websocket closes 4401."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from tests.e2e.conftest import Api, Instance
from tests.e2e.test_http import setup_fight


def auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def new_war(api: Api) -> dict[str, Any]:
    body = {"name": "Tokens", "ruleset": "ranks-d100", "settings": {}}
    r = api.http.post("/api/campaigns", json=body)
    assert r.status_code == 201, r.text
    made: dict[str, Any] = r.json()
    return made


def test_a_war_gm_token_is_refused_on_the_encounter_routes_of_the_wars_id(api: Api) -> None:
    war = new_war(api)
    wid, gm = war["id"], war["gm_token"]
    assert api.http.get(f"/api/encounters/{wid}/tokens", headers=auth(gm)).status_code == 404
    r = api.http.post(f"/api/encounters/{wid}/tokens", json={"role": "gm"}, headers=auth(gm))
    assert r.status_code == 404 and r.json()["error"]["code"] == "not_found"
    assert api.http.get(f"/api/encounters/{wid}/webhook", headers=auth(gm)).status_code == 404
    # ...and an encounter's GM token manages no War links.
    f = setup_fight(api)
    r = api.http.get(f"/api/campaigns/{f['id']}/tokens", headers=auth(f["gm"]))
    assert r.status_code == 404


def test_the_war_gm_issues_lists_and_revokes_war_links(api: Api) -> None:
    war = new_war(api)
    wid, gm = war["id"], war["gm_token"]
    path = f"/api/campaigns/{wid}/tokens"
    r = api.http.post(path, json={"role": "gm"}, headers=auth(gm))
    assert r.status_code == 201, r.text
    made = r.json()
    assert made["link"] == f"/w/{wid}#token={made['token']}"
    shown = api.http.get(f"/api/campaigns/{wid}", headers=auth(made["token"])).json()
    assert all("sheet" in c for c in shown["characters"])
    listed = api.http.get(path, headers=auth(gm)).json()["tokens"]
    assert [t["role"] for t in listed] == ["gm", "gm"] and gm not in json.dumps(listed)
    assert api.http.post(path, json={"role": "player"}, headers=auth(gm)).status_code == 422
    assert api.http.get(path).status_code == 401
    mine = next(t["id"] for t in listed if t["id"] != made["id"])
    assert api.http.delete(f"{path}/{mine}", headers=auth(gm)).status_code == 422  # itself
    assert api.http.delete(f"{path}/{made['id']}", headers=auth(gm)).status_code == 200
    assert api.http.get(f"/api/campaigns/{wid}", headers=auth(made["token"])).status_code == 401
    assert api.http.delete(f"{path}/{made['id']}", headers=auth(gm)).status_code == 404


def test_a_revoked_war_tokens_war_websocket_closes_4401(
    api: Api, servers: tuple[Instance, Instance]
) -> None:
    war = new_war(api)
    wid, gm = war["id"], war["gm_token"]
    path = f"/api/campaigns/{wid}/tokens"
    made = api.http.post(path, json={"role": "gm"}, headers=auth(gm)).json()
    url = f"{servers[1].ws}/ws/campaigns/{wid}"
    subprotocols: Any = ["fracas", f"bearer.{made['token']}"]
    with connect(url, subprotocols=subprotocols, open_timeout=5) as ws:
        assert json.loads(ws.recv(timeout=5))["type"] == "snapshot"
        start = time.monotonic()
        assert api.http.delete(f"{path}/{made['id']}", headers=auth(gm)).status_code == 200
        with pytest.raises(ConnectionClosed) as closed:
            while True:
                ws.recv(timeout=10)
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 4401
        assert time.monotonic() - start < 2.0
    with pytest.raises(Exception, match="403"):  # refused before the handshake: 4401
        connect(url, subprotocols=subprotocols, open_timeout=5)


def test_a_revoked_token_gets_401_on_verify(api: Api) -> None:
    f = setup_fight(api)
    path = f"/api/encounters/{f['id']}/tokens"
    made = api.http.post(path, json={"role": "spectator"}, headers=auth(f["gm"])).json()
    verify = f"/api/encounters/{f['id']}/verify"
    assert api.http.get(verify, headers=auth(made["token"])).status_code == 200
    assert api.http.delete(f"{path}/{made['id']}", headers=auth(f["gm"])).status_code == 200
    r = api.http.get(verify, headers=auth(made["token"]))
    assert r.status_code == 401 and r.json()["error"]["code"] == "unauthorized"
    assert api.http.get(verify).status_code == 200  # no token: the public report
