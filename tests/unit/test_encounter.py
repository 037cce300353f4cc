"""The encounter decider with plain-d100: given events, when a command, then events."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from domain import commands as c
from domain import events as ev
from domain.dice import FixedRoller
from domain.encounter import decide, open_encounter
from domain.errors import Refused
from domain.evolve import evolve, replay
from domain.state import GM, Disputed, EncounterState, Principal

ALICE = Principal("player", frozenset({"c2"}), "alice")
SPECTATOR = Principal("spectator")


def opened(**settings: object) -> EncounterState:
    return replay(open_encounter("e-1", "plain-d100", "Test", settings, {"main": ("00", False)}))


def run(
    state: EncounterState, command: c.Command, faces: Sequence[int] = (), who: Principal = GM
) -> list[ev.Event]:
    events = decide(state, command, FixedRoller(faces), who)
    for event in events:
        evolve(state, event)
    return events


def fight() -> EncounterState:
    """Guard (c1) acts before Bandit (c2): initiative 55 against 20."""
    state = opened()
    run(state, c.AddCombatant(name="Guard", side="watch", preset="guard"))
    run(state, c.AddCombatant(name="Bandit", side="outlaws", preset="bandit", controller="alice"))
    run(state, c.StartCombat(), [50, 20])
    return state


def refused(
    state: EncounterState, command: c.Command, faces: Sequence[int] = (), who: Principal = GM
) -> Refused:
    before = state.version
    with pytest.raises(Refused) as caught:
        decide(state, command, FixedRoller(faces), who)
    assert state.version == before
    return caught.value


def test_starting_combat_rolls_initiative_and_gives_the_first_turn_to_the_highest() -> None:
    state = fight()
    assert state.game.order == ["c1", "c2"]
    assert state.game.scores == {"c1": 55, "c2": 20}
    assert state.game.round == 1
    assert state.game.actor == "c1"


def test_PD_1_a_hit_on_d100_under_the_skill_waits_for_the_targets_reaction() -> None:
    state = fight()
    events = run(state, c.Act(actor="c1", action="attack", target="c2"), [10])
    assert [type(e) for e in events] == [
        ev.ActionDeclared,
        ev.LimitUsed,
        ev.DieRolled,
        ev.ActionResolved,
        ev.ReactionAwaited,
    ]
    awaited = events[-1]
    assert isinstance(awaited, ev.ReactionAwaited)
    assert (awaited.attacker, awaited.target, awaited.damage) == ("c1", "c2", 8)
    rolled = events[2]
    assert isinstance(rolled, ev.DieRolled) and rolled.check is not None
    assert (rolled.check.threshold, rolled.check.outcome, rolled.check.margin) == (
        55,
        "success",
        45,
    )


def test_PD_1_a_roll_over_the_skill_misses_and_nothing_waits() -> None:
    state = fight()
    events = run(state, c.Act(actor="c1", action="attack", target="c2"), [56])
    assert isinstance(events[-1], ev.ActionResolved) and events[-1].outcome == "failure"
    assert state.game.pending == []


def test_PD_4_a_failed_dodge_takes_the_damage() -> None:
    state = fight()
    run(state, c.Act(actor="c1", action="attack", target="c2"), [10])
    events = run(state, c.React(actor="c2", reaction="dodge"), [90], ALICE)
    changed = [e for e in events if isinstance(e, ev.ResourceChanged)]
    assert changed == [
        ev.ResourceChanged(
            combatant_id="c2", resource="hp", delta=-8, value=16, reason="hit by Guard", rule="PD-4"
        )
    ]
    assert state.game.pending == []


def test_PD_4_a_dodge_under_the_dodge_skill_avoids_everything() -> None:
    state = fight()
    run(state, c.Act(actor="c1", action="attack", target="c2"), [10])
    run(state, c.React(actor="c2", reaction="dodge"), [12], ALICE)
    assert state.game.combatants["c2"].resources["hp"] == 24


def test_the_gm_resolves_a_pending_attack_as_no_defense() -> None:
    state = fight()
    run(state, c.Act(actor="c1", action="attack", target="c2"), [10])
    events = run(state, c.React(actor="c2", reaction="none"))
    assert isinstance(events[0], ev.ReactionDeclared) and events[0].by_gm
    assert state.game.combatants["c2"].resources["hp"] == 16


def test_acting_out_of_turn_is_refused_with_not_your_turn() -> None:
    state = fight()
    error = refused(state, c.Act(actor="c2", action="attack", target="c1"), [10], ALICE)
    assert error.code == "not_your_turn"


def test_a_player_acting_for_another_players_combatant_is_forbidden() -> None:
    state = fight()
    error = refused(state, c.Act(actor="c1", action="attack", target="c2"), [10], ALICE)
    assert error.code == "forbidden"


def test_a_spectator_cannot_send_commands() -> None:
    assert refused(fight(), c.Roll(expr="1d6"), [3], SPECTATOR).code == "forbidden"


def test_a_player_cannot_add_combatants_or_undo() -> None:
    state = fight()
    assert (
        refused(state, c.AddCombatant(name="X", side="y", preset="guard"), who=ALICE).code
        == "forbidden"
    )
    assert refused(state, c.Undo(reason="no"), who=ALICE).code == "forbidden"


def test_reacting_with_nothing_pending_is_refused_with_no_pending_reaction() -> None:
    error = refused(fight(), c.React(actor="c2", reaction="dodge"), [5], ALICE)
    assert error.code == "no_pending_reaction"


def test_an_unknown_combatant_is_not_found() -> None:
    error = refused(fight(), c.Act(actor="c1", action="attack", target="c9"), [5])
    assert error.code == "not_found"


def test_PD_2_a_second_attack_in_the_same_turn_is_over_the_limit() -> None:
    state = fight()
    run(state, c.Act(actor="c1", action="attack", target="c2"), [99])
    error = refused(state, c.Act(actor="c1", action="attack", target="c2"), [5])
    assert (error.code, error.rule) == ("limit_reached", "PD-2")


def test_PD_2_the_attack_limit_resets_on_the_next_turn() -> None:
    state = fight()
    run(state, c.Act(actor="c1", action="attack", target="c2"), [99])
    run(state, c.EndTurn(actor="c1"))
    run(state, c.EndTurn(actor="c2"), who=ALICE)
    assert state.game.round == 2 and state.game.actor == "c1"
    run(state, c.Act(actor="c1", action="attack", target="c2"), [99])


def test_PD_3_second_wind_is_once_per_session() -> None:
    state = fight()
    run(state, c.Adjust(combatant="c1", resource="hp", delta=-20, reason="trap"))
    run(state, c.Act(actor="c1", action="second_wind"))
    assert state.game.combatants["c1"].resources["hp"] == 20
    run(state, c.EndTurn(actor="c1"))
    run(state, c.EndTurn(actor="c2"), who=ALICE)
    error = refused(state, c.Act(actor="c1", action="second_wind"))
    assert (error.code, error.rule) == ("limit_reached", "PD-3")


def test_acting_while_a_reaction_is_pending_is_refused() -> None:
    state = fight()
    run(state, c.Act(actor="c1", action="attack", target="c2"), [10])
    assert refused(state, c.EndTurn(actor="c1")).code == "reaction_pending"


def test_resources_never_go_below_their_floor_and_zero_hp_is_down() -> None:
    state = fight()
    events = run(state, c.Adjust(combatant="c2", resource="hp", delta=-100, reason="boulder"))
    assert events[0] == ev.ResourceChanged(
        combatant_id="c2", resource="hp", delta=-24, value=0, reason="boulder", by_gm=True
    )
    assert ev.CombatantDefeated(combatant_id="c2", reason="down", rule="PD-5") in events
    assert state.game.combatants["c2"].out == "down"


def test_a_down_combatant_cannot_act() -> None:
    state = fight()
    run(state, c.Adjust(combatant="c1", resource="hp", delta=-100, reason="boulder"))
    assert state.game.actor is None  # one side left: turns stop for the GM to decide
    run(state, c.ContinueCombat())
    assert state.game.actor == "c2"
    run(state, c.EndTurn(actor="c2"))
    assert state.game.actor == "c2"
    error = refused(state, c.Act(actor="c1", action="second_wind"))
    assert (error.code, error.rule) == ("rule_violation", "PD-5")


def test_undo_reverts_the_last_step_but_keeps_the_dice_spent() -> None:
    state = fight()
    run(state, c.Act(actor="c1", action="attack", target="c2"), [10])
    run(state, c.React(actor="c2", reaction="none"))
    assert state.game.combatants["c2"].resources["hp"] == 16
    undone = run(state, c.Undo(reason="wrong target"))
    assert isinstance(undone[0], ev.Undone)
    assert state.game.combatants["c2"].resources["hp"] == 24
    assert state.game.pending != []  # back to waiting for the reaction
    assert state.ledger.rolls == 3  # the attack roll still counts
    run(state, c.Undo(reason="the attack too"))
    assert state.game.pending == [] and state.game.uses("c1", "attack") == 0


def test_entropy_is_refused_after_the_first_roll() -> None:
    state = opened()
    run(state, c.AddEntropy(value="alice's cat"), who=ALICE)
    assert state.ledger.entropy == ["alice's cat"]
    run(state, c.Roll(expr="1d6"), [4])
    assert refused(state, c.AddEntropy(value="late")).code == "rule_violation"


def test_a_player_cannot_roll_hidden_dice_or_enter_physical_dice() -> None:
    state = fight()
    assert refused(state, c.Roll(expr="1d20", hidden=True), [3], ALICE).code == "forbidden"
    assert refused(state, c.Roll(expr="1d20", dice=[3]), who=ALICE).code == "forbidden"


def test_physical_dice_from_the_gm_are_recorded_as_manual() -> None:
    state = fight()
    events = run(state, c.Act(actor="c1", action="attack", target="c2", dice=[7]))
    rolled = next(e for e in events if isinstance(e, ev.DieRolled))
    assert (rolled.source, rolled.faces, rolled.roll, rolled.seed_id) == ("manual", [7], None, None)


def test_physical_dice_out_of_range_or_left_over_are_refused() -> None:
    state = fight()
    assert refused(state, c.Roll(expr="1d6", dice=[7])).code == "invalid"
    assert refused(state, c.Roll(expr="1d6", dice=[3, 4])).code == "invalid"


def test_a_free_roll_totals_its_modifier() -> None:
    events = run(opened(), c.Roll(expr="2d6+3", purpose="loot"), [2, 5])
    rolled = events[0]
    assert isinstance(rolled, ev.DieRolled)
    assert (rolled.sizes, rolled.total, rolled.seq) == ([6, 6], 10, 1)


def test_a_dispute_flags_an_existing_roll_only() -> None:
    state = fight()
    run(state, c.Dispute(roll=1, reason="too lucky"), who=ALICE)
    assert state.ledger.disputes == [Disputed(1, "alice", "too lucky")]
    assert refused(state, c.Dispute(roll=99, reason="?"), who=ALICE).code == "not_found"


def test_players_cannot_dispute_a_hidden_roll_they_never_saw() -> None:
    state = fight()
    run(state, c.Roll(expr="1d20", hidden=True), [3])
    assert refused(state, c.Dispute(roll=3, reason="?"), who=ALICE).code == "not_found"


def test_a_closed_encounter_refuses_everything_but_disputes() -> None:
    state = fight()
    run(state, c.Close())
    assert refused(state, c.Roll(expr="1d6"), [1]).code == "closed"
    run(state, c.Dispute(roll=1, reason="late"), who=ALICE)


def test_unknown_settings_and_rule_systems_are_invalid() -> None:
    from domain.errors import Invalid

    with pytest.raises(Invalid):
        open_encounter("e", "plain-d100", "x", {"nope": 1}, {})
    with pytest.raises(Invalid):
        open_encounter("e", "plain-d100", "x", {"critical_damage": "triple"}, {})
    with pytest.raises(Invalid):
        open_encounter("e", "chess", "x", {}, {})


def test_replaying_the_stored_events_gives_the_live_state() -> None:
    state = fight()
    log: list[ev.Event] = []
    for command, faces in [
        (c.Act(actor="c1", action="attack", target="c2"), [10]),
        (c.React(actor="c2", reaction="dodge"), [80]),
        (c.EndTurn(actor="c1"), []),
        (c.Undo(reason="redo"), []),
        (c.EndTurn(actor="c1"), []),
    ]:
        log.extend(run(state, command, faces))
    fresh = fight()
    for event in log:
        evolve(fresh, event)
    assert fresh == state
