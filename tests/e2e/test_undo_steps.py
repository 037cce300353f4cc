"""Undo works on whole steps, through the real server and PostgreSQL (issue 21, findings
1, 2 and 9 as they were reproduced): the d100-tcs round start, d20-na's undo into a
round's `round_started` batch, continue_combat, an undo inside an attack's batch, and
an undo to a version an earlier undo had reverted. After each undo to V the board is
the board of `?at=V` but for the version, the log, the undone spans and the ledger's
disputes, dice and entropy.
"""

from __future__ import annotations

from typing import Any

from tests.e2e.conftest import Api

NOT_UNDONE = {"version", "log", "undone", "disputes", "dice", "step_back", "entropy"}


def _fight(api: Api, ruleset: str, a: str, b: str, **extra: Any) -> tuple[str, str]:
    made = api.create(ruleset, **extra)
    eid, gm = made["id"], made["gm_token"]
    api.ok(eid, gm, {"type": "add_combatant", "name": "Ayla", "side": "a", "preset": a})
    api.ok(eid, gm, {"type": "add_combatant", "name": "Brun", "side": "b", "preset": b})
    return eid, gm


def _at(api: Api, eid: str, gm: str, version: int) -> dict[str, Any]:
    r = api.http.get(
        f"/api/encounters/{eid}", params={"at": version}, headers={"Authorization": f"Bearer {gm}"}
    )
    assert r.status_code == 200, r.text
    board: dict[str, Any] = r.json()
    return board


def _same_as_at(api: Api, eid: str, gm: str, version: int) -> dict[str, Any]:
    now = api.board(eid, gm)
    then = _at(api, eid, gm, version)
    kept = {k: v for k, v in now.items() if k not in NOT_UNDONE}
    assert kept == {k: v for k, v in then.items() if k not in NOT_UNDONE}
    return now


def _end_turn(api: Api, eid: str, gm: str) -> dict[str, Any]:
    actor = api.board(eid, gm)["actor"]
    assert actor is not None
    answer: dict[str, Any] = api.ok(eid, gm, {"type": "end_turn", "actor": actor})
    return answer


def _batches(api: Api, eid: str, gm: str) -> list[list[dict[str, Any]]]:
    """The stored events, one list per command (they share meta.command_id)."""
    out: list[list[dict[str, Any]]] = []
    last = None
    for e in api.events(eid, gm):
        command = (e.get("meta") or {}).get("command_id")
        if command != last or not out:
            out.append([])
        out[-1].append(e)
        last = command
    return out


def test_finding_1_undo_last_step_at_a_d100_tcs_round_start_leaves_an_actor(api: Api) -> None:
    eid, gm = _fight(api, "d100-tcs", "duelist", "archer")
    api.ok(eid, gm, {"type": "start_combat", "dice": [10, 20]})
    _end_turn(api, eid, gm)
    before = api.board(eid, gm)
    opened = _end_turn(api, eid, gm)
    kinds = [e["type"] for e in opened["events"]]
    assert "round_started" in kinds and "initiative_set" in kinds and "turn_started" in kinds
    undone = api.ok(eid, gm, {"type": "undo", "reason": "too soon"})
    data = undone["events"][0]["data"]
    assert (data["to_version"], data["from_version"]) == (before["version"], before["version"] + 1)
    board = _same_as_at(api, eid, gm, before["version"])
    assert board["actor"] == before["actor"] and board["round"] == 1
    assert any(e["enabled"] for e in board["legal"][board["actor"]])
    _end_turn(api, eid, gm)  # and the fight goes on
    assert api.board(eid, gm)["round"] == 2


def test_finding_2_an_undo_into_round_3s_round_started_batch_is_refused(api: Api) -> None:
    eid, gm = _fight(api, "d20-na", "milicien", "fangeux")
    api.ok(eid, gm, {"type": "start_combat"})
    while api.board(eid, gm)["round"] < 3:
        _end_turn(api, eid, gm)
    batch = next(
        b
        for b in _batches(api, eid, gm)
        if any(e["type"] == "round_started" and e["data"]["round"] == 3 for e in b)
    )
    assert len(batch) >= 3
    first, last = batch[0]["version"], batch[-1]["version"]
    for inside in range(first, last):
        r = api.command(eid, gm, {"type": "undo", "reason": "mid", "to_version": inside})
        assert r.status_code == 422, r.text
        body = r.json()
        assert body["error"]["code"] == "invalid" and "inside one command's events" in str(body)
    api.ok(eid, gm, {"type": "undo", "reason": "whole", "to_version": first - 1})
    board = _same_as_at(api, eid, gm, first - 1)
    assert board["round"] == 2 and board["actor"] is not None
    for _ in range(3):  # every command the finding saw refused works again
        _end_turn(api, eid, gm)
    assert api.board(eid, gm)["actor"] is not None


