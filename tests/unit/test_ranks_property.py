"""Property: any sequence of ranks-d100 commands (refusals skipped) replays from its events
to the live state, never takes HP or mana below 0, and keeps the once-per-RP limits."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from domain import commands as cmd
from domain import events as ev
from domain.dice import FixedRoller
from domain.encounter import decide, open_encounter
from domain.errors import Refused
from domain.evolve import replay
from domain.state import EncounterState
from tests.unit.test_ranks_support import ENCOUNTER, master, servant

FLURRY = {"name": "Flurry", "rank": "D", "chain": 3, "hit_damage": 15, "chain_bonus": 5}
ROSTER: list[tuple[str, str, dict[str, Any]]] = [
    ("M1", "a", master(STR="B+", AGI="B", LCK="D", mana=20, spells=[{"name": "G", "rank": "C"}])),
    ("S1", "a", servant(STR="A-", END="B++", NP="B", MANA_STAT="B", noble_phantasms=[FLURRY])),
    ("M2", "b", master(END="E", AGI="A", MANA_STAT="EX", hp=12)),
    ("S2", "b", servant(AGI="C+", noble_phantasms=[{"name": "Big", "rank": "A"}])),
]
IDS = ["c1", "c2", "c3", "c4"]
TURN = "@turn"  # whoever's turn it is when the step runs
ACTIONS = [
    "attack_physical",
    "attack_weapon",
    "attack_magic",
    "noble_phantasm",
    "advanced_spell",
    "luck",
    "flee",
    "transfer_mana",
]
REACTIONS = ["defend_end", "defend_agi", "counter", "intercept", "block_flight", "none"]

step = st.one_of(
    st.tuples(
        st.just("act"),
        st.sampled_from(IDS),
        st.sampled_from(ACTIONS),
        st.sampled_from(IDS),
        st.sampled_from([None, "E", "C", "B", "A"]),
        st.sampled_from([{}, {"activate": ["STR"]}, {"deactivate": ["STR"]}, {"amount": 5}]),
    ),
    st.tuples(
        st.just("react"),
        st.sampled_from(IDS),
        st.sampled_from(REACTIONS),
        st.sampled_from(
            [{}, {"action": "attack_physical"}, {"activate": ["END"]}, {"action": "noble_phantasm"}]
        ),
    ),
    st.tuples(st.just("end")),
)


def command_of(state: EncounterState, raw: tuple[Any, ...]) -> cmd.Command:
    if raw[0] == "act":
        _, actor, action, target, rank, options = raw
        if actor == TURN:
            actor = state.game.actor or "c1"
        return cmd.Act(actor=actor, action=action, target=target, rank=rank, options=options)
    if raw[0] == "react":
        _, actor, reaction, options = raw
        pending = state.game.pending
        return cmd.React(
            actor=pending[0].target if pending else actor, reaction=reaction, options=options
        )
    return cmd.EndTurn(actor=state.game.actor or "c1")


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    steps=st.lists(step, min_size=1, max_size=40),
    faces=st.lists(st.integers(1, 100), min_size=200, max_size=200),
    crit=st.sampled_from([{}, {"crit.carry_stack": "single", "chain.clamp": "total"}]),
)
def test_replay_equals_live_state_and_limits_hold(
    steps: list[tuple[Any, ...]], faces: list[int], crit: dict[str, Any]
) -> None:
    events: list[ev.Event] = open_encounter(ENCOUNTER, "ranks-d100", "prop", crit, {})
    state = replay(events)
    roller = FixedRoller(faces * 5)
    setup: list[cmd.Command] = [
        cmd.AddCombatant(name=name, side=side, sheet=sheet) for name, side, sheet in ROSTER
    ]
    raws: list[cmd.Command | tuple[Any, ...]] = [*setup, cmd.StartCombat(), *steps]
    for raw in raws:
        # Built from the state as it stands, so a reaction goes to whoever is awaited.
        command = raw if isinstance(raw, cmd.Command) else command_of(state, raw)
        try:
            out = decide(state, command, roller)
        except Refused:
            continue
        events.extend(out)
        replay(out, state)
        for c in state.game.combatants.values():
            assert c.resources["hp"] >= 0 and c.resources["mana"] >= 0
            assert c.resources["luck"] >= 0
        for (_, key), (_, uses) in state.game.limits.items():
            if key.startswith("half_rank.") or key == "complex":
                assert uses <= 1
    fresh = replay(events)
    assert fresh.game == state.game
    assert fresh.ledger == state.ledger
