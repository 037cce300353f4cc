"""Melee contact, kept as each combatant's `engaged` status: the ids it is in contact with.

d20-na (NA-7, NA-8) and d100-tcs (TC-21..TC-27, TC-37) both put two fighters in contact
when they exchange blows and take one out of contact when it leaves; who still counts
(NA-8: still fighting; TC: conscious and not fleeing) is each system's own filter over
`in_contact`.
"""

from __future__ import annotations

from collections.abc import Iterable

from domain.context import Ctx
from domain.state import Game

KEY = "engaged"


def in_contact(game: Game, cid: str) -> list[str]:
    """The ids `cid` is recorded in contact with, whatever their state (none for one
    the GM removed, whose id others' contact may still name)."""
    who = game.combatants.get(cid)
    return list(who.status.get(KEY, [])) if who is not None else []


def engage(ctx: Ctx, a: str, b: str, rule: str) -> None:
    """`a` and `b` are in contact with each other (a status only where it changes)."""
    for me, other in ((a, b), (b, a)):
        now = in_contact(ctx.game, me)
        if other not in now:
            ctx.status(me, KEY, sorted([*now, other]), rule)


def break_contact(
    ctx: Ctx, cid: str, rule: str, among: Iterable[str] | None = None, *, always: bool = False
) -> None:
    """`cid` leaves contact: each of `among` (by default every id it is in contact with)
    drops it, and its own contact is cleared; with `always`, the clearing is recorded
    even when it had none (d20-na's disengage, NA-7)."""
    for other in list(in_contact(ctx.game, cid) if among is None else among):
        if other not in ctx.game.combatants:
            continue  # removed by the GM: no status to set
        rest = [x for x in in_contact(ctx.game, other) if x != cid]
        ctx.status(other, KEY, rest or None, rule)
    if always or ctx.game.combatants[cid].status.get(KEY):
        ctx.status(cid, KEY, None, rule)
