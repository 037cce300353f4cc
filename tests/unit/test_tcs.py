"""d100-tcs through the encounter decider: rounds, initiative, declared plans, attacks.

Each test is named after the rule id it checks (TC-n, TC-AMB-n). Dice are FixedRoller
faces in the order the engine asks for them: initiative d100s in combatant order, then
each test's d100 (attack, last stand, friendly-fire pick...).
"""

from __future__ import annotations

import msgspec
import pytest

from domain import commands as cmd
from domain import events as ev
from domain.errors import Forbidden, Invalid, RuleViolation
from domain.rules import REGISTRY
from domain.state import Principal
from tests.unit.test_tcs_support import BOW, QUIET, SWORD, Table, checks, duel, of, refused

RULES = REGISTRY["d100-tcs"]


# --- 3.0 the core test --------------------------------------------------------------------


@pytest.mark.parametrize(("face", "outcome"), [(50, "success"), (51, "failure")])
def test_TC_1_success_is_a_roll_at_or_under_the_threshold(face: int, outcome: str) -> None:
    table, a, b = duel()
    events = table.act(a, "attack", b, [face])
    (check,) = checks(events)
    assert (check.threshold, check.outcome, check.rule) == (50, outcome, "TC-1")


def test_TC_2_melee_tests_DEX_and_ranged_tests_PERC() -> None:
    table, a, b = duel(a={"DEX": 40, "PERC": 70, "weapons": [BOW, SWORD]})
    events = table.act(
        a, "attack", b, [30], then={"action": "use_item", "options": {"weapon": "sword"}}
    )
    assert [(c.stat, c.base) for c in checks(events)] == [("PERC", 70)]
    table.end(b)
    events = table.act(a, "attack", b, [30])
    assert [(c.stat, c.base) for c in checks(events)] == [("DEX", 40)]


# --- 3.1 rounds, initiative, actions ------------------------------------------------------


def test_TC_3_every_round_opens_with_a_new_initiative_step() -> None:
    table = Table()
    a, b = table.add("A", "a"), table.add("B", "b")
    table.do(cmd.StartCombat(), [10, 20])
    table.end(a)
    events = table.end(b, [90, 5])
    rolled = of(events, ev.InitiativeSet)
    assert of(events, ev.RoundStarted)[0].round == 2
    assert rolled[0].order == [b, a] and table.actor == b


def test_TC_4_TC_61_initiative_is_ascending_an_8_acts_before_a_79() -> None:
    table = Table()
    a, b = table.add("A", "a"), table.add("B", "b")
    events = table.do(cmd.StartCombat(), [79, 8])
    assert of(events, ev.InitiativeSet)[0].order == [b, a]
    assert table.actor == b


def test_TC_5_TC_62_a_tie_goes_to_the_healthier_combatant() -> None:
    table = Table()
    a, b = table.add("A", "a"), table.add("B", "b")
    table.do(cmd.Adjust(combatant=a, resource="hp", delta=-3, reason="old wound"))  # 85%
    events = table.do(cmd.StartCombat(), [42, 42])
    assert of(events, ev.InitiativeSet)[0].order == [b, a]


def test_TC_5_the_tie_break_is_a_setting() -> None:
    table = Table({"init.tie_break": "insertion"})
    a, b = table.add("A", "a"), table.add("B", "b")
    table.do(cmd.Adjust(combatant=a, resource="hp", delta=-3, reason="old wound"))
    events = table.do(cmd.StartCombat(), [42, 42])
    assert of(events, ev.InitiativeSet)[0].order == [a, b]


def test_TC_6_a_turn_has_two_actions() -> None:
    table, a, b = duel()
    events = table.act(a, "attack", b, [10, 10], then={"action": "attack", "target": b})
    assert len(of(events, ev.LimitUsed)) == 2
    assert table.res(b) == 20 - 12


def test_TC_6_a_plan_beyond_two_actions_is_refused() -> None:
    table, a, _b = duel(a={"items": [{"name": "potion", "heal": 5}]})
    with refused("budget_exhausted", "TC-6"):
        table.act(a, "move", then={"action": "drink_potion"})


