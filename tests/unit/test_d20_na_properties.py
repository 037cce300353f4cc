"""d20-na under random play: `legal` and `act` agree, budgets hold, replay matches."""

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

RULES = REGISTRY["d20-na"]
SWORD = {"name": "sword", "dmg": 5, "dice": "1d6", "parry": 6}
BOW = {"name": "bow", "kind": "shoot", "dmg": 8, "range_band_m": 20, "needs_reload": True,
       "two_handed": True}  # fmt: skip
KNIFE = {"name": "knife", "kind": "throw", "dmg": 2}


def fighter(na: int, ini: int, shield: bool, ranged: bool) -> dict[str, Any]:
    weapons = [SWORD, KNIFE] + ([] if shield or not ranged else [BOW])
    out: dict[str, Any] = {
        "STR": 8, "END": 6, "HAB": 11, "ATT": 11, "PAR": 10, "TIR": 10, "NA": na,
        "INI": ini, "hp": 60, "weapons": weapons, "skills": {"dodge": ini % 2 == 0},
    }  # fmt: skip
    if shield:
        out["shield"] = {"name": "shield", "parry": 7}
    return out


fighters = st.builds(fighter, st.integers(0, 3), st.integers(0, 15), st.booleans(), st.booleans())


choices = st.fixed_dictionaries(
    {
        key: st.sampled_from(spec.choices) if spec.choices else st.just(spec.default)
        for key, spec in RULES.settings.items()
        if key != "profile"  # the resolver profile is exercised by test_simulate
    }
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    choices,
    st.lists(fighters, min_size=2, max_size=3),
    st.integers(0, 2**32),
    st.lists(st.integers(0, 1000), min_size=80, max_size=80),
)
def test_random_play_keeps_the_rules(
    table: dict[str, Any], sheets: list[dict[str, Any]], seed: int, choices: list[int]
) -> None:
    opened = open_encounter("e", "d20-na", "prop", table, {})
    state = replay(opened)
    log = list(opened)
    secret = hashlib.sha256(str(seed).encode()).digest()
    dice = SeededRoller("e", {"main": secret}, {}, "")

    def run(command: cmd.Command) -> None:
        events = decide(state, command, dice)
        for event in events:
            evolve(state, event)
        log.extend(events)

    for i, sheet in enumerate(sheets):
        run(cmd.AddCombatant(name=f"f{i}", side="ab"[min(i, 1)], sheet=sheet))
    run(cmd.StartCombat())
    for choice in choices:
        game = state.game
        if game.actor is None and not game.pending:
            break
        if game.pending:
            pending = game.pending[0]
            listed = msgspec.to_builtins(RULES.legal(game, pending.target, table))
            reactions = [x for x in listed if x.get("reaction")]
            pick = reactions[choice % len(reactions)]
            command: cmd.Command = cmd.React(actor=pending.target, reaction=pick["action"])
        else:
            actor = game.actor
            assert actor is not None
            listed = msgspec.to_builtins(RULES.legal(game, actor, table))
            if choice % 7 == 0:
                run(cmd.EndTurn(actor=actor))
                continue
            pick = listed[choice % len(listed)]
            target = pick["targets"][choice % len(pick["targets"])] if pick["targets"] else None
            options = {"distance": choice % 70} if pick["action"] in ("shoot", "throw") else {}
            command = cmd.Act(actor=actor, action=pick["action"], target=target, options=options)
        try:
            run(command)
        except Refused as refusal:
            assert not pick["enabled"], (pick, refusal.code, refusal.message)
            assert refusal.rule == pick["rule"], (pick, refusal.rule)
        else:
            assert pick["enabled"], pick
        for c in state.game.combatants.values():
            assert 0 <= c.status.get("budget", 0) <= 2 * c.sheet["NA"] + 1
            assert 0 <= c.resources["hp"] <= c.maxima["hp"]
    again = replay(log)
    for cid, c in state.game.combatants.items():
        twin = again.game.combatants[cid]
        assert (twin.resources, twin.status, twin.out) == (c.resources, c.status, c.out)
    assert (again.game.round, again.game.actor) == (state.game.round, state.game.actor)
