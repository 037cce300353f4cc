"""A number computed from a hidden value is hidden too (issue 20 section 3), over a real
server and PostgreSQL: a check against a hidden stat shows others its outcome, not its
threshold; an undo of a hidden step alone is not told to the table; a War's sheets stay
the War GM's in its encounters."""

from __future__ import annotations

from typing import Any

from tests.e2e.conftest import Api
from tests.e2e.test_campaign_http import j1_and_j2

SWORD = {"name": "sword", "damage": 6}


def fighter(**over: Any) -> dict[str, Any]:
    base = {"DEX": 50, "PERC": 50, "END": 40, "hp": 20, "energy": 10, "weapons": [SWORD]}
    return base | over


def texts(board: dict[str, Any]) -> str:
    return "\n".join(line["text"] + "\n" + line["text_fr"] for line in board["log"])


def public_reads(api: Api, eid: str, spectator: str) -> str:
    """Board, events and every text export a spectator reads, as one text."""
    h = {"Authorization": f"Bearer {spectator}"}
    got = [api.http.get(f"/api/encounters/{eid}", headers=h).text]
    got.append(api.http.get(f"/api/encounters/{eid}/events", headers=h).text)
    for lang in ("en", "fr"):
        got.append(
            api.http.get(
                f"/api/encounters/{eid}/export", params={"format": "text", "lang": lang}, headers=h
            ).text
        )
    return "\n".join(got)


def test_TC_31_a_morale_check_on_a_hidden_morale_shows_its_outcome_not_its_threshold(
    api: Api,
) -> None:
    made = api.create("d100-tcs", settings={"init.reroll_each_round": False})
    eid, gm, spectator = made["id"], made["gm_token"], made["spectator_token"]
    a = api.ok(eid, gm, {"type": "add_combatant", "name": "Alba", "side": "a",
                         "sheet": fighter(DEX=90)})["combatant_id"]  # fmt: skip
    b = api.ok(eid, gm, {"type": "add_combatant", "name": "Brun", "side": "b",
                         "sheet": fighter(DEX=10, morale=4), "hidden": ["morale"]})  # fmt: skip
    api.ok(eid, gm, {"type": "start_combat"})
    first = api.board(eid, gm)["actor"]
    api.ok(eid, gm, {"type": "end_turn", "actor": first})
    second = api.board(eid, gm)["actor"]
    api.ok(eid, gm, {"type": "end_turn", "actor": second})  # the round ends: TC-31's check
    events = api.events(eid, gm)
    checks = [
        e for e in events if e["type"] == "die_rolled" and e["data"]["purpose"] == "morale check"
    ]
    assert [c["data"]["check"]["threshold"] for c in checks] == [40]  # 10 x PM 4, the GM's
    assert "≤ 40" in texts(api.board(eid, gm))
    public = public_reads(api, eid, spectator)
    assert "morale check" in public and "≤ 40" not in public and "<= 40" not in public
    shown = [e for e in api.events(eid, spectator) if e["version"] == checks[0]["version"]]
    assert shown[0]["veiled"] and shown[0]["data"]["check"]["threshold"] is None
    assert shown[0]["data"]["check"]["outcome"] == checks[0]["data"]["check"]["outcome"]
    assert shown[0]["data"]["faces"] == checks[0]["data"]["faces"]  # the dice stay public
    assert {a, b["combatant_id"]}


def test_an_undo_whose_only_step_was_a_hidden_adjust_is_not_told_to_the_table(api: Api) -> None:
    made = api.create("plain-d100")
    eid, gm, spectator = made["id"], made["gm_token"], made["spectator_token"]
    api.ok(eid, gm, {"type": "add_combatant", "name": "Brun", "side": "b", "preset": "bandit",
                     "hidden": ["hp"]})  # fmt: skip
    before = api.board(eid, spectator)["log"]
    api.ok(eid, gm, {"type": "adjust", "combatant": "c1", "resource": "hp", "delta": -5,
                     "reason": "poison"})  # fmt: skip
    api.ok(eid, gm, {"type": "undo", "reason": "wrong target"})
    assert "undid" in texts(api.board(eid, gm))
    public = api.board(eid, spectator)
    assert public["log"] == before and "undid" not in public_reads(api, eid, spectator)


def test_an_undo_of_a_public_step_is_told_to_the_table(api: Api) -> None:
    made = api.create("plain-d100")
    eid, gm, spectator = made["id"], made["gm_token"], made["spectator_token"]
    api.ok(eid, gm, {"type": "add_combatant", "name": "Brun", "side": "b", "preset": "bandit"})
    api.ok(eid, gm, {"type": "undo", "reason": "wrong sheet"})
    assert "undid" in texts(api.board(eid, spectator))


def test_a_wars_sheets_stay_its_gms_in_its_encounters(api: Api) -> None:
    war, _, _ = j1_and_j2(api)
    assert all(c["sheet"] for c in war.api.http.get(
        f"/api/campaigns/{war.id}", headers={"Authorization": f"Bearer {war.gm}"}
    ).json()["characters"])  # fmt: skip
    assert all("sheet" not in c for c in war.state()["characters"])  # the War's own pages
    made = war.open_encounter()
    shown = api.events(made["id"], made["spectator_token"])
    added = [e for e in shown if e["type"] == "combatant_added"]
    assert added and all(e["data"]["sheet"] == {} and e["redacted"] for e in added)
    full = [e for e in api.events(made["id"], made["gm_token"]) if e["type"] == "combatant_added"]
    assert len(full) == len(added) and all(e["data"]["sheet"] for e in full)