def test_TC_7_both_actions_are_declared_up_front_and_the_turn_then_ends() -> None:
    table, a, b = duel()
    events = table.act(a, "move", then={"action": "move", "options": {"sprint": 1}})
    declared = of(events, ev.ActionDeclared)
    assert len(declared) == 1 and declared[0].options["then"]["action"] == "move"
    assert of(events, ev.TurnEnded)[0].actor == a and table.actor == b
    with refused("not_your_turn", None):
        table.act(a, "move")


def test_TC_7_a_malformed_second_declaration_is_invalid() -> None:
    table, a, _b = duel()
    with refused("invalid", "TC-7"):
        table.act(a, "move", then={"action": "dance"})


def test_TC_7_an_illegal_second_action_refuses_the_whole_plan() -> None:
    table, a, b = duel()
    with refused("rule_violation", "TC-25"):
        table.act(a, "attack", b, then={"action": "stand_up", "options": {"fast": True}})
    assert table.res(b) == 20


def test_TC_8_a_technique_takes_one_action_unless_it_says_more() -> None:
    heavy = {"name": "crushing blow", "actions": 2, "dmg_mult": 2}
    table, a, b = duel(a={"tcs": [heavy, {"name": "jab"}]})
    events = table.act(a, "attack", b, [10], tcs="crushing blow")
    assert len(of(events, ev.LimitUsed)) == 2 and table.res(b) == 20 - 12
    table.end(b)
    with refused("budget_exhausted", "TC-6"):
        table.act(
            a,
            "attack",
            b,
            tcs="jab",
            then={"action": "attack", "target": b, "options": {"tcs": "crushing blow"}},
        )


def test_TC_9_TC_10_a_three_action_spell_is_cast_over_two_rounds_on_MM() -> None:
    table, a, b = duel(a={"MM": 60, "tcs": [{"name": "meteor", "kind": "spell",
                                             "actions": 3, "damage": 9}]})  # fmt: skip
    events = table.act(a, "cast", b, spell="meteor")
    assert not of(events, ev.DieRolled)
    assert table.status(a, "preparing")["left"] == 1
    table.end(b)
    events = table.act(
        a, "cast", spell="meteor", faces=[40], then={"action": "move"}
    )  # the spell's last action, then a free one
    (check,) = checks(events)
    assert (check.stat, check.threshold, check.outcome) == ("MM", 60, "success")
    assert table.res(b) == 20 - 9 and table.status(a, "preparing") is None
    assert of(events, ev.ActionResolved)[-1].action == "move"


def test_TC_9_a_spell_of_two_actions_is_cast_in_one_round() -> None:
    table, a, b = duel(a={"MM": 60, "tcs": [{"name": "bolt", "kind": "spell", "actions": 2,
                                             "damage": 5}]})  # fmt: skip
    events = table.act(a, "cast", b, [20], spell="bolt")
    assert checks(events)[0].stat == "MM" and table.res(b) == 15


def test_TC_9_switching_away_from_a_spell_in_preparation_loses_it() -> None:
    table, a, b = duel(a={"MM": 60, "tcs": [{"name": "meteor", "kind": "spell",
                                             "actions": 3, "damage": 9}]})  # fmt: skip
    table.act(a, "cast", b, spell="meteor")
    table.end(b)
    events = table.act(a, "move")
    lost = [e for e in of(events, ev.ActionResolved) if e.outcome == "cancelled"]
    assert lost[0].detail["rule"] == "TC-9" and table.status(a, "preparing") is None


def test_TC_AMB_16_a_paused_preparation_is_lost() -> None:
    table, a, b = duel(a={"MM": 60, "tcs": [{"name": "meteor", "kind": "spell",
                                             "actions": 3, "damage": 9}]})  # fmt: skip
    table.act(a, "cast", b, spell="meteor")
    table.end(b)
    table.end(a)  # round 2 passes without investing
    table.end(b)
    events = table.act(a, "cast", b, spell="meteor")
    assert any(e.outcome == "cancelled" for e in of(events, ev.ActionResolved))
    assert table.status(a, "preparing")["left"] == 1  # started afresh


