"""The board's Structs (server/http/board_types.py) are the boards the server sends: real
boards of every rule system, for the GM, a player and a spectator, along a played fight,
decode into them and encode back to the very same JSON (no field the types do not name)."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from domain.rules import REGISTRY
from server.http.board_types import GmBoard, PublicBoard
from server.http.openapi import asyncapi, openapi
from tests.e2e.conftest import Api


def _same(board: dict[str, Any], kind: type[msgspec.Struct]) -> None:
    typed = msgspec.json.decode(msgspec.json.encode(board), type=kind, strict=True)
    assert msgspec.to_builtins(typed) == board, kind.__name__


def _move(api: Api, eid: str, gm: str, board: dict[str, Any]) -> bool:
    """One move the GM's `legal` enables (a reaction first); False when none was taken."""
    for cid, entries in board["legal"].items():
        for entry in entries:
            if not entry["enabled"]:
                continue
            if entry.get("reaction"):
                body = {"type": "react", "actor": cid, "reaction": entry["action"]}
            else:
                body = {"type": "act", "actor": cid, "action": entry["action"]}
                if entry["targets"]:
                    body["target"] = entry["targets"][0]
            if api.command(eid, gm, body).status_code == 200:
                return True
    actor = board["actor"]
    return (
        actor is not None
        and api.command(eid, gm, {"type": "end_turn", "actor": actor}).status_code == 200
    )


@pytest.mark.parametrize("ruleset", sorted(REGISTRY))
def test_real_boards_of_every_rule_system_decode_into_the_board_structs(
    api: Api, ruleset: str
) -> None:
    presets = list(REGISTRY[ruleset].presets)
    made = api.create(ruleset)
    eid, gm, spectator = made["id"], made["gm_token"], made["spectator_token"]
    first = api.ok(
        eid, gm, {"type": "add_combatant", "name": "Ayla", "side": "a", "preset": presets[0]}
    )
    api.ok(
        eid,
        gm,
        {"type": "add_combatant", "name": "Brak", "side": "b", "preset": presets[1 % len(presets)]},
    )
    secret = next(iter(api.board(eid, gm)["combatants"][1]["resources"]))
    api.ok(
        eid,
        gm,
        {
            "type": "add_combatant",
            "name": "Cyr",
            "side": "b",
            "preset": presets[0],
            "hidden": [secret],
        },
    )
    player = first["player_token"]
    api.ok(eid, gm, {"type": "start_combat"})
    seen_legal = seen_null = 0
    for step in range(12):
        if step % 4 == 1:
            api.ok(eid, gm, {"type": "roll", "expr": "1d20", "purpose": "secret", "hidden": True})
        gm_board = api.board(eid, gm)
        _same(gm_board, GmBoard)
        for token in (player, spectator, None):
            public = api.board(eid, token)
            _same(public, PublicBoard)
            if any(v is None for c in public["combatants"] for v in c["resources"].values()):
                seen_null += 1
                with pytest.raises(msgspec.ValidationError):  # a secret's null is no GM value
                    msgspec.convert(public, type=GmBoard, strict=True)
        seen_legal += sum(len(v) for v in gm_board["legal"].values())
        if gm_board["winner"] is not None or not _move(api, eid, gm, gm_board):
            break
    assert seen_legal > 0 and seen_null > 0  # the typed parts were there to be checked
    api.ok(eid, gm, {"type": "close"})
    _same(api.board(eid, gm), GmBoard)
    _same(api.board(eid), PublicBoard)


def test_the_documents_reference_the_board_structs(api: Api) -> None:
    ok = openapi()["paths"]["/api/encounters/{id}"]["get"]["responses"]["200"]
    refs = ok["content"]["application/json"]["schema"]["anyOf"]
    assert refs == [
        {"$ref": "#/components/schemas/GmBoard"},
        {"$ref": "#/components/schemas/PublicBoard"},
    ]
    schemas = asyncapi()["components"]["schemas"]
    for name in ("EncounterSnapshot", "EncounterUpdate", "EncounterPatchUpdate"):
        assert schemas[name]["properties"]["board"]["anyOf"] == [
            {"$ref": "#/components/schemas/GmBoard"},
            {"$ref": "#/components/schemas/PublicBoard"},
        ], name
    assert schemas["WarSnapshot"]["properties"]["board"] == {"$ref": "#/components/schemas/War"}
    legal = schemas["PublicBoard"]["properties"]["legal"]
    assert legal["additionalProperties"]["items"] == {"$ref": "#/components/schemas/LegalEntry"}
    served = api.http.get("/api/schema").json()
    assert served["board_gm"] == {"$ref": "#/$defs/GmBoard"}
    assert "decided" in served["$defs"]["PublicBoard"]["required"]
