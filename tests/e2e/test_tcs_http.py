"""d100-tcs through the HTTP API: a fight played from the board's legal actions."""

from __future__ import annotations

from typing import Any

from tests.e2e.conftest import Api


def test_TC_7_a_d100_tcs_fight_runs_through_the_api_from_the_legal_actions(api: Api) -> None:
    made = api.create("d100-tcs")
    eid, gm = made["id"], made["gm_token"]
    api.ok(eid, gm, {"type": "add_combatant", "name": "Duelist", "side": "a", "preset": "duelist"})
    api.ok(eid, gm, {"type": "add_combatant", "name": "Spear", "side": "b", "preset": "spearman"})
    api.ok(eid, gm, {"type": "start_combat"})
    played = 0
    for _ in range(40):
        board: dict[str, Any] = api.http.get(f"/api/encounters/{eid}").json()
        if board["winner"] or board["actor"] is None:
            break
        actor = board["actor"]
        choices = [e for e in board["legal"].get(actor, []) if e["enabled"]]
        assert choices, f"{actor} has nothing legal to do"
        pick = next((e for e in choices if e.get("targets")), choices[0])
        body: dict[str, Any] = {"type": "act", "actor": actor, "action": pick["action"]}
        if pick.get("targets"):
            body["target"] = pick["targets"][0]
        r = api.command(eid, gm, body)
        if r.status_code != 200:  # a plan legal alone may still need options: end the turn
            assert r.status_code in (409, 422), r.text
            api.ok(eid, gm, {"type": "end_turn", "actor": actor})
        played += 1
    assert played >= 4
    board = api.http.get(f"/api/encounters/{eid}").json()
    assert board["round"] >= 2 and board["log"]
    api.ok(eid, gm, {"type": "close"})
    report = api.http.get(f"/api/encounters/{eid}/verify").json()
    assert report["chain"] and report["dice"] and report["rolls_checked"] > 0