def test_TC_10_a_spell_testing_another_stat_is_invalid() -> None:
    table = Table()
    with refused("rule_violation", "TC-10"):
        table.add("A", "a", tcs=[{"name": "x", "kind": "spell", "stat": "DEX"}])


# --- 3.2 criticals ------------------------------------------------------------------------


def test_TC_11_a_critical_success_doubles_the_damage() -> None:
    table, a, b = duel()
    events = table.act(a, "attack", b, [3])
    assert checks(events)[0].outcome == "critical_success" and table.res(b) == 20 - 12


def test_TC_AMB_1_critical_ranges_beat_the_threshold() -> None:
    table, a, b = duel(a={"DEX": 99})
    events = table.act(a, "attack", b, [97])
    assert checks(events)[0].outcome == "critical_failure"


def test_TC_12_TC_14_an_NPC_fumble_turns_the_damage_on_itself_without_a_table() -> None:
    table, a, b = duel()
    events = table.act(a, "attack", b, [98])
    assert len(of(events, ev.DieRolled)) == 1  # no d10 table roll
    assert table.res(a) == 20 - 6 and table.res(b) == 20


def test_TC_AMB_2_a_PC_fumble_falls_back_to_the_NPC_default() -> None:
    table, a, b = duel(a={"role": "PC"})
    table.act(a, "attack", b, [98])
    assert table.res(a) == 20 - 6


def test_TC_12_a_PC_fumble_rolls_on_the_GMs_d10_table_once_filled() -> None:
    entries = [f"effect {n}" for n in range(1, 11)]
    table, a, b = duel({"crit.table_d10": entries}, a={"role": "PC"})
    events = table.act(a, "attack", b, [97, 4], then={"action": "move"})
    fumbled = of(events, ev.ActionResolved)[0]
    assert (fumbled.detail["crit_table"], fumbled.detail["effect"]) == (4, "effect 4")
    assert table.res(a) == 20 and of(events, ev.ActionResolved)[-1].outcome == "cancelled"


def test_TC_AMB_2_a_PC_fumble_can_skip_the_missing_table() -> None:
    table, a, b = duel({"crit.pc_fallback": "none"}, a={"role": "PC"})
    table.act(a, "attack", b, [98])
    assert table.res(a) == 20


def test_TC_AMB_35_a_second_attack_on_a_fallen_target_is_void() -> None:
    table, a, b = duel()
    table.do(cmd.Adjust(combatant=b, resource="hp", delta=-19, reason="setup"))
    events = table.act(a, "attack", b, [10], then={"action": "attack", "target": b})
    void = of(events, ev.ActionResolved)[-1]
    assert (void.outcome, void.detail["rule"]) == ("void", "TC-AMB-35")
    assert table.out(b) == "out of combat"


def test_TC_13_a_critical_failure_cancels_the_second_action() -> None:
    table, a, b = duel()
    events = table.act(a, "attack", b, [99], then={"action": "attack", "target": b})
    cancelled = of(events, ev.ActionResolved)[-1]
    assert (cancelled.outcome, cancelled.detail["rule"]) == ("cancelled", "TC-13")
    assert len(of(events, ev.DieRolled)) == 1 and table.actor == b


# --- 3.3 situational modifiers ------------------------------------------------------------


def test_TC_16_an_encircled_target_is_10_easier_to_hit() -> None:
    table, a, b = duel(a={"DEX": 55})
    (check,) = checks(table.act(a, "attack", b, [65], encircled=True))
    assert check.threshold == 65 and check.modifiers[0].rule == "TC-16"
    assert check.outcome == "success"


