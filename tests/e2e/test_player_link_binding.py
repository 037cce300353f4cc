"""A player link stays bound to the combatant it was issued for (issue 20 section 4):
after Brune's arrival is undone, the next combatant gets a fresh id, so Brune's link
cannot end Corvin's turn."""

from __future__ import annotations

from tests.e2e.conftest import Api


def test_a_link_issued_for_an_undone_combatant_never_controls_the_next_one(api: Api) -> None:
    made = api.create()
    eid, gm = made["id"], made["gm_token"]
    api.ok(eid, gm, {"type": "add_combatant", "name": "Alba", "side": "a", "preset": "guard"})
    brune = api.ok(eid, gm, {"type": "add_combatant", "name": "Brune", "side": "b",
                             "preset": "bandit", "controller": "p1"})  # fmt: skip
    brune_link = brune["player_token"]
    api.ok(eid, gm, {"type": "undo", "reason": "Brune is not here yet"})
    corvin = api.ok(eid, gm, {"type": "add_combatant", "name": "Corvin", "side": "b",
                              "preset": "bandit", "controller": "p2"})  # fmt: skip
    board = api.board(eid, gm)
    ids = {c["name"]: c["id"] for c in board["combatants"]}
    assert ids == {"Alba": "c1", "Corvin": "c3"}  # Brune's c2 is never issued again
    bearer = {"Authorization": f"Bearer {brune_link}"}
    me = api.http.get(f"/api/encounters/{eid}/me", headers=bearer)
    assert me.json() == {"role": "player", "combatants": ["c2"]}
    api.ok(eid, gm, {"type": "start_combat", "dice": [20, 90]})  # Corvin acts first
    assert api.board(eid, gm)["actor"] == "c3"
    r = api.command(eid, brune_link, {"type": "end_turn", "actor": "c3"})
    assert r.status_code == 403, r.text
    assert api.board(eid, gm)["actor"] == "c3"
    api.ok(eid, corvin["player_token"], {"type": "end_turn", "actor": "c3"})
