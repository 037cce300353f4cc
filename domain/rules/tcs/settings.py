"""d100-tcs's settings: each **Proposed** resolution of the digest (shared/rules/d100-tcs.md),
made a per-encounter setting whose default is the proposal. A fraction becomes a whole
percent (`long_range.factor` 0.5 -> `long_range.factor_pct` 50): events carry no floats."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from domain.errors import Invalid
from domain.terms import Setting

FUMBLE_TEXT = 200  # characters of one entry of the GM's fumble table (crit.table_d10)


def fumble_entries(value: Any) -> None:
    """TC-AMB-2: the GM's fumble table is up to 10 short texts."""
    if not all(type(v) is str and len(v) <= FUMBLE_TEXT for v in value):
        params = {"max": FUMBLE_TEXT}
        raise Invalid(rule="TC-AMB-2", reason="crit_table_d10_holds_texts", params=params)


SETTINGS: Mapping[str, Setting] = {
    "crit.success_max": Setting(5, "natural d100 at or under: critical success", "TC-AMB-1",
        low=0, high=100),
    "crit.fail_min": Setting(96, "natural d100 at or over: critical failure", "TC-AMB-1",
        low=1, high=101),
    "crit.pc_fallback": Setting("npc_default", "a PC's critical failure while the d10 table "
                                "is missing", "TC-AMB-2", ("npc_default", "none")),
    "crit.table_d10": Setting([], "the GM's 10 fumble entries for PCs (the source's table "
                              "is missing)", "TC-AMB-2",
        max_items=10, check=fumble_entries),
    "crit_fail.npc_default": Setting("self", "whom an NPC's fumble hurts", "TC-AMB-18",
                                     ("self",)),
    "crit_fail.cancels": Setting("actor_remaining_actions", "what a fumble ends", "TC-AMB-5",
                                 ("actor_remaining_actions",)),
    "crit_success.double": Setting("raw_damage", "what a critical success doubles",
                                   "TC-AMB-17", ("raw_damage",)),
    "declare.timing": Setting("own_turn", "when the two actions are declared", "TC-AMB-4",
                              ("own_turn",)),
    "actions.focus.bonus": Setting(10, "bonus of the focus action to the next TCS",
                                   "TC-AMB-3",
        low=0, high=100),
    "actions.focus.cost": Setting(1, "actions a focus costs", "TC-AMB-3", (1, 2)),
    "actions.disengage.cost": Setting(1, "actions a disengage costs", "TC-AMB-3", (1, 2)),
    "encircle.mode": Setting("gm_flag", "how encirclement is known", "TC-AMB-9", ("gm_flag",)),
    "encircle.bonus": Setting(10, "bonus to every TCS against an encircled target", "TC-16",
        low=0, high=100),
    "friendly_fire.window": Setting(10, "failed rolls up to threshold + this hit an ally",
                                    "TC-AMB-6",
        low=0, high=100),
    "friendly_fire.ally_pick": Setting("random", "which ally in contact is hit", "TC-AMB-6",
                                       ("random",)),
    "long_range.factor_pct": Setting(50, "long-range threshold, percent", "TC-AMB-8",
        low=0, high=100),
    "long_range.apply": Setting("after_additive", "when the long-range factor applies",
                                "TC-AMB-8", ("after_additive",)),
    "rounding": Setting("floor", "rounding of scaled thresholds", "TC-AMB-8", ("floor",)),
    "aoo.per": Setting("round", "opportunity attacks are counted per", "TC-AMB-10",
                       ("round", "turn")),
    "aoo.max": Setting(1, "opportunity attacks per period", "TC-AMB-10",
        low=0, high=10),
    # TC-23: whoever has attacked in melee faces the target, hit or miss; "hit" keeps the
    # earlier reading where only a landed blow puts the two in contact.
    "aoo.engage_on": Setting("attempt", "a melee attack puts both in contact on any roll, "
                             "or only when it hits", "TC-23", ("attempt", "hit")),
    "last_stand.min_hp_before": Setting(2, "HP before the hit for a last stand", "TC-AMB-12",
        low=0, high=10_000),
    "last_stand.npc": Setting(True, "NPCs get a last stand too", "TC-AMB-12"),
    "rules.flight_advanced": Setting(True, "flight and morale (advanced rule)", "TC-AMB-34"),
    "morale.check_each_round": Setting(True, "low morale is checked every round",
                                       "TC-AMB-13"),
    "morale.deliberate_cost": Setting(3, "PM lost by a deliberate flight", "TC-30",
        low=0, high=100),
    "morale.check_max": Setting(5, "PM at or under which a morale check is made", "TC-31",
        low=0, high=100),
    "morale.threshold_factor": Setting(10, "morale check threshold per PM", "TC-31",
        low=0, high=100),
    "pursuit.tie": Setting("fleer", "who wins an even END confrontation", "TC-AMB-14",
                           ("fleer", "pursuer")),
    "pursuit.actions_per_pursuer": Setting(1, "immediate attacks on a caught fleer",
                                           "TC-AMB-14", (0, 1)),
    "flee.ranged_rounds": Setting(3, "rounds a fleer can still be shot at", "TC-36",
        low=0, high=20),
    "flee.distance_per_round_m": Setting(6, "metres a fleer gains per round", "TC-AMB-15",
        low=0, high=1_000),
    "spell.prep_consecutive": Setting(True, "spell preparation must not pause", "TC-AMB-16",
                                      (True,)),
    "piercing.pr_damage": Setting("Y", "PR an armor loses to a piercing hit", "TC-AMB-19",
                                  ("Y", "X")),
    "pierce_proof.removes": Setting("min_1", "what pierce-proof cancels", "TC-AMB-19",
                                    ("min_1",)),
    "armor.breaking_hit_pp": Setting(0, "PP of an armor on the hit that breaks it",
                                     "TC-AMB-20", (0,)),
    "armor.overflow": Setting("discard", "PR damage beyond a degradation", "TC-AMB-20",
                              ("discard",)),
    "ignore_armor.single.under_pr": Setting(True, "single armor-ignoring hits the "
                                            "under-protection PR", "TC-AMB-21"),
    "ignore_armor.double.routing": Setting("parallel", "double armor-ignoring damage",
                                           "TC-AMB-22", ("parallel", "absorb_then_hp")),
    "armor.end_check": Setting("refuse", "armor heavier than END allows", "TC-AMB-23",
                               ("refuse", "allow")),
    "magic_items.overload": Setting("gm_malus", "items needing more MM than natural",
                                    "TC-AMB-29", ("gm_malus",)),
    "potion.drink_in_melee": Setting(False, "drinking while engaged in melee", "TC-AMB-30"),
    "init.tie_break": Setting("health", "initiative ties (GM note: healthier first)", "TC-5",
                              ("health", "insertion")),
    "init.reroll_each_round": Setting(True, "initiative is rolled every round", "TC-3"),
}  # fmt: skip
