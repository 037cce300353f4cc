"""Websocket tokens (issue 20 section 4): carried in Sec-WebSocket-Protocol instead of the
URL, and checked before and after joining, so that no socket outlives its link's revocation."""

from __future__ import annotations

import json
import threading
import time
from typing import Any

import pytest
from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.sync.client import ClientConnection, connect

from tests.e2e.conftest import Api, Instance
from tests.e2e.test_http import setup_fight


def auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def open_with_header(inst: Instance, path: str, token: str) -> ClientConnection:
    return connect(f"{inst.ws}{path}", subprotocols=["fracas", f"bearer.{token}"], open_timeout=5)  # type: ignore[list-item]


def gm_only_hp(api: Api) -> dict[str, Any]:
    """A fight whose Guard has hidden HP: only the GM's board shows the number."""
    f = setup_fight(api)
    board = api.board(f["id"], f["gm"])
    guard = next(c for c in board["combatants"] if c["name"] == "Guard")
    r = api.command(
        f["id"], f["gm"],
        {"type": "add_combatant", "name": "Shade", "side": "watch", "preset": "guard",
         "hidden": ["hp"]},
    )  # fmt: skip
    assert r.status_code == 200, r.text
    return {**f, "guard": guard["id"]}


def shade_hp(board: dict[str, Any]) -> Any:
    shade = next(c for c in board["combatants"] if c["name"] == "Shade")
    return shade["resources"]["hp"]


def test_a_token_in_the_subprotocol_header_opens_its_role_and_the_server_selects_fracas(
    api: Api, servers: tuple[Instance, Instance]
) -> None:
    f = gm_only_hp(api)
    with open_with_header(servers[0], f"/ws/encounters/{f['id']}", f["gm"]) as ws:
        assert ws.subprotocol == "fracas"
        snap = json.loads(ws.recv(timeout=5))
        assert snap["type"] == "snapshot"
        assert snap["board"] == api.board(f["id"], f["gm"])
        assert shade_hp(snap["board"]) is not None
    with open_with_header(servers[0], f"/ws/encounters/{f['id']}", f["spectator"]) as ws:
        assert shade_hp(json.loads(ws.recv(timeout=5))["board"]) is None


def test_a_bad_token_in_the_subprotocol_header_is_refused_like_one_in_the_url(
    api: Api, servers: tuple[Instance, Instance]
) -> None:
    f = setup_fight(api)
    with pytest.raises(InvalidStatus) as refused:
        open_with_header(servers[0], f"/ws/encounters/{f['id']}", "not-a-token")
    assert refused.value.response.status_code == 403  # closed 4401 before accept
    # Two different tokens (one in the header, one in the URL) are refused, not guessed.
    with pytest.raises(InvalidStatus):
        connect(
            f"{servers[0].ws}/ws/encounters/{f['id']}?token={f['alice']}",
            subprotocols=["fracas", f"bearer.{f['gm']}"],  # type: ignore[list-item]
            open_timeout=5,
        )


def test_a_war_socket_takes_its_gm_token_from_the_subprotocol_header(
    api: Api, servers: tuple[Instance, Instance]
) -> None:
    from tests.e2e.test_campaign_http import j1_and_j2

    w, _, _ = j1_and_j2(api)
    with open_with_header(servers[0], f"/ws/campaigns/{w.id}", w.gm) as ws:
        assert ws.subprotocol == "fracas"
        snap = json.loads(ws.recv(timeout=5))
        assert "sheet" in snap["board"]["characters"][0]  # only the War's GM sees sheets


def _open_and_listen(url: str, token: str, out: list[Any], i: int) -> None:
    """Open a socket, then record how it ends: ('refused',), ('closed', code, seen_after)."""
    updates = 0
    try:
        with connect(url, subprotocols=["fracas", f"bearer.{token}"], open_timeout=10) as ws:  # type: ignore[list-item]
            try:
                while True:
                    msg = json.loads(ws.recv(timeout=12))
                    if msg["type"] == "update":
                        updates += 1
            except ConnectionClosed as e:
                out[i] = ("closed", e.rcvd.code if e.rcvd else None, time.monotonic(), updates)
            except TimeoutError:
                out[i] = ("open", None, time.monotonic(), updates)
    except InvalidStatus as e:
        out[i] = ("refused", e.response.status_code)
    except (TimeoutError, OSError) as e:  # the handshake never completed: no socket to feed
        out[i] = ("unopened", repr(e))


def test_sockets_opened_while_their_link_is_revoked_all_close_4401_within_the_sweep(
    api: Api, servers: tuple[Instance, Instance]
) -> None:
    f = setup_fight(api)
    path = f"/api/encounters/{f['id']}/tokens"
    made = api.http.post(path, json={"role": "spectator"}, headers=auth(f["gm"])).json()
    url = f"{servers[1].ws}/ws/encounters/{f['id']}"
    n = 30
    out: list[Any] = [None] * n
    threads = [
        threading.Thread(target=_open_and_listen, args=(url, made["token"], out, i))
        for i in range(n)
    ]
    for i, t in enumerate(threads):
        t.start()
        if i == n // 2:  # revoke while the rest are still opening
            assert api.http.delete(f"{path}/{made['id']}", headers=auth(f["gm"])).status_code == 200
            revoked_at = time.monotonic()
    time.sleep(6.0)  # past the 5 s sweep: any socket still open now would stay open
    api.ok(f["id"], f["gm"], {"type": "adjust", "combatant": "c1", "resource": "hp",
                              "delta": -1, "reason": "probe"})  # fmt: skip
    for t in threads:
        t.join(30)
    assert all(o is not None for o in out), out
    for o in out:
        if o[0] == "unopened":  # the client gave up on a busy machine: never open, never fed
            continue
        if o[0] == "refused":
            assert o[1] == 403  # closed 4401 before the handshake was accepted
        else:
            assert o[0] == "closed" and o[1] == 4401, out
            assert o[2] - revoked_at < 5.5, out  # within the sweep, not never
            assert o[3] == 0, out  # never fed an update after the revocation


def test_a_socket_already_open_closes_4401_fast_when_its_link_is_revoked(
    api: Api, servers: tuple[Instance, Instance]
) -> None:
    f = setup_fight(api)
    path = f"/api/encounters/{f['id']}/tokens"
    made = api.http.post(path, json={"role": "spectator"}, headers=auth(f["gm"])).json()
    with open_with_header(servers[0], f"/ws/encounters/{f['id']}", made["token"]) as ws:
        assert json.loads(ws.recv(timeout=5))["type"] == "snapshot"
        start = time.monotonic()
        assert api.http.delete(f"{path}/{made['id']}", headers=auth(f["gm"])).status_code == 200
        with pytest.raises(ConnectionClosed) as closed:
            while True:
                ws.recv(timeout=5)
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 4401
        assert time.monotonic() - start < 1.0
