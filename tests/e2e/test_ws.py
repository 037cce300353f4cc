"""Websockets end to end: two server processes, one database, real sockets."""

from __future__ import annotations

import json
from typing import Any

from websockets.sync.client import ClientConnection, connect

from tests.e2e.conftest import Api, Instance
from tests.e2e.test_http import setup_fight


def recv(ws: ClientConnection, timeout: float = 5.0) -> dict[str, Any]:
    message: dict[str, Any] = json.loads(ws.recv(timeout=timeout))
    return message


def watch(inst: Instance, eid: str, token: str, after: int | None = None) -> ClientConnection:
    url = f"{inst.ws}/ws/encounters/{eid}?token={token}"
    if after is not None:
        url += f"&after={after}"
    return connect(url, open_timeout=5)


def test_a_watcher_on_one_instance_gets_every_update_sent_to_the_other_in_order(
    servers: tuple[Instance, Instance], api: Api, api2: Api
) -> None:
    one, _two = servers
    f = setup_fight(api)
    with watch(one, f["id"], f["spectator"]) as ws:
        first = recv(ws)
        assert first["type"] == "snapshot"
        last = first["version"]
        for i in range(5):
            api2.ok(f["id"], f["gm"], {"type": "roll", "expr": "1d6", "purpose": f"r{i}"})
        seen: list[int] = []
        purposes: list[str] = []
        while len(purposes) < 5:
            msg = recv(ws)
            assert msg["type"] == "update" and msg["version"] > last
            last = msg["version"]
            seen.extend(e["version"] for e in msg["events"])
            purposes.extend(e["data"]["purpose"] for e in msg["events"])
        assert purposes == [f"r{i}" for i in range(5)]
        assert seen == list(range(first["version"] + 1, first["version"] + 6))


def test_a_watcher_that_reconnects_with_after_gets_exactly_what_it_missed(
    servers: tuple[Instance, Instance], api: Api, api2: Api
) -> None:
    one, two = servers
    f = setup_fight(api)
    with watch(one, f["id"], f["gm"]) as ws:
        mark = recv(ws)["version"]
    for i in range(3):
        api2.ok(f["id"], f["gm"], {"type": "roll", "expr": "1d8", "purpose": f"missed{i}"})
    with watch(two, f["id"], f["gm"], after=mark) as ws:
        msg = recv(ws)
        assert msg["type"] == "update"
        assert [e["version"] for e in msg["events"]] == [mark + 1, mark + 2, mark + 3]
        assert msg["version"] == mark + 3
        api.ok(f["id"], f["gm"], {"type": "roll", "expr": "1d8", "purpose": "live"})
        live = recv(ws)
        assert [e["data"]["purpose"] for e in live["events"]] == ["live"]


def test_a_spectator_socket_never_carries_a_hidden_roll(
    servers: tuple[Instance, Instance], api: Api
) -> None:
    one, _ = servers
    f = setup_fight(api)
    with watch(one, f["id"], f["spectator"]) as spect, watch(one, f["id"], f["gm"]) as gm:
        recv(spect), recv(gm)
        api.ok(
            f["id"], f["gm"], {"type": "roll", "expr": "1d20", "hidden": True, "purpose": "ambush"}
        )
        last = api.ok(f["id"], f["gm"], {"type": "roll", "expr": "1d20", "purpose": "open"})

        def until_last(ws: Any) -> list[str]:
            # A busy hub may carry both commits in one update: read up to the last version.
            texts: list[str] = []
            while not texts or json.loads(texts[-1])["version"] < last["version"]:
                texts.append(json.dumps(recv(ws)))
            return texts

        gm_texts = until_last(gm)
        assert any("ambush" in t for t in gm_texts)
        spect_texts = until_last(spect)
        assert not any("ambush" in t for t in spect_texts)
        assert any('"open"' in t for t in spect_texts)


def test_a_bad_websocket_message_gets_an_error_and_the_socket_stays_up(
    servers: tuple[Instance, Instance], api: Api
) -> None:
    one, _ = servers
    f = setup_fight(api)
    with watch(one, f["id"], f["spectator"]) as ws:
        recv(ws)
        ws.send("{nope")
        assert recv(ws)["error"]["code"] == "invalid"
        ws.send(json.dumps({"type": "ping"}))
        assert recv(ws)["type"] == "pong"


def test_updates_carry_accented_names_as_utf8_text_frames(
    servers: tuple[Instance, Instance], api: Api
) -> None:
    one, _ = servers
    made = api.create()
    with watch(one, made["id"], made["spectator_token"]) as ws:
        ws.recv(timeout=5)
        api.ok(
            made["id"],
            made["gm_token"],
            {"type": "add_combatant", "name": "Hélène → 🗡", "side": "épées", "preset": "guard"},
        )
        raw = ws.recv(timeout=5)
        assert isinstance(raw, str)  # a text frame (UTF-8 on the wire)
        assert "Hélène → 🗡" in raw  # unescaped: msgspec's JSON, encoded once per role
        assert json.loads(raw)["board"]["combatants"][0]["name"] == "Hélène → 🗡"
