"""d100-tcs: the options each action takes (TC-7..TC-34), checked before anything rolls.

The names are those the engine reads (rules, combat, actions) and the UI
offers from `legal` choices (legal.choices). Every action may carry `then`, the
turn's second action (TC-7). An attack may name only the weapon in hand (or the one the
first action takes in hand): a carried but sheathed weapon is refused (TC-19), never
quietly swapped for the one in hand.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from domain.errors import Invalid
from domain.rules.tcs.combat import weapon_of
from domain.rules.tcs.tables import SPRINT_MAX_M
from domain.state import Game
from domain.terms import Option, OptionTable

NAME = 200  # longest weapon, item, TCS or spell name an option may give

THEN = Option("step", "TC-7", "the turn's second action: {action, target?, options?}")
ENCIRCLED = Option("bool", "TC-16", "the target is encircled (+10 to the TCS)")
# TC-15: the list of situations is open; the GM grants the bonus or malus (actions.play).
SITUATIONAL = Option(
    "int", "TC-15", "a bonus (or, negative, a malus) the GM grants for the situation",
    low=-100, high=100,
)  # fmt: skip

ATTACK = {
    "tcs": Option("str", "TC-8", "the technique or skill used", max_length=NAME),
    "at": Option("str", "TC-57", "strike the bearer or the shield", choices=("bearer", "shield")),
    "weapon": Option("str", "TC-19", "the weapon in hand", max_length=NAME),
    "distance": Option("int", "TC-18", "metres to the target", low=0, high=100_000),
    "encircled": ENCIRCLED,
    "situational": SITUATIONAL,
}

_OWN: Mapping[str, Mapping[str, Option]] = {
    "attack": ATTACK,
    "cast": {
        "spell": Option("str", "TC-10", "the spell cast", max_length=NAME),
        "encircled": ENCIRCLED,
        "situational": SITUATIONAL,
    },
    "use_item": {
        "weapon": Option("str", "TC-19", "the weapon taken in hand", max_length=NAME),
        "item": Option("str", "TC-19", "the item used", max_length=NAME),
    },
    "drink_potion": {"item": Option("str", "TC-20", "the potion drunk", max_length=NAME)},
    "move": {
        "sprint": Option("int", "TC-22", "extra metres, 1 NRJ each", low=0, high=SPRINT_MAX_M)
    },
    "stand_up": {"fast": Option("bool", "TC-25", "stand up in one action for 4 NRJ")},
    "focus": {},
    "disengage": {},
    "flee": {},
    "pursue": {},
    "rejoin": {},
    "let_flee": {},  # TC-33: let a fleeing foe go
}
ACTION_OPTIONS: Mapping[str, Mapping[str, Option]] = {
    code: {**opts, "then": THEN} for code, opts in _OWN.items()
}


def _wielded(game: Game, actor: str, action: str, options: Mapping[str, Any], kind: str) -> None:
    """TC-19: an attack's `weapon` is the one in hand, or the one `use_item` takes first."""
    me = game.combatants.get(actor)
    if me is None or kind != "action":
        return
    in_hand = weapon_of(me)
    allowed = {in_hand["name"]} if in_hand else set()
    then = options.get("then")
    steps: list[tuple[str, Mapping[str, Any]]] = [(action, options)]
    if isinstance(then, dict):
        steps.append((then["action"], then.get("options", {})))
    for code, opts in steps:
        if code == "attack" and "weapon" in opts and opts["weapon"] not in allowed:
            held = f"the {in_hand['name']}" if in_hand else "no weapon"
            raise Invalid(
                rule="TC-19",
                reason="holds_not_take_hand_first",
                params={"actor": me, "held": held, "weapon": opts["weapon"]},
            )
        if code == "use_item" and "weapon" in opts:
            allowed = {opts["weapon"]}


OPTIONS = OptionTable(actions=ACTION_OPTIONS, reactions={}, rule="TC-7", state_check=_wielded)
