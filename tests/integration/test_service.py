"""The encounter service over the store port: commands, refusals, idempotent replays, the
reveal at close. Each test runs on the memory store and on PostgreSQL (`stores`); HTTP
and two server processes are tests/e2e's.
"""

from __future__ import annotations

import uuid
from typing import Any

import msgspec
import pytest

from domain import commands as cmd
from domain.errors import Refused
from domain.state import GM, Principal
from domain.verify import verify
from server.services.encounters import CommandKey, EncounterService, IdempotencyMismatch, Replayed
from server.services.metrics import Metrics
from tests.integration.store_contract import Backend


def command(body: dict[str, Any]) -> cmd.Command:
    return cmd.decode_command(msgspec.json.encode(body))


def new_key() -> str:
    return f"key-{uuid.uuid4().hex}"


async def fight(svc: EncounterService) -> dict[str, str]:
    """Guard (c1, GM-run) and Bandit (c2, Alice's), combat started."""
    made = await svc.create("plain-d100", "Service", {})
    eid = made["id"]
    await svc.execute(eid, command({"type": "add_combatant", "name": "Guard", "side": "watch",
                                    "preset": "guard"}), GM)  # fmt: skip
    bandit = await svc.execute(eid, command({"type": "add_combatant", "name": "Bandit",
                                             "side": "outlaws", "preset": "bandit",
                                             "controller": "alice"}), GM)  # fmt: skip
    await svc.execute(eid, command({"type": "start_combat", "dice": [50, 20]}), GM)
    return {"id": eid, "gm": made["gm_token"], "alice": bandit["player_token"],
            "spectator": made["spectator_token"]}  # fmt: skip


async def who(svc: EncounterService, eid: str, token: str) -> Principal:
    found = await svc.principal(eid, token)
    assert found is not None
    return found


@pytest.fixture
def svc(stores: Backend) -> EncounterService:
    return EncounterService(stores.store, Metrics())


async def test_the_tokens_made_with_an_encounter_open_it_with_their_roles_only(
    svc: EncounterService,
) -> None:
    made = await svc.create("plain-d100", "Tokens", {})
    eid = made["id"]
    assert (await who(svc, eid, made["gm_token"])).role == "gm"
    assert (await who(svc, eid, made["spectator_token"])).role == "spectator"
    assert await svc.principal(eid, "not a token") is None
    other = await svc.create("plain-d100", "Other", {})
    assert await svc.principal(other["id"], made["gm_token"]) is None


async def test_a_command_appends_and_a_player_token_opens_only_its_combatant(
    svc: EncounterService,
) -> None:
    f = await fight(svc)
    before = (await svc.load(f["id"])).version
    done = await svc.execute(f["id"], command({"type": "roll", "expr": "1d6"}), GM)
    assert done["version"] == before + 1 == (await svc.load(f["id"])).version
    alice = await who(svc, f["id"], f["alice"])
    assert (alice.role, alice.combatants) == ("player", frozenset({"c2"}))


@pytest.mark.parametrize(
    ("caller", "body", "code"),
    [
        ("spectator", {"type": "roll", "expr": "1d6"}, "forbidden"),
        ("alice", {"type": "adjust", "combatant": "c1", "resource": "hp", "delta": -1,
                   "reason": "a push"},
         "forbidden"),
        ("gm", {"type": "roll", "expr": "0d6"}, "invalid"),
    ],
)  # fmt: skip
async def test_a_refused_command_raises_its_code_and_appends_nothing(
    svc: EncounterService, caller: str, body: dict[str, Any], code: str
) -> None:
    f = await fight(svc)
    before = (await svc.load(f["id"])).version
    with pytest.raises(Refused) as refused:
        await svc.execute(f["id"], command(body), await who(svc, f["id"], f[caller]))
    assert refused.value.code == code
    assert (await svc.load(f["id"])).version == before


