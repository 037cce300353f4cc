"""Combatant ids are never reused within an encounter, not even after an undone arrival
(issue 20 section 4): the ledger keeps every id it issued, and undo does not rewind it."""

from __future__ import annotations

from domain import commands as c
from domain import events as ev
from domain.evolve import replay
from tests.unit.test_encounter import opened, run


def added_id(events: list[ev.Event]) -> str:
    arrival = next(e for e in events if isinstance(e, ev.CombatantAdded))
    return arrival.combatant_id


def test_a_combatant_added_after_an_undone_arrival_gets_a_fresh_id() -> None:
    state = opened()
    assert added_id(run(state, c.AddCombatant(name="Alba", side="a", preset="guard"))) == "c1"
    assert added_id(run(state, c.AddCombatant(name="Brune", side="b", preset="bandit"))) == "c2"
    run(state, c.Undo(reason="Brune was a mistake"))
    assert list(state.game.combatants) == ["c1"]
    corvin = added_id(run(state, c.AddCombatant(name="Corvin", side="b", preset="bandit")))
    assert corvin == "c3"  # not Brune's c2
    assert state.game.combatants["c3"].name == "Corvin" and "c2" not in state.game.combatants


def test_ids_stay_fresh_through_repeated_undos_and_a_replay_from_the_stored_events() -> None:
    state = opened()
    events: list[ev.Event] = []
    names = ["Alba", "Brune", "Corvin", "Dara"]
    ids = []
    for name in names:
        made = run(state, c.AddCombatant(name=name, side="s", preset="guard"))
        ids.append(added_id(made))
        run(state, c.Undo(reason="again"))
        events += made
    assert ids == ["c1", "c2", "c3", "c4"]
    assert state.ledger.issued == {"c1", "c2", "c3", "c4"}
    again = replay([*open_events(), *events])
    assert again.ledger.issued == {"c1", "c2", "c3", "c4"}


def open_events() -> list[ev.Event]:
    from domain.encounter import open_encounter

    return list(open_encounter("e-1", "plain-d100", "Test", {}, {"main": ("00", False)}))


def test_the_next_id_skips_every_issued_one_even_out_of_order() -> None:
    state = opened()
    state.ledger.issued = {"c1", "c2", "c4"}
    assert state.ledger.next_combatant_id(1) == "c3"
    assert state.ledger.next_combatant_id(3) == "c5"
