"""The source's worked example J1 vs J2 (RK-74) replayed through `decide`, both under the
tables (`by_rules`) and as printed (`as_printed`, RK-AMB-2), and RK-75..RK-78."""

from __future__ import annotations

from typing import Any

import pytest

from domain import commands as cmd
from domain import events as ev
from domain.evolve import replay
from tests.unit.test_ranks_support import (
    Table,
    duel,
    legal_of,
    master,
    of_type,
    only_check,
    servant,
)

AS_PRINTED = {"tables": {"reduction.master.B": 30}}


def j1_attacks_j2(settings: dict[str, Any]) -> tuple[Table, str, str]:
    t = Table(settings)
    j1 = t.add("J1", "j1", preset="J1")
    j2 = t.add("J2", "j2", preset="J2")
    assert t.c(j1).resources == {"hp": 70, "mana": 100, "luck": 2}
    assert t.c(j2).resources == {"hp": 60, "mana": 50, "luck": 7}
    # 74.1: J1 rolls 90 + 30 = 120, J2 65 + 20 = 85; J1 first.
    t.do(cmd.RollInitiative(), 90, 65)
    assert t.state.game.scores == {j1: 120, j2: 85}
    t.do(cmd.StartCombat())
    assert t.state.game.actor == j1
    # 74.2-74.4: a rank-A magic attack on Mana EX, roll 11; 75/100 mana; 35 damage.
    check = only_check(t.act(j1, "attack_magic", 11, target=j2, rank="A"))
    assert (check.stat, check.threshold, check.outcome) == ("MANA_STAT", 90, "success")
    assert t.c(j1).resources["mana"] == 75
    assert t.state.game.pending[0].damage == 35
    # 74.5: J2's Luck die, 8 on Luck EX: +35, 6 uses left.
    luck = only_check(t.act(j2, "luck", 8))
    assert (luck.threshold, luck.outcome) == (90, "success")
    assert t.c(j2).resources["luck"] == 6
    # 74.6: the Agility dodge at 60 + 35 = 95, roll 46.
    dodge = only_check(t.react(j2, "defend_agi", 46))
    assert (dodge.base, dodge.threshold, dodge.outcome) == (60, 95, "success")
    assert [(m.rule, m.delta) for m in dodge.modifiers] == [("RK-50", 35)]
    return t, j1, j2


@pytest.mark.parametrize(
    ("settings", "taken"), [({}, 10), (AS_PRINTED, 5)], ids=["by_rules", "as_printed"]
)
def test_RK_74_j1_against_j2(settings: dict[str, Any], taken: int) -> None:
    t, j1, j2 = j1_attacks_j2(settings)
    # 74.7-74.8: 35 - 25 = 10 by the tables; 35 - 30 = 5 as printed.
    resolved = of_type(t.events, ev.ReactionResolved)[-1]
    assert resolved.damage_taken == taken
    assert t.c(j2).resources["hp"] == 60 - taken
    # 74.9: J2's turn, no luck, a rank-A Force attack rolls 71: failure, no damage.
    t.do(cmd.EndTurn(actor=j1))
    assert t.state.game.actor == j2
    check = only_check(t.act(j2, "attack_physical", 71, target=j1, rank="A"))
    assert (check.threshold, check.outcome, check.modifiers) == (70, "failure", [])
    assert t.state.game.pending == [] and t.c(j1).resources["hp"] == 70
    # The stream replays to the same state.
    again = replay(t.events)
    assert again.game.combatants[j2].resources == t.c(j2).resources


def test_RK_49_RK_35_legal_offers_no_counter_the_mana_cap_refuses() -> None:
    t = Table({})
    j1 = t.add("J1", "j1", preset="J1")
    j2 = t.add("J2", "j2", preset="J2")
    t.do(cmd.RollInitiative(), 90, 65)
    t.do(cmd.StartCombat())
    t.act(j1, "attack_magic", 11, target=j2, rank="A")
    # J2's Mana stat is D: a magic counter of rank A or more is beyond RK-49's cap.
    (counter,) = [e for e in legal_of(t, j2) if e["action"] == "counter"]
    assert (counter["enabled"], counter["rule"]) == (False, "RK-62")
    assert counter["choices"] == {"action": [], "rank": []}
    refused = t.refused(
        cmd.React(actor=j2, reaction="counter", options={"action": "attack_magic", "rank": "A"})
    )
    assert refused.rule == "RK-49"
    # J1 (Mana EX) offers magic counters only at A and EX against a rank-A attack, and
    # physical attacks only up to Force E (RK-35).
    t.react(j2, "none")
    t.do(cmd.EndTurn(actor=j1))
    t.act(j2, "attack_magic", 5, target=j1, rank="D")
    (counter,) = [e for e in legal_of(t, j1) if e["action"] == "counter"]
    assert counter["enabled"] and counter["choices"]["rank"] == ["D", "C", "B", "A", "EX"]
    (physical,) = [e for e in legal_of(t, j2) if e["action"] == "attack_physical"]
    assert physical["ranks"] == ["E", "D", "C", "B", "A"]


def test_RK_75_e_plus_plus_activated_goes_from_30_to_50() -> None:
    # E++ has 50 - 6 = 44 HP (RK-AMB-4); base 60 keeps it clear of the health malus.
    t, a, b = duel(master(), master(END="E++"), {"pool.base_hp": 60})
    t.act(a, "attack_physical", 10, target=b)
    t.react(b, "defend_end", 50, activate=["END"])
    assert of_type(t.events, ev.DieRolled)[-1].check == ev.Check(
        stat="END",
        base=30,
        modifiers=[ev.Modifier(source="END E++ activated", rule="RK-6", delta=20)],
        threshold=50,
        outcome="success",
        margin=0,
        rule="RK-4",
    )


def test_RK_76_half_rank_values_follow_the_step_rule_on_the_tables() -> None:
    t, a, b = duel(servant(STR="E-"), master())
    t.act(a, "attack_physical", 10, target=b)
    assert t.state.game.pending[0].damage == 19  # RK-AMB-3
    t, a, b = duel(master(STR="E+++"), master())
    t.act(a, "attack_physical", 10, target=b)
    assert t.state.game.pending[0].damage == 8


def test_RK_77_critical_examples() -> None:
    t, a, b = duel(master(STR="A"), master(STR="B", END="EX"))  # 100 HP: no malus
    t.act(a, "attack_physical", 2, target=b)  # critical success
    t.react(b, "none")
    t.do(cmd.EndTurn(actor=a))
    t.act(b, "attack_physical", 98, target=a)  # critical failure
    t.do(cmd.EndTurn(actor=b))
    assert only_check(t.act(a, "attack_physical", 76, target=b)).outcome == "success"
    t.react(b, "none")
    t.do(cmd.EndTurn(actor=a))
    check = only_check(t.act(b, "attack_physical", 55, target=a))
    assert (check.threshold, check.outcome) == (50, "failure")


def test_RK_78_inline_vectors() -> None:
    # Force B -> physical attacks up to B; Mana A -> magic attacks up to A.
    t, a, b = duel(master(STR="B", MANA_STAT="A"), master())
    assert t.refused(cmd.Act(actor=a, action="attack_physical", target=b, rank="A")).rule == (
        "RK-35"
    )
    assert t.refused(cmd.Act(actor=a, action="attack_magic", target=b, rank="EX")).rule == ("RK-49")
    t.act(a, "attack_physical", 60, target=b, rank="B")
    assert t.state.game.pending[0].rank == "B"
