"""`patch=1` websockets and the paged log, on two real server processes.

A patch client's boards, folded from the patches it receives (with jsonpatch, the
reference RFC 6902 implementation), equal the whole boards a plain client gets, per role,
over a scripted d20-na fight with hidden GM rolls, but for `legal`, cut to what the
connection can act on (all for the GM, a player's own combatants, none for a
spectator); its events are the plain client's, compact (version, type, data).
"""

from __future__ import annotations

import contextlib
import json
import threading
from typing import Any

import httpx
import jsonpatch
import pytest
from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.sync.client import ClientConnection, connect

from tests.e2e.conftest import Api, Instance
from tests.e2e.scripted_fight import open_fight, play
from tests.e2e.test_http import setup_fight


class Reader(threading.Thread):
    """Reads one websocket into `messages` until the socket ends."""

    def __init__(self, ws: ClientConnection) -> None:
        super().__init__(daemon=True)
        self.ws = ws
        self.messages: list[dict[str, Any]] = []
        self.seen = threading.Condition()

    def run(self) -> None:
        with contextlib.suppress(ConnectionClosed):
            for raw in self.ws:
                with self.seen:
                    self.messages.append(json.loads(raw))
                    self.seen.notify_all()

    def wait_for(self, version: int) -> None:
        with self.seen:
            reached = self.seen.wait_for(
                lambda: any(m.get("version", 0) >= version for m in self.messages), 30
            )
        assert reached, f"never reached version {version}"


def open_ws(
    stack: contextlib.ExitStack, inst: Instance, eid: str, token: str, *query: str
) -> tuple[ClientConnection, Reader]:
    url = f"{inst.ws}/ws/encounters/{eid}?token={token}&" + "&".join(query)
    ws = stack.enter_context(connect(url, open_timeout=5))
    reader = Reader(ws)
    reader.start()
    return ws, reader


def boards_of(messages: list[dict[str, Any]]) -> dict[int, dict[str, Any]]:
    """The board at each version a connection saw, folding patches onto the last board."""
    out: dict[int, dict[str, Any]] = {}
    last: dict[str, Any] | None = None
    for m in messages:
        if m["type"] not in ("snapshot", "update"):
            continue
        if "board" in m:
            last = m["board"]
        else:
            assert last is not None, "a patch before any board"
            last = jsonpatch.apply_patch(last, m["patch"])
        assert last is not None
        out[m["version"]] = last
    return out


def cut(board: dict[str, Any], mine: set[str] | None) -> dict[str, Any]:
    """A whole board as a `patch=1` connection sees it: `legal` only for `mine` (None:
    every combatant, the GM's)."""
    if mine is None:
        return board
    return {**board, "legal": {k: v for k, v in board["legal"].items() if k in mine}}


def compact(envelopes: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{"version": e["version"], "type": e["type"], "data": e["data"]} for e in envelopes]


