"""Who is whose Master or Servant in an encounter (RK-30, RK-39, RK-46).

A Servant's sheet may name its Master (`"master": "<name or id>"`); without it, the one
Master on the Servant's side is its Master.
"""

from __future__ import annotations

from domain.state import Combatant, Game


def master_of(game: Game, servant: Combatant) -> Combatant | None:
    """The Servant's Master, or None."""
    if servant.sheet.get("kind") != "servant":
        return None
    masters = [
        c
        for c in game.combatants.values()
        if c.sheet.get("kind") == "master" and c.side == servant.side
    ]
    named = servant.sheet.get("master")
    if named is not None:
        masters = [c for c in masters if named in (c.name, c.id)]
    return masters[0] if len(masters) == 1 else None


def servants_of(game: Game, master: Combatant) -> list[Combatant]:
    """The Master's Servants (usually one)."""
    return [
        c
        for c in game.combatants.values()
        if c.sheet.get("kind") == "servant" and master_of(game, c) is master
    ]


def bonded(game: Game, a: Combatant, b: Combatant) -> bool:
    """A Master and its Servant, either way round (RK-30)."""
    return master_of(game, a) is b or master_of(game, b) is a
