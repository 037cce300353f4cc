"""plain-d100: the small built-in system the core is tested with, and the first demo.

PD-1 An action succeeds on d100 <= the skill. PD-2 One attack per turn. PD-3 Second wind
heals once per session. PD-4 A dodge (d100 <= dodge) avoids all the damage; `none` takes
it. PD-5 At 0 HP a combatant is down. PD-6 Initiative is d100 + initiative bonus, highest
first, ties by name. PD-7 A condition's GM-declared modifier is added to its bearer's
skill or dodge (a "stunned -20"), named in the check as `condition: <name>`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import msgspec

from domain import events as ev
from domain.commands import Act, React
from domain.conditions import modifiers
from domain.context import Ctx
from domain.rules.common.base import Rules, percent_under, rotate
from domain.rules.common.judge import Judge, roll_under
from domain.rules.common.sheetcheck import Stats, stats
from domain.state import Combatant, Game, Pending
from domain.terms import (
    ActionSpec,
    LegalAction,
    OptionTable,
    Outcome,
    SessionUse,
    Setting,
    Sheet,
)

_FIELDS: Stats = {
    "skill": (1, 100, None),
    "dodge": (1, 100, 30),
    "damage": (1, 1000, None),
    "hp": (1, 10_000, None),
    "initiative": (-100, 100, 0),
}


class Facts(msgspec.Struct, frozen=True, kw_only=True):
    """plain-d100's resolution facts, the payload of `detail` (a dict on the wire): the
    roll against its threshold, the other side (`target` of an attack, the attacker of a
    dodge), the damage (negative: healed) and the HP before and after."""

    roll: int | None = None
    threshold: int | None = None
    target: str = ""
    damage: int = 0
    hp_before: int | None = None
    hp: int | None = None


def _judge(stat: str, base: int, crit: int, mods: list[ev.Modifier] | None = None) -> Judge:
    """PD-1: d100 at or under the threshold succeeds; a critical only within its side."""

    def verdict(face: int, threshold: int) -> str:
        if face <= threshold:
            return "critical_success" if face <= crit else "success"
        return "critical_failure" if face >= 101 - crit else "failure"

    return roll_under(stat, base, mods or [], "PD-1", verdict)


# Nothing in plain-d100 takes an option: any option sent is refused (PD-2..PD-4).
OPTIONS = OptionTable(
    actions={"attack": {}, "second_wind": {}},
    reactions={"dodge": {}, "none": {}},
    rule="PD-4",
)


class PlainD100(Rules):
    """Roll-under d100 against a skill value, fixed damage."""

    id = "plain-d100"
    name = "Plain d100"
    version = "1"
    settings: Mapping[str, Setting] = {
        "critical_range": Setting(
            5, "d100 at or under this is a critical success", "PD-1", low=0, high=50
        ),
        "critical_damage": Setting(
            "double", "damage of a critical hit", "PD-1", choices=("double", "normal")
        ),
        "second_wind_heal": Setting(10, "HP healed by second wind", "PD-3", low=0, high=10_000),
    }
    actions: Mapping[str, ActionSpec] = {
        "attack": ActionSpec("Attack", "Attaque", needs_target=True, rule="PD-2"),
        "second_wind": ActionSpec("Second wind", "Second souffle", rule="PD-3"),
    }
    reactions: Mapping[str, ActionSpec] = {
        "dodge": ActionSpec("Dodge", "Esquive", rule="PD-4"),
    }
    options = OPTIONS
    presets: Mapping[str, Mapping[str, Any]] = {
        "guard": {"skill": 55, "dodge": 30, "damage": 8, "hp": 30, "initiative": 5},
        "bandit": {"skill": 45, "dodge": 40, "damage": 6, "hp": 24},
    }

    def validate_sheet(self, sheet: Mapping[str, Any], settings: Mapping[str, Any]) -> Sheet:
        out = stats(sheet, _FIELDS)
        return Sheet(dict(out), {"hp": out["hp"]}, {"hp": out["hp"]})

    def initiative(self, ctx: Ctx, combatants: list[str]) -> dict[str, int]:
        scores: dict[str, int] = {}
        for cid in combatants:
            bonus = int(ctx.combatant(cid).sheet["initiative"])
            roll = ctx.roll(
                [100],
                expr=f"d100{bonus:+d}" if bonus else "d100",
                purpose="initiative",
                actor=cid,
                modifier=bonus,
            )
            scores[cid] = roll.total
        return scores

    def order(self, game: Game, scores: Mapping[str, int]) -> list[str]:
        return sorted(scores, key=lambda c: (-scores[c], game.combatants[c].name, c))

    def start_round(self, ctx: Ctx) -> None:
        return None

    def advance(self, game: Game) -> tuple[bool, str, str] | None:
        return rotate(game)

    def act(self, ctx: Ctx, command: Act) -> Outcome:
        actor = ctx.combatant(command.actor)
        crit = int(ctx.setting("critical_range"))
        if command.action == "second_wind":
            ctx.use(actor.id, "second_wind", "session", 1, "PD-3", "second wind")
            healed = ctx.change(
                actor.id, "hp", int(ctx.setting("second_wind_heal")), "second wind", "PD-3"
            )
            hp = ctx.combatant(actor.id).resources["hp"]
            healing = Facts(damage=-healed, hp=hp, hp_before=hp - healed)
            ctx.resolved(actor.id, "second_wind", "success", healing)
            return None
        target = ctx.combatant(command.target)
        ctx.use(actor.id, "attack", "turn", 1, "PD-2", "their attack this turn")
        skill = int(actor.sheet["skill"])
        roll = ctx.roll(
            [100],
            expr="d100",
            purpose=f"attack on {target.name}",
            actor=actor.id,
            judge=_judge("skill", skill, crit, modifiers(actor, "PD-7")),
        )
        assert roll.check is not None
        outcome = roll.check.outcome
        skill = roll.check.threshold  # PD-7: with its conditions' modifiers
        if outcome in ("success", "critical_success"):
            damage = int(actor.sheet["damage"])
            if outcome == "critical_success" and ctx.setting("critical_damage") == "double":
                damage *= 2
            hit = Facts(roll=roll.faces[0], threshold=skill, target=target.id, damage=damage)
            ctx.resolved(actor.id, "attack", outcome, hit)
            ctx.await_reaction(
                actor.id, target.id, "attack", damage=damage, options=["dodge", "none"]
            )
        else:
            miss = Facts(roll=roll.faces[0], threshold=skill, target=target.id)
            ctx.resolved(actor.id, "attack", outcome, miss)
        return None  # the turn ends with `end_turn` (PD-2)

    def react(self, ctx: Ctx, command: React, pending: Pending) -> Outcome:
        target = ctx.combatant(pending.target)
        taken = pending.damage
        outcome = "no_defense"
        said = Facts(target=pending.attacker)
        if command.reaction == "dodge":
            dodge = int(target.sheet["dodge"])
            roll = ctx.roll(
                [100],
                expr="d100",
                purpose="dodge",
                actor=target.id,
                judge=_judge(
                    "dodge", dodge, int(ctx.setting("critical_range")), modifiers(target, "PD-7")
                ),
            )
            assert roll.check is not None
            dodge = roll.check.threshold  # PD-7
            said = Facts(roll=roll.faces[0], threshold=dodge, target=pending.attacker)
            if roll.check.outcome in ("success", "critical_success"):
                taken, outcome = 0, "dodged"
            else:
                outcome = "hit"
        before = target.resources["hp"]
        if taken:
            ctx.change(
                target.id, "hp", -taken, f"hit by {ctx.combatant(pending.attacker).name}", "PD-4"
            )
        after = ctx.combatant(target.id).resources["hp"]
        said = msgspec.structs.replace(said, damage=taken, hp_before=before, hp=after)
        ctx.answered(pending, target.id, command.reaction, outcome, taken, said)
        return None

    def after_command(self, ctx: Ctx) -> None:
        for c in list(ctx.game.combatants.values()):
            if c.out is None and c.resources.get("hp", 1) <= 0:
                ctx.defeat(c.id, "down", "PD-5")

    def once_per_session(self, me: Combatant) -> list[SessionUse]:
        """PD-3: every combatant has one second wind per session."""
        return [SessionUse(key="second_wind", rule="PD-3")]

    def legal(self, game: Game, actor: str, settings: Mapping[str, Any]) -> list[LegalAction]:
        """PD-1..PD-4: nothing costs anything; an attack and a dodge succeed on d100 at or
        under the skill (a critical is inside the threshold, so the odds are the skill)."""
        me = game.combatants.get(actor)
        if me is None:
            return []
        my_turn = game.started and game.actor == actor and not game.pending and me.out is None
        targets = [c.id for c in game.combatants.values() if c.side != me.side and c.out is None]
        attacked = game.uses(actor, "attack") >= 1
        winded = game.uses(actor, "second_wind") >= 1

        def why(ok: bool, reason: str) -> str:
            return "" if ok else reason

        def odds(stat: str) -> dict[str, Any]:
            value = int(me.sheet[stat])
            return {"chance": percent_under(value, 100), "stat": stat, "threshold": value,
                    "die": "d100"}  # fmt: skip

        out = [
            LegalAction(
                action="attack",
                enabled=my_turn and not attacked and bool(targets),
                reason=why(my_turn, "not_your_turn")
                or why(not attacked, "already_attacked")
                or why(bool(targets), "no_target"),
                rule="PD-2" if my_turn else None,  # not one's turn is no rule of the action
                targets=targets,
                **odds("skill"),
            ),
            LegalAction(
                action="second_wind",
                enabled=my_turn and not winded,
                reason=why(my_turn, "not_your_turn") or why(not winded, "once_per_session"),
                rule="PD-3" if my_turn else None,
                targets=[],
            ),
        ]
        pending = next((p for p in game.pending if p.target == actor), None)
        if pending is not None:
            up = me.out is None
            out.append(LegalAction(action="dodge", enabled=up, reason=why(up, "out"),
                                   rule="PD-4", targets=[pending.attacker], reaction=True,
                                   **odds("dodge")))  # fmt: skip
            out.append(LegalAction(action="none", enabled=True, reason="", rule="PD-4",
                                   targets=[pending.attacker], reaction=True))  # fmt: skip
        return out
