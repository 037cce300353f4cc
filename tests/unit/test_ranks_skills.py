"""ranks-d100 skills (RK-16) and their durations in Tours (RK-14): GM-declared sheet
entries; activating one is a free action (RK-18). Effects have no numbers in the source
and are refused (RK-AMB-26); see domain/rules/ranks/skills.py."""

from __future__ import annotations

from typing import Any

import pytest

from domain import commands as cmd
from domain import events as ev
from domain.errors import Invalid
from domain.rules import REGISTRY
from projections.words.refusals import said
from tests.unit.test_ranks_support import Table, duel, legal_of, master, of_type, servant

RULES = REGISTRY["ranks-d100"]


def sheet_with(*skills: dict[str, Any]) -> dict[str, Any]:
    return master(skills=list(skills))


def validated(sheet: dict[str, Any]) -> dict[str, Any]:
    return RULES.validate_sheet(sheet, {}).sheet


def test_RK_16_a_skill_has_a_rank_and_is_active_or_passive() -> None:
    out = validated(
        sheet_with(
            {"name": "Clairvoyance", "rank": "C+", "mode": "passive"},
            {"name": "Battle Continuation", "rank": "A", "mode": "active", "tours": 3},
        )
    )
    assert out["skills"] == [
        {"name": "Clairvoyance", "rank": "C+", "mode": "passive"},
        {"name": "Battle Continuation", "rank": "A", "mode": "active", "tours": 3},
    ]


def test_RK_16_a_sheet_without_skills_has_none() -> None:
    assert validated(servant())["skills"] == []


@pytest.mark.parametrize(
    "entry",
    [
        {"name": "X", "rank": "C", "mode": "sometimes"},
        {"name": "X", "mode": "active"},
        {"name": "", "rank": "C", "mode": "active"},
        {"rank": "C", "mode": "active"},
        "X",
    ],
)
def test_RK_16_a_skill_needs_a_name_a_rank_and_a_mode(entry: Any) -> None:
    with pytest.raises(Invalid):
        validated(sheet_with(entry))


def test_RK_16_two_skills_do_not_share_a_name() -> None:
    same = {"name": "X", "rank": "C", "mode": "active"}
    with pytest.raises(Invalid) as info:
        validated(sheet_with(same, same))
    assert info.value.rule == "RK-16"


@pytest.mark.parametrize("field", ["effect", "bonus", "modifier", "damage", "reduction"])
def test_RK_AMB_26_a_skill_effect_has_no_numbers_in_the_source_and_is_refused(
    field: str,
) -> None:
    with pytest.raises(Invalid) as info:
        validated(sheet_with({"name": "Mana Burst", "rank": "A", "mode": "active", field: 10}))
    assert info.value.rule == "RK-AMB-26"
    assert "no numbers for their effects" in said(info.value)[0]
    assert "aucun chiffre pour leurs effets" in said(info.value)[1]


@pytest.mark.parametrize("tours", [0, -1, 100, 1.5, "2", True])
def test_RK_14_tours_is_a_whole_number_of_tours(tours: Any) -> None:
    with pytest.raises(Invalid) as info:
        validated(sheet_with({"name": "X", "rank": "C", "mode": "active", "tours": tours}))
    assert info.value.rule == "RK-14"


def test_RK_16_a_passive_skill_takes_no_tours() -> None:
    with pytest.raises(Invalid) as info:
        validated(sheet_with({"name": "X", "rank": "C", "mode": "passive", "tours": 2}))
    assert info.value.rule == "RK-16"


def test_RK_16_a_passive_skill_is_always_on_and_never_switched() -> None:
    t, a, _ = duel(sheet_with({"name": "Clairvoyance", "rank": "C", "mode": "passive"}), master())
    refusal = t.refused(cmd.Act(actor=a, action="skill", options={"name": "Clairvoyance"}))
    assert (refusal.code, refusal.rule) == ("rule_violation", "RK-16")


def test_RK_16_an_unknown_skill_is_refused() -> None:
    t, a, _ = duel(master(), master())
    refusal = t.refused(cmd.Act(actor=a, action="skill", options={"name": "Nope"}))
    assert (refusal.code, refusal.rule) == ("invalid", "RK-16")


