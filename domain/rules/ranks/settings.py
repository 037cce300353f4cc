"""ranks-d100 per-encounter settings: every **Proposed** resolution of RK-AMB-1..27 is a
default a GM can override when opening the encounter (engine configuration summary)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from domain.rules.ranks.options import STATS, check_tables
from domain.rules.ranks.tables import LEGACY_EXAMPLES
from domain.terms import Setting, with_defaults

VALUE_TABLES = ["damage", "reduction", "hp_mod", "mana_mod", "init_mod"]

SETTINGS: Mapping[str, Setting] = {
    "crit.success_max": Setting(
        5,
        "a natural d100 at or under this is a critical success "
        "(placeholder: the source table was lost)",
        "RK-AMB-1",
        low=0,
        high=100,
    ),
    "crit.fail_min": Setting(
        96,
        "a natural d100 at or over this is a critical failure "
        "(placeholder: the source table was lost)",
        "RK-AMB-1",
        low=1,
        high=101,
    ),
    "tables": Setting(
        {},
        "table overrides keyed '<table>.<RANK>', e.g. "
        "{'reduction.master.B': 30} for the example as printed",
        "RK-AMB-2",
        check=check_tables,
    ),
    "half_rank.value_examples_mode": Setting(
        "tables",
        "half-rank values from the tables, or the RK-12 example ladders",
        "RK-AMB-3",
        choices=("tables", "legacy_examples"),
    ),
    "half_rank.step_rule": Setting(
        "gap_div_5", "a half-rank shifts a table value by gap/5", "RK-AMB-4", choices=("gap_div_5",)
    ),
    "half_rank.value_tables": Setting(
        list(VALUE_TABLES),
        "table families half-ranks shift",
        "RK-AMB-4",
        items=tuple(VALUE_TABLES),
    ),
    "threshold_source": Setting(
        "stat",
        "the threshold comes from the governing stat's rank or from the chosen action rank",
        "RK-AMB-5",
        choices=("stat", "action_rank"),
    ),
    "complex_actions_per_phase": Setting(
        1, "complex actions per phase", "RK-AMB-6", low=1, high=10
    ),
    "luck_consumes_complex_slot": Setting(
        False,
        "a Luck die in the attack phase uses the complex action",
        "RK-AMB-6",
        choices=(False, True),
    ),
    "pool.base_hp": Setting(
        50, "HP pool before the Endurance modifier", "RK-AMB-7", low=1, high=100_000
    ),
    "pool.base_mana": Setting(
        50, "mana pool before the Mana-stat modifier", "RK-AMB-7", low=0, high=100_000
    ),
    "luck.scope": Setting(
        "war",
        "luck uses are per War (carried on the sheet) or refill per RP",
        "RK-AMB-9",
        choices=("war", "session"),
    ),
    "half_rank.activation_scope": Setting(
        "single_roll",
        "an activation (or deactivation) lasts one roll, or the rest of the RP",
        "RK-AMB-10",
        choices=("single_roll", "rest_of_rp"),
    ),
    "reduction.rank_source": Setting(
        "stat", "reduction at the defender's stat rank", "RK-AMB-11", choices=("stat",)
    ),
    "counter.allow_lower_rank": Setting(
        False, "a counter may be of a lower rank", "RK-AMB-12", choices=(False, True)
    ),
    "counter.elemental_rules": Setting(
        "gm",
        "a counter by an Elemental Magic user: settled by the GM (its rules are not in the"
        " source), or by the usual counter rules",
        "RK-64",
        choices=("gm", "standard"),
    ),
    "counter.partial_block": Setting(
        "none", "what a failed counter blocks", "RK-AMB-12", choices=("none",)
    ),
    "chain.clamp": Setting(
        "per_hit",
        "reductions clamp each hit at 0, or the total",
        "RK-AMB-13",
        choices=("per_hit", "total"),
    ),
    "flee.compare": Setting(
        "rank_then_half",
        "how 'higher Agility' is compared",
        "RK-AMB-14",
        choices=("rank_then_half", "rank_only"),
    ),
    "flee.block_is_free": Setting(
        True, "blocking a flight does not use the blocker's attack", "RK-AMB-14", choices=(True,)
    ),
    "luck.expires": Setting(
        "next_roll",
        "a luck result applies to the next d100 action",
        "RK-AMB-15",
        choices=("next_roll",),
    ),
    "init.tie_break": Setting(
        ["agility", "reroll"],
        "initiative ties: higher Agility, then reroll among the tied",
        "RK-AMB-16",
        items=("agility", "reroll"),
    ),
    "init.frequency": Setting(
        "per_combat", "initiative is rolled once per combat", "RK-AMB-16", choices=("per_combat",)
    ),
    "threshold.clamp": Setting(
        False, "clamp thresholds to 1..100", "RK-AMB-17", choices=(False, True)
    ),
    "crit.carry_stack": Setting(
        "additive",
        "several criticals in a Tour add up, or count once",
        "RK-AMB-18",
        choices=("additive", "single"),
    ),
    "intercept.reduction_table": Setting(
        "servant",
        "the reduction table of an intercepting Servant",
        "RK-AMB-19",
        choices=("servant", "master"),
    ),
    "mana.allow_spend_to_zero": Setting(
        True,
        "an action may spend the last mana point (then RK-26)",
        "RK-AMB-20",
        choices=(True, False),
    ),
    "health_malus.stats": Setting(
        ["STR", "AGI", "END", "MANA_STAT"],
        "stats the health malus applies to",
        "RK-AMB-22",
        items=STATS,
    ),
    "survival.tour_of_death": Setting(
        "counts",
        "a Servant's survival Tours (RK-46) count from the Tour of its Master's death "
        "(RK-AMB-21: decremented at the end of each Tour, so a Mana-E Servant plays the rest "
        "of that Tour), or from the next Tour",
        "RK-AMB-21",
        choices=("counts", "does_not_count"),
    ),
    "servant.magic": Setting(
        "for_advanced_spells",
        "a Servant sheet may carry the Magic stat, only as the chance of its Advanced Spells "
        "(RK-58), or never (RK-55 reserves Magic to Masters; RK-58 then goes unused)",
        "RK-55",
        choices=("for_advanced_spells", "never"),
    ),
    "multi.defense": Setting(
        "immediate", "each targeted defender answers at once", "RK-AMB-27", choices=("immediate",)
    ),
}


def merged(settings: Mapping[str, Any]) -> dict[str, Any]:
    """The encounter's settings over the defaults, with the RK-AMB-3 legacy ladder folded
    into the table overrides."""
    out = with_defaults(SETTINGS, settings)
    if out["half_rank.value_examples_mode"] == "legacy_examples":
        out["tables"] = {**LEGACY_EXAMPLES, **out["tables"]}
    return out
