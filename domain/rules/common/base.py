"""The defaults most rule systems keep (`Rules`), and the helpers they share: the odds of a
roll under a threshold, the plain turn order."""

from __future__ import annotations

from domain.commands import RepairArmor
from domain.context import Ctx
from domain.errors import Refused
from domain.state import Combatant, Game
from domain.terms import SessionUse, TurnShape


class Rules:
    """The defaults of the hooks most systems leave alone; a system subclasses it and
    overrides what it settles. (Every hook is still in `RuleSystem`, typed, never probed.)"""

    id: str
    turn: TurnShape = "single"

    def end_round(self, ctx: Ctx) -> None:
        return None

    def turn_ended(self, ctx: Ctx, actor: str, round_over: bool) -> None:
        return None

    def after_command(self, ctx: Ctx) -> None:
        return None

    def repair(self, ctx: Ctx, command: RepairArmor) -> None:
        raise Refused("rule_violation", reason="no_armor_to_repair", params={"system": self.id})

    def check_reorder(self, ctx: Ctx) -> None:
        return None  # the GM may set the order by hand before and during the fight

    def once_per_session(self, me: Combatant) -> list[SessionUse]:
        return []  # nothing on the sheet is limited to once per session


def percent_under(
    threshold: int, faces: int, *, always: int = 0, never_from: int | None = None, tries: int = 1
) -> int:
    """The percent (0..100, rounded) that a 1dN roll succeeds at or under `threshold`.

    Faces 1..`always` succeed whatever the threshold (a critical success range) and faces
    from `never_from` up fail whatever it is (a critical failure range); `tries` counts
    the rolls when a failure may be rolled again (a shield's free reroll, NA-9).
    """
    top = faces if never_from is None else never_from - 1
    ok = max(0, min(faces, max(always, min(threshold, top))))
    miss = (faces - ok) / faces
    return round(100 * (1 - miss**tries))


def rotate(game: Game) -> tuple[bool, str, str] | None:
    """The plain turn order: the next active combatant after the last one, wrapping."""
    active = game.active()
    if not active:
        return None
    order = game.order or active
    last = game.last
    if last is None or last not in order:
        return game.round == 0, active[0], ""
    idx = order.index(last)
    for step in range(1, len(order) + 1):
        cand = order[(idx + step) % len(order)]
        if cand in active:
            return idx + step >= len(order), cand, ""
    return None