@pytest.mark.parametrize(
    ("bonus", "face", "outcome"), [(10, 60, "success"), (10, 61, "failure"), (-20, 31, "failure")]
)
def test_TC_15_the_gm_grants_a_situational_bonus_or_malus(
    bonus: int, face: int, outcome: str
) -> None:
    table, a, b = duel(a={"DEX": 50})
    (check,) = checks(table.act(a, "attack", b, [face], situational=bonus))
    assert check.threshold == 50 + bonus and check.outcome == outcome
    assert [(m.source, m.delta, m.rule) for m in check.modifiers] == [
        ("situational (GM)", bonus, "TC-15")
    ]


def test_TC_15_a_situational_bonus_holds_beside_a_declared_second_action() -> None:
    table, a, b = duel(a={"DEX": 50, "PERC": 50, "weapons": [BOW, SWORD]})
    events = table.act(
        a,
        "attack",
        b,
        [65],
        situational=15,
        then={"action": "use_item", "options": {"weapon": "sword"}},
    )
    (check,) = checks(events)
    assert (check.threshold, check.outcome) == (65, "success")


def test_TC_15_only_the_gm_grants_it_and_a_refused_one_appends_nothing() -> None:
    table, a, b = duel()
    player = Principal(role="player", combatants=frozenset({a}))
    before = table.state.version
    with pytest.raises(Forbidden) as refusal:
        table.do(cmd.Act(actor=a, action="attack", target=b, options={"situational": 10}),
                 [10], who=player)  # fmt: skip
    assert (refusal.value.status, refusal.value.rule) == (403, "TC-15")
    with pytest.raises(Forbidden):  # nor hidden in the turn's second action
        table.do(
            cmd.Act(
                actor=a,
                action="attack",
                target=b,
                options={"then": {"action": "attack", "target": b, "options": {"situational": 10}}},
            ),
            [10],
            who=player,
        )
    assert table.state.version == before
    events = table.do(cmd.Act(actor=a, action="attack", target=b), [10], who=player)
    assert checks(events)[0].modifiers == []


@pytest.mark.parametrize("value", [101, -101, 2.5, "10"])
def test_TC_15_the_bonus_is_a_bounded_whole_number(value: object) -> None:
    table, a, b = duel()
    with pytest.raises(Invalid):
        table.act(a, "attack", b, [10], situational=value)


@pytest.mark.parametrize(("face", "ally_hit", "foe_hit"),
                         [(60, False, True), (61, True, False), (70, True, False),
                          (71, False, False)])  # fmt: skip
def test_TC_17_TC_63_friendly_fire_from_threshold_plus_1_to_plus_10(
    face: int, ally_hit: bool, foe_hit: bool
) -> None:
    table = Table(QUIET)
    archer = table.add("Archer", "a", PERC=60, weapons=[BOW])
    ally = table.add("Ally", "a", DEX=50)
    foe = table.add("Foe", "b", DEX=50)
    table.do(cmd.StartCombat(), [5, 10, 20])
    table.end(archer)
    table.act(ally, "attack", foe, [10])  # the ally is now in contact with the foe
    table.end(foe)
    table.act(archer, "attack", foe, [face])
    assert (table.res(ally) < 20, table.res(foe) < 14) == (ally_hit, foe_hit)


def test_TC_AMB_7_friendly_fire_counts_from_the_final_threshold() -> None:
    table = Table(QUIET)
    archer = table.add("Archer", "a", PERC=60, weapons=[BOW])
    ally = table.add("Ally", "a")
    foe = table.add("Foe", "b")
    table.do(cmd.StartCombat(), [5, 10, 20])
    table.end(archer)
    table.act(ally, "attack", foe, [10])
    table.end(foe)
    table.act(archer, "attack", foe, [75], encircled=True)  # threshold 70: 71..80
    assert table.res(ally) == 20 - 5


