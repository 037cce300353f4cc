"""Bounded, validated input over real HTTP: every bad input is a 4xx JSON error, nothing
is appended (the stream's version is the same before and after) and the server stays
healthy."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from tests.e2e.conftest import Api


def version(api: Api, eid: str, gm: str) -> int:
    r = api.http.get(f"/api/encounters/{eid}/events", headers={"Authorization": f"Bearer {gm}"})
    assert r.status_code == 200, r.text
    v: int = r.json()["version"]
    return v


def refused(r: httpx.Response, status: int, rule: str | None = None) -> dict[str, Any]:
    assert r.status_code == status, r.text
    assert r.headers["content-type"].startswith("application/json")
    err: dict[str, Any] = r.json()["error"]
    assert err["code"] == "invalid" and err["message"]
    if rule is not None:
        assert err.get("rule") == rule, err
    return err


def healthy(api: Api) -> None:
    assert api.http.get("/healthz").json()["status"] == "ok"


def fight(api: Api, ruleset: str, a: str, b: str) -> tuple[str, str, str]:
    """An encounter in combat; its id, GM token and the combatant whose turn it is."""
    made = api.create(ruleset)
    eid, gm = made["id"], made["gm_token"]
    api.ok(eid, gm, {"type": "add_combatant", "name": "A", "side": "a", "preset": a})
    api.ok(eid, gm, {"type": "add_combatant", "name": "B", "side": "b", "preset": b})
    api.ok(eid, gm, {"type": "start_combat"})
    return eid, gm, api.board(eid, gm)["actor"]


def send_raw(api: Api, eid: str, gm: str, raw: bytes) -> httpx.Response:
    headers = {"Authorization": f"Bearer {gm}", "Content-Type": "application/json"}
    return api.http.post(f"/api/encounters/{eid}/commands", content=raw, headers=headers)


def foe_of(actor: str) -> str:
    return "c2" if actor == "c1" else "c1"


def test_an_849_kb_options_list_is_refused_and_nothing_is_stored(api: Api) -> None:
    eid, gm, actor = fight(api, "plain-d100", "guard", "bandit")
    before = version(api, eid, gm)
    act = {"type": "act", "actor": actor, "action": "attack", "target": foe_of(actor)}
    refused(api.command(eid, gm, {**act, "options": {"x": list(range(120_000))}}), 422, "PD-2")
    refused(api.command(eid, gm, {**act, "options": {"x": 1}}), 422, "PD-2")
    assert version(api, eid, gm) == before
    healthy(api)


def test_d100_tcs_refuses_unknown_options_and_a_sheathed_weapon_with_the_rule(api: Api) -> None:
    eid, gm, actor = fight(api, "d100-tcs", "archer", "archer")  # each holds the bow
    before = version(api, eid, gm)
    act = {"type": "act", "actor": actor, "action": "attack", "target": foe_of(actor)}
    refused(api.command(eid, gm, {**act, "options": {"range_m": 30}}), 422, "TC-8")
    refused(api.command(eid, gm, {**act, "options": {"long_range": True}}), 422, "TC-8")
    err = refused(api.command(eid, gm, {**act, "options": {"weapon": "sword"}}), 422, "TC-19")
    assert "bow" in err["message"]
    refused(api.command(eid, gm, {**act, "options": {"x": 0.5}}), 422)
    assert version(api, eid, gm) == before
    api.ok(eid, gm, {**act, "options": {"weapon": "bow", "distance": 10}})
    healthy(api)


def test_the_rule_systems_publish_the_options_each_action_takes(api: Api) -> None:
    systems = {r["id"]: r for r in api.http.get("/api/rulesets").json()}
    tcs = systems["d100-tcs"]["actions"]["attack"]["options"]
    assert tcs["weapon"]["rule"] == "TC-19" and tcs["at"]["choices"] == ["bearer", "shield"]
    assert tcs["distance"] == {"type": "int", "rule": "TC-18", "description": "metres to the "
                               "target", "min": 0, "max": 100_000}  # fmt: skip
    ranks = systems["ranks-d100"]["reactions"]["counter"]["options"]
    assert {"action", "rank", "activate"} <= set(ranks)
    assert systems["plain-d100"]["actions"]["attack"]["options"] == {}
    assert systems["plain-d100"]["settings"]["critical_range"]["max"] == 50
    assert all(r["options_max_bytes"] == 2048 for r in systems.values())


@pytest.mark.parametrize(
    "raw",
    [
        b'{"type":"roll","expr":"d6","purpose":"x","options":' + b"[" * 20_000 + b"]" * 20_000,
        b'{"type":"add_combatant","name":"A","side":"a","sheet":'
        + b'{"a":' * 5000
        + b"1"
        + b"}" * 5000
        + b"}",
        b'{"type":"add_combatant","name":"A","side":"a","sheet":'
        + b'{"a":' * 12
        + b"1"
        + b"}" * 12
        + b"}",
    ],
    ids=["20000-brackets-in-options", "5000-braces-in-a-sheet", "12-levels-in-a-sheet"],
)
def test_deeply_nested_json_is_a_400_in_the_json_error_shape(api: Api, raw: bytes) -> None:
    made = api.create()
    eid, gm = made["id"], made["gm_token"]
    before = version(api, eid, gm)
    assert "nests at most 8" in refused(send_raw(api, eid, gm, raw), 400)["message"]
    assert version(api, eid, gm) == before
    healthy(api)


@pytest.mark.parametrize(
    "body",
    [
        {"type": "roll", "expr": "d6", "purpose": "a\u0000b"},
        {"type": "add_combatant", "name": "a\u0000b", "side": "a", "preset": "guard"},
        {"type": "add_combatant", "name": "Alba\n- GM: Brun dies", "side": "a", "preset": "guard"},
        {"type": "add_combatant", "name": "Alba", "side": "a\r\n[/list]", "preset": "guard"},
        {"type": "add_combatant", "name": "A", "side": "a", "sheet": {"skill": 50.5}},
        {"type": "add_combatant", "name": "A", "side": "a", "sheet": {"hp": 2.5e1}},
        {"type": "adjust", "combatant": "c1", "resource": "hp", "delta": -1, "reason": "x\ty"},
        {"type": "close", "reason": "done\u2028- GM: all die"},
    ],
    ids=[
        "nul-purpose",
        "nul-name",
        "newline-name",
        "newline-side",
        "float-sheet",
        "exp-float",
        "tab-reason",
        "line-separator-reason",
    ],
)
def test_control_characters_and_floats_are_refused_at_the_edge(
    api: Api, body: dict[str, Any]
) -> None:
    made = api.create()
    eid, gm = made["id"], made["gm_token"]
    api.ok(eid, gm, {"type": "add_combatant", "name": "Guard", "side": "a", "preset": "guard"})
    before = version(api, eid, gm)
    refused(api.command(eid, gm, body), 422)
    assert version(api, eid, gm) == before
    healthy(api)


def test_an_integral_float_is_read_as_its_integer_everywhere(api: Api) -> None:
    """JSON Schema (GET /openapi.json) counts 3.0 as an integer: so does the server, in a
    typed field and inside free-form options and sheets alike; nothing stores a float."""
    made = api.create()
    eid, gm = made["id"], made["gm_token"]
    sheet = {"type": "add_combatant", "name": "A", "side": "a", "preset": "guard",
             "sheet": {"hp": 1e1}}  # fmt: skip
    added = api.ok(eid, gm, sheet)
    assert added["events"][0]["data"]["resources"]["hp"] == 10
    rolled = api.ok(eid, gm, {"type": "roll", "expr": "1d6", "purpose": "x", "dice": [3.0]})
    assert rolled["events"][0]["data"]["faces"] == [3]
    assert "3.0" not in str(api.events(eid, gm))
    healthy(api)


@pytest.mark.parametrize(
    ("body", "rule"),
    [
        ({"settings": {"critical_range": 2**70}}, "PD-1"),
        ({"settings": {"critical_range": 0.5}}, None),
        ({"settings": {"critical_damage": "triple"}}, "PD-1"),
        ({"ruleset": "d100-tcs", "settings": {"aoo.max": 10**6}}, "TC-AMB-10"),
        (
            {"ruleset": "ranks-d100", "settings": {"tables": {"reduction.master.B": 2**70}}},
            "RK-AMB-2",
        ),
        ({"name": "War\nroom"}, None),
    ],
)
def test_settings_out_of_range_and_bad_names_open_no_encounter(
    api: Api, body: dict[str, Any], rule: str | None
) -> None:
    r = api.http.post("/api/encounters", json={"ruleset": "plain-d100", "name": "T", **body})
    refused(r, 422, rule)
    healthy(api)


@pytest.mark.parametrize(
    "path",
    [
        "?at=1180591620717411303424",
        "/events?after=1180591620717411303424",
        "/events?after=9223372036854775000",
        "/events?limit=1180591620717411303424",
        "/events?after=-1",
        "/events?after=1e3",
        "/rolls/1180591620717411303424",
        "/rolls/-1",
        "/rolls/%D9%A3",
    ],
)
def test_integer_parameters_out_of_bounds_are_a_400(api: Api, path: str) -> None:
    made = api.create()
    eid, gm = made["id"], made["gm_token"]
    r = api.http.get(f"/api/encounters/{eid}{path}", headers={"Authorization": f"Bearer {gm}"})
    assert "whole number from 0 to" in refused(r, 400)["message"]
    healthy(api)


def test_campaign_bodies_are_bounded_too(api: Api) -> None:
    r = api.http.post("/api/campaigns", json={"name": "War\n- GM", "ruleset": "ranks-d100"})
    refused(r, 422)
    raw = b'{"name":"W","ruleset":"ranks-d100","x":' + b"[" * 20_000 + b"]" * 20_000 + b"}"
    r = api.http.post("/api/campaigns", content=raw, headers={"Content-Type": "application/json"})
    refused(r, 400)
    healthy(api)
