"""ranks-d100: the Masters & Servants rank-based d100 system (/shared/rules/ranks-d100.md).

The encounter is one RP session (RK-AMB-9); a round is a Tour (RK-14). Each combatant's
turn is their attack phase; the defense phase is their `react` to the attack waiting for
them (RK-15, RK-AMB-27). One complex action per phase (RK-17, RK-AMB-6); free actions
(`luck`, `transfer_mana`) go through `act` at any time the rules allow.

Half-ranks are switched per roll by an option on the act/react that rolls the stat,
`{"activate": ["STR"]}` or `{"deactivate": ["AGI"]}`, rather than by a separate action:
the switch lasts that one roll (RK-AMB-10), so it belongs with the roll it changes.

Modules, named as in every rule package: settings, specs (the actions and reactions),
tables, sheet (sheets and presets), options, legal (what is legal), payloads; and this
system's own: check (thresholds), attack, actions, react (the defense phase), bond
(Masters and Servants), skills and seals (Command Seals).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from domain.commands import Act, React
from domain.context import Ctx
from domain.rules.common.base import Rules, rotate
from domain.rules.ranks import actions, react, skills
from domain.rules.ranks.attack import ATTACKS
from domain.rules.ranks.bond import master_of
from domain.rules.ranks.legal import legal
from domain.rules.ranks.options import OPTIONS
from domain.rules.ranks.settings import SETTINGS, merged
from domain.rules.ranks.sheet import CORE_STATS, PRESETS, validate
from domain.rules.ranks.specs import ACTIONS, REACTIONS
from domain.rules.ranks.tables import Rank, order_key, parse_rank, value
from domain.state import Combatant, Game, Pending
from domain.terms import ActionSpec, LegalAction, Outcome, SessionUse, Setting, Sheet

_TIE_REROLLS = 20  # still tied after this many rerolls: name order decides


class RanksD100(Rules):
    """Rank-based roll-under d100 with Master and Servant tables."""

    id = "ranks-d100"
    name = "Ranks d100 (Masters & Servants)"
    version = "1"
    settings: Mapping[str, Setting] = SETTINGS
    actions: Mapping[str, ActionSpec] = ACTIONS
    reactions: Mapping[str, ActionSpec] = REACTIONS
    presets: Mapping[str, Mapping[str, Any]] = PRESETS
    options = OPTIONS

    def validate_sheet(self, sheet: Mapping[str, Any], settings: Mapping[str, Any]) -> Sheet:
        return validate(sheet, merged(settings))

    def initiative(self, ctx: Ctx, combatants: list[str]) -> dict[str, int]:
        """RK-22/23: d100 + the Agility modifier (half-rank shifted, RK-AMB-4)."""
        cfg = merged(ctx.settings)
        scores: dict[str, int] = {}
        for cid in combatants:
            agi = parse_rank(ctx.combatant(cid).sheet["AGI"])
            mod = value("modifier.init", agi, cfg["tables"], cfg["half_rank.value_tables"])
            rolled = ctx.roll(
                [100], expr=f"d100{mod:+d}", purpose="initiative", actor=cid, modifier=mod
            )
            scores[cid] = rolled.total
        self._break_ties(ctx, cfg, scores)
        return scores

    def _break_ties(self, ctx: Ctx, cfg: Mapping[str, Any], scores: dict[str, int]) -> None:
        """RK-AMB-16: higher Agility first, then a reroll among those still tied; the result
        is kept as a status `init_tiebreak` that `order` reads."""
        rules = cfg["init.tie_break"]
        for cid in scores:  # a fresh roll forgets the tie-breaks of an earlier one
            if "init_tiebreak" in ctx.combatant(cid).status:
                ctx.status(cid, "init_tiebreak", None, "RK-AMB-16")
        by_score: dict[int, list[str]] = {}
        for cid, score in scores.items():
            by_score.setdefault(score, []).append(cid)
        for tied in (group for group in by_score.values() if len(group) > 1):
            agility: dict[str, list[int]] = {
                cid: list(order_key(parse_rank(ctx.combatant(cid).sheet["AGI"])))
                if "agility" in rules
                else []
                for cid in tied
            }
            faces = {cid: 0 for cid in tied}
            still = [c for c in tied if [agility[o] for o in tied].count(agility[c]) > 1]
            for _ in range(_TIE_REROLLS if "reroll" in rules and still else 0):
                for cid in still:
                    faces[cid] = ctx.roll(
                        [100], expr="d100", purpose="initiative tie-break", actor=cid
                    ).total
                if len({(tuple(agility[c]), faces[c]) for c in still}) == len(still):
                    break
            for cid in tied:
                ctx.status(cid, "init_tiebreak", [*agility[cid], faces[cid]], "RK-AMB-16")

    def order(self, game: Game, scores: Mapping[str, int]) -> list[str]:
        def key(cid: str) -> tuple[int, list[int], str, str]:
            c = game.combatants[cid]
            tie = [-int(x) for x in c.status.get("init_tiebreak", [])]
            return (-scores[cid], tie, c.name, cid)

        return sorted(scores, key=key)  # highest first (RK-23)

    def start_round(self, ctx: Ctx) -> None:
        """A new Tour: last Tour's criticals apply now (RK-72/73), flights end (RK-68), and
        a Servant whose Master died counts down its Tours (RK-46, RK-AMB-21)."""
        for c in list(ctx.game.combatants.values()):
            nxt, now = c.status.get("crit_next"), c.status.get("crit_now")
            if nxt is not None or now is not None:
                ctx.status(c.id, "crit_now", nxt, "RK-72")
            if nxt is not None:
                ctx.status(c.id, "crit_next", None, "RK-72")
            if c.status.get("fleeing"):
                ctx.status(c.id, "fleeing", None, "RK-68")
            left = c.status.get("survival")
            if left is not None and c.out is None:
                if int(left) <= 1:
                    ctx.status(c.id, "survival", None, "RK-46")
                    ctx.defeat(c.id, "returned", "RK-46")
                else:
                    ctx.status(c.id, "survival", int(left) - 1, "RK-46")

    def advance(self, game: Game) -> tuple[bool, str, str] | None:
        nxt = rotate(game)
        return None if nxt is None else (nxt[0], nxt[1], "attack")

    def act(self, ctx: Ctx, command: Act) -> Outcome:
        cfg = merged(ctx.settings)
        me = ctx.combatant(command.actor)
        if command.action in ATTACKS:
            actions.attack(ctx, cfg, me, command)
        elif command.action == "luck":
            actions.luck(ctx, cfg, me, command)
        elif command.action == "flee":
            actions.flee(ctx, cfg, me, command)
        elif command.action == "skill":
            skills.activate(ctx, me, command)
        else:
            actions.transfer_mana(ctx, cfg, me, command)
        return None  # the attack phase ends with `end_turn` (RK-15)

    def react(self, ctx: Ctx, command: React, pending: Pending) -> Outcome:
        react.react(ctx, merged(ctx.settings), command, pending)
        return None

    def after_command(self, ctx: Ctx) -> None:
        """RK-25 death at 0 HP; RK-26 out of the RP at 0 mana; RK-46 a Servant whose Master
        died starts counting its Tours. RK-AMB-21: the counter starts at the death and loses
        one at the end of each Tour (`start_round`), so the Tour of the death counts; the
        setting `survival.tour_of_death = does_not_count` keeps the earlier reading, where
        the Servant also plays the whole next Tour."""
        for c in list(ctx.game.combatants.values()):
            if c.out is not None:
                continue
            if c.resources.get("hp", 1) <= 0:
                ctx.defeat(c.id, "dead", "RK-25")
            elif c.resources.get("mana", 1) <= 0:
                ctx.defeat(c.id, "out_of_mana", "RK-26")
        for c in list(ctx.game.combatants.values()):
            master = master_of(ctx.game, c)
            if (
                c.out is None
                and master is not None
                and str(master.out).startswith("dead")
                and "survival" not in c.status
            ):
                tours = value(
                    "survival.tours",
                    Rank(parse_rank(c.sheet["MANA_STAT"]).level),
                    merged(ctx.settings)["tables"],
                    (),
                )
                late = merged(ctx.settings)["survival.tour_of_death"] == "does_not_count"
                ctx.status(c.id, "survival", tours + int(late), "RK-AMB-21")

    def once_per_session(self, me: Combatant) -> list[SessionUse]:
        """RK-8: a stat's half-rank (a "+" to activate, a "-" to deactivate) switches once
        per RP."""
        ranked = [s for s in CORE_STATS if s in me.sheet and parse_rank(me.sheet[s]).half]
        return [SessionUse(key=f"half_rank.{s}", rule="RK-8") for s in ranked]

    def legal(self, game: Game, actor: str, settings: Mapping[str, Any]) -> list[LegalAction]:
        return legal(game, actor, merged(settings))