def test_finding_9_continue_combat_leaves_an_actor_in_tcs_and_d20_na(api: Api) -> None:
    for ruleset, a, b, dice in [
        ("d100-tcs", "duelist", "archer", [10, 20]),
        ("d20-na", "milicien", "fangeux", None),
    ]:
        eid, gm = _fight(api, ruleset, a, b)
        api.ok(eid, gm, {"type": "start_combat", **({"dice": dice} if dice else {})})
        api.ok(eid, gm, {"type": "remove_combatant", "combatant": "c2", "reason": "gone"})
        assert api.board(eid, gm)["decided"] is True
        api.ok(eid, gm, {"type": "continue_combat", "reason": "a last look"})
        for _ in range(3):
            board = api.board(eid, gm)
            assert board["actor"] == "c1" and not board["decided"], ruleset
            _end_turn(api, eid, gm)


def test_finding_9_undo_last_step_reverts_an_attack_with_its_turn_change(api: Api) -> None:
    eid, gm = _fight(
        api, "d100-tcs", "duelist", "archer", settings={"init.reroll_each_round": False}
    )
    api.ok(eid, gm, {"type": "start_combat", "dice": [10, 20]})
    before = api.board(eid, gm)
    actor = before["actor"]
    target = "c2" if actor == "c1" else "c1"
    body = {"type": "act", "actor": actor, "action": "attack", "target": target, "dice": [99]}
    attack = api.ok(eid, gm, body)
    kinds = [e["type"] for e in attack["events"]]
    assert "turn_ended" in kinds and "turn_started" in kinds
    ended = next(e["version"] for e in attack["events"] if e["type"] == "turn_ended")
    r = api.command(eid, gm, {"type": "undo", "reason": "mid", "to_version": ended})
    assert r.status_code == 422 and r.json()["error"]["code"] == "invalid", r.text
    assert api.board(eid, gm)["step_back"] == before["version"]
    api.ok(eid, gm, {"type": "undo", "reason": "the attack too"})
    board = _same_as_at(api, eid, gm, before["version"])
    assert board["actor"] == actor
    struck = {line["version"] for line in board["log"] if line.get("undone")}
    assert struck and min(struck) > before["version"]


def test_finding_9_an_undo_to_a_version_an_earlier_undo_reverted_gives_its_board(
    api: Api,
) -> None:
    eid, gm = _fight(api, "plain-d100", "guard", "bandit")
    api.ok(eid, gm, {"type": "start_combat", "dice": [50, 20]})
    api.ok(eid, gm, {"type": "adjust", "combatant": "c2", "resource": "hp", "delta": -5,
                     "reason": "arrows"})  # fmt: skip
    hurt = api.board(eid, gm)["version"]
    api.ok(eid, gm, {"type": "undo", "reason": "no arrows"})
    api.ok(eid, gm, {"type": "adjust", "combatant": "c1", "resource": "hp", "delta": -3,
                     "reason": "trap"})  # fmt: skip
    api.ok(eid, gm, {"type": "undo", "reason": "arrows after all", "to_version": hurt})
    board = _same_as_at(api, eid, gm, hurt)
    hp = {c["id"]: c["resources"]["hp"] for c in board["combatants"]}
    assert hp == {"c1": 30, "c2": 19}
    texts = {line["text"]: line.get("undone") for line in board["log"]}
    arrows = next(t for t in texts if "arrows" in t and "undid" not in t)
    trap = next(t for t in texts if "trap" in t and "undid" not in t)
    assert texts[arrows] is None and texts[trap] == "arrows after all"


def test_an_undo_to_every_step_of_a_war_encounter_gives_its_board_and_the_war_stays(
    api: Api,
) -> None:
    """A War's encounter (its combatants are the War's characters, their pools the War's):
    after an undo to any step end V its board is the board of `?at=V`, and the War is
    untouched until the close, whatever was undone."""
    from tests.e2e.test_campaign_http import by_name, j1_and_j2

    war, j1, _ = j1_and_j2(api)
    made = war.open_encounter()
    eid, gm = made["id"], made["gm_token"]
    seen = by_name(api.board(eid, gm))
    c1, c2 = seen["J1"]["id"], seen["J2"]["id"]
    api.ok(eid, gm, {"type": "start_combat", "dice": [90, 65]})
    api.ok(
        eid,
        gm,
        {"type": "act", "actor": c1, "action": "attack_magic", "target": c2, "rank": "A",
         "dice": [11]},
    )  # fmt: skip
    api.ok(eid, gm, {"type": "adjust", "combatant": c2, "resource": "hp", "delta": -5,
                     "reason": "fall"})  # fmt: skip
    api.ok(eid, gm, {"type": "apply_condition", "combatant": c1, "name": "dazed", "rounds": 1,
                     "until": "end_of_turn"})  # fmt: skip
    batches = _batches(api, eid, gm)
    arrived = max(e["version"] for b in batches for e in b if e["type"] == "combatant_added")
    ends = [b[-1]["version"] for b in batches if b[-1]["version"] >= arrived]
    assert len(ends) >= 4
    pool = war.char(j1)
    for to in reversed(ends[:-1]):
        answer = api.ok(eid, gm, {"type": "undo", "reason": "back", "to_version": to})
        assert answer["version"] > to
        _same_as_at(api, eid, gm, to)
    board = api.board(eid, gm)
    assert {c["name"] for c in board["combatants"]} == {"J1", "J2"}  # the War's arrivals stay
    assert war.char(j1) == pool and war.state()["encounters"] == []
