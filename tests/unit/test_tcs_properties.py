"""d100-tcs under random play: `legal` and `act` agree, pools stay >= 0, replay matches."""

from __future__ import annotations

import hashlib
from typing import Any

import msgspec
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from domain import commands as cmd
from domain.dice import SeededRoller
from domain.encounter import decide, open_encounter
from domain.errors import Refused
from domain.evolve import evolve, replay
from domain.rules import REGISTRY

RULES = REGISTRY["d100-tcs"]
SWORD = {"name": "sword", "damage": 6}
SPEAR = {"name": "spear", "piercing": [4, 2]}
BOW = {"name": "bow", "damage": 5, "ranged": True, "base_range_m": 30}
MAIL = {"name": "mail", "levels": [{"pr": 8, "pp": 2}, {"pr": 4, "pp": 1}], "end_required": 0}
SHIELD = {"name": "buckler", "pr": 10, "dodge_melee": 10, "dodge_missile": 10}


def fighter(kind: int, hp: int, morale: int, armored: bool) -> dict[str, Any]:
    weapons = [[SWORD], [SPEAR, BOW], [BOW, SWORD]][kind]
    out: dict[str, Any] = {
        "DEX": 55, "PERC": 50, "END": 45, "MM": 50, "hp": hp, "energy": 6, "morale": morale,
        "weapons": weapons, "items": [{"name": "potion", "heal": 5}],
        "tcs": [{"name": "lunge", "energy": 2, "dmg_mult": 2},
                {"name": "spark", "kind": "spell", "actions": 3, "damage": 5}],
    }  # fmt: skip
    if armored:
        out |= {"armor": MAIL, "under": {"name": "pad", "pr": 5, "pp": 1, "end_required": 0}}
    if kind == 0:
        out |= {"shield": SHIELD, "skill": {"shield_mastery": True}}
    return out


fighters = st.builds(fighter, st.integers(0, 2), st.integers(2, 25), st.integers(0, 10),
                     st.booleans())  # fmt: skip


def _options(pick: dict[str, Any], choice: int) -> dict[str, Any]:
    options: dict[str, Any] = {}
    for key, values in pick["choices"].items():
        if isinstance(values, list) and values and key != "weapon" and choice % 3 == 0:
            options[key] = values[choice % len(values)]
    if pick["action"] == "cast":
        options["spell"] = pick["choices"]["spell"][0]
    if pick["action"] == "use_item":
        options = {"item": "potion"}
    return options


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(fighters, min_size=2, max_size=4),
    st.integers(0, 2**32),
    st.lists(st.integers(0, 1000), min_size=60, max_size=60),
)
def test_random_play_keeps_the_rules(
    sheets: list[dict[str, Any]], seed: int, choices: list[int]
) -> None:
    opened = open_encounter("e", "d100-tcs", "prop", {}, {})
    state = replay(opened)
    log = list(opened)
    dice = SeededRoller("e", {"main": hashlib.sha256(str(seed).encode()).digest()}, {}, "")

    def run(command: cmd.Command) -> None:
        events = decide(state, command, dice)
        for event in events:
            evolve(state, event)
        log.extend(events)

    for i, sheet in enumerate(sheets):
        run(cmd.AddCombatant(name=f"f{i}", side="ab"[i % 2], sheet=sheet))
    run(cmd.StartCombat())
    for choice in choices:
        actor = state.game.actor
        if actor is None or state.game.combatants[actor].out is not None:
            break
        if choice % 11 == 0:
            run(cmd.EndTurn(actor=actor))
            continue
        listed = msgspec.to_builtins(RULES.legal(state.game, actor, {}))
        enabled = [x for x in listed if x["enabled"]]
        pick = (enabled or listed)[choice % len(enabled or listed)]
        target = pick["targets"][choice % len(pick["targets"])] if pick["targets"] else None
        command = cmd.Act(actor=actor, action=pick["action"], target=target,
                          options=_options(pick, choice))  # fmt: skip
        try:
            run(command)
        except Refused as refusal:
            assert not pick["enabled"] or "at" in command.options, (pick, refusal.message)
            if not pick["enabled"]:
                assert refusal.rule == pick["rule"], (pick, refusal.rule, refusal.message)
            else:
                run(cmd.EndTurn(actor=actor))
        for c in state.game.combatants.values():
            assert all(v >= 0 for v in c.resources.values()), c.resources
            assert c.resources["hp"] <= c.maxima["hp"]
    again = replay(log)
    for cid, c in state.game.combatants.items():
        twin = again.game.combatants[cid]
        assert (twin.resources, twin.status, twin.out) == (c.resources, c.status, c.out)
    assert (again.game.round, again.game.actor, again.game.order) == (
        state.game.round, state.game.actor, state.game.order)  # fmt: skip