def test_patched_boards_equal_whole_boards_for_every_role_over_a_fight_with_hidden_rolls(
    servers: tuple[Instance, Instance], api: Api
) -> None:
    one, two = servers
    fight = open_fight(api.http)
    eid = fight["id"]
    own, player = next(iter(fight["players"].items()))
    tokens = {"gm": fight["gm"], "player": player, "spectator": fight["spectator"]}
    mine: dict[str, set[str] | None] = {"gm": None, "player": {own}, "spectator": set()}
    with contextlib.ExitStack() as stack:
        conns = {(role, kind): open_ws(stack, one if kind == "plain" else two, eid, token,
                                       *(["patch=1"] if kind == "patch" else []))
                 for role, token in tokens.items() for kind in ("plain", "patch")}  # fmt: skip
        last = play(api.http, fight, 60)
        for _, reader in conns.values():
            reader.wait_for(last)
        patched_updates = 0
        for role in tokens:
            plain = conns[role, "plain"][1].messages
            patch = conns[role, "patch"][1].messages
            assert all("patch" not in m for m in plain)
            assert all("board" not in m for m in patch[1:] if m["type"] == "update")
            patched_updates += sum("patch" in m for m in patch)
            whole, folded = boards_of(plain), boards_of(patch)
            common = whole.keys() & folded.keys()
            assert last in common and len(common) > 10
            for v in sorted(common):
                assert folded[v] == cut(whole[v], mine[role]), (role, v)
            # The same events (batched as each server read them), compact: what the plain
            # client got, less the audit fields.
            events = [e for m in patch if m["type"] == "update" for e in m["events"]]
            assert events == compact([e for m in plain if m["type"] == "update"
                                      for e in m["events"]])  # fmt: skip
            assert all(set(e) == {"version", "type", "data"} for e in events) and events
            # The role's boards are its own: a spectator's never shows a hidden roll.
            if role != "gm":
                lines = [line for b in folded.values() for line in b["log"]]
                assert not any(line.get("hidden", False) for line in lines)
        assert patched_updates > 30
        # The player's board acts for its own combatant only, and did get its actions.
        player_boards = boards_of(conns["player", "patch"][1].messages).values()
        assert all(set(b["legal"]) <= {own} for b in player_boards)
        assert any(b["legal"] for b in player_boards)
        spectator_boards = boards_of(conns["spectator", "patch"][1].messages).values()
        assert all(not b["legal"] for b in spectator_boards)
        gm_board, public = boards_of(conns["gm", "patch"][1].messages)[last], \
            boards_of(conns["spectator", "patch"][1].messages)[last]  # fmt: skip
        assert gm_board["dice"]["rolls"] > public["dice"]["rolls"]  # the hidden rolls


def test_compact_events_and_patches_never_carry_what_the_role_may_not_see(
    servers: tuple[Instance, Instance], api: Api
) -> None:
    f = setup_fight(api)
    eid, gm = f["id"], f["gm"]
    with contextlib.ExitStack() as stack:
        readers = {role: open_ws(stack, servers[1], eid, f[role], "patch=1")[1]
                   for role in ("gm", "alice", "spectator")}  # fmt: skip
        api.ok(eid, gm, {"type": "add_combatant", "name": "Ogre", "side": "outlaws",
                         "preset": "bandit", "hidden": ["hp"]})  # fmt: skip
        api.ok(eid, gm, {"type": "adjust", "combatant": "c3", "resource": "hp", "delta": -5,
                         "reason": "a trap only the GM knows"})  # fmt: skip
        api.ok(eid, gm, {"type": "act", "actor": "c1", "action": "attack", "target": "c2",
                         "dice": [10]})  # fmt: skip
        api.ok(eid, gm, {"type": "react", "actor": "c2", "reaction": "none"})
        last = api.ok(eid, gm, {"type": "roll", "expr": "1d20", "hidden": True,
                                "purpose": "the ogre wakes", "dice": [17]})["version"]  # fmt: skip
        for reader in readers.values():
            reader.wait_for(last)
    for role, reader in readers.items():
        updates = [m for m in reader.messages if m["type"] == "update"]
        events = [e for m in updates for e in m["events"]]
        text = json.dumps(reader.messages, ensure_ascii=False)
        ogre = next(e["data"] for e in events if e["type"] == "combatant_added")
        secret = [e for e in events if e["type"] == "resource_changed"
                  and e["data"]["combatant_id"] == "c3"]  # fmt: skip
        hp = next(c for c in boards_of(reader.messages)[max(boards_of(reader.messages))]
                  ["combatants"] if c["id"] == "c3")["resources"]["hp"]  # fmt: skip
        if role == "gm":
            assert "ogre wakes" in text and "a trap only the GM knows" in text
            assert ogre["resources"]["hp"] == 24 and ogre["sheet"] and secret and hp == 19
        else:
            assert "ogre wakes" not in text and "a trap only the GM knows" not in text
            assert not secret and hp is None
            assert ogre["resources"]["hp"] is None and ogre["sheet"] == {}
            assert not any(e["type"] == "die_rolled" and e["data"]["hidden"] for e in events)
            # The hidden roll reached them as a version with no event (an update may
            # also carry the react's events, when the hub read both in one go).
            assert any(m["version"] == last for m in updates)
            assert not any(e["version"] == last for e in events)
        assert all(set(e) == {"version", "type", "data"} for e in events)


