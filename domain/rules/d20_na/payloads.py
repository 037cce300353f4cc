"""d20-na's resolution facts, typed: what the resolver writes into `detail` and what the
resolver (on the answer), the narrator and the simulator read back from it.

On the wire `detail` stays a dict (domain/facts.py: `encode`, `decode`, one codec for every
system; `Ctx.resolved` and `Ctx.answered` build the result events).
Each Struct extends the one before: an attack, a hit that landed, a hit that was answered.
"""

from __future__ import annotations

import msgspec

__all__ = ["AttackDetail", "Defended", "Done", "Hit", "Term"]


class Term(msgspec.Struct, frozen=True, kw_only=True):
    """One term of the damage formula: `sign × times × value` (`-1 × 1 × END 8`)."""

    name: str  # FOR | weapon | END | armor | parry | range_malus
    value: int
    times: int = 1
    sign: int = 1


class AttackDetail(msgspec.Struct, frozen=True, kw_only=True):
    """An attack roll (NA-11): who was aimed at, with what, the roll, its margin."""

    mode: str = ""  # melee | shoot | throw | maneuver
    weapon: str = ""
    hand: str = "main"
    roll: int = 0
    threshold: int = 0
    margin: int | None = None
    aim: str = ""
    # The NA-30 range malus; `malus` is the same number under its first name, kept
    # written for readers of older events (events.py rule 3).
    range_malus: int = 0
    malus: int = 0
    sneak: bool = False
    from_back: bool = False
    target: str = ""
    action: str = ""


class Hit(AttackDetail, frozen=True, kw_only=True):
    """What a hit that got through did: the zone, the damage terms, the target's HP."""

    zone: str = ""
    location_roll: int = 0
    weapon_damage: int = 0
    terms: list[Term] = []
    raw: int = 0
    damage: int = 0
    hp_before: int | None = None
    hp: int | None = None
    effect: str = ""  # a maneuver's effect: touched | grappled | tripped
    undefended: str = ""  # the rule that left no defense possible (NA-AMB-21...)


class Defended(Hit, frozen=True, kw_only=True):
    """The answer to a hit: the defense roll and margin against the attack's (NA-15)."""

    defense_roll: int | None = None
    defense_threshold: int | None = None
    defense_margin: int | None = None
    defense_success: bool = False
    defended: bool = False  # the defense won the margin contest


class Done(msgspec.Struct, frozen=True, kw_only=True):
    """A half-action or a pass, which rolls nothing: a charge's target, a reloaded weapon."""

    target: str = ""
    weapon: str = ""
