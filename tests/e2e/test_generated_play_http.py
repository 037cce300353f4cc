"""Generated play, a slice through the HTTP server and PostgreSQL (issue 21): seeded
random fights in every rule system, played from the board's `legal`, with GM tools and
undos to step ends. After every command: the fight is playable, the cached board is
the board folded fresh (`?at=` the current version), log lines read clean; after every
undo to V the board is that of `?at=V`. The decider-level machine is
tests/unit/test_generated_play.py; this proves the server's cache and store agree.
"""

from __future__ import annotations

import itertools
import random
from typing import Any

import pytest

from tests.e2e.conftest import Api
from tests.unit.test_generated_play import bad_words
from tests.unit.test_legal_accepted import ROSTERS

# As tests/unit/play.py says: what an undo leaves as it was (the GM's entropy like the dice).
NOT_UNDONE = {"version", "log", "undone", "disputes", "dice", "step_back", "entropy"}
COMMANDS = 24


def _at(api: Api, eid: str, gm: str, version: int) -> dict[str, Any]:
    r = api.http.get(
        f"/api/encounters/{eid}", params={"at": version}, headers={"Authorization": f"Bearer {gm}"}
    )
    assert r.status_code == 200, r.text
    board: dict[str, Any] = r.json()
    return board


def _step_ends(api: Api, eid: str, gm: str) -> list[int]:
    """The versions that end a command's events (meta.command_id changes after them)."""
    events = api.events(eid, gm)
    return [
        e["version"]
        for e, nxt in itertools.pairwise(events)
        if e["meta"].get("command_id") != nxt["meta"].get("command_id")
    ]


def _act(board: dict[str, Any], rng: random.Random) -> dict[str, Any] | None:
    """A command from an enabled `legal` entry of whoever may act now."""
    offers = [(cid, e) for cid, entries in board["legal"].items() for e in entries if e["enabled"]]
    if not offers:
        return None
    cid, entry = rng.choice(offers)
    pending = any(p["target"] == cid for p in board["pending"])
    if pending and (entry.get("reaction") or entry["action"] in ("dodge", "parry", "none")):
        return {"type": "react", "actor": cid, "reaction": entry["action"]}
    body: dict[str, Any] = {"type": "act", "actor": cid, "action": entry["action"]}
    if entry.get("targets"):
        body["target"] = rng.choice(entry["targets"])
    if entry.get("ranks"):
        body["rank"] = entry["ranks"][-1]
    choices = entry.get("choices")
    if isinstance(choices, list) and choices:
        body["options"] = {"name": rng.choice(choices)}
    elif isinstance(choices, dict):
        body["options"] = {
            k: rng.choice(v) for k, v in choices.items() if isinstance(v, list) and v
        }
    return body


def _playable(board: dict[str, Any]) -> bool:
    if board["encounter"]["closed"] or not board["started"] or board["decided"]:
        return True
    if board["pending"]:
        return True
    return board["actor"] is not None


@pytest.mark.parametrize("ruleset", sorted(ROSTERS))
def test_generated_play_over_http_keeps_the_tables_invariants(api: Api, ruleset: str) -> None:
    rng = random.Random(f"http-{ruleset}")
    made = api.create(ruleset)
    eid, gm = made["id"], made["gm_token"]
    for name, side, preset, sheet in ROSTERS[ruleset]:
        api.ok(eid, gm, {"type": "add_combatant", "name": name, "side": side,
                         "preset": preset, "sheet": sheet})  # fmt: skip
    api.ok(eid, gm, {"type": "start_combat"})
    undos = 0
    for _ in range(COMMANDS):
        board = api.board(eid, gm)
        roll = rng.random()
        body: dict[str, Any] | None
        if roll < 0.15:
            ends = _step_ends(api, eid, gm)
            body = {"type": "undo", "reason": "back", "to_version": rng.choice(ends)}
        elif roll < 0.25:
            body = {"type": "undo", "reason": "again"}
        elif roll < 0.35 and board["combatants"]:
            c = rng.choice(board["combatants"])
            body = {"type": "adjust", "combatant": c["id"], "resource": next(iter(c["resources"])),
                    "delta": rng.choice([-5, -1, 3]), "reason": "GM"}  # fmt: skip
        else:
            body = _act(board, rng)
            if body is None and board["actor"] is not None and not board["pending"]:
                body = {"type": "end_turn", "actor": board["actor"]}
        if body is None:
            break
        r = api.command(eid, gm, body)
        assert r.status_code in (200, 409, 422), r.text  # a refusal is 4xx, never 5xx
        now = api.board(eid, gm)
        assert _playable(now), (body, now["actor"], now["pending"])
        assert now == _at(api, eid, gm, now["version"])  # the cache is the fresh fold
        for line in now["log"]:
            assert not bad_words(line["text"]) and not bad_words(line["text_fr"]), line
        if body["type"] == "undo" and r.status_code == 200:
            undos += 1
            to = r.json()["events"][0]["data"]["to_version"]
            then = _at(api, eid, gm, to)
            kept = {k: v for k, v in now.items() if k not in NOT_UNDONE}
            assert kept == {k: v for k, v in then.items() if k not in NOT_UNDONE}
    assert undos >= 1