async def test_the_same_key_twice_appends_once_and_replays_the_first_answer(
    svc: EncounterService,
) -> None:
    f = await fight(svc)
    roll = command({"type": "roll", "expr": "1d6", "purpose": "once"})
    key = CommandKey.of(f["gm"], new_key(), roll)
    first = await svc.execute(f["id"], roll, GM, key)
    again = await svc.execute(f["id"], roll, GM, key)
    assert isinstance(again, Replayed) and not isinstance(first, Replayed)
    assert (again["version"], again["events"]) == (first["version"], first["events"])
    assert (await svc.load(f["id"])).version == first["version"]


async def test_the_same_key_with_another_body_is_a_mismatch_and_appends_nothing(
    svc: EncounterService,
) -> None:
    f = await fight(svc)
    raw = new_key()
    one, two = command({"type": "roll", "expr": "1d6"}), command({"type": "roll", "expr": "1d8"})
    await svc.execute(f["id"], one, GM, CommandKey.of(f["gm"], raw, one))
    before = (await svc.load(f["id"])).version
    with pytest.raises(IdempotencyMismatch):
        await svc.execute(f["id"], two, GM, CommandKey.of(f["gm"], raw, two))
    assert (await svc.load(f["id"])).version == before


async def test_the_same_key_from_another_caller_is_a_new_command(svc: EncounterService) -> None:
    f = await fight(svc)
    raw, roll = new_key(), command({"type": "roll", "expr": "1d6", "purpose": "mine"})
    gm_answer = await svc.execute(f["id"], roll, GM, CommandKey.of(f["gm"], raw, roll))
    alice = await who(svc, f["id"], f["alice"])
    theirs = await svc.execute(f["id"], roll, alice, CommandKey.of(f["alice"], raw, roll))
    assert not isinstance(theirs, Replayed)
    assert theirs["version"] == gm_answer["version"] + 1


async def test_a_refusal_replays_as_the_same_refusal_even_once_the_command_would_pass(
    svc: EncounterService,
) -> None:
    f = await fight(svc)
    actor = (await svc.load(f["id"])).state.game.actor
    other = "c2" if actor == "c1" else "c1"
    early = command({"type": "end_turn", "actor": other})
    key = CommandKey.of(f["gm"], new_key(), early)
    with pytest.raises(Refused) as first:
        await svc.execute(f["id"], early, GM, key)
    await svc.execute(f["id"], command({"type": "end_turn", "actor": actor}), GM)
    before = (await svc.load(f["id"])).version
    with pytest.raises(Refused) as again:
        await svc.execute(f["id"], early, GM, key)
    assert (again.value.code, again.value.message, again.value.status) == (
        first.value.code, first.value.message, first.value.status,
    )  # fmt: skip
    assert (await svc.load(f["id"])).version == before


async def test_a_replayed_add_combatant_gives_no_player_token_but_says_how_to_get_one(
    svc: EncounterService,
) -> None:
    f = await fight(svc)
    add = command({"type": "add_combatant", "name": "Shade", "side": "foes", "preset": "guard",
                   "controller": "bob"})  # fmt: skip
    key = CommandKey.of(f["gm"], new_key(), add)
    first = await svc.execute(f["id"], add, GM, key)
    again = await svc.execute(f["id"], add, GM, key)
    assert first["player_token"] and again["player_token"] is None
    assert again["combatant_id"] == first["combatant_id"]
    assert "/tokens" in again["player_link"]
    assert await svc.principal(f["id"], first["player_token"]) is not None


async def test_a_close_reveals_both_seeds_and_every_roll_verifies(
    svc: EncounterService,
) -> None:
    f = await fight(svc)
    await svc.execute(f["id"], command({"type": "roll", "expr": "2d6+1"}), GM)
    await svc.execute(f["id"], command({"type": "roll", "expr": "1d20", "hidden": True}), GM)
    await svc.execute(f["id"], cmd.Close(), GM)
    envs = await svc.envelopes(f["id"])
    revealed = {e["data"]["seed_id"] for e in envs if e["type"] == "seed_revealed"}
    assert revealed == {"main", "hidden"}
    report = verify(envs, f["id"])
    assert report["chain"] and report["dice"] and report["rolls_checked"] >= 2
