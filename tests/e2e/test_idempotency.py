"""Idempotency keys belong to their caller (CONTRACT section 3), over real HTTP.

Two server processes on one database; the keys' table is read with the owner pool to
check what is (not) stored.
"""

from __future__ import annotations

import json
import uuid
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import asyncpg
import httpx

from tests.e2e.conftest import Api
from tests.e2e.test_http import setup_fight, version_of

ADD_HIDDEN = {
    "type": "add_combatant",
    "name": "Shade",
    "side": "foes",
    "preset": "guard",
    "hidden": ["hp"],
}


def new_key() -> str:
    return f"key-{uuid.uuid4().hex}"


def test_a_spectator_replaying_the_gms_key_gets_neither_a_token_nor_the_gms_answer(
    api: Api,
) -> None:
    f = setup_fight(api)
    key = new_key()
    added = api.ok(f["id"], f["gm"], ADD_HIDDEN, key=key)
    assert added["player_token"]
    before = version_of(api, f["id"])

    replay = api.command(
        f["id"], f["spectator"], {"type": "roll", "expr": "1d6", "purpose": "x"}, key=key
    )

    assert replay.status_code == 403, replay.text
    assert replay.json()["error"]["code"] == "forbidden"
    assert added["player_token"] not in replay.text
    assert version_of(api, f["id"]) == before


def test_a_player_replaying_the_gms_adjust_key_sees_no_hidden_value(api: Api) -> None:
    f = setup_fight(api)
    api.ok(f["id"], f["gm"], ADD_HIDDEN)
    key = new_key()
    secret = {
        "type": "adjust",
        "combatant": "c3",
        "resource": "hp",
        "delta": -3,
        "reason": "the secret poison",
    }
    api.ok(f["id"], f["gm"], secret, key=key)

    replay = api.ok(
        f["id"], f["alice"], {"type": "roll", "expr": "1d6", "purpose": "luck"}, key=key
    )

    # Alice's key is her own: her roll is a new command, not the GM's adjust.
    assert [e["type"] for e in replay["events"]] == ["die_rolled"]
    assert "secret poison" not in json.dumps(replay)


def test_the_same_key_from_another_caller_is_a_new_command(api: Api) -> None:
    f = setup_fight(api)
    key = new_key()
    body = {"type": "roll", "expr": "1d20", "purpose": "perception"}
    gm = api.ok(f["id"], f["gm"], body, key=key)
    alice = api.ok(f["id"], f["alice"], body, key=key)
    assert alice["version"] > gm["version"]
    rolls = [
        e
        for e in api.events(f["id"], f["gm"])
        if e["type"] == "die_rolled" and e["data"]["purpose"] == "perception"
    ]
    assert len(rolls) == 2


def test_the_same_key_with_another_body_is_idempotency_mismatch_and_appends_nothing(
    api: Api,
) -> None:
    f = setup_fight(api)
    key = new_key()
    api.ok(f["id"], f["gm"], {"type": "roll", "expr": "1d20", "purpose": "a"}, key=key)
    before = version_of(api, f["id"])

    r = api.command(f["id"], f["gm"], {"type": "roll", "expr": "1d20", "purpose": "b"}, key=key)

    assert r.status_code == 422, r.text
    assert r.json()["error"]["code"] == "idempotency_mismatch"
    assert version_of(api, f["id"]) == before


def test_a_refusal_replays_as_the_same_refusal_even_once_the_command_would_pass(
    api: Api,
) -> None:
    f = setup_fight(api)
    actor = api.board(f["id"], f["gm"])["actor"]
    other = "c2" if actor == "c1" else "c1"
    key = new_key()
    early = {"type": "end_turn", "actor": other}
    first = api.command(f["id"], f["gm"], early, key=key)
    assert first.status_code == 409, first.text
    # Now make it `other`'s turn: the same command would be accepted without the key.
    api.ok(f["id"], f["gm"], {"type": "end_turn", "actor": actor})
    before = version_of(api, f["id"])

    again = api.command(f["id"], f["gm"], early, key=key)

    assert (again.status_code, again.json()) == (first.status_code, first.json())
    assert version_of(api, f["id"]) == before


def test_eight_concurrent_identical_keyed_requests_over_two_instances_answer_the_first_result(
    api: Api, api2: Api
) -> None:
    for _ in range(10):
        f = setup_fight(api)
        actor = api.board(f["id"], f["gm"])["actor"]
        key = new_key()
        body = {"type": "end_turn", "actor": actor}
        before = version_of(api, f["id"])

        def send(i: int, f: dict[str, Any] = f, key: str = key, body: Any = body) -> Any:
            client = api if i % 2 == 0 else api2
            with httpx.Client(base_url=client.base, timeout=20) as http:
                r = http.post(
                    f"/api/encounters/{f['id']}/commands",
                    json=body,
                    headers={"Authorization": f"Bearer {f['gm']}", "Idempotency-Key": key},
                )
            return r.status_code, r.json()

        with ThreadPoolExecutor(8) as pool:
            answers = list(pool.map(send, range(8)))

        assert {a[0] for a in answers} == {200}, answers
        assert all(a == answers[0] for a in answers)
        ended = [e for e in api.events(f["id"], f["gm"], after=before) if e["type"] == "turn_ended"]
        assert len(ended) == 1


def test_a_gm_replaying_an_add_combatant_gets_no_token_and_is_told_how_to_get_a_link(
    api: Api,
) -> None:
    f = setup_fight(api)
    key = new_key()
    first = api.ok(f["id"], f["gm"], ADD_HIDDEN, key=key)
    replay = api.command(f["id"], f["gm"], ADD_HIDDEN, key=key)
    assert replay.headers["Idempotent-Replayed"] == "true"
    again = replay.json()
    assert again["combatant_id"] == first["combatant_id"]
    assert again["version"] == first["version"]
    assert again["events"] == first["events"]
    assert again["player_token"] is None
    assert "/tokens" in again["player_link"]


async def test_no_player_token_and_no_raw_key_is_stored_or_published(
    api: Api, pool: asyncpg.Pool[Any]
) -> None:
    f = setup_fight(api)
    key = new_key()
    added = api.ok(f["id"], f["gm"], ADD_HIDDEN, key=key)

    stored = await pool.fetch(
        "SELECT outcome::text AS o, key_hash FROM command_keys WHERE stream = $1",
        f"encounter-{f['id']}",
    )
    assert stored
    for row in stored:
        assert added["player_token"] not in row["o"]
        assert key not in row["o"] and row["key_hash"] != key
    published = api.events(f["id"], f["spectator"])
    assert all(e["meta"]["command_id"] != key for e in published)
    assert key not in json.dumps(published)
