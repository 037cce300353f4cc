"""d20-na rounds: the NA + ½ budget, slots interleaved by INI, passes, round ends.

NA-2 Each round a combatant has 2·NA + 1 half-actions (status `budget`).
NA-3 The round ends when every budget is spent (or passed, NA-AMB-3).
NA-4 The higher INI starts (ties: HAB, then a d20 roll-off, NA-AMB-24).
NA-5 Slots alternate in INI order; whoever has budget left takes the rest in a row.
NA-AMB-3 A slot is one full action, one or two half-actions, or a charge and its
attack; reactions are paid out of slot; ending a slot without acting passes the round.

Bookkeeping rides on core events: `budget` and `engaged` are statuses; per-slot counts
are turn-scoped limits (the core clears them when the slot starts); passes and defenses
are round-scoped limits (cleared when a round starts). Each slot's phase names its round,
so a slot given in an earlier round shows that the current one has just opened.
"""

from __future__ import annotations

from domain import events as ev
from domain.context import Ctx
from domain.errors import Refused
from domain.state import Game

FULL, HALF, CHARGE = "full", "half", "charge"
SLOT_ACTIONS, SLOT_HALF, SLOT_CHARGE = "slot.actions", "slot.half", "slot.charge"
PASSED = "passed"


def budget(game: Game, cid: str) -> int:
    """NA-2: half-actions left this round."""
    return int(game.combatants[cid].status.get("budget", 0))


def full_budget(game: Game, cid: str, half: int = 1) -> int:
    """NA-2: 2·NA + 1 half-units (`half` = 0 drops the extra half-action)."""
    return 2 * int(game.combatants[cid].sheet["NA"]) + half


def alive(game: Game) -> list[str]:
    """Combatants still fighting, in initiative order (hp 0 counts as down already)."""
    return [c for c in game.active() if game.combatants[c].resources.get("hp", 1) > 0]


def can_take_slot(game: Game, cid: str) -> bool:
    return budget(game, cid) > 0 and game.uses(cid, PASSED) == 0


def phase(round_: int) -> str:
    """The phase a slot is given: its round, so `advance` can tell a round just opened."""
    return f"round {round_}"


def advance(game: Game) -> tuple[bool, str, str] | None:
    """NA-3, NA-4, NA-5: the next slot's owner, or a new round when all are spent."""
    fighters = alive(game)
    if not fighters or (
        len({game.combatants[c].side for c in fighters}) < 2 and not game.continued
    ):
        return None  # one side left: nobody to fight, unless the GM went on (continue_combat)
    if game.round == 0:
        return True, fighters[0], ""
    here = phase(game.round)
    candidates = [c for c in fighters if can_take_slot(game, c)]
    if game.phase != here:
        # No slot yet in this round (start_round just ran): the top INI opens it (NA-4).
        return (False, candidates[0], here) if candidates else (True, fighters[0], "")
    last = game.last
    if last in candidates and game.uses(last, SLOT_ACTIONS) == 0:
        candidates.remove(last)  # ended a slot without acting: a pass (NA-AMB-3)
    if not candidates:
        return True, fighters[0], ""
    if last not in fighters:
        return False, candidates[0], here
    idx = fighters.index(last)
    for step in range(1, len(fighters) + 1):
        cand = fighters[(idx + step) % len(fighters)]
        if cand in candidates:
            return False, cand, here
    return True, fighters[0], ""


def start_round(ctx: Ctx) -> None:
    """NA-2: every budget back to 2·NA + 1."""
    half = 1 if ctx.setting("round.budget_half_units") == "2*NA+1" else 0
    for cid in ctx.game.active():
        ctx.status(cid, "budget", full_budget(ctx.game, cid, half), "NA-2")


def pay(ctx: Ctx, cid: str, cost: int, what: str, rule: str) -> None:
    """Spend half-units, or refuse with `budget_exhausted`."""
    left = budget(ctx.game, cid)
    if cost > left:
        me = ctx.combatant(cid)
        params = {"actor": me, "cost": cost, "action": what, "left": left}
        raise Refused("budget_exhausted", rule=rule, reason="budget_short_for", params=params)
    ctx.status(cid, "budget", left - cost, rule)


def slot_refusal(game: Game, cid: str, kind: str, cost: int) -> Refused | None:
    """Why `cid` may not start an action of `kind` in the current slot (NA-AMB-3, NA-AMB-9)."""
    half = game.uses(cid, SLOT_HALF)
    charged = game.uses(cid, SLOT_CHARGE) > 0
    if charged and kind != "charge_attack":
        return Refused("rule_violation", rule="NA-AMB-9", reason="charge_then_attack")
    if kind in (FULL, CHARGE) and (half or charged):
        return Refused("rule_violation", rule="NA-AMB-3", reason="slot_taken")
    left = budget(game, cid)
    if cost > left:
        me = game.combatants[cid]
        rule = "NA-AMB-9" if kind == CHARGE else "NA-2"
        params = {"actor": me, "cost": cost, "left": left}
        return Refused("budget_exhausted", rule=rule, reason="budget_short", params=params)
    return None


def spend(ctx: Ctx, cid: str, kind: str, cost: int, what: str, rule: str) -> None:
    """Pay for an action in the current slot and count it."""
    refusal = slot_refusal(ctx.game, cid, kind, cost if kind != CHARGE else 3)
    if refusal is not None:
        raise refusal
    pay(ctx, cid, cost, what, rule)
    ctx.emit(ev.LimitUsed(combatant_id=cid, key=SLOT_ACTIONS, scope="turn", rule="NA-AMB-3"))
    if kind == HALF:
        ctx.emit(ev.LimitUsed(combatant_id=cid, key=SLOT_HALF, scope="turn", rule="NA-AMB-3"))
    if kind == CHARGE:
        ctx.emit(ev.LimitUsed(combatant_id=cid, key=SLOT_CHARGE, scope="turn", rule="NA-8"))


def slot_over(game: Game, cid: str, kind: str) -> bool:
    """NA-AMB-3: one full action, two half-actions, or no budget left ends the slot."""
    if kind == CHARGE:
        return False
    if kind == HALF and game.uses(cid, SLOT_HALF) < 2:
        return budget(game, cid) == 0
    return True


def record_pass(ctx: Ctx, actor: str, round_over: bool) -> None:
    """NA-AMB-3: a slot ended without any action is a pass for the rest of the round.

    Called once the slot has ended and the next one started: a new round clears passes
    anyway, and a slot handed straight back to the same actor was not a pass.
    """
    if round_over or ctx.game.actor == actor:
        return
    who = ctx.game.combatants.get(actor)
    if who is None or who.out is not None:
        return
    g = ctx.game
    if g.uses(actor, SLOT_ACTIONS) == 0 and can_take_slot(g, actor):
        ctx.emit(ev.LimitUsed(combatant_id=actor, key=PASSED, scope="round", rule="NA-AMB-3"))
