"""d20-na's settings: each **Proposed** resolution of the digest (shared/rules/d20-na.md),
made a per-encounter setting whose default is the proposal."""

from __future__ import annotations

from collections.abc import Mapping

from domain.terms import Setting

SETTINGS: Mapping[str, Setting] = {
    "test.success_cmp": Setting("le", "a d20 test succeeds on roll <= stat (lt: <)", "NA-AMB-1",
                                ("le", "lt")),
    "differential.tie": Setting("attacker", "who wins equal margins", "NA-AMB-2",
                                ("attacker", "defender")),
    "differential.attack_prevails": Setting(
        "full_damage", "a parry that loses the differential", "NA-AMB-2",
        ("full_damage", "parry_still_reduces")),
    "round.budget_half_units": Setting("2*NA+1", "half-actions per round", "NA-AMB-3",
                                       ("2*NA+1", "2*NA")),
    "round.reactions_out_of_slot": Setting(True, "defenses are paid at once, out of slot",
                                           "NA-AMB-3", (True,)),
    "round.allow_pass": Setting(True, "an actor may pass the rest of the round", "NA-AMB-3"),
    "defense.counter_scope": Setting(
        "per_round_per_type", "what the 2nd/3rd parry or dodge counts", "NA-AMB-4",
        ("per_round_per_type", "per_round_shared")),
    "defense.max_per_type": Setting(3, "parries (and dodges) per round", "NA-AMB-4",
                                    low=0, high=20),
    "parry.roll_stat": Setting("character_PAR", "what a parry rolls against", "NA-AMB-6",
                               ("character_PAR", "item_value")),
    "dodge.unskilled_divisor": Setting(2, "HAB divisor without the Dodge skill", "NA-AMB-5",
                                       low=1, high=20),
    "shield.parry_reroll": Setting(1, "free rerolls of a failed shield parry", "NA-AMB-7",
                                   low=0, high=5),
    "location.unaimed_malus": Setting(0, "ATT malus of an unaimed blow", "NA-AMB-10",
                                      low=0, high=20),
    "location.side_for": Setting("arms,legs", "zones with a left and a right", "NA-AMB-11",
                                 ("arms,legs",)),
    "range.band_rounding": Setting("floor", "counting range bands", "NA-AMB-15",
                                   ("floor", "ceil")),
    "ranged_parry.requires": Setting(
        "shield_or_approved_object", "what a projectile parry needs", "NA-AMB-19",
        ("shield_or_approved_object", "shield")),
    "damage.floor": Setting(0, "the least damage a hit deals", "NA-AMB-20", low=0, high=1000),
    "maneuver.effects": Setting("none", "what touch, grapple, trip do (the GM narrates)",
                                "NA-AMB-22", ("none",)),
    "init.tie_break": Setting("HAB,roll_d20", "INI ties", "NA-AMB-24",
                              ("HAB,roll_d20", "roll_d20")),
    "crit.on_natural_1": Setting("none", "effect of a natural 1", "NA-AMB-26", ("none",)),
    "crit.on_natural_20": Setting("none", "effect of a natural 20", "NA-AMB-26", ("none",)),
    "profile": Setting("standard", "rules profile", "NA-AMB-28", ("standard", "resolver_1v1")),
    "resolver.defense_policy": Setting(
        "parry", "how the 1v1 resolver defends", "NA-AMB-28",
        ("parry", "dodge_if_skilled_and_better")),
}  # fmt: skip