def test_TC_AMB_6_friendly_fire_picks_one_of_several_allies_at_random() -> None:
    table = Table(QUIET)
    archer = table.add("Archer", "a", PERC=60, weapons=[BOW])
    one, two = table.add("One", "a"), table.add("Two", "a")
    foe = table.add("Foe", "b", hp=60)
    table.do(cmd.StartCombat(), [5, 10, 15, 20])
    table.end(archer)
    table.act(one, "attack", foe, [10])
    table.act(two, "attack", foe, [10])
    table.end(foe)
    events = table.act(archer, "attack", foe, [65, 2])
    assert of(events, ev.DieRolled)[1].expr == "1d2"
    assert (table.res(one), table.res(two)) == (20, 15)


def test_TC_18_TC_64_a_long_shot_halves_the_threshold() -> None:
    table, a, b = duel(a={"PERC": 64, "weapons": [BOW]})
    (check,) = checks(table.act(a, "attack", b, [33], distance=45))
    assert (check.threshold, check.modifiers[-1].rule) == (32, "TC-18")
    assert check.outcome == "failure"


def test_TC_18_beyond_twice_the_base_range_is_refused() -> None:
    table, a, b = duel(a={"weapons": [BOW]})
    with refused("out_of_range", "TC-18"):
        table.act(a, "attack", b, distance=61)


# --- 3.4 inventory, 3.5 movement ----------------------------------------------------------


def test_TC_19_changing_weapons_costs_an_action() -> None:
    table, a, b = duel(a={"weapons": [SWORD, BOW]})
    then = {"action": "attack", "target": b}
    events = table.act(a, "use_item", None, [10], weapon="bow", then=then)
    assert len(of(events, ev.LimitUsed)) == 2
    assert checks(events)[0].stat == "PERC" and table.status(a, "weapon") == "bow"


def test_TC_20_a_potion_takes_two_actions_and_not_in_melee() -> None:
    potion = {"name": "potion", "heal": 5}
    table, a, b = duel(a={"items": [potion]}, b={"items": [potion]})
    table.do(cmd.Adjust(combatant=a, resource="hp", delta=-8, reason="wound"))
    events = table.act(a, "drink_potion")
    assert len(of(events, ev.LimitUsed)) == 3 and table.res(a) == 17  # 2 actions + the potion
    table.act(b, "attack", a, [90])  # a miss: no contact yet
    table.act(a, "attack", b, [10])
    with refused("rule_violation", "TC-20"):
        table.act(b, "drink_potion")


@pytest.mark.parametrize(("sprints", "metres", "energy"), [((2,), 5, 2), ((2, 2), 10, 4)])
def test_TC_21_TC_22_a_move_is_3_m_plus_a_sprint_at_1_NRJ_per_metre(
    sprints: tuple[int, ...], metres: int, energy: int
) -> None:
    table, a, _b = duel()
    then = {"action": "move", "options": {"sprint": sprints[1]}} if len(sprints) > 1 else None
    events = table.act(a, "move", sprint=sprints[0], then=then)
    moved = sum(e.detail["metres"] for e in of(events, ev.ActionResolved))
    assert (moved, 10 - table.res(a, "energy")) == (metres, energy)


def test_TC_22_a_sprint_needs_the_energy() -> None:
    table, a, _b = duel(a={"energy": 1})
    with refused("not_enough_energy", "TC-22"):
        table.act(a, "move", sprint=2)


def test_TC_23_moving_away_from_a_foe_in_contact_provokes_one_opportunity_attack() -> None:
    table, a, b = duel()
    table.act(a, "attack", b, [10])  # contact
    events = table.act(b, "move", None, [30], then={"action": "move"})
    aoo = [e for e in of(events, ev.ActionResolved) if e.action == "opportunity_attack"]
    assert len(aoo) == 1 and table.res(b) == 20 - 12
    assert table.status(b, "engaged") is None


def test_TC_23_a_missed_melee_attack_engages_too() -> None:
    table, a, b = duel()
    table.act(a, "attack", b, [90])  # a miss: A still faces B
    assert table.status(b, "engaged") == [a]
    events = table.act(b, "move", None, [10])
    aoo = [e for e in of(events, ev.ActionResolved) if e.action == "opportunity_attack"]
    assert len(aoo) == 1 and table.res(b) == 20 - 6


