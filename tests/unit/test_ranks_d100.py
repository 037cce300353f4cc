"""ranks-d100 rules through `decide`, one test (at least) per checkable rule id."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from domain import commands as cmd
from domain import events as ev
from domain.errors import Invalid, RuleViolation
from domain.rules.ranks.settings import merged
from domain.rules.ranks.sheet import validate
from projections.words.refusals import word_reason
from tests.unit.test_ranks_support import (
    Table,
    checks,
    duel,
    legal_of,
    master,
    of_type,
    only_check,
    servant,
)


def pass_turn(t: Table) -> None:
    actor = t.state.game.actor
    assert actor is not None
    t.do(cmd.EndTurn(actor=actor))


def next_round(t: Table) -> None:
    start = t.state.game.round
    while t.state.game.round == start:
        pass_turn(t)


# --- 3.1 core resolution ------------------------------------------------------------


def test_RK_1_an_action_rolls_one_stat_and_a_free_action_rolls_none() -> None:
    t = Table()
    m, s = t.add("M", "a", master(), None), t.add("S", "a", servant(mana=10))
    foe = t.add("F", "b", master())
    t.do(cmd.StartCombat(), 99, 50, 1)
    assert only_check(t.act(m, "attack_physical", 90, target=foe)).stat == "STR"
    out = t.act(m, "transfer_mana", target=s, amount=5)
    assert checks(out) == [] and not of_type(out, ev.DieRolled)


def test_RK_4_a_rank_e_action_succeeds_on_30_or_less() -> None:
    t, a, b = duel(master(STR="E"), master())
    assert only_check(t.act(a, "attack_physical", 30, target=b)).outcome == "success"
    t, a, b = duel(master(STR="E"), master())
    assert only_check(t.act(a, "attack_physical", 31, target=b)).outcome == "failure"


def test_RK_5_modifiers_add_up_each_recorded_with_its_rule() -> None:
    t, a, b = duel(master(STR="B+", LCK="B", hp=40), master())
    t.act(a, "luck", 10)  # Luck B succeeds: +20
    check = only_check(t.act(a, "attack_physical", 85, target=b, activate=["STR"]))
    assert check.base == 60
    assert [(m.rule, m.delta) for m in check.modifiers] == [
        ("RK-6", 10),
        ("RK-50", 20),
        ("RK-70", -5),
    ]
    assert (check.threshold, check.outcome) == (85, "success")


# --- 3.2 half-ranks -------------------------------------------------------------------


def test_RK_6_positive_half_ranks_are_dormant_until_activated() -> None:
    t, a, b = duel(master(STR="E++"), master())
    assert only_check(t.act(a, "attack_physical", 90, target=b)).threshold == 30
    t, a, b = duel(master(STR="E++"), master())
    assert only_check(t.act(a, "attack_physical", 50, target=b, activate=["STR"])).threshold == 50


def test_RK_7_a_negative_half_rank_is_on_unless_deactivated() -> None:
    t, a, b = duel(master(STR="D-"), master())
    assert only_check(t.act(a, "attack_physical", 90, target=b)).threshold == 30
    next_round(t)
    check = only_check(t.act(a, "attack_physical", 90, target=b, deactivate=["STR"]))
    assert check.threshold == 40 and check.modifiers == []


def test_RK_8_a_second_activation_of_the_same_stat_in_one_rp_is_refused() -> None:
    t, a, b = duel(master(STR="C+", END="C+"), master())
    t.act(a, "attack_physical", 90, target=b, activate=["STR"])
    pass_turn(t)
    t.act(b, "attack_physical", 10, target=a)
    # Another stat's half-ranks are still available (tracked per stat).
    assert only_check(t.react(a, "defend_end", 90, activate=["END"])).threshold == 60
    next_round(t)
    refusal = t.refused(
        cmd.Act(actor=a, action="attack_physical", target=b, options={"activate": ["STR"]}), 10
    )
    assert (refusal.code, refusal.rule) == ("limit_reached", "RK-8")


def test_RK_8_activating_a_stat_without_a_plus_is_invalid() -> None:
    t, a, b = duel(master(STR="C"), master())
    refusal = t.refused(
        cmd.Act(actor=a, action="attack_physical", target=b, options={"activate": ["STR"]}), 10
    )
    assert (refusal.code, refusal.rule) == ("rule_violation", "RK-6")


def test_RK_AMB_10_an_activation_lasts_one_roll_by_default() -> None:
    t, a, b = duel(master(STR="C+"), master())
    t.act(a, "attack_physical", 90, target=b, activate=["STR"])
    next_round(t)
    assert only_check(t.act(a, "attack_physical", 90, target=b)).threshold == 50


def test_RK_AMB_10_rest_of_rp_keeps_the_activation_on() -> None:
    t, a, b = duel(master(STR="C+"), master(), {"half_rank.activation_scope": "rest_of_rp"})
    t.act(a, "attack_physical", 90, target=b, activate=["STR"])
    next_round(t)
    assert only_check(t.act(a, "attack_physical", 90, target=b)).threshold == 60


# --- 3.3 turn structure ---------------------------------------------------------------


def test_RK_14_a_tour_gives_each_combatant_one_attack_phase() -> None:
    t, a, b = duel(master(), master())
    started = of_type(t.events, ev.TurnStarted)
    assert [(e.actor, e.phase) for e in started] == [(a, "attack")]
    pass_turn(t)
    assert (t.state.game.round, t.state.game.actor) == (1, b)
    pass_turn(t)
    assert (t.state.game.round, t.state.game.actor) == (2, a)


def test_RK_15_the_attack_waits_for_the_defense_phase() -> None:
    t, a, b = duel(master(), master())
    t.act(a, "attack_physical", 10, target=b)
    assert t.refused(cmd.EndTurn(actor=a)).code == "reaction_pending"
    out = t.react(b, "none")
    assert of_type(out, ev.ReactionResolved)[0].damage_taken == 15
    pass_turn(t)
    assert (t.state.game.actor, t.state.game.phase) == (b, "attack")


def test_RK_17_a_second_complex_action_in_a_phase_is_refused() -> None:
    t, a, b = duel(master(), master())
    t.act(a, "attack_physical", 90, target=b)
    refusal = t.refused(cmd.Act(actor=a, action="attack_magic", target=b), 10)
    assert (refusal.code, refusal.rule) == ("limit_reached", "RK-17")
    assert t.refused(cmd.Act(actor=a, action="flee"), 10).rule == "RK-17"


def test_RK_17_the_defense_does_not_use_the_defenders_attack_phase() -> None:
    t, a, b = duel(master(), master())
    t.act(a, "attack_physical", 10, target=b)
    t.react(b, "defend_agi", 10)
    pass_turn(t)
    assert only_check(t.act(b, "attack_physical", 10, target=a)).outcome == "success"


def test_RK_18_free_actions_need_no_turn() -> None:
    t = Table()
    foe = t.add("F", "b", master())
    m, s = t.add("M", "a", master()), t.add("S", "a", servant(mana=10))
    t.do(cmd.StartCombat(), 99, 2, 1)
    assert t.state.game.actor == foe
    t.act(m, "transfer_mana", target=s, amount=20)
    assert t.c(s).resources["mana"] == 30


def test_RK_19_the_luck_die_comes_before_the_attack_die() -> None:
    t, a, b = duel(master(), master())
    t.act(a, "attack_physical", 90, target=b)
    refusal = t.refused(cmd.Act(actor=a, action="luck"), 10)
    assert (refusal.code, refusal.rule) == ("rule_violation", "RK-19")


def test_RK_19_luck_then_dodge_in_the_defense_phase() -> None:
    t, a, b = duel(master(), master(LCK="C"))
    t.act(a, "attack_physical", 10, target=b)
    t.act(b, "luck", 10)
    check = only_check(t.react(b, "defend_agi", 64))
    assert (check.threshold, check.outcome) == (65, "success")


def test_RK_20_one_d100_per_action() -> None:
    t, a, b = duel(master(), master())
    t.act(a, "attack_physical", 10, target=b)
    t.react(b, "defend_end", 10)
    rolled = of_type(t.events, ev.DieRolled)
    assert all(r.sizes == [100] and r.expr.startswith("d100") for r in rolled)


# --- 3.4 initiative -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("agi", "modifier"), [("E", -10), ("D", 0), ("C", 10), ("B", 20), ("A", 30), ("EX", 50)]
)
def test_RK_23_RK_40_initiative_modifier_by_agility(agi: str, modifier: int) -> None:
    t = Table()
    a, b = t.add("A", "a", master(AGI=agi)), t.add("B", "b", master(AGI="D"))
    t.do(cmd.RollInitiative(), 40, 1)
    assert t.state.game.scores == {a: 40 + modifier, b: 1}


def test_RK_22_initiative_highest_first() -> None:
    t = Table()
    a, b = t.add("A", "a", master(AGI="E")), t.add("B", "b", master(AGI="A"))
    t.do(cmd.RollInitiative(), 50, 20)
    assert t.state.game.scores == {a: 40, b: 50}
    assert t.state.game.order == [b, a]


def test_RK_AMB_16_ties_go_to_higher_agility_then_a_reroll() -> None:
    t = Table()
    a, b = t.add("A", "a", master(AGI="C")), t.add("B", "b", master(AGI="B"))
    t.do(cmd.RollInitiative(), 60, 50)  # 70 each: B's higher Agility goes first
    assert t.state.game.order == [b, a]
    t = Table()
    a, b = t.add("A", "a", master()), t.add("B", "b", master())
    t.do(cmd.RollInitiative(), 50, 50, 30, 70)  # tie, same Agility: reroll 30 vs 70
    assert t.state.game.order == [b, a]


# --- 3.5 pools ------------------------------------------------------------------------


def test_RK_24_pools_start_full_or_where_the_war_left_them() -> None:
    sheet = validate(master(hp=30, mana=12, luck_left=1), merged({}))
    assert sheet.resources == {"hp": 30, "mana": 12, "luck": 1}
    assert sheet.maxima == {"hp": 60, "mana": 60, "luck": 3}


def test_RK_AMB_9_luck_uses_refill_per_rp_when_luck_scope_is_session() -> None:
    sheet = validate(master(luck_left=1), merged({"luck.scope": "session"}))
    assert sheet.resources["luck"] == 3


def test_RK_25_a_combatant_at_0_hp_dies() -> None:
    t, a, b = duel(master(), master(hp=5))
    t.act(a, "attack_physical", 10, target=b)
    out = t.react(b, "none")
    dead = of_type(out, ev.CombatantDefeated)
    assert [(d.combatant_id, d.rule) for d in dead] == [(b, "RK-25")]
    assert t.c(b).resources["hp"] == 0


def test_RK_26_at_0_mana_a_combatant_leaves_the_rp_and_can_no_longer_act() -> None:
    t, a, b = duel(master(MANA_STAT="E", mana=5), master())
    out = t.act(a, "attack_magic", 90, target=b, rank="E")  # costs 5, fails
    assert [d.rule for d in of_type(out, ev.CombatantDefeated)] == ["RK-26"]
    # Their turn ended with them, and with one side left no one is handed the next.
    assert t.state.game.actor is None and t.state.game.last == a
    refusal = t.refused(cmd.Act(actor=a, action="luck"), 10)
    assert refusal.code == "rule_violation"
    assert refusal.rule == "RK-26"


def test_RK_AMB_20_an_attack_without_the_mana_is_refused() -> None:
    t, a, b = duel(master(mana=4), master())
    refusal = t.refused(cmd.Act(actor=a, action="attack_magic", target=b, rank="E"), 10)
    assert (refusal.code, refusal.rule) == ("insufficient_mana", "RK-AMB-20")
    t, a, b = duel(master(mana=5), master(), {"mana.allow_spend_to_zero": False})
    refusal = t.refused(cmd.Act(actor=a, action="attack_magic", target=b, rank="E"), 10)
    assert (refusal.code, refusal.rule) == ("insufficient_mana", "RK-AMB-20")


def test_RK_30_mana_moves_one_for_one_and_the_giver_keeps_one() -> None:
    t = Table()
    m, s = t.add("M", "a", master(mana=51)), t.add("S", "a", servant(mana=10))
    t.add("F", "b", master())
    t.act(m, "transfer_mana", target=s, amount=50)
    assert (t.c(m).resources["mana"], t.c(s).resources["mana"]) == (1, 60)
    refusal = t.refused(cmd.Act(actor=m, action="transfer_mana", target=s, options={"amount": 1}))
    assert (refusal.code, refusal.rule) == ("rule_violation", "RK-30")
    t.act(s, "transfer_mana", target=m, amount=59)  # and back, keeping 1
    assert (t.c(m).resources["mana"], t.c(s).resources["mana"]) == (60, 1)


def test_RK_30_only_between_a_master_and_its_servant() -> None:
    t = Table()
    m, foe = t.add("M", "a", master(mana=30)), t.add("F", "b", master(mana=30))
    refusal = t.refused(cmd.Act(actor=m, action="transfer_mana", target=foe, options={"amount": 1}))
    assert refusal.rule == "RK-30"


@pytest.mark.parametrize(
    ("sheet", "ok"),
    [
        (master(STR="EX"), True),
        (master(STR="EX", END="EX"), False),
        (master(STR="EX", MAGIC="EX"), True),  # Magic does not count
        (master(STR="EX", END="EX", boosted=["END"]), True),  # nor boosts
        (servant(STR="EX", END="EX"), True),
        (servant(STR="EX", END="EX", AGI="EX"), False),
        (servant(STR="EX", END="EX", NP="EX"), True),  # NP does not count
    ],
)
def test_RK_31_ex_caps(sheet: dict[str, Any], ok: bool) -> None:
    if ok:
        validate(sheet, merged({}))
        return
    with pytest.raises(RuleViolation) as info:
        validate(sheet, merged({}))
    assert info.value.rule == "RK-31"


# --- 3.6 .. 3.9 attacks ---------------------------------------------------------------


def test_RK_32_force_gives_the_chance_and_the_damage_of_physical_attacks() -> None:
    t, a, b = duel(master(STR="B"), master())
    check = only_check(t.act(a, "attack_physical", 60, target=b))
    assert (check.stat, check.threshold) == ("STR", 60)
    assert t.state.game.pending[0].damage == 20


LETTERS = ["E", "D", "C", "B", "A", "EX"]


def _ranked(values: list[int]) -> list[tuple[str, int]]:
    return list(zip(LETTERS, values, strict=True))


@pytest.mark.parametrize("action", ["attack_physical", "attack_weapon"])
@pytest.mark.parametrize(
    ("kind", "rank", "damage"),
    [("servant", r, d) for r, d in _ranked([20, 25, 30, 35, 40, 50])]
    + [("master", r, d) for r, d in _ranked([5, 10, 15, 20, 25, 35])],
)
def test_RK_33_physical_damage_is_chosen_by_the_attackers_kind(
    action: str, kind: str, rank: str, damage: int
) -> None:
    sheet = servant(STR=rank) if kind == "servant" else master(STR=rank)
    t, a, b = duel(sheet, master())
    t.act(a, action, 10, target=b)
    assert t.state.game.pending[0].damage == damage


@pytest.mark.parametrize(
    ("kind", "rank", "damage", "cost"),
    [
        ("servant", r, d, c)
        for (r, d), c in zip(
            _ranked([30, 35, 40, 45, 50, 60]), [5, 10, 15, 20, 25, 35], strict=True
        )
    ]
    + [
        ("master", r, d, c)
        for (r, d), c in zip(
            _ranked([15, 20, 25, 30, 35, 45]), [5, 10, 15, 20, 25, 35], strict=True
        )
    ],
)
def test_RK_43_RK_44_magic_damage_and_cost_by_rank(
    kind: str, rank: str, damage: int, cost: int
) -> None:
    maker = servant if kind == "servant" else master
    t, a, b = duel(maker(MANA_STAT="EX"), master())
    t.act(a, "attack_magic", 10, target=b, rank=rank)
    assert t.state.game.pending[0].damage == damage
    assert t.c(a).resources["mana"] == 100 - cost


@pytest.mark.parametrize(
    ("rank", "damage", "cost"),
    [
        (r, d, c)
        for (r, d), c in zip(
            _ranked([40, 50, 60, 70, 80, 100]), [25, 35, 45, 55, 65, 85], strict=True
        )
    ],
)
def test_RK_53_np_damage_and_cost_by_np_rank(rank: str, damage: int, cost: int) -> None:
    nps = [{"name": "NP", "rank": rank}]
    t, a, b = duel(servant(MANA_STAT="EX", noble_phantasms=nps), master())
    t.act(a, "noble_phantasm", 10, target=b)
    assert t.state.game.pending[0].damage == damage
    assert t.c(a).resources["mana"] == 100 - cost


@pytest.mark.parametrize(
    ("rank", "master_damage", "servant_damage", "cost"),
    [
        (r, d, d + 10, c)
        for (r, d), c in zip(
            _ranked([30, 35, 40, 45, 50, 60]), [15, 20, 25, 30, 35, 45], strict=True
        )
    ],
)
def test_RK_56_RK_58_spell_damage_and_cost_by_spell_rank(
    rank: str, master_damage: int, servant_damage: int, cost: int
) -> None:
    spells = [{"name": "Spell", "rank": rank}]
    for maker, damage in ((master, master_damage), (servant, servant_damage)):
        t, a, b = duel(maker(MANA_STAT="EX", MAGIC="C", spells=spells), master())
        t.act(a, "advanced_spell", 10, target=b)
        assert t.state.game.pending[0].damage == damage
        assert t.c(a).resources["mana"] == 100 - cost


def test_RK_34_a_failed_force_action_deals_nothing() -> None:
    t, a, b = duel(master(), master())
    out = t.act(a, "attack_physical", 51, target=b)
    assert t.state.game.pending == [] and t.c(b).resources["hp"] == 60
    assert of_type(out, ev.ActionResolved)[0].detail["rule"] == "RK-34"


def test_RK_35_a_physical_attack_above_the_force_rank_is_refused() -> None:
    t, a, b = duel(master(STR="B"), master())
    refusal = t.refused(cmd.Act(actor=a, action="attack_physical", target=b, rank="A"), 10)
    assert (refusal.code, refusal.rule) == ("rule_violation", "RK-35")
    t.act(a, "attack_physical", 10, target=b, rank="C")  # lower ranks are fine (RK-78)
    assert t.state.game.pending[0].damage == 15


@pytest.mark.parametrize(
    ("kind", "reaction", "taken"),
    [("servant", "defend_end", 0), ("master", "defend_end", 15), ("master", "defend_agi", 15)],
)
def test_RK_36_RK_41_reduction_is_chosen_by_the_defenders_kind(
    kind: str, reaction: str, taken: int
) -> None:
    defender = servant(END="B", AGI="B") if kind == "servant" else master(END="B", AGI="B")
    t, a, b = duel(servant(STR="A"), defender)
    t.act(a, "attack_physical", 10, target=b)  # 40 damage
    out = t.react(b, reaction, 10)
    assert of_type(out, ev.ReactionResolved)[0].damage_taken == taken


def test_RK_38_a_failed_endurance_action_reduces_nothing() -> None:
    t, a, b = duel(master(STR="A"), master())
    t.act(a, "attack_physical", 10, target=b)
    out = t.react(b, "defend_end", 80)
    resolved = of_type(out, ev.ReactionResolved)[0]
    assert (resolved.damage_taken, resolved.detail["rule"]) == (25, "RK-38")


def test_RK_39_a_servant_intercepts_with_endurance_only() -> None:
    t = Table()
    a = t.add("F", "a", servant(STR="A"))
    m, s = t.add("M", "b", master()), t.add("S", "b", servant(END="D"))
    t.do(cmd.StartCombat(), 99, 2, 1)
    t.act(a, "attack_physical", 10, target=m)  # 40
    refusal = t.refused(cmd.React(actor=m, reaction="intercept", options={"reduce": "AGI"}))
    assert refusal.rule == "RK-39"
    out = t.react(m, "intercept", 10)
    assert only_check(out).stat == "END"
    assert t.c(m).resources["hp"] == 60
    assert t.c(s).resources["hp"] == 50 - (40 - 30)  # Servant END D: 50 HP, reduces 30


def test_RK_43_RK_44_magic_damage_by_kind_and_the_cost() -> None:
    t, a, b = duel(master(MANA_STAT="B"), master())
    t.act(a, "attack_magic", 10, target=b)
    assert t.state.game.pending[0].damage == 30
    assert t.c(a).resources["mana"] == 70 - 20


def test_RK_45_a_failed_magic_attack_loses_its_mana() -> None:
    t, a, b = duel(master(MANA_STAT="B"), master())
    t.act(a, "attack_magic", 61, target=b)
    assert t.c(a).resources["mana"] == 50 and t.state.game.pending == []


def _master_dies_early_in_tour_1(mana: str, settings: dict[str, Any]) -> tuple[Table, str]:
    t = Table(settings)
    a = t.add("F", "a", master(STR="A"))
    m, s = t.add("M", "b", master(hp=5)), t.add("S", "b", servant(MANA_STAT=mana))
    t.do(cmd.StartCombat(), 99, 2, 1)
    assert t.state.game.round == 1
    t.act(a, "attack_physical", 10, target=m)
    t.react(m, "none")
    assert t.c(m).out is not None
    return t, s


def test_RK_46_a_servant_outlives_its_master_by_its_mana_tours() -> None:
    # RK-AMB-21: Mana D = 2 Tours, counted from the Tour of the death (Tour 1).
    t, s = _master_dies_early_in_tour_1("D", {})
    assert t.c(s).status["survival"] == 2
    next_round(t)  # end of Tour 1: one left
    assert t.c(s).out is None and t.c(s).status["survival"] == 1
    next_round(t)  # end of Tour 2
    assert t.c(s).out == "returned" and t.c(s).out_rule == "RK-46"


def test_RK_AMB_21_a_mana_e_servant_plays_the_rest_of_the_tour_of_the_death() -> None:
    t, s = _master_dies_early_in_tour_1("E", {})
    assert t.c(s).out is None  # it still plays the rest of Tour 1
    next_round(t)
    assert t.state.game.round == 2
    assert t.c(s).out == "returned" and t.c(s).out_rule == "RK-46"


def test_RK_AMB_21_the_earlier_reading_leaves_the_tour_of_the_death_out() -> None:
    t, s = _master_dies_early_in_tour_1("E", {"survival.tour_of_death": "does_not_count"})
    next_round(t)
    assert t.c(s).out is None  # plays Tour 2 as well
    next_round(t)
    assert t.c(s).out is not None


def test_RK_48_every_servant_can_cast() -> None:
    t, a, b = duel(servant(MANA_STAT="C", **{"class": "Saber"}), master())
    t.act(a, "attack_magic", 10, target=b)
    assert t.state.game.pending[0].damage == 40


def test_RK_49_a_magic_attack_above_the_mana_rank_is_refused() -> None:
    t, a, b = duel(master(MANA_STAT="A"), master())
    refusal = t.refused(cmd.Act(actor=a, action="attack_magic", target=b, rank="EX"), 10)
    assert (refusal.code, refusal.rule) == ("rule_violation", "RK-49")
    t.act(a, "attack_magic", 10, target=b, rank="A")  # RK-78: A is fine
    assert t.state.game.pending[0].rank == "A"


# --- 3.10 luck ------------------------------------------------------------------------


@pytest.mark.parametrize(("face", "threshold"), [(10, 50), (70, 10)])
def test_RK_50_a_luck_b_die_moves_a_rank_e_endurance_action(face: int, threshold: int) -> None:
    # 60 base HP keeps the END E defender at 50 HP, clear of the health malus (RK-70).
    t, a, b = duel(master(), master(END="E", LCK="B"), {"pool.base_hp": 60})
    t.act(a, "attack_physical", 10, target=b)
    t.act(b, "luck", face)
    assert only_check(t.react(b, "defend_end", 99)).threshold == threshold


def test_RK_51_a_luck_roll_with_no_uses_left_is_refused() -> None:
    t, a, _ = duel(master(luck_left=0), master())
    refusal = t.refused(cmd.Act(actor=a, action="luck"), 10)
    assert (refusal.code, refusal.rule) == ("limit_reached", "RK-51")


def test_RK_AMB_15_a_failed_luck_roll_still_uses_one_and_one_waits_at_a_time() -> None:
    t, a, _ = duel(master(), master())
    t.act(a, "luck", 80)
    assert t.c(a).resources["luck"] == 2 and t.c(a).status["luck"] == -15
    refusal = t.refused(cmd.Act(actor=a, action="luck"), 10)
    assert refusal.rule == "RK-AMB-15"


# --- 3.11 .. 3.12 noble phantasms and advanced spells ---------------------------------


def test_RK_52_np_stat_sets_the_chance_and_np_rank_the_damage() -> None:
    np = [{"name": "Excalibur", "rank": "A"}]
    t, a, b = duel(servant(NP="C", MANA_STAT="B", noble_phantasms=np), master())
    check = only_check(t.act(a, "noble_phantasm", 50, target=b, name="Excalibur"))
    assert (check.stat, check.threshold) == ("NP", 50)  # RK-78: 50%
    assert t.state.game.pending[0].damage == 80
    assert t.c(a).resources["mana"] == 70 - 65


def test_RK_52_a_master_has_no_noble_phantasm() -> None:
    t, a, b = duel(master(), master())
    refusal = t.refused(cmd.Act(actor=a, action="noble_phantasm", target=b), 10)
    assert refusal.rule == "RK-52"


def test_RK_54_a_failed_np_loses_its_mana() -> None:
    np = [{"name": "Gae Bolg", "rank": "E"}]
    t, a, b = duel(servant(noble_phantasms=np), master())
    t.act(a, "noble_phantasm", 51, target=b)
    assert t.c(a).resources["mana"] == 60 - 25 and t.state.game.pending == []


def test_RK_55_RK_56_magic_stat_sets_the_chance_and_spell_rank_the_damage() -> None:
    spells = [{"name": "Gandr", "rank": "A"}]
    t, a, b = duel(master(MAGIC="C", spells=spells), master())
    check = only_check(t.act(a, "advanced_spell", 50, target=b))
    assert (check.stat, check.threshold) == ("MAGIC", 50)  # RK-78: 50%
    assert t.state.game.pending[0].damage == 50
    assert t.c(a).resources["mana"] == 60 - 35


def test_RK_57_a_failed_spell_loses_its_mana() -> None:
    spells = [{"name": "Gandr", "rank": "E"}]
    t, a, b = duel(master(spells=spells), master())
    t.act(a, "advanced_spell", 51, target=b)
    assert t.c(a).resources["mana"] == 60 - 15


def test_RK_58_a_servants_spell_hits_10_harder_at_the_same_cost() -> None:
    spells = [{"name": "Gandr", "rank": "A"}]
    t, a, b = duel(servant(MAGIC="C", spells=spells), master())
    t.act(a, "advanced_spell", 10, target=b)
    assert t.state.game.pending[0].damage == 60
    assert t.c(a).resources["mana"] == 60 - 35


# --- 3.13 .. 3.15 defense -------------------------------------------------------------


def test_RK_59_damage_taken_never_goes_below_zero() -> None:
    t, a, b = duel(master(STR="E"), servant(END="E"))
    t.act(a, "attack_physical", 10, target=b)  # 5
    out = t.react(b, "defend_end", 10)  # reduces 25
    assert of_type(out, ev.ReactionResolved)[0].damage_taken == 0


def test_RK_60_RK_63_a_successful_counter_blocks_everything_and_deals_nothing() -> None:
    t, a, b = duel(master(STR="B"), master(STR="A"))
    t.act(a, "attack_physical", 10, target=b)
    out = t.react(b, "counter", 10, action="attack_physical", rank="A")
    resolved = of_type(out, ev.ReactionResolved)[0]
    assert (resolved.outcome, resolved.damage_taken) == ("countered", 0)
    assert t.c(a).resources["hp"] == 60 and t.c(b).resources["hp"] == 60


def test_RK_61_a_counter_of_another_type_is_refused() -> None:
    t, a, b = duel(master(STR="B"), master(MANA_STAT="A"))
    t.act(a, "attack_physical", 10, target=b)
    refusal = t.refused(
        cmd.React(actor=b, reaction="counter", options={"action": "attack_magic"}), 10
    )
    assert (refusal.code, refusal.rule) == ("rule_violation", "RK-61")


def test_RK_62_a_counter_of_a_lower_rank_is_refused() -> None:
    t, a, b = duel(master(STR="B"), master(STR="A"))
    t.act(a, "attack_physical", 10, target=b)
    refusal = t.refused(
        cmd.React(actor=b, reaction="counter", options={"action": "attack_physical", "rank": "C"}),
        10,
    )
    assert (refusal.code, refusal.rule) == ("rule_violation", "RK-62")


def test_RK_64_an_elemental_magic_users_counter_is_the_gms_to_settle() -> None:
    t, a, b = duel(master(STR="B"), master(STR="A", elemental=True))
    t.act(a, "attack_physical", 10, target=b)
    (counter,) = [e for e in legal_of(t, b) if e["action"] == "counter"]
    assert (counter["enabled"], counter["rule"]) == (False, "RK-64")
    french = word_reason(counter["reason"], counter.get("params", {}))
    assert french is not None and french[1].startswith("la Contre-Attaque d'un utilisateur de")
    assert [e["enabled"] for e in legal_of(t, b) if e["action"] == "defend_end"] == [True]
    before = len(t.events)
    refusal = t.refused(
        cmd.React(actor=b, reaction="counter", options={"action": "attack_physical"}), 10
    )
    assert (refusal.code, refusal.rule) == ("rule_violation", "RK-64")
    assert len(t.events) == before
    out = t.react(b, "defend_end", 10)  # the other answers stand
    assert of_type(out, ev.ReactionResolved)


def test_RK_64_the_standard_setting_counters_as_anyone_and_others_are_untouched() -> None:
    t, a, b = duel(master(STR="B"), master(STR="A", elemental=True),
                   {"counter.elemental_rules": "standard"})  # fmt: skip
    t.act(a, "attack_physical", 10, target=b)
    out = t.react(b, "counter", 10, action="attack_physical")
    assert of_type(out, ev.ReactionResolved)[0].damage_taken == 0
    t, a, b = duel(master(STR="B"), master(STR="A"))  # no flag: the usual rules (RK-60)
    t.act(a, "attack_physical", 10, target=b)
    (counter,) = [e for e in legal_of(t, b) if e["action"] == "counter"]
    assert counter["enabled"] and "elemental" not in t.state.game.combatants[b].sheet


@pytest.mark.parametrize("flag", ["yes", 1, None])
def test_RK_64_the_elemental_flag_is_true_or_false(flag: object) -> None:
    with pytest.raises(Invalid) as info:
        validate(master(elemental=flag), merged({}))
    assert info.value.rule == "RK-64"


def test_RK_AMB_12_a_failed_counter_takes_the_full_damage() -> None:
    t, a, b = duel(master(STR="B"), master(STR="B"))
    t.act(a, "attack_physical", 10, target=b)
    out = t.react(b, "counter", 80, action="attack_physical")
    assert of_type(out, ev.ReactionResolved)[0].damage_taken == 20


FLURRY = {"name": "Flurry", "rank": "D", "chain": 4, "hit_damage": 20, "chain_bonus": 10}


def test_RK_65_RK_67_one_roll_for_a_chain_one_reduction_per_hit_the_bonus_once() -> None:
    t, a, b = duel(servant(noble_phantasms=[FLURRY]), master(AGI="C"))
    out = t.act(a, "noble_phantasm", 10, target=b)
    assert len(checks(out)) == 1
    assert t.state.game.pending[0].damage == 4 * 20 + 10
    out = t.react(b, "defend_agi", 10)  # reduction 20 per hit, then +10 once
    assert len(checks(out)) == 1
    assert of_type(out, ev.ReactionResolved)[0].damage_taken == 10


def test_RK_AMB_13_four_hits_of_40_against_30_make_40() -> None:
    np = [{"name": "Rain", "rank": "D", "chain": 4, "hit_damage": 40}]
    t, a, b = duel(servant(noble_phantasms=np), servant(END="D"))
    t.act(a, "noble_phantasm", 10, target=b)
    out = t.react(b, "defend_end", 10)
    assert of_type(out, ev.ReactionResolved)[0].damage_taken == 40


def test_RK_66_a_chain_is_countered_only_by_as_long_a_chain() -> None:
    single = {"name": "Thrust", "rank": "EX"}
    longer = {"name": "Storm", "rank": "D", "chain": 5, "hit_damage": 10}
    t, a, b = duel(
        servant(noble_phantasms=[FLURRY]),
        servant(NP="B", MANA_STAT="EX", noble_phantasms=[single, longer]),
    )
    t.act(a, "noble_phantasm", 10, target=b)
    refusal = t.refused(
        cmd.React(
            actor=b, reaction="counter", options={"action": "noble_phantasm", "name": "Thrust"}
        ),
        10,
    )
    assert (refusal.code, refusal.rule) == ("rule_violation", "RK-66")
    out = t.react(b, "counter", 10, action="noble_phantasm", name="Storm")
    assert of_type(out, ev.ReactionResolved)[0].outcome == "countered"


# --- 3.16 flight ----------------------------------------------------------------------


def test_RK_42_RK_68_a_flight_nobody_faster_can_block_succeeds() -> None:
    t, a, _ = duel(master(AGI="A"), master(AGI="A"))
    out = t.act(a, "flee", 10)
    assert only_check(out).stat == "AGI"  # RK-42
    assert [d.rule for d in of_type(out, ev.CombatantDefeated)] == ["RK-68"]
    assert t.state.game.actor is None  # the fight is decided: it waits for the GM


def test_RK_68_RK_69_a_faster_opponent_blocks_the_flight_and_may_still_attack() -> None:
    t, a, b = duel(master(AGI="C"), master(AGI="C+"))
    t.act(a, "flee", 10)
    assert t.state.game.pending[0].options == ["block_flight", "none"]
    t.react(b, "block_flight", 10)
    assert t.c(a).out is None
    pass_turn(t)
    assert only_check(t.act(b, "attack_physical", 10, target=a)).outcome == "success"


def test_RK_68_an_unblocked_flight_succeeds() -> None:
    t, a, b = duel(master(AGI="C"), master(AGI="B"))
    t.act(a, "flee", 10)
    t.react(b, "none")
    assert t.c(a).out is not None


def test_RK_69_no_attack_while_fleeing() -> None:
    t, a, b = duel(master(AGI="C"), master(AGI="B"), {"complex_actions_per_phase": 2})
    t.act(a, "flee", 90)
    refusal = t.refused(cmd.Act(actor=a, action="attack_physical", target=b), 10)
    assert refusal.rule == "RK-69"


# --- 3.17 .. 3.18 health and criticals ------------------------------------------------


def test_RK_70_the_health_malus_applies_to_force_not_to_luck() -> None:
    t, a, b = duel(master(hp=20), master())
    luck = only_check(t.act(a, "luck", 90))
    assert luck.modifiers == []
    check = only_check(t.act(a, "attack_physical", 90, target=b))
    assert ("RK-70", -10) in [(m.rule, m.delta) for m in check.modifiers]


def test_RK_71_RK_AMB_1_criticals_by_natural_roll() -> None:
    t, a, b = duel(master(STR="E"), master())
    assert only_check(t.act(a, "attack_physical", 5, target=b)).outcome == "critical_success"
    t, a, b = duel(servant(STR="EX", LCK="EX"), master(), {"crit.fail_min": 92})
    t.act(a, "luck", 10)
    check = only_check(t.act(a, "attack_physical", 92, target=b))
    assert (check.threshold, check.outcome) == (125, "critical_failure")  # RK-AMB-17


def test_RK_72_a_critical_success_gives_10_next_tour() -> None:
    t, a, b = duel(master(STR="A"), master())
    t.act(a, "attack_physical", 3, target=b)
    t.react(b, "none")
    next_round(t)
    check = only_check(t.act(a, "attack_physical", 76, target=b))  # RK-77
    assert (check.threshold, check.outcome) == (80, "success")
    assert [(m.rule, m.delta) for m in check.modifiers] == [("RK-72", 10)]
    t.react(b, "none")
    next_round(t)
    assert only_check(t.act(a, "attack_physical", 90, target=b)).threshold == 70


def test_RK_73_a_critical_failure_gives_minus_10_next_tour() -> None:
    t, a, b = duel(master(STR="B"), master())
    t.act(a, "attack_physical", 99, target=b)
    next_round(t)
    check = only_check(t.act(a, "attack_physical", 55, target=b))  # RK-77
    assert (check.threshold, check.outcome) == (50, "failure")


def test_RK_AMB_5_threshold_from_the_action_rank_when_configured() -> None:
    t, a, b = duel(master(STR="A"), master(), {"threshold_source": "action_rank"})
    assert only_check(t.act(a, "attack_physical", 90, target=b, rank="C")).threshold == 50


def test_RK_21_with_no_opponent_left_there_is_nobody_to_attack() -> None:
    from domain.rules import REGISTRY

    t, a, b = duel(master(STR="A"), master(hp=5))
    t.act(a, "attack_physical", 10, target=b)
    t.react(b, "none")
    listed = {
        e["action"]: e
        for e in msgspec.to_builtins(REGISTRY["ranks-d100"].legal(t.state.game, a, {}))
    }
    assert (listed["attack_magic"]["enabled"], listed["attack_magic"]["rule"]) == (False, "RK-21")
    assert t.state.game.active() == [a]


# --- legal ----------------------------------------------------------------------------


def test_legal_lists_each_action_with_its_rule_targets_and_ranks() -> None:
    t, a, b = duel(master(STR="B", MANA_STAT="D", mana=15), master())
    rules = t.state.ledger.settings
    from domain.rules import REGISTRY

    listed = {
        e["action"]: e
        for e in msgspec.to_builtins(REGISTRY["ranks-d100"].legal(t.state.game, a, rules))
    }
    assert listed["attack_physical"]["enabled"] and listed["attack_physical"]["targets"] == [b]
    assert listed["attack_physical"]["ranks"] == ["E", "D", "C", "B"]
    assert listed["attack_magic"]["ranks"] == ["E", "D"]  # 15 mana: costs 5 and 10
    t.act(a, "attack_physical", 90, target=b)
    listed = {
        e["action"]: e
        for e in msgspec.to_builtins(REGISTRY["ranks-d100"].legal(t.state.game, a, rules))
    }
    assert not listed["attack_magic"]["enabled"] and listed["attack_magic"]["rule"] == "RK-17"
    theirs = {
        e["action"]: e
        for e in msgspec.to_builtins(REGISTRY["ranks-d100"].legal(t.state.game, b, rules))
    }
    # Not one's phase (RK-15) is the core's turn refusal, which names no rule; so does legal.
    assert theirs["attack_physical"]["reason"] == "not_your_attack_phase"
    assert theirs["attack_physical"]["rule"] is None


# --- settings (the Proposed resolutions) ----------------------------------------------


def test_RK_AMB_2_a_table_override_must_name_a_real_cell() -> None:
    # Refused when the encounter opens, before any sheet is checked against it.
    with pytest.raises(Invalid) as refused:
        Table({"tables": {"reduction.master.Z": 30}})
    assert refused.value.rule == "RK-AMB-2"


def test_RK_AMB_6_luck_may_be_set_to_use_the_complex_action() -> None:
    t, a, b = duel(master(), master(), {"luck_consumes_complex_slot": True})
    t.act(a, "luck", 10)
    refusal = t.refused(cmd.Act(actor=a, action="attack_physical", target=b), 10)
    assert (refusal.code, refusal.rule) == ("limit_reached", "RK-17")


def test_RK_AMB_14_rank_only_compare_ignores_half_ranks() -> None:
    t, a, _ = duel(master(AGI="C"), master(AGI="C+"), {"flee.compare": "rank_only"})
    t.act(a, "flee", 10)
    assert t.state.game.pending == [] and t.c(a).out is not None


def test_RK_AMB_18_criticals_stack_or_count_once() -> None:
    for stack, carry in (("additive", 20), ("single", 10)):
        t, a, b = duel(master(LCK="C"), master(), {"crit.carry_stack": stack})
        t.act(a, "luck", 1)
        t.act(a, "attack_physical", 2, target=b)
        assert t.c(a).status["crit_next"] == carry


def test_RK_AMB_19_the_intercept_table_can_be_the_masters() -> None:
    t = Table({"intercept.reduction_table": "master"})
    a = t.add("F", "a", servant(STR="A"))
    m, s = t.add("M", "b", master()), t.add("S", "b", servant(END="D"))
    t.do(cmd.StartCombat(), 99, 2, 1)
    t.act(a, "attack_physical", 10, target=m)
    t.react(m, "intercept", 10)
    assert t.c(s).resources["hp"] == 50 - (40 - 15)


def test_RK_AMB_22_health_malus_stats_are_a_setting() -> None:
    t, a, b = duel(master(hp=20), master(), {"health_malus.stats": ["AGI"]})
    assert only_check(t.act(a, "attack_physical", 90, target=b)).modifiers == []


def test_presets_j1_and_j2_are_valid_sheets() -> None:
    from domain.rules.ranks.sheet import PRESETS

    for name, preset in PRESETS.items():
        assert validate(preset, merged({})).sheet["kind"] in ("master", "servant"), name


def test_RK_61_RK_62_legal_lists_a_counters_same_type_and_ranks_from_the_incoming_one() -> None:
    t, a, b = duel(master(MANA_STAT="B"), master(MANA_STAT="EX"))
    t.act(a, "attack_magic", 10, target=b, rank="B")
    (counter,) = [e for e in legal_of(t, b) if e["action"] == "counter"]
    assert counter["enabled"]
    assert counter["choices"] == {"action": ["attack_magic"], "rank": ["B", "A", "EX"]}


def test_RK_55_RK_58_a_servant_carries_magic_for_its_advanced_spells_unless_told_never() -> None:
    spells = [{"name": "Bolt", "rank": "C"}]
    t, a, b = duel(servant(MAGIC="C", spells=spells), master())
    t.act(a, "advanced_spell", 10, target=b, name="Bolt")
    assert t.state.game.pending[0].damage == 50  # RK-58: 40 + 10
    t = Table({"servant.magic": "never"})
    with pytest.raises(Invalid) as info:
        t.add("S", "a", servant(MAGIC="C", spells=spells))
    assert info.value.rule == "RK-55"


def test_RK_55_legal_says_a_character_without_spells_knows_no_advanced_spell() -> None:
    t, a, _ = duel(master(), master())
    (spell,) = [e for e in legal_of(t, a) if e["action"] == "advanced_spell"]
    assert (spell["enabled"], spell["reason"], spell["rule"]) == (
        False,
        "knows_no_spell",
        "RK-55",
    )
