"""CONTRACT section 6: an audit bundle is enough for a third party with nothing but
Python's standard library. The checker below imports nothing from Fracas."""

from __future__ import annotations

import hashlib
import hmac
import json
from typing import Any

from domain import commands as c
from domain.chain import GENESIS, link
from domain.dice import SeededRoller, commitment
from domain.encounter import decide_and_fold, open_encounter
from domain.events import event_data
from domain.evolve import replay
from projections.export import bundle

ENCOUNTER = "5f0c7a52-3c4e-4d8a-9b1e-2f6a7c9d0e11"
SEED = bytes(range(32))


class Roller(SeededRoller):
    def reveal(self, seed_id: str) -> bytes | None:
        return self._seeds.get(seed_id)


def closed_fight_bundle() -> dict[str, Any]:
    events = open_encounter(
        ENCOUNTER, "plain-d100", "Audit", {}, {"main": (commitment(SEED), False)}
    )
    state = replay(events)
    for command in (
        c.AddCombatant(name="Guard", side="a", preset="guard"),
        c.AddCombatant(name="Bandit", side="b", preset="bandit"),
        c.StartCombat(),
        c.Act(actor="c1", action="attack", target="c2"),
        c.Roll(expr="3d6+2", purpose="loot"),
        c.Close(),
    ):
        roller = Roller(ENCOUNTER, {"main": SEED}, state.ledger.next_roll, "")
        new, state = decide_and_fold(state, command, roller)
        events += new
    envelopes, prev = [], GENESIS
    for version, event in enumerate(events, start=1):
        kind, data = event_data(event)
        env = {
            "stream": f"encounter-{ENCOUNTER}",
            "version": version,
            "position": version,
            "type": kind,
            "data": data,
            "meta": {"actor": "gm"},
            "prev_hash": prev,
        }
        env["hash"] = prev = link(prev, env)
        envelopes.append(env)
    carried: dict[str, Any] = json.loads(json.dumps(bundle(ENCOUNTER, envelopes)))
    return carried  # as a file would carry it


def stdlib_check(b: dict[str, Any]) -> list[str]:
    """An outsider's verifier, written from CONTRACT sections 5 and 6 alone."""
    problems: list[str] = []
    prev = "0" * 64
    for env in b["events"]:
        body = {k: v for k, v in env.items() if k not in ("position", "prev_hash", "hash")}
        text = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        digest = hashlib.sha256(bytes.fromhex(prev) + text.encode()).hexdigest()
        if env["prev_hash"] != prev or env["hash"] != digest:
            problems.append(f"chain breaks at {env['version']}")
        prev = env["hash"]
    data = [(e["type"], e["data"]) for e in b["events"]]
    commits = {d["seed_id"]: d["commitment"] for t, d in data if t == "seed_committed"}
    seeds = {d["seed_id"]: bytes.fromhex(d["seed"]) for t, d in data if t == "seed_revealed"}
    for sid, seed in seeds.items():
        if hashlib.sha256(seed).hexdigest() != commits[sid]:
            problems.append(f"seed {sid} does not match its commitment")
    for t, d in data:
        if t != "die_rolled" or d["source"] != "server":
            continue
        seed, words = seeds[d["seed_id"]], list[int]()
        i = 0
        while len(words) < 4 * len(d["sizes"]) + 64:
            msg = f"{b['encounter']}:{d['client_seed']}:{d['roll']}:{i}".encode()
            block = hmac.new(seed, msg, hashlib.sha256).digest()
            words += [int.from_bytes(block[j : j + 4], "big") for j in range(0, 32, 4)]
            i += 1
        faces, it = [], iter(words)
        for n in d["sizes"]:
            u = next(it)
            while u >= 2**32 - (2**32 % n):
                u = next(it)
            faces.append(u % n + 1)
        if faces != d["faces"]:
            problems.append(f"roll {d['roll']} does not recompute")
    return problems


def test_a_closed_encounters_bundle_verifies_with_the_standard_library_alone() -> None:
    b = closed_fight_bundle()
    assert sum(e["type"] == "die_rolled" for e in b["events"]) >= 4
    assert stdlib_check(b) == []


def test_the_outsiders_check_catches_an_edited_face() -> None:
    b = closed_fight_bundle()
    rolled = next(e for e in b["events"] if e["type"] == "die_rolled")
    rolled["data"]["faces"] = [rolled["data"]["faces"][0] % 100 + 1]
    assert stdlib_check(b)[0].startswith("chain breaks")
