"""d100-tcs rounds: initiative every round, turns in ascending order, the end-of-round
flight step, and defeat (TC-3..TC-5, TC-28..TC-36).

A turn's phase names its round ("round 3"), so `advance` can tell that `start_round`
has just opened a round. Fleeing combatants stay in the encounter as targets (TC-36,
TC-AMB-15) but are given no turn. The end-of-round step runs in `end_round`, which the
core calls before `round_started` ("en fin de round, avant qu'un nouveau ne débute",
TC-29); the new initiative comes after it, in `start_round`.

Flight (TC-33): once the flights are settled, each remaining protagonist chooses to
pursue, let flee or shoot, whatever the number of fighters. So the combat goes on while
a fighter still has a foe in the encounter, fleeing or not; a fleer leaves it as "fled"
(TC-35) once every foe still fighting has let it go (`let_flee`), when no such foe is
left, or after the rounds of TC-36.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from domain import events as ev
from domain.context import Ctx
from domain.rules.common.contact import break_contact
from domain.rules.common.judge import succeeded
from domain.rules.tcs.combat import fleeing
from domain.rules.tcs.settings import SETTINGS
from domain.rules.tcs.tables import Test
from domain.state import Combatant, Game
from domain.terms import with_defaults


def phase(round_: int) -> str:
    return f"round {round_}"


def fighters(game: Game) -> list[str]:
    """Combatants who still take turns, in initiative order."""
    return [c for c in game.active() if not fleeing(game.combatants[c])]


def two_sides(game: Game) -> bool:
    """A fighter still has a foe in the encounter: another side's fighter, or a fleer it
    has not yet let go (TC-33)."""
    fight = [game.combatants[c] for c in fighters(game)]
    if len({c.side for c in fight}) >= 2:
        return True
    return any(_wanted(game, c) for c in game.combatants.values() if c.out is None and fleeing(c))


def _wanted(game: Game, fleer: Combatant) -> bool:
    """Some foe still fighting has not let `fleer` go (TC-33, TC-35)."""
    return any(
        game.combatants[f].side != fleer.side
        and fleer.id not in game.combatants[f].status.get("let_go", [])
        for f in fighters(game)
    )


def health(game: Game, cid: str) -> int:
    """TC-5: HP as per mille of the maximum."""
    c = game.combatants[cid]
    return 1000 * c.resources["hp"] // max(1, c.maxima.get("hp", 1))


def roll_initiative(ctx: Ctx, combatants: list[str]) -> dict[str, int]:
    """TC-4: 1d100 each (plus TC-AMB-25's modifier); ties marked for `order` (TC-5)."""
    scores: dict[str, int] = {}
    for cid in combatants:
        mod = int(ctx.combatant(cid).sheet["init_mod"])
        rolled = ctx.roll([100], expr=f"d100{mod:+d}" if mod else "d100",
                          purpose="initiative", actor=cid, modifier=mod)  # fmt: skip
        scores[cid] = rolled.total
    by_health = ctx.setting("init.tie_break") == "health"
    for cid in combatants:
        tied = sum(1 for o in combatants if scores[o] == scores[cid]) > 1
        value = health(ctx.game, cid) if tied and by_health else None
        if ctx.combatant(cid).status.get("tiebreak") != value:
            ctx.status(cid, "tiebreak", value, "TC-5")
    return scores


def order(game: Game, scores: Mapping[str, int]) -> list[str]:
    """TC-4: ascending; TC-5: the healthier first on a tie; then the order of arrival."""
    arrival = list(game.combatants)

    def key(c: str) -> tuple[int, int, int]:
        tie = game.combatants[c].status.get("tiebreak")
        return (scores[c], -int(tie or 0), arrival.index(c))

    return sorted(scores, key=key)


def advance(game: Game) -> tuple[bool, str, str] | None:
    """TC-3: everyone in initiative order, then a new round."""
    fight = fighters(game)
    if not fight or not (two_sides(game) or game.continued):
        return None  # the GM's continue_combat goes on with one side's fighters
    if game.round == 0:
        return True, fight[0], ""
    here = phase(game.round)
    if game.phase != here:
        return False, fight[0], here
    last = game.last
    if last in game.order:
        for cand in game.order[game.order.index(last) + 1 :]:
            if cand in fight:
                return False, cand, here
    return True, fight[0], ""


def end_round(ctx: Ctx) -> None:
    """The end of the round that just closed (TC-29), before the next one starts."""
    cfg = with_defaults(SETTINGS, ctx.settings)
    if ctx.game.round >= 1 and cfg["rules.flight_advanced"]:
        end_of_round(ctx, cfg)


def start_round(ctx: Ctx) -> None:
    """A new initiative step (TC-3, TC-4) from the second round on."""
    if ctx.game.round <= 1:
        return
    cfg = with_defaults(SETTINGS, ctx.settings)
    if not cfg["init.reroll_each_round"]:
        return
    fight = fighters(ctx.game)
    scores = roll_initiative(ctx, fight)
    runners = [c for c in ctx.game.active() if c not in fight]
    ctx.emit(ev.InitiativeSet(order=order(ctx.game, scores) + runners, scores=scores))


def _flee(ctx: Ctx, cfg: Mapping[str, Any], cid: str, rule: str) -> None:
    ctx.status(cid, "fleeing", int(cfg["flee.ranged_rounds"]), rule)
    break_contact(ctx, cid, "TC-37")  # TC-37: flight provokes no opportunity attack


def end_of_round(ctx: Ctx, cfg: Mapping[str, Any]) -> None:
    """TC-AMB-13's order: fleers run out of range (TC-36), deliberate flights (TC-30),
    morale 0 (TC-32), then morale checks at PM 1..5 (TC-31)."""
    game = ctx.game
    for c in list(game.combatants.values()):
        if c.out is None and fleeing(c):
            left = int(c.status["fleeing"]) - 1
            if left <= 0:
                ctx.defeat(c.id, "fled", "TC-36")
            else:
                ctx.status(c.id, "fleeing", left, "TC-36")
    for cid in fighters(game):
        if ctx.combatant(cid).status.get("flee_declared"):
            ctx.status(cid, "flee_declared", None, "TC-30")
            ctx.change(cid, "morale", -int(cfg["morale.deliberate_cost"]), "flight", "TC-30")
            _flee(ctx, cfg, cid, "TC-30")
    for cid in fighters(game):
        if ctx.combatant(cid).resources["morale"] <= 0:
            _flee(ctx, cfg, cid, "TC-32")
    for cid in fighters(game):
        pm = ctx.combatant(cid).resources["morale"]
        if 1 <= pm <= int(cfg["morale.check_max"]):
            test = Test("morale", pm * int(cfg["morale.threshold_factor"]), "TC-31")
            test.conditions(ctx.combatant(cid))
            roll = ctx.roll([100], expr="d100", purpose="morale check", actor=cid,
                            judge=test.judge(cfg))  # fmt: skip
            if not succeeded(roll.check):
                _flee(ctx, cfg, cid, "TC-31")


def settle(ctx: Ctx) -> None:
    """TC-28: 0 HP is out of combat; TC-35: a fleer no foe still fighting wants is let go."""
    game = ctx.game
    for c in list(game.combatants.values()):
        if c.out is None and c.resources.get("hp", 1) <= 0:
            ctx.defeat(c.id, "out of combat", "TC-28")
    if game.started:
        for c in list(game.combatants.values()):
            if c.out is None and fleeing(c) and not _wanted(game, c):
                ctx.defeat(c.id, "fled", "TC-35")
