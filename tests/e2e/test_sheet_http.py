"""GET /api/encounters/{id}/sheet: a player reads their own combatant's sheet (its stats
and the once-per-session uses left), never another's; a spectator none; the GM every
one; a combatant whose numbers are the GM's keeps its sheet from its player too."""

from __future__ import annotations

from typing import Any

from tests.e2e.conftest import Api


def sheets(api: Api, eid: str, token: str | None) -> Any:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return api.http.get(f"/api/encounters/{eid}/sheet", headers=headers)


def add(api: Api, eid: str, gm: str, name: str, side: str, preset: str, **more: Any) -> Any:
    body = {"type": "add_combatant", "name": name, "side": side, "preset": preset, **more}
    return api.ok(eid, gm, body)


def test_a_player_reads_their_own_sheet_and_its_second_wind_left(api: Api) -> None:
    made = api.create("plain-d100")
    eid, gm = made["id"], made["gm_token"]
    guard = add(api, eid, gm, "Guard", "watch", "guard")
    bandit = add(api, eid, gm, "Bandit", "outlaws", "bandit")
    api.ok(eid, gm, {"type": "start_combat", "dice": [50, 20]})  # Guard (c1) first

    r = sheets(api, eid, guard["player_token"])
    assert r.status_code == 200, r.text
    mine = r.json()["sheets"]
    assert [s["id"] for s in mine] == ["c1"]
    assert mine[0]["stats"] == {"skill": 55, "dodge": 30, "damage": 8, "initiative": 5}
    assert "hp" not in mine[0]["stats"]  # a pool: the board shows it with its maximum
    wind = {"key": "second_wind", "label": "Second wind", "label_fr": "Second souffle",
            "rule": "PD-3", "limit": 1, "used": 0, "left": 1}  # fmt: skip
    assert mine[0]["uses"] == [wind] and mine[0]["kept"] is False

    api.ok(eid, gm, {"type": "act", "actor": "c1", "action": "second_wind"})
    after = sheets(api, eid, guard["player_token"]).json()["sheets"][0]["uses"][0]
    assert (after["used"], after["left"]) == (1, 0)

    theirs = sheets(api, eid, bandit["player_token"]).json()["sheets"]
    assert [s["id"] for s in theirs] == ["c2"]  # never the Guard's
    assert sheets(api, eid, made["spectator_token"]).json()["sheets"] == []
    assert [s["id"] for s in sheets(api, eid, gm).json()["sheets"]] == ["c1", "c2"]
    # The public board never carries a sheet, for anyone.
    board = api.board(eid, guard["player_token"])
    assert all("stats" not in c and "sheet" not in c for c in board["combatants"])


def test_the_sheet_needs_a_token_of_this_encounter(api: Api) -> None:
    made, other = api.create(), api.create()
    r = sheets(api, made["id"], None)
    assert r.status_code == 401 and r.json()["error"]["code"] == "unauthorized"
    r = sheets(api, made["id"], other["gm_token"])
    assert r.status_code == 401 and r.json()["error"]["code"] == "unauthorized"


def test_a_combatant_with_gm_only_resources_keeps_its_sheet_from_its_player(api: Api) -> None:
    made = api.create("d20-na")
    eid, gm = made["id"], made["gm_token"]
    secret = add(api, eid, gm, "Spy", "foes", "fangeux", hidden=["hp"])
    r = sheets(api, eid, secret["player_token"]).json()["sheets"]
    assert r == [{"id": "c1", "name": "Spy", "kept": True, "stats": {}, "lists": {}, "uses": []}]
    as_gm = sheets(api, eid, gm).json()["sheets"][0]
    assert as_gm["kept"] is False and as_gm["stats"]["STR"] > 0


def test_the_sheets_of_d100_tcs_and_ranks_d100_count_potions_and_half_ranks(api: Api) -> None:
    tcs = api.create("d100-tcs")
    potion = {"name": "healing draught", "heal": 5}
    sheet = {"DEX": 60, "END": 40, "hp": 20, "energy": 10,
             "weapons": [{"name": "sword", "damage": 6}], "items": [potion]}  # fmt: skip
    me = add(api, tcs["id"], tcs["gm_token"], "Healer", "heroes", "duelist", sheet=sheet)
    got = sheets(api, tcs["id"], me["player_token"]).json()["sheets"][0]
    assert got["lists"] == {"weapons": ["sword"], "items": ["healing draught"]}
    assert [(u["key"], u["rule"], u["left"]) for u in got["uses"]] == [
        ("item:healing draught", "TC-20", 1)
    ]
    assert got["uses"][0]["label_fr"] == "Potion : healing draught"

    ranks = api.create("ranks-d100")
    j1 = {"kind": "master", "STR": "E+", "END": "B", "AGI": "A-", "MANA_STAT": "EX",
          "LCK": "D", "MAGIC": "E"}  # fmt: skip
    me = add(api, ranks["id"], ranks["gm_token"], "J1", "heroes", "J1", sheet=j1)
    got = sheets(api, ranks["id"], me["player_token"]).json()["sheets"][0]
    assert got["stats"]["STR"] == "E+" and got["stats"]["kind"] == "master"
    assert [u["key"] for u in got["uses"]] == ["half_rank.STR", "half_rank.AGI"]
    assert got["uses"][1]["label"] == "Half-rank of AGI"
