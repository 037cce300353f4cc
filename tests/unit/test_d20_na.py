"""d20-na through the encounter decider: given a table, when a command, then the events.

Each test is named after the rule id it checks (NA-n, NA-AMB-n). Dice are FixedRoller
faces in the order the engine asks for them: attack d20, defense d20 (and a shield
reroll), then location d20 and the weapon dice.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import msgspec
import pytest

from domain import commands as cmd
from domain import events as ev
from domain.encounter import open_encounter
from domain.errors import Refused
from domain.rules import REGISTRY
from domain.state import GM, Principal
from tests.unit.encounter_table import EncounterTable

RULES = REGISTRY["d20-na"]
SWORD = {"name": "sword", "dmg": 5, "parry": 6}


def sheet(**over: Any) -> dict[str, Any]:
    """A plain fighter: no dice on the weapon, so only d20s are rolled for it."""
    base: dict[str, Any] = {
        "STR": 10, "END": 5, "HAB": 10, "ATT": 12, "PAR": 10, "TIR": 10, "NA": 1,
        "INI": 5, "hp": 100, "weapons": [SWORD],
    }  # fmt: skip
    return base | over


class Table(EncounterTable):
    """An encounter under d20-na, fed commands one at a time."""

    ruleset = "d20-na"

    def add(self, name: str, side: str, preset: str | None = None, **fields: Any) -> str:
        sheet_ = fields if preset else sheet(**fields)
        self.do(cmd.AddCombatant(name=name, side=side, sheet=sheet_, preset=preset))
        return f"c{self.state.game.added}"

    def start(self, faces: Sequence[int] = ()) -> list[ev.Event]:
        return self.do(cmd.StartCombat(), faces)

    def act(self, actor: str, action: str, target: str | None = None, faces: Sequence[int] = (),
            who: Principal = GM, **options: Any) -> list[ev.Event]:  # fmt: skip
        return self.do(cmd.Act(actor=actor, action=action, target=target, options=options),
                       faces, who)  # fmt: skip

    def react(self, actor: str, reaction: str, faces: Sequence[int] = (), **options: Any
              ) -> list[ev.Event]:  # fmt: skip
        return self.do(cmd.React(actor=actor, reaction=reaction, options=options), faces)

    def end(self, actor: str) -> list[ev.Event]:
        return self.do(cmd.EndTurn(actor=actor))

    def hp(self, cid: str) -> int:
        return self.state.game.combatants[cid].resources["hp"]

    def budget(self, cid: str) -> int:
        return int(self.state.game.combatants[cid].status.get("budget", 0))

    @property
    def actor(self) -> str | None:
        return self.state.game.actor


def duel(settings: dict[str, Any] | None = None, a: dict[str, Any] | None = None,
         b: dict[str, Any] | None = None) -> tuple[Table, str, str]:  # fmt: skip
    """A (INI 10) against B (INI 5), started: A has the first slot."""
    table = Table(settings)
    first = table.add("A", "a", **({"INI": 10} | (a or {})))
    second = table.add("B", "b", **(b or {}))
    table.start()
    return table, first, second


def of(events: list[ev.Event], kind: type[ev.Event]) -> list[Any]:
    return [e for e in events if isinstance(e, kind)]


def refused(code: str, rule: str | None) -> Any:
    class Check:
        def __enter__(self) -> None:
            return None

        def __exit__(self, kind: Any, exc: Any, tb: Any) -> bool:
            assert isinstance(exc, Refused), f"expected Refused({code}), got {exc!r}"
            assert (exc.code, exc.rule) == (code, rule), (exc.code, exc.rule, exc.message)
            return True

    return Check()


# --- 3.1 rounds and the budget ----------------------------------------------------------


def test_NA_1_one_action_is_two_half_actions() -> None:
    table, a, _ = duel()
    table.act(a, "move")
    table.act(a, "draw")
    assert table.budget(a) == 1  # 3 - 1 - 1, as one attack would have left it


@pytest.mark.parametrize(("na", "units"), [(0, 1), (1, 3), (3, 7)])
def test_NA_2_the_round_budget_is_NA_plus_a_half(na: int, units: int) -> None:
    table, a, _ = duel(a={"NA": na})
    assert table.budget(a) == units


def test_NA_2_an_action_with_no_budget_left_is_refused() -> None:
    table, a, _ = duel(a={"NA": 0})
    with refused("budget_exhausted", "NA-2"):
        table.act(a, "attack", "c2", [20])


def test_NA_3_the_round_ends_when_both_budgets_are_spent() -> None:
    table, a, b = duel()
    table.act(a, "attack", b, [5])
    table.react(b, "dodge", [20, 15])  # dodge fails; location torso
    events = table.act(b, "attack", a, [5])
    assert not of(events, ev.RoundStarted)
    events = table.react(a, "dodge", [20, 15])
    assert [e.round for e in of(events, ev.RoundStarted)] == [2]
    assert table.budget(a) == table.budget(b) == 3


def test_NA_4_the_higher_INI_starts_without_a_roll() -> None:
    table = Table()
    table.add("slow", "a", INI=3)
    table.add("fast", "b", INI=9)
    events = table.start()
    assert not of(events, ev.DieRolled)
    assert of(events, ev.InitiativeSet)[0].order == ["c2", "c1"]
    assert table.actor == "c2"


def test_NA_AMB_24_INI_ties_go_to_HAB_then_a_roll_off() -> None:
    table = Table()
    table.add("low", "a", INI=5, HAB=8)
    table.add("high", "b", INI=5, HAB=12)
    table.add("twin", "b", INI=5, HAB=8)
    events = table.start([4, 17])
    assert of(events, ev.InitiativeSet)[0].order == ["c2", "c3", "c1"]


def test_NA_5_NA_41_turn_order_P2_P1_P2_P2_in_both_rounds() -> None:
    table = Table()
    p1 = table.add("Player 1", "a", NA=1, INI=5)
    p2 = table.add("Player 2", "b", NA=3, INI=10)
    table.start()
    order: dict[int, list[str]] = {1: [], 2: []}
    while table.state.game.round <= 2:
        actor = table.actor
        assert actor is not None
        if table.budget(actor) < 2:
            table.end(actor)  # the spare half-action: passed (NA-AMB-3)
            continue
        order[table.state.game.round].append(actor)
        table.act(actor, "attack", p1 if actor == p2 else p2, [20])  # a miss (NA-12)
    assert order == {1: [p2, p1, p2, p2], 2: [p2, p1, p2, p2]}


def test_NA_6_full_actions_cost_two_half_actions() -> None:
    for action in ("attack", "touch", "grapple", "trip"):
        table, a, b = duel(a={"NA": 2})
        table.act(a, action, b, [20])
        assert table.budget(a) == 3, action


def test_NA_6_NA_7_the_first_parry_costs_a_half_action_the_next_ones_a_full_one() -> None:
    table, a, b = duel(a={"NA": 3}, b={"NA": 3})
    table.act(a, "attack", b, [5])
    table.react(b, "parry", [1, 15])
    assert table.budget(b) == 6
    table.end(b)  # B passes its slots, keeps its budget for parries
    table.act(a, "attack", b, [5])
    table.react(b, "parry", [1, 15])
    assert table.budget(b) == 4


@pytest.mark.parametrize("action", ["draw", "disengage", "move", "pick_up"])
def test_NA_7_half_actions_cost_one(action: str) -> None:
    table, a, _ = duel()
    table.act(a, action)
    assert table.budget(a) == 2 and table.actor == a  # the slot goes on: one more half


def test_NA_AMB_3_two_half_actions_end_the_slot() -> None:
    table, a, b = duel(a={"NA": 2})
    table.act(a, "move")
    events = table.act(a, "draw")
    assert of(events, ev.TurnEnded)[0].actor == a and table.actor == b


def test_NA_AMB_3_a_slot_is_one_action_or_two_halves() -> None:
    table, a, b = duel(a={"NA": 2})
    table.act(a, "move")
    with refused("rule_violation", "NA-AMB-3"):
        table.act(a, "attack", b, [5])


def test_NA_AMB_3_a_passed_actor_gets_no_more_slots_but_may_still_defend() -> None:
    table, a, b = duel(b={"NA": 2})
    table.act(a, "pass")
    table.act(b, "attack", a, [20])
    assert table.actor == b  # A passed: B takes the rest in a row (NA-5)
    table.act(b, "attack", a, [5])
    table.react(a, "parry", [1, 15])
    assert table.budget(a) == 2


# --- charge, parry, dodge -----------------------------------------------------------------


def test_NA_8_NA_48_a_charge_gives_plus_2_on_that_attack_only() -> None:
    table, a, b = duel(a={"NA": 3})
    table.act(a, "charge", b)
    events = table.act(a, "attack", b, [14])  # ATT 12 + 2 hits on 14
    roll = of(events, ev.DieRolled)[0]
    assert roll.check.threshold == 14 and roll.check.outcome == "success"
    table.react(b, "none", [15])
    table.end(b)
    events = table.act(a, "attack", b, [14])
    assert of(events, ev.DieRolled)[0].check.outcome == "failure"


def test_NA_8_no_charge_while_engaged_in_melee() -> None:
    table, a, b = duel(a={"NA": 3})
    table.act(a, "attack", b, [20])
    table.end(b)
    with refused("rule_violation", "NA-8"):
        table.act(a, "charge", b)


def test_NA_8_disengaging_allows_a_charge_again() -> None:
    table, a, b = duel(a={"NA": 3})
    table.act(a, "attack", b, [20])
    table.end(b)
    table.act(a, "disengage")
    table.end(a)
    events = table.act(a, "charge", b)  # slots of a passed B go to A in a row
    declared = [e for e in events if isinstance(e, ev.ActionDeclared)]
    assert [(e.actor, e.action, e.target) for e in declared] == [(a, "charge", b)]


def test_NA_AMB_9_a_charge_must_be_followed_by_its_attack() -> None:
    table, a, b = duel(a={"NA": 3})
    table.act(a, "charge", b)
    with refused("rule_violation", "NA-AMB-9"):
        table.act(a, "move")


def test_NA_AMB_9_a_charge_needs_budget_for_its_attack() -> None:
    table, a, b = duel(a={"NA": 1})
    table.act(a, "move")
    table.end(a)
    table.end(b)
    with refused("budget_exhausted", "NA-AMB-9"):
        table.act(a, "charge", b)


def test_NA_9_a_successful_parry_takes_off_the_weapon_parry_value() -> None:
    table, a, b = duel()
    table.act(a, "attack", b, [10])  # margin 2
    events = table.react(b, "parry", [2, 15])  # margin 8 wins; torso
    assert of(events, ev.ReactionResolved)[0].outcome == "parried"
    assert table.hp(b) == 100 - (20 + 5 - 5 - 0 - 6)


def test_NA_9_NA_AMB_7_a_shield_rerolls_a_failed_parry_once() -> None:
    table, a, b = duel(b={"shield": {"name": "buckler", "parry": 9}})
    table.act(a, "attack", b, [10])
    events = table.react(b, "parry", [19, 1, 15])
    rolls = of(events, ev.DieRolled)
    assert [r.purpose for r in rolls] == ["parry", "shield reroll", "hit location"]
    assert table.hp(b) == 100 - (20 + 5 - 5 - 9)


def test_NA_AMB_7_the_reroll_stands_even_if_it_fails_again() -> None:
    table, a, b = duel(b={"shield": {"name": "buckler", "parry": 9}})
    table.act(a, "attack", b, [10])
    events = table.react(b, "parry", [19, 18, 15])
    assert of(events, ev.ReactionResolved)[0].outcome == "hit"


def test_NA_10_a_dodge_cancels_all_damage() -> None:
    table, a, b = duel(b={"skills": {"dodge": True}})
    table.act(a, "attack", b, [10])
    events = table.react(b, "dodge", [3])
    assert of(events, ev.ReactionResolved)[0].damage_taken == 0 and table.hp(b) == 100


def test_NA_10_NA_AMB_5_without_the_skill_the_dodge_is_on_HAB_over_2() -> None:
    table, a, b = duel(b={"HAB": 11})
    table.act(a, "attack", b, [12])  # margin 0
    events = table.react(b, "dodge", [6, 15])  # 6 > 5: fails
    check = of(events, ev.DieRolled)[0].check
    assert (check.base, check.threshold, check.outcome) == (11, 5, "failure")
    assert check.modifiers[0].rule == "NA-10"


# --- hitting and defending ----------------------------------------------------------------


def test_NA_11_the_attack_hits_on_d20_at_or_under_ATT() -> None:
    table, a, b = duel()
    events = table.act(a, "attack", b, [12])
    assert of(events, ev.DieRolled)[0].check.outcome == "success"
    assert of(events, ev.ReactionAwaited)


def test_NA_12_a_missed_attack_needs_no_defense_roll() -> None:
    table, a, b = duel()
    events = table.act(a, "attack", b, [13])
    assert of(events, ev.ActionResolved)[0].outcome == "miss"
    assert not of(events, ev.ReactionAwaited) and table.actor == b


def test_NA_13_the_defender_chooses_parry_or_dodge() -> None:
    table, a, b = duel()
    events = table.act(a, "attack", b, [5])
    assert of(events, ev.ReactionAwaited)[0].options == ["parry", "dodge", "none"]


@pytest.mark.parametrize(
    ("reaction", "faces", "outcome", "damage"),
    [("dodge", [1], "dodged", 0), ("parry", [1, 15], "parried", 14),
     ("parry", [20, 15], "hit", 20), ("none", [15], "hit", 20)],
)  # fmt: skip
def test_NA_14_defense_outcomes(reaction: str, faces: list[int], outcome: str, damage: int) -> None:
    table, a, b = duel(b={"skills": {"dodge": True}})
    table.act(a, "attack", b, [12])
    resolved = of(table.react(b, reaction, faces), ev.ReactionResolved)[0]
    assert (resolved.outcome, resolved.damage_taken) == (outcome, damage)


def test_NA_15_NA_42_larger_margin_prevails() -> None:
    table, a, b = duel(b={"PAR": 10})
    table.act(a, "attack", b, [8])  # ATT 12: margin 4
    resolved = of(table.react(b, "parry", [7, 15]), ev.ReactionResolved)[0]  # margin 3
    assert resolved.outcome == "hit" and resolved.damage_taken == 20


def test_NA_15_a_better_defense_margin_wins() -> None:
    table, a, b = duel(b={"PAR": 10})
    table.act(a, "attack", b, [10])  # margin 2
    resolved = of(table.react(b, "parry", [7, 15]), ev.ReactionResolved)[0]  # margin 3
    assert resolved.outcome == "parried"


def test_NA_AMB_2_a_tie_goes_to_the_attacker_by_default() -> None:
    table, a, b = duel(b={"PAR": 10})
    table.act(a, "attack", b, [9])  # margin 3
    assert of(table.react(b, "parry", [7, 15]), ev.ReactionResolved)[0].outcome == "hit"


def test_NA_AMB_2_settings_give_ties_to_the_defender_and_keep_the_parry_value() -> None:
    table, a, b = duel({"differential.tie": "defender"}, b={"PAR": 10})
    table.act(a, "attack", b, [9])
    assert of(table.react(b, "parry", [7, 15]), ev.ReactionResolved)[0].outcome == "parried"
    table, a, b = duel({"differential.attack_prevails": "parry_still_reduces"}, b={"PAR": 10})
    table.act(a, "attack", b, [5])
    assert of(table.react(b, "parry", [7, 15]), ev.ReactionResolved)[0].damage_taken == 14


def test_NA_AMB_1_the_lt_setting_makes_a_roll_equal_to_the_stat_fail() -> None:
    table, a, b = duel({"test.success_cmp": "lt"})
    events = table.act(a, "attack", b, [12])
    assert of(events, ev.ActionResolved)[0].outcome == "miss"


def test_NA_16_a_natural_1_has_no_special_effect() -> None:
    table, a, b = duel(a={"ATT": 3}, b={"PAR": 18})
    table.act(a, "attack", b, [1])  # margin 2
    events = table.react(b, "parry", [10, 15])  # margin 8: the 1 does not win by itself
    assert of(events, ev.DieRolled)[0].check.outcome == "success"
    assert of(events, ev.ReactionResolved)[0].outcome == "parried"


def test_NA_AMB_4_a_fourth_parry_in_a_round_is_refused() -> None:
    table, a, b = duel(a={"NA": 4}, b={"NA": 3, "skills": {"dodge": True}})
    table.act(a, "attack", b, [5])
    table.react(b, "parry", [1, 15])
    table.end(b)  # B passes
    for _ in range(2):
        table.act(a, "attack", b, [5])
        table.react(b, "parry", [1, 15])
    table.act(a, "attack", b, [5])
    with refused("limit_reached", "NA-AMB-4"):
        table.react(b, "parry", [1])
    assert of(table.react(b, "dodge", [1]), ev.ReactionResolved)[0].outcome == "dodged"


def test_NA_AMB_3_a_defender_who_cannot_pay_cannot_defend() -> None:
    table, a, b = duel(a={"NA": 2})
    table.act(a, "attack", b, [5])
    table.react(b, "parry", [20, 15])  # B: 2 left
    table.act(b, "attack", a, [20])  # B: 0 left
    events = table.act(a, "attack", b, [5, 15])
    assert not of(events, ev.ReactionAwaited)
    assert of(events, ev.ActionResolved)[0].detail["undefended"] == "NA-AMB-3"


# --- two weapons ----------------------------------------------------------------------------


DAGGER = {"name": "dagger", "dmg": 2}


def test_NA_17_two_weapons_reroll_a_failed_attack_at_minus_4_with_the_off_hand() -> None:
    table, a, b = duel(a={"weapons": [SWORD, DAGGER], "off_hand": "dagger"})
    events = table.act(a, "attack", b, [15, 8])
    rolls = of(events, ev.DieRolled)
    assert [r.check.threshold for r in rolls] == [12, 8]
    assert of(events, ev.ActionResolved)[0].detail["weapon"] == "dagger"
    assert of(events, ev.ActionResolved)[0].detail["threshold"] == 8
    table.react(b, "none", [15])
    assert table.hp(b) == 100 - (20 + 2 - 5)


def test_NA_17_the_reroll_can_fail_too() -> None:
    table, a, b = duel(a={"weapons": [SWORD, DAGGER], "off_hand": "dagger"})
    events = table.act(a, "attack", b, [15, 9])
    assert of(events, ev.ActionResolved)[0].outcome == "miss"


def test_NA_18_Ambidextrie_cancels_the_off_hand_malus() -> None:
    table, a, b = duel(
        a={"weapons": [SWORD, DAGGER], "off_hand": "dagger", "skills": {"ambidextrous": True}}
    )
    events = table.act(a, "attack", b, [15, 12])
    assert of(events, ev.DieRolled)[1].check.threshold == 12


def test_NA_19_a_two_handed_weapon_with_a_shield_is_invalid() -> None:
    table = Table()
    bow = {"name": "bow", "kind": "shoot", "dmg": 8, "two_handed": True}
    with refused("rule_violation", "NA-19"):
        table.add("archer", "a", weapons=[bow], shield={"name": "buckler", "parry": 3})


def test_NA_19_two_two_handed_weapons_are_invalid() -> None:
    staff = {"name": "staff", "dmg": 4, "two_handed": True}
    claymore = {"name": "claymore", "dmg": 12, "two_handed": True}
    with refused("rule_violation", "NA-19"):
        Table().add("greedy", "a", weapons=[staff, claymore])


def test_NA_19_no_off_hand_weapon_with_a_shield() -> None:
    with refused("rule_violation", "NA-19"):
        Table().add("x", "a", weapons=[SWORD, DAGGER], off_hand="dagger",
                    shield={"name": "s", "parry": 2})  # fmt: skip


# --- attacks that cannot be defended --------------------------------------------------------


@pytest.mark.parametrize("flag", ["sneak", "from_back"])
def test_NA_20_sneak_attacks_and_attacks_from_behind_cannot_be_defended(flag: str) -> None:
    table, a, b = duel()
    flags: dict[str, Any] = {flag: True}
    events = table.act(a, "attack", b, [5, 15], **flags)
    assert not of(events, ev.ReactionAwaited)
    assert of(events, ev.ActionResolved)[0].detail["undefended"] == "NA-20"
    assert table.hp(b) == 100 - 20


def test_NA_AMB_11_a_blow_from_behind_lands_on_the_back() -> None:
    table, a, b = duel(b={"armor": {"torso": 3, "back": 1}})
    events = table.act(a, "attack", b, [5, 15], from_back=True)
    assert of(events, ev.ActionResolved)[0].detail["zone"] == "back"
    assert table.hp(b) == 100 - 19


def test_NA_AMB_21_only_the_GM_says_an_attack_is_a_sneak_attack() -> None:
    table, a, b = duel()
    player = Principal("player", frozenset({a}), "p")
    with refused("forbidden", "NA-AMB-21"):
        table.act(a, "attack", b, [5], who=player, sneak=True)


BOW = {"name": "bow", "kind": "shoot", "dmg": 10, "range_band_m": 30, "two_handed": True}


def test_NA_20_an_arrow_against_a_target_without_shield_cannot_be_defended() -> None:
    table, a, b = duel(a={"weapons": [BOW]})
    events = table.act(a, "shoot", b, [5, 15], distance=10)
    assert not of(events, ev.ReactionAwaited)
    assert table.hp(b) == 100 - (10 - 5)


# --- location -------------------------------------------------------------------------------


def test_NA_21_NA_22_the_location_die_picks_the_zone_and_its_armor() -> None:
    table, a, b = duel(b={"armor": {"arm_left": 4, "arm_right": 1}})
    table.act(a, "attack", b, [5])
    resolved = of(table.react(b, "none", [4]), ev.ReactionResolved)[0]
    assert resolved.detail["zone"] == "arm_left" and resolved.damage_taken == 20 - 4


def test_NA_23_a_head_hit_deals_no_extra_damage() -> None:
    table, a, b = duel()
    table.act(a, "attack", b, [5])
    resolved = of(table.react(b, "none", [1]), ev.ReactionResolved)[0]
    assert resolved.detail["zone"] == "head" and resolved.damage_taken == 20


@pytest.mark.parametrize(("zone", "threshold"), [("leg_left", 10), ("torso", 10), ("head", 8),
                                                 ("hand_right", 8)])  # fmt: skip
def test_NA_24_aiming_costs_2_or_4_ATT_and_skips_the_location_roll(
    zone: str, threshold: int
) -> None:
    table, a, b = duel()
    events = table.act(a, "attack", b, [1], aim=zone)
    assert of(events, ev.DieRolled)[0].check.threshold == threshold
    resolved = of(table.react(b, "none", []), ev.ReactionResolved)[0]
    assert resolved.detail["zone"] == zone


@pytest.mark.parametrize(("level", "threshold"), [(1, 9), (2, 10), (3, 12)])
def test_NA_25_Coup_Precis_reduces_the_head_malus(level: int, threshold: int) -> None:
    table, a, b = duel(a={"skills": {"precise_strike": level}})
    events = table.act(a, "attack", b, [20], aim="head")
    assert of(events, ev.DieRolled)[0].check.threshold == threshold


def test_NA_47_Coup_Precis_3_on_a_leg_gives_no_bonus() -> None:
    table, a, b = duel(a={"skills": {"precise_strike": 3}})
    events = table.act(a, "attack", b, [20], aim="leg_left")
    assert of(events, ev.DieRolled)[0].check.threshold == 12


def test_NA_AMB_10_an_unaimed_blow_has_no_malus_by_default_but_can_be_set() -> None:
    table, a, b = duel({"location.unaimed_malus": 2})
    events = table.act(a, "attack", b, [20])
    assert of(events, ev.DieRolled)[0].check.threshold == 10


# --- damage ---------------------------------------------------------------------------------


def test_NA_26_unparried_damage() -> None:
    table, a, b = duel(b={"armor": {"torso": 2}})
    table.act(a, "attack", b, [5])
    resolved = of(table.react(b, "none", [15]), ev.ReactionResolved)[0]
    terms = [(t["name"], t["sign"] * t["times"] * t["value"]) for t in resolved.detail["terms"]]
    assert terms == [("FOR", 20), ("weapon", 5), ("END", -5), ("armor", -2)]
    assert table.hp(b) == 82


def test_NA_27_parried_damage_subtracts_the_parry_value() -> None:
    table, a, b = duel(b={"armor": {"torso": 2}})
    table.act(a, "attack", b, [10])
    table.react(b, "parry", [1, 15])
    assert table.hp(b) == 100 - (20 + 5 - 5 - 2 - 6)


def test_NA_28_unarmed_weapon_damage_is_0() -> None:
    table, a, b = duel(a={"weapons": []})
    table.act(a, "attack", b, [5])
    table.react(b, "none", [15])
    assert table.hp(b) == 100 - (20 - 5)


def test_NA_AMB_20_a_hit_never_heals() -> None:
    table, a, b = duel(a={"STR": 0, "weapons": []}, b={"END": 9})
    table.act(a, "attack", b, [5])
    resolved = of(table.react(b, "none", [15]), ev.ReactionResolved)[0]
    assert resolved.damage_taken == 0 and table.hp(b) == 100


# --- ranged ---------------------------------------------------------------------------------

SHIELD = {"name": "shield", "parry": 8}


def test_NA_29_ranged_attacks_roll_TIR() -> None:
    table, a, b = duel(a={"weapons": [BOW], "TIR": 7})
    events = table.act(a, "shoot", b, [7, 15])
    check = of(events, ev.DieRolled)[0].check
    assert (check.stat, check.threshold, check.outcome) == ("TIR", 7, "success")


def test_NA_30_the_range_malus_lowers_TIR_per_band() -> None:
    table, a, b = duel(a={"weapons": [BOW]})
    events = table.act(a, "shoot", b, [20], distance=65)
    check = of(events, ev.DieRolled)[0].check
    assert check.threshold == 6 and check.modifiers[0].rule == "NA-30"


def test_NA_30_the_range_malus_is_named_range_malus_and_old_events_still_read() -> None:
    from domain.rules.d20_na.attack import range_malus

    table, a, b = duel(a={"weapons": [BOW], "TIR": 20})
    events = table.act(a, "shoot", b, [1], distance=65, aim="torso")
    check = of(events, ev.DieRolled)[0].check
    assert [(m.rule, m.delta) for m in check.modifiers] == [("NA-33", -2), ("NA-30", -4)]
    detail = of(events, ev.ActionResolved)[-1].detail
    assert detail["range_malus"] == detail["malus"] == 4  # the range malus alone
    assert range_malus(detail) == 4
    assert range_malus({"malus": 3}) == 3  # an attack stored before `range_malus`


def test_NA_31_a_shooting_weapon_cannot_strike_in_melee() -> None:
    table, a, b = duel(a={"weapons": [BOW]})
    with refused("rule_violation", "NA-31"):
        table.act(a, "attack", b, [5], weapon="bow")


def test_NA_31_NA_AMB_18_a_thrown_weapon_joins_the_melee_with_melee_rules() -> None:
    axe = {"name": "axe", "kind": "throw", "dmg": 6}
    table, a, b = duel(a={"weapons": [axe]})
    table.act(a, "attack", b, [5])
    table.react(b, "none", [15])
    assert table.hp(b) == 100 - (20 + 6 - 5)


def test_NA_32_a_ranged_attack_cannot_be_dodged() -> None:
    table, a, b = duel(a={"weapons": [BOW]}, b={"shield": SHIELD, "skills": {"dodge": True}})
    events = table.act(a, "shoot", b, [5])
    assert of(events, ev.ReactionAwaited)[0].options == ["parry", "none"]
    with refused("rule_violation", "NA-32"):
        table.react(b, "dodge", [1])


def test_NA_32_NA_36_a_shield_parry_at_PAR_over_2_stops_the_projectile() -> None:
    table, a, b = duel(a={"weapons": [BOW]}, b={"shield": SHIELD, "PAR": 9})
    table.act(a, "shoot", b, [9])  # TIR 10: margin 1
    events = table.react(b, "parry", [2])  # PAR/2 = 4: margin 2
    check = of(events, ev.DieRolled)[0].check
    assert check.threshold == 4 and check.modifiers[0].rule == "NA-32"
    resolved = of(events, ev.ReactionResolved)[0]
    assert (resolved.outcome, resolved.damage_taken) == ("stopped", 0)


def test_NA_AMB_17_a_projectile_parry_must_win_the_differential() -> None:
    table, a, b = duel(a={"weapons": [BOW]}, b={"shield": SHIELD, "PAR": 9})
    table.act(a, "shoot", b, [2])  # margin 8
    events = table.react(b, "parry", [2, 15])  # margin 2: the arrow gets through, whole
    assert of(events, ev.ReactionResolved)[0].damage_taken == 10 - 5


def test_NA_AMB_19_a_GM_approved_object_can_stop_a_projectile() -> None:
    table, a, b = duel(a={"weapons": [BOW]}, b={"cover_object": True})
    events = table.act(a, "shoot", b, [9])
    assert of(events, ev.ReactionAwaited)[0].options == ["parry", "none"]


def test_NA_33_Tir_Precis_reduces_an_aimed_shot_malus() -> None:
    table, a, b = duel(a={"weapons": [BOW], "skills": {"precise_shot": 1, "precise_strike": 3}})
    events = table.act(a, "shoot", b, [20], aim="head")
    check = of(events, ev.DieRolled)[0].check
    assert check.threshold == 7 and check.modifiers[0].rule == "NA-33"


def test_NA_34_shooting_damage() -> None:
    table, a, b = duel(a={"weapons": [BOW]}, b={"armor": {"torso": 1}})
    table.act(a, "shoot", b, [1, 15], distance=35)
    assert table.hp(b) == 100 - (10 - 5 - 1 - 2 * 2)


def test_NA_35_thrown_damage_adds_FOR_once() -> None:
    knife = {"name": "knife", "kind": "throw", "dmg": 3, "range_band_m": 10}
    table, a, b = duel(a={"weapons": [knife]})
    table.act(a, "throw", b, [1, 15], distance=12)
    assert table.hp(b) == 100 - (10 + 3 - 5 - 2 * 2)


def test_NA_AMB_23_a_crossbow_must_be_reloaded_after_each_shot() -> None:
    table, a, b = duel({}, a={"NA": 3, "weapons": [dict(BOW, needs_reload=True)]})
    table.act(a, "shoot", b, [20])
    table.end(b)
    with refused("rule_violation", "NA-AMB-23"):
        table.act(a, "shoot", b, [20])
    table.act(a, "reload")
    table.end(a)
    table.act(a, "shoot", b, [20])


# --- the resolver profile --------------------------------------------------------------------


def test_NA_37_the_resolver_profile_is_melee_only() -> None:
    table, a, b = duel({"profile": "resolver_1v1"}, a={"weapons": [SWORD, BOW]})
    with refused("rule_violation", "NA-37"):
        table.act(a, "shoot", b, [5])


def test_NA_39_the_resolver_profile_does_not_aim_nor_wield_two_weapons() -> None:
    table, a, b = duel({"profile": "resolver_1v1"},
                       a={"weapons": [SWORD, DAGGER], "off_hand": "dagger"})  # fmt: skip
    with refused("rule_violation", "NA-39"):
        table.act(a, "attack", b, [5], aim="head")
    events = table.act(a, "attack", b, [15])  # a miss, and no off-hand reroll
    assert len(of(events, ev.DieRolled)) == 1


def test_NA_38_the_Milicien_preset_ticks_Dodge() -> None:
    milicien = RULES.validate_sheet(RULES.presets["milicien"], {})
    assert milicien.sheet["skills"]["dodge"] is True
    assert milicien.resources == {"hp": 65}


# --- worked examples -------------------------------------------------------------------------


def milicien_fangeux(milicien: dict[str, Any] | None = None,
                     fangeux: dict[str, Any] | None = None) -> tuple[Table, str, str]:  # fmt: skip
    table = Table()
    m = table.add("Milicien", "town", "milicien", **(milicien or {}))
    f = table.add("Fangeux", "swamp", "fangeux", **(fangeux or {}))
    table.start()
    return table, m, f


def test_NA_43_Milicien_vs_Fangeux_round_1() -> None:
    table, m, f = milicien_fangeux(fangeux={"STR": 12})
    assert table.actor == f  # INI 12 > 9
    events = table.act(f, "attack", m, [9])
    assert of(events, ev.DieRolled)[0].check.margin == 3
    events = table.react(m, "parry", [13, 3, 3])  # parry fails; arms; d6 3
    assert of(events, ev.DieRolled)[0].check.outcome == "failure"
    assert of(events, ev.ReactionResolved)[0].outcome == "hit"
    assert table.actor == m
    events = table.act(m, "attack", f, [9])
    assert of(events, ev.DieRolled)[0].check.margin == 2
    assert (table.budget(m), table.budget(f)) == (0, 1)  # M: parry ½ + attack 1
    events = table.react(f, "dodge", [6])
    assert of(events, ev.ReactionResolved)[0].outcome == "dodged"
    # each used one full action and one half-action: 1.5 = NA 1 + ½; round 2 begins
    assert [e.round for e in of(events, ev.RoundStarted)] == [2] and table.actor == f


def test_NA_AMB_14_without_Dodge_the_Fangeux_would_have_been_hit() -> None:
    table, m, f = milicien_fangeux(fangeux={"skills": {"dodge": False}})
    table.end(f)
    table.act(m, "attack", f, [9])
    events = table.react(f, "dodge", [6, 15, 3])
    assert of(events, ev.ReactionResolved)[0].outcome == "hit"


def test_NA_44_melee_damage_not_parried_is_24() -> None:
    table, m, f = milicien_fangeux(fangeux={"STR": 12})
    table.act(f, "attack", m, [9])
    events = table.react(m, "parry", [13, 3, 3])
    resolved = of(events, ev.ReactionResolved)[0]
    assert resolved.detail["zone"] == "arm_right" and resolved.damage_taken == 24
    assert table.hp(m) == 41


def test_NA_45_melee_damage_parried_is_19() -> None:
    table, m, f = milicien_fangeux(fangeux={"STR": 12})
    table.act(f, "attack", m, [9])
    table.react(m, "parry", [13, 3, 3])
    table.act(m, "attack", f, [15])  # "le milicien rate son attaque, fin du round"
    table.end(f)  # the Fangeux passes its spare half-action
    assert table.state.game.round == 2 and table.actor == f
    table.act(f, "attack", m, [9])
    events = table.react(m, "parry", [2, 9, 5])  # margin 7 > 3; legs; d6 5
    resolved = of(events, ev.ReactionResolved)[0]
    assert resolved.detail["zone"] == "leg_right" and resolved.outcome == "parried"
    assert resolved.damage_taken == 19 and table.hp(m) == 22


def test_NA_46_crossbow_damage_is_26() -> None:
    table, m, f = milicien_fangeux(milicien={"INI": 13}, fangeux={"END": 11})
    events = table.act(m, "shoot", f, [3, 15, 7], weapon="crossbow", distance=40)
    check = of(events, ev.DieRolled)[0].check
    assert check.threshold == 8 - 2
    assert of(events, ev.ActionResolved)[0].detail["damage"] == 26 and table.hp(f) == 44


def test_NA_AMB_14_companion_value_with_the_sheet_FOR_10_is_20() -> None:
    table, m, f = milicien_fangeux()
    table.act(f, "attack", m, [9])
    assert of(table.react(m, "parry", [13, 3, 3]), ev.ReactionResolved)[0].damage_taken == 20


def test_NA_AMB_14_companion_value_parried_with_FOR_10_is_15() -> None:
    table, m, f = milicien_fangeux()
    table.act(f, "attack", m, [9])
    assert of(table.react(m, "parry", [2, 9, 5]), ev.ReactionResolved)[0].damage_taken == 15


def test_NA_AMB_14_companion_value_of_the_crossbow_with_END_9_is_28() -> None:
    table, m, f = milicien_fangeux(milicien={"INI": 13})
    events = table.act(m, "shoot", f, [3, 15, 7], weapon="crossbow", distance=40)
    assert of(events, ev.ActionResolved)[0].detail["damage"] == 28


def test_NA_48_the_Milicien_without_Dodge_dodges_on_5() -> None:
    table, m, f = milicien_fangeux(milicien={"skills": {"dodge": False}})
    table.act(f, "attack", m, [9])
    events = table.react(m, "dodge", [5, 15, 3])
    assert of(events, ev.DieRolled)[0].check.threshold == 5


def test_NA_48_the_Milicien_parries_an_arrow_with_a_shield_on_4() -> None:
    table = Table()
    archer = table.add("archer", "a", INI=20, weapons=[BOW])
    m = table.add("Milicien", "town", "milicien", weapons=[SWORD], shield=SHIELD)
    table.start()
    table.act(archer, "shoot", m, [1])
    events = table.react(m, "parry", [20, 4, 15])  # the shield's reroll (NA-AMB-7)
    assert [r.check.threshold for r in of(events, ev.DieRolled) if r.check] == [4, 4]


# --- legal ------------------------------------------------------------------------------------


def test_legal_lists_every_action_with_its_reason_and_rule() -> None:
    table, a, b = duel()
    listed = {x["action"]: x for x in msgspec.to_builtins(RULES.legal(table.state.game, a, {}))}
    assert set(listed) == set(RULES.actions)
    assert listed["attack"]["enabled"] and listed["attack"]["targets"] == [b]
    assert not listed["shoot"]["enabled"] and listed["shoot"]["rule"] == "NA-29"
    other = {x["action"]: x for x in msgspec.to_builtins(RULES.legal(table.state.game, b, {}))}
    assert not other["attack"]["enabled"] and other["attack"]["reason"] == "not_your_turn"


def test_legal_lists_the_defenses_of_a_pending_hit() -> None:
    table, a, b = duel(a={"weapons": [BOW]}, b={"shield": SHIELD})
    table.act(a, "shoot", b, [5])
    listed = {
        x["action"]: x
        for x in msgspec.to_builtins(RULES.legal(table.state.game, b, {}))
        if x.get("reaction")
    }
    assert listed["parry"]["enabled"]
    assert (listed["dodge"]["enabled"], listed["dodge"]["rule"]) == (False, "NA-32")


def test_legal_shows_the_engaged_charge_refusal() -> None:
    table, a, b = duel(a={"NA": 3})
    table.act(a, "attack", b, [20])
    table.end(b)
    listed = {x["action"]: x for x in msgspec.to_builtins(RULES.legal(table.state.game, a, {}))}
    assert (listed["charge"]["enabled"], listed["charge"]["rule"]) == (False, "NA-8")


def test_every_setting_default_is_accepted_by_an_encounter() -> None:
    defaults = {k: s.default for k, s in RULES.settings.items()}
    assert open_encounter("e", "d20-na", "n", defaults, {})


# --- more of the Proposed defaults ------------------------------------------------------------


def test_NA_AMB_6_the_parry_roll_uses_the_character_PAR_not_the_weapon_value() -> None:
    table, a, b = duel(b={"PAR": 10})
    table.act(a, "attack", b, [10])
    check = of(table.react(b, "parry", [3, 15]), ev.DieRolled)[0].check
    assert (check.stat, check.threshold) == ("PAR", 10)


def test_NA_AMB_8_the_off_hand_reroll_deals_the_off_hand_weapon_damage() -> None:
    table, a, b = duel(a={"weapons": [SWORD, DAGGER], "off_hand": "dagger"})
    table.act(a, "attack", b, [15, 1])
    resolved = of(table.react(b, "none", [15]), ev.ReactionResolved)[0]
    assert {"name": "weapon", "value": 2, "times": 1, "sign": 1} in resolved.detail["terms"]


def test_NA_AMB_12_an_aimed_shot_lowers_TIR() -> None:
    table, a, b = duel(a={"weapons": [BOW]})
    check = of(table.act(a, "shoot", b, [20], aim="torso"), ev.DieRolled)[0].check
    assert (check.stat, check.threshold) == ("TIR", 8)


def test_NA_33_a_shot_uses_the_melee_location_table() -> None:
    table, a, b = duel(a={"weapons": [BOW]}, b={"armor": {"leg_left": 3}})
    events = table.act(a, "shoot", b, [1, 10])
    assert of(events, ev.ActionResolved)[0].detail["zone"] == "leg_left"
    assert table.hp(b) == 100 - (10 - 5 - 3)


@pytest.mark.parametrize("action", ["touch", "grapple", "trip"])
def test_NA_AMB_22_maneuvers_roll_ATT_against_a_defense_and_deal_no_damage(action: str) -> None:
    table, a, b = duel()
    table.act(a, action, b, [5])
    resolved = of(table.react(b, "parry", [20]), ev.ReactionResolved)[0]
    assert resolved.outcome == "hit" and resolved.damage_taken == 0 and table.hp(b) == 100
    table2, a2, b2 = duel()
    table2.act(a2, action, b2, [10])
    assert of(table2.react(b2, "parry", [1]), ev.ReactionResolved)[0].outcome == "resisted"


def test_NA_AMB_25_three_combatants_alternate_in_INI_order() -> None:
    table = Table()
    slow = table.add("slow", "a", INI=2)
    fast = table.add("fast", "b", INI=9)
    mid = table.add("mid", "a", INI=5)
    table.start()
    seen = []
    for _ in range(3):
        actor = table.actor
        assert actor is not None
        seen.append(actor)
        table.act(actor, "attack", fast if actor != fast else slow, [20])
    assert seen == [fast, mid, slow]


def test_NA_AMB_26_a_natural_20_is_only_a_failure() -> None:
    table, a, b = duel(a={"ATT": 25})
    events = table.act(a, "attack", b, [20])
    assert of(events, ev.DieRolled)[0].check.outcome == "success"


def test_NA_AMB_27_a_carried_shield_gives_its_parry_value() -> None:
    table, a, b = duel(b={"shield": {"name": "pavise", "parry": 9}})
    table.act(a, "attack", b, [10])
    table.react(b, "parry", [1, 15])
    assert table.hp(b) == 100 - (20 + 5 - 5 - 9)
    table, a, b = duel(b={"shield": {"name": "pavise", "parry": 9}})
    table.act(a, "attack", b, [10])
    table.react(b, "parry", [1, 15], weapon="sword")
    assert table.hp(b) == 100 - (20 + 5 - 5 - 6)


def test_a_combatant_at_0_hp_is_down_and_the_fight_stops() -> None:
    table, a, b = duel(b={"hp": 10})
    table.act(a, "attack", b, [5])
    events = table.react(b, "none", [15])
    assert of(events, ev.CombatantDefeated)[0].combatant_id == b
    assert table.actor is None


def test_a_preset_can_be_overridden_field_by_field() -> None:
    fangeux = RULES.validate_sheet({**RULES.presets["fangeux"], "FOR": 12}, {})
    assert fangeux.sheet["STR"] == 12 and fangeux.sheet["weapons"][0]["dice"] == "1d6"


@pytest.mark.parametrize(
    "bad",
    [{"NA": 11}, {"ATT": -1}, {"hp": 0}, {"skills": {"dodge": 1}}, {"skills": {"fly": True}},
     {"armor": {"tail": 2}}, {"weapons": [{"name": "x", "kind": "laser"}]},
     {"weapons": [{"name": "x", "dice": "d"}]}, {"off_hand": "nothing"}, {"colour": "red"}],
)  # fmt: skip
def test_bad_sheets_are_invalid(bad: dict[str, Any]) -> None:
    with pytest.raises(Refused) as e:
        Table().add("x", "a", **bad)
    assert e.value.code == "invalid"


# --- the alternatives of the Proposed defaults -----------------------------------------------


def test_NA_AMB_3_the_budget_setting_can_drop_the_extra_half_action() -> None:
    table, a, _ = duel({"round.budget_half_units": "2*NA"}, a={"NA": 2})
    assert table.budget(a) == 4


def test_NA_AMB_4_a_shared_counter_makes_a_dodge_after_a_parry_a_full_action() -> None:
    table, a, b = duel({"defense.counter_scope": "per_round_shared"}, a={"NA": 2}, b={"NA": 2})
    table.act(a, "attack", b, [5])
    table.react(b, "parry", [20, 15])
    table.end(b)
    events = table.act(a, "attack", b, [5])
    listed = {x["action"]: x for x in msgspec.to_builtins(RULES.legal(table.state.game, b, {
        "defense.counter_scope": "per_round_shared"})) if x.get("reaction")}  # fmt: skip
    assert listed["dodge"]["cost"] == [{"amount": 2, "unit": "half_action", "left": 2}]
    assert of(events, ev.ReactionAwaited)
    table.react(b, "dodge", [20, 15])
    assert table.budget(b) == 5 - 1 - 2


def test_NA_AMB_6_the_item_value_setting_rolls_the_parry_on_the_weapon_value() -> None:
    table, a, b = duel({"parry.roll_stat": "item_value"})
    table.act(a, "attack", b, [10])
    check = of(table.react(b, "parry", [3, 15]), ev.DieRolled)[0].check
    assert (check.stat, check.threshold) == ("parry value", 6)


def test_NA_AMB_19_the_shield_setting_refuses_improvised_cover() -> None:
    table, a, b = duel({"ranged_parry.requires": "shield"}, a={"weapons": [BOW]},
                       b={"cover_object": True})  # fmt: skip
    events = table.act(a, "shoot", b, [9, 15])
    assert of(events, ev.ActionResolved)[0].detail["undefended"] == "NA-20"


def test_legal_offers_the_weapons_zones_and_distance_an_attack_takes() -> None:
    table, a, _ = duel(a={"weapons": [SWORD, BOW]})
    listed = {x["action"]: x for x in msgspec.to_builtins(RULES.legal(table.state.game, a, {}))}
    assert listed["attack"]["choices"]["weapon"] == ["sword"]
    assert listed["shoot"]["choices"]["weapon"] == ["bow"]
    assert "head" in listed["shoot"]["choices"]["aim"] and listed["shoot"]["choices"]["distance"]
    resolver = {
        x["action"]: x
        for x in msgspec.to_builtins(RULES.legal(table.state.game, a, {"profile": "resolver_1v1"}))
    }
    assert "aim" not in resolver["attack"]["choices"]
    assert (resolver["shoot"]["enabled"], resolver["shoot"]["rule"]) == (False, "NA-37")
