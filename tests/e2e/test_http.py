"""The HTTP API end to end: real server processes, real PostgreSQL."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest

from tests.e2e.conftest import Api


def setup_fight(api: Api) -> dict[str, Any]:
    """An encounter with Guard (c1, GM-run) and Bandit (c2, Alice's), combat started."""
    made = api.create()
    eid, gm = made["id"], made["gm_token"]
    api.ok(eid, gm, {"type": "add_combatant", "name": "Guard", "side": "watch", "preset": "guard"})
    bandit = api.ok(
        eid,
        gm,
        {
            "type": "add_combatant",
            "name": "Bandit",
            "side": "outlaws",
            "preset": "bandit",
            "controller": "alice",
        },
    )
    api.ok(eid, gm, {"type": "start_combat", "dice": [50, 20]})
    return {
        "id": eid,
        "gm": gm,
        "alice": bandit["player_token"],
        "spectator": made["spectator_token"],
    }


def version_of(api: Api, eid: str) -> int:
    v: int = api.http.get(f"/api/encounters/{eid}").json()["version"]
    return v


def test_creating_an_encounter_answers_201_with_tokens_and_links(api: Api) -> None:
    made = api.create()
    assert set(made) >= {"id", "version", "gm_token", "spectator_token", "links"}
    assert made["version"] == 3  # opened + two seed commitments
    board = api.http.get(f"/api/encounters/{made['id']}").json()
    assert board["encounter"]["ruleset"] == "plain-d100"


def test_a_fight_runs_through_the_api_with_gm_dice_recorded_as_manual(api: Api) -> None:
    f = setup_fight(api)
    answer = api.ok(
        f["id"],
        f["gm"],
        {"type": "act", "actor": "c1", "action": "attack", "target": "c2", "dice": [10]},
    )
    rolled = [e for e in answer["events"] if e["type"] == "die_rolled"]
    assert rolled[0]["data"]["source"] == "manual" and rolled[0]["data"]["faces"] == [10]
    board = api.http.get(f"/api/encounters/{f['id']}").json()
    assert board["pending"][0]["target"] == "c2"
    api.ok(f["id"], f["alice"], {"type": "react", "actor": "c2", "reaction": "dodge"})
    board = api.http.get(f"/api/encounters/{f['id']}").json()
    assert board["pending"] == []
    hp = next(c for c in board["combatants"] if c["id"] == "c2")["resources"]["hp"]
    assert hp in (16, 24)


@pytest.mark.parametrize(
    ("who", "body", "status", "code"),
    [
        (
            "alice",
            {"type": "act", "actor": "c1", "action": "attack", "target": "c2"},
            403,
            "forbidden",
        ),
        (
            "gm",
            {"type": "act", "actor": "c2", "action": "attack", "target": "c1"},
            409,
            "not_your_turn",
        ),
        ("gm", {"type": "react", "actor": "c2", "reaction": "dodge"}, 409, "no_pending_reaction"),
        (
            "gm",
            {"type": "act", "actor": "c9", "action": "attack", "target": "c2"},
            404,
            "not_found",
        ),
        ("alice", {"type": "roll", "expr": "1d6", "hidden": True}, 403, "forbidden"),
        ("spectator", {"type": "roll", "expr": "1d6"}, 403, "forbidden"),
        ("gm", {"type": "act", "actor": "c1", "action": "fly", "target": "c2"}, 422, "invalid"),
        ("gm", {"type": "act", "actor": "c1"}, 422, "invalid"),
        ("gm", {"type": "act", "actor": "c1", "action": "attack", "bogus": 1}, 422, "invalid"),
        (
            "gm",
            {"type": "adjust", "combatant": "c1", "resource": "hp", "delta": "x", "reason": "r"},
            422,
            "invalid",
        ),
        ("gm", {"type": "teleport"}, 422, "invalid"),
        ("gm", {"type": "roll", "expr": "0d6"}, 422, "invalid"),
    ],
)
def test_refused_commands_answer_a_code_and_append_nothing(
    api: Api, who: str, body: dict[str, Any], status: int, code: str
) -> None:
    f = setup_fight(api)
    before = version_of(api, f["id"])
    r = api.command(f["id"], f[who], body)
    assert r.status_code == status, r.text
    assert r.json()["error"]["code"] == code
    assert version_of(api, f["id"]) == before


def test_an_over_limit_action_names_its_rule(api: Api) -> None:
    f = setup_fight(api)
    api.ok(
        f["id"],
        f["gm"],
        {"type": "act", "actor": "c1", "action": "attack", "target": "c2", "dice": [99]},
    )
    r = api.command(
        f["id"], f["gm"], {"type": "act", "actor": "c1", "action": "attack", "target": "c2"}
    )
    assert r.status_code == 409
    assert r.json()["error"] == {
        "code": "limit_reached",
        "rule": "PD-2",
        "message": "Guard has already used their attack this turn (1 per turn)",
        "message_fr": "Guard a déjà utilisé son attaque de ce tour (1 par tour)",
        "reason": "limit_used",
        "params": {"actor": "c1", "ability": "attack", "limit": 1, "scope": "turn"},
    }


def test_malformed_json_oversized_bodies_and_bad_tokens_are_refused(api: Api) -> None:
    f = setup_fight(api)
    before = version_of(api, f["id"])
    url = f"/api/encounters/{f['id']}/commands"
    auth = {"Authorization": f"Bearer {f['gm']}"}
    r = api.http.post(url, content=b"{not json", headers=auth)
    assert (r.status_code, r.json()["error"]["code"]) == (400, "invalid")
    r = api.http.post(url, content=b"x" * (1 << 20 + 1), headers=auth)
    assert (r.status_code, r.json()["error"]["code"]) == (413, "too_large")
    r = api.http.post(url, json={"type": "roll", "expr": "1d6"})
    assert (r.status_code, r.json()["error"]["code"]) == (401, "unauthorized")
    r = api.http.post(
        url, json={"type": "roll", "expr": "1d6"}, headers={"Authorization": "Bearer nope"}
    )
    assert r.status_code == 401
    r = api.http.get("/api/nowhere")
    assert (r.status_code, r.json()["error"]["code"]) == (404, "not_found")
    r = api.http.get("/api/encounters/not-a-uuid")
    assert (r.status_code, r.json()["error"]["code"]) == (404, "not_found")
    r = api.http.post("/api/encounters", json={"ruleset": "chess", "name": "x"})
    assert (r.status_code, r.json()["error"]["code"]) == (422, "invalid")
    assert version_of(api, f["id"]) == before
    assert api.http.get("/healthz").status_code == 200


def test_the_same_idempotency_key_twice_appends_once(api: Api) -> None:
    f = setup_fight(api)
    body = {"type": "roll", "expr": "1d20", "purpose": "perception"}
    first = api.ok(f["id"], f["gm"], body, key="k-1")
    again = api.ok(f["id"], f["gm"], body, key="k-1")
    assert again == first
    rolls = [
        e
        for e in api.events(f["id"], f["gm"])
        if e["type"] == "die_rolled" and e["data"]["purpose"] == "perception"
    ]
    assert len(rolls) == 1


def test_a_spectator_never_sees_a_hidden_roll(api: Api) -> None:
    f = setup_fight(api)
    answer = api.ok(
        f["id"], f["gm"], {"type": "roll", "expr": "1d20", "hidden": True, "purpose": "secret door"}
    )
    assert answer["events"][0]["data"]["hidden"] is True
    for token in (f["spectator"], f["alice"]):
        seen = api.events(f["id"], token)
        assert not any(e["data"].get("hidden") for e in seen if e["type"] == "die_rolled")
        board = api.http.get(
            f"/api/encounters/{f['id']}", headers={"Authorization": f"Bearer {token}"}
        ).json()
        assert "secret door" not in json.dumps(board)


def test_the_board_at_an_earlier_version_shows_the_earlier_hp(api: Api) -> None:
    f = setup_fight(api)
    before = version_of(api, f["id"])
    api.ok(
        f["id"],
        f["gm"],
        {"type": "adjust", "combatant": "c2", "resource": "hp", "delta": -5, "reason": "trap"},
    )
    then = api.http.get(f"/api/encounters/{f['id']}", params={"at": before}).json()
    now = api.http.get(f"/api/encounters/{f['id']}").json()
    hp = {
        b["version"]: next(c for c in b["combatants"] if c["id"] == "c2")["resources"]["hp"]
        for b in (then, now)
    }
    assert hp == {before: 24, before + 1: 19}


def test_a_closed_encounters_bundle_verifies_offline(api: Api, tmp_path: Any) -> None:
    f = setup_fight(api)
    api.ok(f["id"], f["gm"], {"type": "act", "actor": "c1", "action": "attack", "target": "c2"})
    api.ok(f["id"], f["gm"], {"type": "roll", "expr": "2d6+1", "hidden": True})
    api.ok(f["id"], f["gm"], {"type": "close"})
    report = api.http.get(f"/api/encounters/{f['id']}/verify").json()
    assert report["chain"] and report["dice"] and report["rolls_checked"] >= 2
    bundle = api.http.get(f"/api/encounters/{f['id']}/export", params={"format": "json"}).json()
    path = tmp_path / "bundle.json"
    path.write_text(json.dumps(bundle))
    env = {"PATH": "/usr/bin:/bin", "FRACAS_HOME": str(tmp_path / "none")}
    ok = subprocess.run(
        [sys.executable, "-m", "server.cli.main", "verify", "--file", str(path)],
        env=env,
        capture_output=True,
        text=True,
    )
    assert ok.returncode == 0, ok.stdout + ok.stderr
    server_roll = next(
        e for e in bundle["events"] if e["type"] == "die_rolled" and e["data"]["source"] == "server"
    )
    server_roll["data"]["faces"] = [server_roll["data"]["faces"][0] % 100 + 1]
    path.write_text(json.dumps(bundle))
    bad = subprocess.run(
        [sys.executable, "-m", "server.cli.main", "verify", "--file", str(path)],
        env=env,
        capture_output=True,
        text=True,
    )
    assert bad.returncode == 1


def test_rulesets_and_schema_describe_every_command(api: Api) -> None:
    rulesets = api.http.get("/api/rulesets").json()
    plain = next(r for r in rulesets if r["id"] == "plain-d100")
    assert plain["settings"]["critical_damage"]["default"] == "double"
    schema = api.http.get("/api/schema").json()
    assert "act" in json.dumps(schema["commands"]) and "die_rolled" in json.dumps(schema["$defs"])
    assert {"WsSnapshot", "WsUpdate", "WsPong", "WsError"} <= set(schema["$defs"])
    assert "fracas_appends_total" in api.http.get("/metrics").text


def test_me_tells_a_token_its_role_and_combatants(api: Api) -> None:
    f = setup_fight(api)

    def me(token: str) -> Any:
        return api.http.get(
            f"/api/encounters/{f['id']}/me", headers={"Authorization": f"Bearer {token}"}
        )

    assert me(f["gm"]).json() == {"role": "gm", "combatants": []}
    assert me(f["alice"]).json() == {"role": "player", "combatants": ["c2"]}
    assert me(f["spectator"]).json()["role"] == "spectator"
    assert me("forged").status_code == 401


def test_a_rule_id_has_its_text_from_the_digests(api: Api) -> None:
    found = api.http.get("/api/rules/NA-15").json()
    assert found["system"] == "d20-na" and "margin" in found["text"]
    assert "RK-AMB-3" in api.http.get("/rules/RK-AMB-3").text
    missing = api.http.get("/api/rules/XX-0")
    assert (missing.status_code, missing.json()["error"]["code"]) == (404, "not_found")


def test_an_event_the_code_cannot_fold_is_a_json_500_not_a_quiet_skip(
    api: Api, database_url: str
) -> None:
    import asyncio

    import asyncpg

    from server.store.port import NewEvent
    from server.store.postgres import PostgresEventStore

    made = api.create()

    async def append_unknown() -> None:
        pool = await asyncpg.create_pool(database_url, min_size=1, max_size=1)
        try:
            store = PostgresEventStore(pool)
            await store.append(
                f"encounter-{made['id']}",
                made["version"],
                [NewEvent("mystery_happened", {})],
                {"actor": "test"},
            )
        finally:
            await pool.close()

    asyncio.run(append_unknown())
    r = api.http.get(f"/api/encounters/{made['id']}")
    assert (r.status_code, r.json()["error"]["code"]) == (500, "internal")
    assert api.http.get("/healthz").status_code == 200
