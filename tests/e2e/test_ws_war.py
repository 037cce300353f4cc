"""WS /ws/campaigns/{id}: a War's live feed, resumable with `after`, filtered per role."""

from __future__ import annotations

import json
from typing import Any

import pytest
from websockets.exceptions import InvalidStatus
from websockets.sync.client import ClientConnection, connect

from tests.e2e.conftest import Api, Instance
from tests.e2e.test_campaign_http import j1_and_j2


def recv(ws: ClientConnection, timeout: float = 5.0) -> dict[str, Any]:
    out: dict[str, Any] = json.loads(ws.recv(timeout=timeout))
    return out


def watch(inst: Instance, war: str, token: str | None = None, after: int | None = None) -> Any:
    q = [f"token={token}"] if token else []
    q += [f"after={after}"] if after is not None else []
    return connect(f"{inst.ws}/ws/campaigns/{war}?{'&'.join(q)}", open_timeout=5)


def hurt_and_close(api: Api, made: dict[str, Any], name: str, delta: int) -> None:
    board = api.board(made["id"], made["gm_token"])
    cid = next(c["id"] for c in board["combatants"] if c["name"] == name)
    body = {"type": "adjust", "combatant": cid, "resource": "hp", "delta": delta, "reason": "x"}
    api.ok(made["id"], made["gm_token"], body)
    api.ok(made["id"], made["gm_token"], {"type": "close"})


def test_a_war_watcher_sees_hp_change_when_an_encounter_of_the_war_closes(
    api: Api, servers: tuple[Instance, Instance]
) -> None:
    w, j1, _j2 = j1_and_j2(api)
    with watch(servers[1], w.id, w.gm) as gm_ws, watch(servers[0], w.id) as public_ws:
        snap = recv(gm_ws)
        assert snap["type"] == "snapshot" and snap["version"] == w.state()["version"]
        assert {c["name"]: c["hp"] for c in snap["board"]["characters"]} == {"J1": 70, "J2": 60}
        assert "sheet" in snap["board"]["characters"][0]
        public = recv(public_ws)
        assert "sheet" not in public["board"]["characters"][0]
        made = w.open_encounter()
        hurt_and_close(api, made, "J1", -12)
        update = recv(gm_ws)
        assert update["type"] == "update" and update["version"] > snap["version"]
        assert [e["type"] for e in update["events"]] == ["character_settled"] * 2
        hp = {c["id"]: c["hp"] for c in update["board"]["characters"]}
        assert hp[j1] == 58
        assert update["board"]["encounters"] == [made["id"]]
        seen = recv(public_ws)
        assert seen["version"] == update["version"]
        assert {c["id"]: c["hp"] for c in seen["board"]["characters"]}[j1] == 58
        gm_ws.send(json.dumps({"type": "ping"}))
        assert recv(gm_ws) == {"type": "pong"}
    # Resume: what was missed since `after`, in one update.
    missed_from = update["version"]
    w.ok({"type": "new_day"})
    with watch(servers[0], w.id, w.gm, after=missed_from) as again:
        got = recv(again)
        assert got["type"] == "update" and got["version"] == w.state()["version"]
        assert got["events"] and all(e["version"] > missed_from for e in got["events"])


def test_a_war_socket_refuses_a_bad_token_and_an_unknown_war(
    api: Api, servers: tuple[Instance, Instance]
) -> None:
    w, _j1, _j2 = j1_and_j2(api)
    for url in (
        f"/ws/campaigns/{w.id}?token=nonsense",
        "/ws/campaigns/00000000-0000-4000-8000-000000000000",
        "/ws/campaigns/not-a-uuid",
        f"/ws/campaigns/{w.id}?after=x",
    ):
        # Closed before the handshake completes: the client sees the upgrade refused.
        with pytest.raises(InvalidStatus):
            connect(servers[0].ws + url, open_timeout=5)
