"""plain-d100 in words: an attack against the skill, a dodge, a second wind. English and
French from the payload of domain/rules/plain_d100.py (`Facts`)."""

from __future__ import annotations

from typing import ClassVar

from domain import events as ev
from domain.facts import decode
from domain.rules import plain_d100
from projections.log.core import Narrator, Said, Vocab, Words

__all__ = ["PlainD100"]


class PlainD100(Narrator):
    """The plain-d100 narrator."""

    name_fr = "d100 simple"
    purposes: ClassVar[Vocab] = {
        "dodge": ("dodge", "esquive"),
        "initiative": ("initiative", "initiative"),
    }
    reasons: ClassVar[Vocab] = {"down": ("down", "à terre")}

    def purpose(self, purpose: str, w: Words) -> tuple[str, str]:
        if purpose.startswith("attack on "):
            return purpose, "attaque contre " + purpose.removeprefix("attack on ")
        return super().purpose(purpose, w)

    def action(self, e: ev.ActionResolved, w: Words) -> Said | None:
        d = decode(e.detail, plain_d100.Facts)
        a = w.name(e.actor)
        if e.action == "second_wind":
            hp_en, hp_fr = w.hp_change(e.actor, d.hp_before, d.hp)
            return Said(
                f"{a} catches a second wind: +{-d.damage} HP{hp_en}",
                f"{a} reprend son souffle : +{-d.damage} PV{hp_fr}",
                actor=e.actor,
                outcome=e.outcome,
                absorbs=True,
                reports={(e.actor, "hp")} if hp_en else set(),
            )
        b = w.name(d.target)
        crit = {"critical_success": (", a critical hit", ", coup critique"),
                "critical_failure": (", a critical failure", ", échec critique")}.get(
            e.outcome, ("", ""))  # fmt: skip
        if e.outcome in ("success", "critical_success"):
            return Said(
                f"{a} hits {b}: {d.roll} against {d.threshold}{crit[0]}, {d.damage} to avoid",
                f"{a} touche {b} : {d.roll} pour {d.threshold}{crit[1]}, {d.damage} à éviter",
                actor=e.actor,
                outcome=e.outcome,
                absorbs=True,
            )
        return Said(
            f"{a} misses {b}: {d.roll} against {d.threshold}{crit[0]}",
            f"{a} rate {b} : {d.roll} pour {d.threshold}{crit[1]}",
            actor=e.actor,
            outcome=e.outcome,
            absorbs=True,
        )

    def reaction(self, e: ev.ReactionResolved, w: Words) -> Said | None:
        d = decode(e.detail, plain_d100.Facts)
        b = w.name(e.actor)
        if e.outcome == "dodged":
            return Said(
                f"{b} dodges: {d.roll} against {d.threshold}, no damage",
                f"{b} esquive : {d.roll} pour {d.threshold}, aucun dégât",
                actor=e.actor,
                outcome=e.outcome,
                absorbs=True,
            )
        hp_en, hp_fr = w.hp_change(e.actor, d.hp_before, d.hp)
        if e.reaction == "dodge":
            en = f"{b} fails to dodge ({d.roll} against {d.threshold})"
            fr = f"{b} ne parvient pas à esquiver ({d.roll} pour {d.threshold})"
        else:
            en, fr = f"{b} does not defend", f"{b} ne se défend pas"
        return Said(
            f"{en}: {e.damage_taken} damage{hp_en}",
            f"{fr} : {e.damage_taken} dégâts{hp_fr}",
            actor=e.actor,
            outcome=e.outcome,
            absorbs=True,
            reports={(e.actor, "hp")} if hp_en else set(),
        )
