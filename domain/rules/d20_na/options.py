"""d20-na: the options each action and reaction takes.

The names are those the engine reads (attack.attack_options, the charge and the
reload in d20_na, the parry's item) and the UI offers from `legal` choices
(legal._choices): the weapon, the zone aimed at (NA-24), the distance of a shot
(NA-30), the GM's sneak / from-behind flags (NA-AMB-21).
"""

from __future__ import annotations

from collections.abc import Mapping

from domain.rules.d20_na.tables import AIMABLE
from domain.terms import Option, OptionTable

WEAPON = Option("str", "NA-11", "the weapon used", max_length=200)
BLOW = {
    "weapon": WEAPON,
    "aim": Option("str", "NA-24", "the zone aimed at", choices=AIMABLE),
    "sneak": Option("bool", "NA-AMB-21", "an unseen attack (GM)"),
    "from_back": Option("bool", "NA-AMB-21", "an attack from behind (GM)"),
}
SHOT = {**BLOW, "distance": Option("int", "NA-30", "metres to the target", low=0, high=100_000)}

ACTION_OPTIONS: Mapping[str, Mapping[str, Option]] = {
    "attack": BLOW,
    "shoot": SHOT,
    "throw": SHOT,
    "touch": BLOW,
    "grapple": BLOW,
    "trip": BLOW,
    "charge": {"path_clear": Option("bool", "NA-AMB-9", "nothing stands in the way")},
    "draw": {},
    "disengage": {},
    "move": {},
    "pick_up": {},
    "reload": {"weapon": Option("str", "NA-AMB-23", "the weapon reloaded", max_length=200)},
    "pass": {},
}

REACTION_OPTIONS: Mapping[str, Mapping[str, Option]] = {
    "parry": {"weapon": Option("str", "NA-AMB-27", "the weapon parried with", max_length=200)},
    "dodge": {},
    "none": {},
}

OPTIONS = OptionTable(actions=ACTION_OPTIONS, reactions=REACTION_OPTIONS, rule="NA-14")
