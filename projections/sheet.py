"""The player's own sheet: what a combatant's sheet says and what is left of its
once-per-session abilities. Pure; the server answers it to the token that controls the
combatant (GET /api/encounters/{id}/sheet), never on the shared public board.

`stats` are the sheet's plain values (numbers and words, its pools left out: the board
shows those with their maxima), `lists` the names on its lists (weapons, items, spells),
`uses` each ability the rule system gives once per session (`once_per_session`) with the
uses spent (`limit_used`) and left. A combatant with GM-only resources keeps its sheet
(`kept`, nothing else), as the board keeps the odds read from it (projections/board.py).
"""

from __future__ import annotations

from typing import Any

from domain.rules import REGISTRY
from domain.state import EncounterState
from projections.words.sheet import use_words

__all__ = ["sheet"]

ONCE = 1  # every SessionUse is once per session


def sheet(state: EncounterState, cid: str, gm: bool = False) -> dict[str, Any] | None:
    """Combatant `cid`'s sheet as its controller reads it (`gm`: as the GM does); None
    when there is no such combatant."""
    c = state.game.combatants.get(cid)
    if c is None:
        return None
    if c.gm_only and not gm:
        return {"id": c.id, "name": c.name, "kept": True, "stats": {}, "lists": {}, "uses": []}
    pools = set(c.resources) | set(c.maxima)
    stats = {
        k: v
        for k, v in c.sheet.items()
        if k not in pools and isinstance(v, int | str) and not isinstance(v, bool)
    }
    lists = {
        k: [str(item["name"]) for item in v if isinstance(item, dict) and "name" in item]
        for k, v in c.sheet.items()
        if isinstance(v, list)
    }
    rules = REGISTRY.get(state.ledger.ruleset)
    uses = []
    for use in rules.once_per_session(c) if rules is not None else []:
        used = state.game.uses(c.id, use.key)
        label, label_fr = use_words(use.key)
        uses.append(
            {
                "key": use.key,
                "label": label,
                "label_fr": label_fr,
                "rule": use.rule,
                "limit": ONCE,
                "used": used,
                "left": max(0, ONCE - used),
            }
        )
    return {
        "id": c.id,
        "name": c.name,
        "kept": False,
        "stats": stats,
        "lists": {k: v for k, v in lists.items() if v},
        "uses": uses,
    }
