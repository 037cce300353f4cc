"""A scripted d20-na fight over HTTP: six combatants, the board's `legal` picks each move.

Shared by the websocket patch tests and bench/patch_size.py. Deterministic in its
choices (the first enabled action with a target, the first listed reaction; the
server's dice decide the rest) and bounded in steps. Every third step the GM also
makes a hidden roll, so the public board and the GM's differ.
"""

from __future__ import annotations

from typing import Any

import httpx

SIDES = {"watch": ["Guard A", "Guard B", "Guard C"], "marsh": ["Fangeux A", "Fangeux B", "Hélène"]}
PRESETS = {"watch": "milicien", "marsh": "fangeux"}


def open_fight(http: httpx.Client) -> dict[str, Any]:
    """A d20-na encounter with six combatants, combat started: ids and tokens."""
    r = http.post("/api/encounters", json={"ruleset": "d20-na", "name": "Scripted"})
    assert r.status_code == 201, r.text
    made = r.json()
    gm = made["gm_token"]
    players: dict[str, str] = {}
    for side, names in SIDES.items():
        for name in names:
            body = {"type": "add_combatant", "name": name, "side": side,
                    "preset": PRESETS[side], "sheet": {}}  # fmt: skip
            answer = _ok(http, made["id"], gm, body)
            players[answer["combatant_id"]] = answer["player_token"]
    _ok(http, made["id"], gm, {"type": "start_combat"})
    return {"id": made["id"], "gm": gm, "spectator": made["spectator_token"],
            "players": players}  # fmt: skip


def play(http: httpx.Client, fight: dict[str, Any], steps: int) -> int:
    """Up to `steps` moves (a hidden GM roll every third); the last version."""
    eid, gm = fight["id"], fight["gm"]
    version = 0
    for step in range(steps):
        if step % 3 == 2:
            version = _ok(http, eid, gm, {"type": "roll", "expr": "1d20", "purpose": "secret",
                                          "hidden": True})["version"]  # fmt: skip
        board = http.get(f"/api/encounters/{eid}", headers=_auth(gm)).json()
        if board["winner"] is not None or board["actor"] is None:
            break
        version = _move(http, eid, gm, board)
    return version


def _move(http: httpx.Client, eid: str, gm: str, board: dict[str, Any]) -> int:
    if board["pending"]:
        p = board["pending"][0]
        for reaction in [*p["options"], "none"]:
            r = _command(http, eid, gm, {"type": "react", "actor": p["target"],
                                         "reaction": reaction})  # fmt: skip
            if r.status_code == 200:
                return int(r.json()["version"])
    actor = board["actor"]
    for entry in board["legal"].get(actor, []):
        if entry.get("enabled") and entry.get("targets"):
            body = {"type": "act", "actor": actor, "action": entry["action"],
                    "target": entry["targets"][0]}  # fmt: skip
            r = _command(http, eid, gm, body)
            if r.status_code == 200:
                return int(r.json()["version"])
    return int(_ok(http, eid, gm, {"type": "end_turn", "actor": actor})["version"])


def _auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def _command(http: httpx.Client, eid: str, token: str, body: dict[str, Any]) -> httpx.Response:
    return http.post(f"/api/encounters/{eid}/commands", json=body, headers=_auth(token))


def _ok(http: httpx.Client, eid: str, token: str, body: dict[str, Any]) -> Any:
    r = _command(http, eid, token, body)
    assert r.status_code == 200, r.text
    return r.json()
