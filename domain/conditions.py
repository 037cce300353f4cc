"""Conditions as a rule system reads them: a GM-declared `modifier` on a condition is a
term of its bearer's roll-under checks, with the condition as its source.

Which systems read it, and under which rule: plain-d100 (PD-7) and d20-na (NA-AMB-22:
the effects of touch, immobilize and trip are the GM's to define).
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