def test_TC_23_the_earlier_reading_engages_only_on_a_hit() -> None:
    table, a, b = duel({"aoo.engage_on": "hit"})
    table.act(a, "attack", b, [90])
    assert table.status(b, "engaged") is None
    assert not checks(table.act(b, "move"))


def test_TC_AMB_10_one_opportunity_attack_per_round() -> None:
    table = Table(QUIET)
    a, b, c = table.add("A", "a"), table.add("B", "b"), table.add("C", "b")
    table.do(cmd.StartCombat(), [10, 20, 30])
    table.act(a, "attack", b, [10, 10], then={"action": "attack", "target": c})
    first = table.act(b, "move", None, [90])  # A's opportunity attack (a miss)
    second = table.act(c, "move")  # A has none left this round
    assert (len(checks(first)), len(checks(second))) == (1, 0)
    table.act(a, "attack", b, [10])  # round 2: contact again, and the attack is back
    assert len(checks(table.act(b, "move", None, [90]))) == 1


# --- 3.6 prone and special actions --------------------------------------------------------


def _knocked_down(table: Table, cid: str) -> None:
    """Put `cid` prone through a last stand: 2 HP left, hit, END test passed."""
    table.do(cmd.Adjust(combatant=cid, resource="hp", delta=-18, reason="setup"))


def test_TC_24_a_prone_combatant_may_only_stand_up_or_flee() -> None:
    table, a, b = duel()
    _knocked_down(table, a)
    table.end(a)
    table.act(b, "attack", a, [10, 20])  # hit for 6 from 2 HP, last stand END 40 passed
    assert table.res(a) == 1 and table.status(a, "prone")
    with refused("rule_violation", "TC-24"):
        table.act(a, "attack", b)
    listed = {x["action"]: x for x in msgspec.to_builtins(RULES.legal(table.state.game, a, QUIET))}
    assert {k for k, x in listed.items() if x["enabled"]} == {"stand_up", "flee"}
    assert listed["attack"]["rule"] == "TC-24"


def test_TC_AMB_11_a_prone_bearer_loses_the_shield_dodge() -> None:
    shield = {"name": "buckler", "pr": 10, "dodge_melee": 10}
    table, a, b = duel(b={"shield": shield, "skill": {"shield_mastery": True}})
    _knocked_down(table, b)
    table.act(a, "attack", b, [10, 20])
    table.end(b)
    (check,) = checks(table.act(a, "attack", b, [60]))
    assert (check.threshold, check.modifiers, check.outcome) == (50, [], "failure")


def test_TC_25_standing_up_takes_two_actions_or_one_and_4_NRJ() -> None:
    table, a, b = duel()
    _knocked_down(table, a)
    table.end(a)
    table.act(b, "attack", a, [10, 20])
    with refused("budget_exhausted", "TC-6"):
        table.act(a, "stand_up", then={"action": "attack", "target": b})
    events = table.act(a, "stand_up", None, [10], fast=True, then={"action": "attack", "target": b})
    assert table.res(a, "energy") == 6 and not table.status(a, "prone")
    assert table.res(b) == 14 and len(checks(events)) == 1


def test_TC_26_focus_gives_10_to_the_next_TCS() -> None:
    table, a, b = duel()
    events = table.act(a, "focus", None, [60], then={"action": "attack", "target": b})
    (check,) = checks(events)
    assert check.threshold == 60 and check.modifiers[0].rule == "TC-26"
    assert table.status(a, "focus") is None


def test_TC_27_a_disengage_avoids_the_opportunity_attack_and_forbids_making_one() -> None:
    table, a, b = duel()
    table.act(a, "attack", b, [10])
    events = table.act(b, "disengage", then={"action": "move"})
    assert not of(events, ev.DieRolled) and table.status(b, "engaged") is None


# --- 3.7 last stand -----------------------------------------------------------------------


