"""The GM's links end to end: list, issue, revoke; a revoked link gets 401 and its socket closes."""

from __future__ import annotations

import json

import pytest
from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.sync.client import connect

from tests.e2e.conftest import Api, Instance
from tests.e2e.test_http import setup_fight


def auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def test_the_gm_lists_every_link_without_its_secret(api: Api) -> None:
    f = setup_fight(api)
    r = api.http.get(f"/api/encounters/{f['id']}/tokens", headers=auth(f["gm"]))
    assert r.status_code == 200
    tokens = r.json()["tokens"]
    assert [t["role"] for t in tokens] == ["gm", "spectator", "player", "player"]
    assert [t["combatants"] for t in tokens][2:] == [["c1"], ["c2"]]
    assert set(tokens[0]) == {"id", "role", "combatants", "created", "last_used"}
    assert tokens[0]["last_used"] is not None  # the GM just used it
    assert f["gm"] not in r.text and f["alice"] not in r.text


def test_players_and_spectators_may_not_manage_links(api: Api) -> None:
    f = setup_fight(api)
    path = f"/api/encounters/{f['id']}/tokens"
    assert api.http.get(path).status_code == 401
    assert api.http.get(path, headers=auth("nonsense")).status_code == 401
    assert api.http.get(path, headers=auth(f["alice"])).status_code == 403
    r = api.http.post(path, json={"role": "gm"}, headers=auth(f["spectator"]))
    assert r.status_code == 403


def test_a_new_player_link_opens_its_combatant_and_a_bad_one_is_refused(api: Api) -> None:
    f = setup_fight(api)
    path = f"/api/encounters/{f['id']}/tokens"
    r = api.http.post(path, json={"role": "player", "combatants": ["c2"]}, headers=auth(f["gm"]))
    assert r.status_code == 201, r.text
    made = r.json()
    assert made["link"] == f"/e/{f['id']}#token={made['token']}"
    me = api.http.get(f"/api/encounters/{f['id']}/me", headers=auth(made["token"])).json()
    assert me == {"role": "player", "combatants": ["c2"]}
    for bad in (
        {"role": "player", "combatants": ["c9"]},
        {"role": "player", "combatants": []},
        {"role": "spectator", "combatants": ["c1"]},
        {"role": "king"},
    ):
        r = api.http.post(path, json=bad, headers=auth(f["gm"]))
        assert r.status_code in (400, 422), (bad, r.text)
        assert "error" in r.json()
    ids = [t["id"] for t in api.http.get(path, headers=auth(f["gm"])).json()["tokens"]]
    assert made["id"] in ids


def test_a_revoked_link_gets_401_everywhere_and_its_socket_closes_on_every_instance(
    servers: tuple[Instance, Instance], api: Api, api2: Api
) -> None:
    _, two = servers
    f = setup_fight(api)
    path = f"/api/encounters/{f['id']}/tokens"
    tokens = api.http.get(path, headers=auth(f["gm"])).json()["tokens"]
    alice = next(t for t in tokens if t["combatants"] == ["c2"])
    with connect(f"{two.ws}/ws/encounters/{f['id']}?token={f['alice']}", open_timeout=5) as ws:
        assert json.loads(ws.recv(timeout=5))["type"] == "snapshot"
        r = api.http.delete(f"{path}/{alice['id']}", headers=auth(f["gm"]))  # on instance one
        assert r.status_code == 200
        with pytest.raises(ConnectionClosed) as closed:
            while True:
                ws.recv(timeout=10)
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 4401
    for client in (api, api2):
        assert (
            client.command(f["id"], f["alice"], {"type": "end_turn", "actor": "c2"}).status_code
            == 401
        )
        me = client.http.get(f"/api/encounters/{f['id']}/me", headers=auth(f["alice"]))
        assert me.status_code == 401
        assert (
            client.http.get(f"/api/encounters/{f['id']}", headers=auth(f["alice"])).status_code
            == 401
        )
    with (
        pytest.raises((ConnectionClosed, InvalidStatus)),
        connect(f"{two.ws}/ws/encounters/{f['id']}?token={f['alice']}", open_timeout=5) as ws,
    ):
        ws.recv(timeout=5)
    listed = api.http.get(path, headers=auth(f["gm"])).json()["tokens"]
    assert alice["id"] not in [t["id"] for t in listed]
    assert api.http.delete(f"{path}/{alice['id']}", headers=auth(f["gm"])).status_code == 404


def test_the_gm_cannot_revoke_the_link_in_use(api: Api) -> None:
    f = setup_fight(api)
    path = f"/api/encounters/{f['id']}/tokens"
    mine = api.http.get(path, headers=auth(f["gm"])).json()["tokens"][0]
    assert mine["role"] == "gm"
    r = api.http.delete(f"{path}/{mine['id']}", headers=auth(f["gm"]))
    assert r.status_code == 422