def test_RK_18_activating_a_skill_rolls_no_die_and_keeps_the_complex_action() -> None:
    t, a, b = duel(sheet_with({"name": "Charisma", "rank": "B", "mode": "active"}), master())
    out = t.act(a, "skill", name="Charisma")
    assert of_type(out, ev.DieRolled) == []
    applied = of_type(out, ev.ConditionApplied)
    assert [(c.name, c.rounds, c.rule, c.by_gm) for c in applied] == [
        ("Charisma", None, "RK-16", False)
    ]
    t.act(a, "attack_physical", 10, target=b)  # the phase's complex action is still there


def test_RK_18_a_skill_is_activated_outside_ones_own_turn() -> None:
    t, a, b = duel(master(), sheet_with({"name": "Guard", "rank": "C", "mode": "active"}))
    assert t.state.game.actor == a
    t.act(b, "skill", name="Guard")
    assert "Guard" in t.c(b).conditions


def test_RK_14_a_one_tour_skill_is_effective_until_your_next_tour() -> None:
    t, a, b = duel(
        sheet_with({"name": "Haste", "rank": "C", "mode": "active", "tours": 1}), master()
    )
    t.act(a, "skill", name="Haste")
    t.do(cmd.EndTurn(actor=a))  # the opponent's post is part of the same Tour
    assert "Haste" in t.c(a).conditions
    out = t.do(cmd.EndTurn(actor=b))  # your next Tour begins: the skill is over
    expired = of_type(out, ev.ConditionExpired)
    assert [(e.combatant_id, e.name, e.rule) for e in expired] == [(a, "Haste", "RK-14")]
    assert "Haste" not in t.c(a).conditions


def test_RK_14_an_x_tour_skill_lasts_x_tours() -> None:
    t, a, b = duel(
        sheet_with({"name": "Rage", "rank": "C", "mode": "active", "tours": 3}), master()
    )
    t.act(a, "skill", name="Rage")
    for _ in range(2):
        t.do(cmd.EndTurn(actor=a))
        t.do(cmd.EndTurn(actor=b))
        assert "Rage" in t.c(a).conditions
    t.do(cmd.EndTurn(actor=a))
    out = t.do(cmd.EndTurn(actor=b))
    assert [e.name for e in of_type(out, ev.ConditionExpired)] == ["Rage"]


def test_RK_14_a_skill_in_effect_is_not_activated_again_until_it_runs_out() -> None:
    t, a, b = duel(
        sheet_with({"name": "Haste", "rank": "C", "mode": "active", "tours": 1}), master()
    )
    t.act(a, "skill", name="Haste")
    refusal = t.refused(cmd.Act(actor=a, action="skill", options={"name": "Haste"}))
    assert (refusal.code, refusal.rule) == ("rule_violation", "RK-14")
    t.do(cmd.EndTurn(actor=a))
    t.do(cmd.EndTurn(actor=b))
    t.act(a, "skill", name="Haste")
    assert "Haste" in t.c(a).conditions


def test_RK_16_the_skill_option_is_declared_and_checked() -> None:
    t = Table()
    a = t.add("A", "a", sheet_with({"name": "Haste", "rank": "C", "mode": "active"}))
    refusal = t.refused(cmd.Act(actor=a, action="skill", options={"name": "Haste", "bonus": 5}))
    assert refusal.code == "invalid"
    refusal = t.refused(cmd.Act(actor=a, action="skill", options={"name": 5}))
    assert refusal.code == "invalid"


def test_RK_16_legal_offers_the_active_skills_not_in_effect() -> None:
    t, a, b = duel(
        sheet_with(
            {"name": "Haste", "rank": "C", "mode": "active", "tours": 1},
            {"name": "Eye", "rank": "C", "mode": "passive"},
        ),
        master(),
    )
    assert [e for e in legal_of(t, b) if e["action"] == "skill"] == []
    (entry,) = [e for e in legal_of(t, a) if e["action"] == "skill"]
    assert (entry["enabled"], entry["choices"]) == (True, {"name": ["Haste"]})
    t.act(a, "skill", name="Haste")
    (entry,) = [e for e in legal_of(t, a) if e["action"] == "skill"]
    assert (entry["enabled"], entry["rule"]) == (False, "RK-14")