def test_TC_28_a_failed_last_stand_is_out_of_combat() -> None:
    table, a, b = duel()
    table.do(cmd.Adjust(combatant=b, resource="hp", delta=-15, reason="setup"))
    events = table.act(a, "attack", b, [10, 70])
    assert checks(events)[1].stat == "END" and table.res(b) == 0
    assert of(events, ev.CombatantDefeated)[0].rule == "TC-28"


def test_TC_28_TC_68_no_last_stand_from_1_HP() -> None:
    table, a, b = duel()
    table.do(cmd.Adjust(combatant=b, resource="hp", delta=-19, reason="setup"))
    events = table.act(a, "attack", b, [10])
    assert len(checks(events)) == 1 and table.out(b) == "out of combat"


# --- 3.9 weapons --------------------------------------------------------------------------


def test_TC_38_an_attack_needs_a_weapon() -> None:
    table, a, b = duel(a={"weapons": []})
    with refused("rule_violation", "TC-38"):
        table.act(a, "attack", b)


# --- sheets -------------------------------------------------------------------------------


@pytest.mark.parametrize("preset", sorted(RULES.presets))
def test_every_preset_is_a_valid_sheet(preset: str) -> None:
    sheet = RULES.validate_sheet(RULES.presets[preset], {})
    assert sheet.resources and all(v >= 0 for v in sheet.resources.values())


def test_TC_50_TC_66_a_leather_cuirass_needs_30_END() -> None:
    leather = RULES.presets["leather_cuirass"]
    assert RULES.validate_sheet(leather, {}).sheet["armor"]["end_required"] == 30
    with pytest.raises(RuleViolation) as err:
        RULES.validate_sheet({**leather, "END": 29}, {})
    assert err.value.rule == "TC-50"
    borne = RULES.validate_sheet({**leather, "END": 20, "skill": {"armor_bearing": 10}}, {})
    assert borne.sheet["END"] == 20  # Armor Bearing counts for the load only


def test_TC_AMB_23_the_END_check_is_a_setting() -> None:
    leather = {**RULES.presets["leather_cuirass"], "END": 5}
    with pytest.raises(RuleViolation):
        RULES.validate_sheet(leather, {})
    allowed = RULES.validate_sheet(leather, {"armor.end_check": "allow"})
    assert allowed.sheet["END"] == 5


def test_TC_51_an_armor_may_require_an_under_protection() -> None:
    cuirass = {**RULES.presets["gambeson_cuirass"]}
    del cuirass["under"]
    with pytest.raises(RuleViolation) as err:
        RULES.validate_sheet(cuirass, {})
    assert err.value.rule == "TC-51"


def test_TC_53_TC_66_gambeson_and_cuirass_need_90_END_and_give_5_PP() -> None:
    sheet = RULES.validate_sheet(RULES.presets["gambeson_cuirass"], {}).sheet
    assert sheet["armor"]["end_required"] + sheet["under"]["end_required"] == 90
    assert sheet["armor"]["levels"][0]["pp"] + sheet["under"]["pp"] == 5
    with pytest.raises(RuleViolation):
        RULES.validate_sheet({**RULES.presets["gambeson_cuirass"], "END": 89}, {})


def test_TC_56_a_shield_needs_Shield_Mastery() -> None:
    with pytest.raises(RuleViolation) as err:
        RULES.validate_sheet({**RULES.presets["shield_bearer"], "skill": {}}, {})
    assert err.value.rule == "TC-56"


def test_TC_59_upkeep_above_MM_releases_every_maintained_spell() -> None:
    spells = [{"name": "ward", "upkeep": 20}, {"name": "light", "upkeep": 15}]
    ok = RULES.validate_sheet({**RULES.presets["mage"], "MM": 35, "maintained": spells}, {})
    over = RULES.validate_sheet({**RULES.presets["mage"], "MM": 34, "maintained": spells}, {})
    assert (len(ok.sheet["maintained"]), over.sheet["maintained"]) == (2, [])


def test_TC_60_magic_items_beyond_natural_MM_are_flagged() -> None:
    items = [{"name": "ring", "mm_req": 40}, {"name": "amulet", "mm_req": 30}]
    sheet = RULES.validate_sheet({**RULES.presets["mage"], "items": items}, {}).sheet
    assert sheet["mm_overload"] is True


