"""ranks-d100: the options each action and reaction takes, and the checks of the settings
that are not plain numbers (the table overrides of RK-AMB-2).

The names are those the engine reads: `activate` / `deactivate` switch a half-rank for
the roll (RK-6..RK-8, check), `name` picks a Noble Phantasm or Advanced Spell
(RK-52, RK-55), `amount` is the mana given (RK-30), and a counter names its attack and
rank (RK-60..RK-62); an intercepting Servant reduces with Endurance or not at all (RK-39),
and a Master may force the interception with a Command Seal (`command_seal`, RK-39,
seals); `skill` names the skill activated (RK-16, skills).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from domain.errors import Invalid
from domain.rules.ranks.attack import ATTACKS
from domain.rules.ranks.tables import check_overrides
from domain.terms import Option, OptionTable

STATS = ("STR", "END", "AGI", "MANA_STAT", "LCK", "MAGIC", "NP")
TABLE_VALUE = 1_000_000  # the largest table override, either sign

SWITCHES = {
    "activate": Option("list", "RK-8", "stats whose positive half-rank is switched on",
                       choices=STATS, max_length=len(STATS)),
    "deactivate": Option("list", "RK-8", "stats whose negative half-rank is switched off",
                         choices=STATS, max_length=len(STATS)),
}  # fmt: skip
NAMED = {"name": Option("str", "RK-52", "the Noble Phantasm or Advanced Spell", max_length=200)}

ACTION_OPTIONS: Mapping[str, Mapping[str, Option]] = {
    "attack_physical": SWITCHES,
    "attack_weapon": SWITCHES,
    "attack_magic": SWITCHES,
    "noble_phantasm": {**SWITCHES, **NAMED},
    "advanced_spell": {**SWITCHES, **NAMED},
    "flee": SWITCHES,
    "luck": SWITCHES,
    "skill": {"name": Option("str", "RK-16", "the skill activated", max_length=80)},
    "transfer_mana": {"amount": Option("int", "RK-30", "mana points given", low=1, high=1_000_000)},
}

REACTION_OPTIONS: Mapping[str, Mapping[str, Option]] = {
    "defend_end": SWITCHES,
    "defend_agi": SWITCHES,
    "counter": {
        **SWITCHES,
        **NAMED,
        "action": Option("str", "RK-60", "the counter's attack", choices=tuple(ATTACKS)),
        "rank": Option("str", "RK-62", "the counter's rank", max_length=8),
    },
    "intercept": {
        **SWITCHES,
        "reduce": Option("str", "RK-39", "the Servant's reduction", choices=("END", "none")),
        "command_seal": Option("bool", "RK-39", "the Master spends a Command Seal to force it"),
    },
    "block_flight": SWITCHES,
    "none": {},
}

OPTIONS = OptionTable(actions=ACTION_OPTIONS, reactions=REACTION_OPTIONS, rule="RK-59")


def check_tables(overrides: Any) -> None:
    """RK-AMB-2: known table entries, each a whole number within +-TABLE_VALUE."""
    check_overrides(overrides)
    for key, value in overrides.items():
        if not -TABLE_VALUE <= value <= TABLE_VALUE:
            raise Invalid(
                rule="RK-AMB-2",
                reason="table_entry_most_either_way",
                params={"key": key, "max": TABLE_VALUE},
            )
