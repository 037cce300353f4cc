"""Conditions as a rule system reads them: a GM-declared `modifier` on a condition is a
term of its bearer's roll-under checks, with the condition as its source.

Every rule system reads it, each under its own rule: plain-d100 (PD-7), d20-na
(NA-AMB-22: the effects of touch, immobilize and trip are the GM's to define), ranks-d100
(RK-5: a term added like the others, in every check) and d100-tcs (TC-15: the open list of
situational bonuses and maluses, in every test the bearer rolls).
"""

from __future__ import annotations

from domain import events as ev
from domain.state import Combatant

__all__ = ["modifiers"]


def modifiers(bearer: Combatant, rule: str) -> list[ev.Modifier]:
    """The check modifiers the bearer's conditions declare, in the order applied."""
    return [
        ev.Modifier(source=f"condition: {c.name}", rule=rule, delta=c.modifier)
        for c in bearer.conditions.values()
        if c.modifier
    ]