def test_unknown_sheet_fields_are_invalid() -> None:
    with pytest.raises(Invalid):
        RULES.validate_sheet({"DEX": 50, "END": 50, "hp": 10, "STR": 3}, {})


# --- proposed defaults that are settings --------------------------------------------------


def test_TC_27_a_disengaged_combatant_makes_no_opportunity_attack() -> None:
    table, a, b = duel()
    table.act(a, "attack", b, [10])
    table.act(b, "attack", a, [10], then={"action": "disengage"})
    events = table.act(a, "move")
    assert not of(events, ev.DieRolled) and table.res(a) == 14


def test_TC_AMB_3_an_unused_focus_lapses_after_the_next_turn() -> None:
    table, a, b = duel()
    table.act(a, "move", then={"action": "focus"})
    assert table.status(a, "focus") is not None
    table.end(b)
    table.act(a, "move")
    assert table.status(a, "focus") is None


def test_TC_AMB_12_NPCs_may_be_denied_the_last_stand() -> None:
    table, a, b = duel({"last_stand.npc": False}, b={"role": "NPC"})
    table.do(cmd.Adjust(combatant=b, resource="hp", delta=-15, reason="setup"))
    events = table.act(a, "attack", b, [10])
    assert len(checks(events)) == 1 and table.out(b) == "out of combat"


def test_TC_AMB_30_drinking_in_melee_is_a_setting() -> None:
    potion = {"name": "potion", "heal": 5}
    table, a, b = duel({"potion.drink_in_melee": True}, b={"items": [potion]})
    table.act(a, "attack", b, [10])
    table.act(b, "drink_potion")
    assert table.res(b) == 19


def test_every_setting_default_is_accepted_and_names_its_rule() -> None:
    from domain.encounter import check_settings

    defaults = {k: s.default for k, s in RULES.settings.items()}
    assert check_settings(RULES, defaults) == defaults
    assert all(s.rule and s.rule.startswith("TC-") for s in RULES.settings.values())


def test_legal_lists_each_action_with_its_rule_targets_and_choices() -> None:
    table, a, b = duel(a={"tcs": [{"name": "lunge"}]})
    listed = {x["action"]: x for x in msgspec.to_builtins(RULES.legal(table.state.game, a, {}))}
    assert set(listed) == set(RULES.actions)
    attack = listed["attack"]
    assert (attack["enabled"], attack["targets"], attack["rule"]) == (True, [b], "TC-8")
    assert attack["choices"]["tcs"] == ["lunge"]
    assert (listed["stand_up"]["enabled"], listed["stand_up"]["rule"]) == (False, "TC-25")
    theirs = msgspec.to_builtins(RULES.legal(table.state.game, b, {}))
    assert not any(x["enabled"] for x in theirs)


def test_a_whole_fight_runs_through_decide_to_a_defeat() -> None:
    table = Table()
    a = table.add("Duelist", "a", preset="duelist")
    b = table.add("Spearman", "b", preset="spearman")
    table.do(cmd.StartCombat(), [8, 79])  # TC-61: the 8 acts first
    twice = {"action": "attack", "target": b}
    table.act(a, "attack", b, [20, 30], then=twice)
    assert table.res(b) == 22 - 12
    events = table.act(b, "attack", a, [90, 40, 90, 40], then={"action": "attack", "target": a})
    assert table.res(a) == 20 - 4  # the spear's X against an unarmored target (TC-39)
    assert of(events, ev.InitiativeSet)[0].order == [b, a]  # round 2: 40 before 90
    table.act(b, "move", None, [70])  # leaving contact: the duelist's opportunity attack
    assert table.actor == a
    events = table.act(a, "attack", b, [10, 20, 80], then=twice)  # 4 HP: last stand fails
    assert of(events, ev.CombatantDefeated)[0].rule == "TC-28"
    assert table.out(b) == "out of combat" and table.actor is None