def test_a_patch_client_that_resumes_with_after_gets_a_whole_board_first(
    servers: tuple[Instance, Instance], api: Api
) -> None:
    one, _ = servers
    made = api.create()
    eid, gm = made["id"], made["gm_token"]
    version = api.ok(eid, gm, {"type": "roll", "expr": "1d6", "purpose": "before"})["version"]
    api.ok(eid, gm, {"type": "roll", "expr": "1d6", "purpose": "missed"})
    with contextlib.ExitStack() as stack:
        _, reader = open_ws(stack, one, eid, gm, "patch=1", f"after={version}")
        reader.wait_for(version + 1)
        first = reader.messages[0]
        assert first["type"] == "update" and "board" in first and "patch" not in first
        assert [e["data"]["purpose"] for e in first["events"]] == ["missed"]
        assert set(first["events"][0]) == {"version", "type", "data"}
        done = api.ok(eid, gm, {"type": "roll", "expr": "1d6", "purpose": "after"})["version"]
        reader.wait_for(done)
        nxt = reader.messages[-1]
        assert "board" not in nxt
        assert jsonpatch.apply_patch(first["board"], nxt["patch"]) == api.board(eid, gm)


def test_a_patch_value_other_than_0_or_1_is_refused(
    servers: tuple[Instance, Instance], api: Api
) -> None:
    made = api.create()
    url = f"{servers[0].ws}/ws/encounters/{made['id']}?patch=yes"
    with pytest.raises(InvalidStatus) as refused:  # closed before the handshake completes
        connect(url, open_timeout=5)
    assert refused.value.response.status_code == 403


def test_the_schema_describes_the_patch_of_an_update(api: Api) -> None:
    defs = api.http.get("/api/schema").json()
    text = json.dumps(defs)
    assert "WsPatchOp" in text and '"from"' in text and '"patch"' in text
    patched = json.dumps(defs["websocket_server_patch"])
    plain = json.dumps(defs["websocket_server"])
    assert "WsPatchUpdate" in patched and "WsPatchUpdate" not in plain
    assert defs["$defs"]["WsEvent"]["required"] == ["version", "type", "data"]


def log_page(http: httpx.Client, eid: str, token: str | None, **params: Any) -> httpx.Response:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return http.get(f"/api/encounters/{eid}/log", params=params, headers=headers)


def test_the_log_pages_back_from_the_board_tail_and_a_spectator_never_sees_a_hidden_roll(
    api: Api,
) -> None:
    made = api.create()
    eid, gm, spectator = made["id"], made["gm_token"], made["spectator_token"]
    for i in range(45):
        api.ok(eid, gm, {"type": "roll", "expr": "1d6", "purpose": f"r{i}", "hidden": i % 2 == 0})
    for token, role in ((gm, "gm"), (spectator, "spectator"), (None, "public")):
        tail = api.board(eid, token)["log"]
        assert len(tail) == 30 if role == "gm" else len(tail) <= 30
        seen, before, more = list(tail), tail[0]["version"], True
        while more:
            r = log_page(api.http, eid, token, before=before, limit=7)
            assert r.status_code == 200, r.text
            page = r.json()
            assert len(page["lines"]) <= 7 and all(x["version"] < before for x in page["lines"])
            seen[:0] = page["lines"]
            more = page["more"]
            before = page["lines"][0]["version"] if page["lines"] else before
        versions = [x["version"] for x in seen]
        assert versions == sorted(versions)
        rolls = [x for x in seen if x["kind"] == "die_rolled"]
        if role == "gm":
            assert len(rolls) == 45
        else:
            assert len(rolls) == 22 and not any(x.get("hidden", False) for x in seen)
            assert not any(x.get("roll") and x.get("hidden", False) for x in seen)


def test_log_paging_refuses_bad_parameters_and_a_foreign_token(api: Api) -> None:
    made = api.create()
    eid = made["id"]
    for params in ({"limit": 0}, {"limit": 201}, {"before": -1}, {"before": "x"}):
        r = log_page(api.http, eid, None, **params)
        assert r.status_code == 400 and r.json()["error"]["code"] == "invalid", params
    assert log_page(api.http, eid, "not-a-token").status_code == 401
    other = api.create()
    assert log_page(api.http, eid, other["gm_token"]).status_code == 401
    assert log_page(api.http, "00000000-0000-4000-8000-000000000000", None).status_code == 404
