"""ranks-d100's resolution facts, typed: what the rule modules write into `detail` and
what the defense, the narrator and the audit read back from it.

On the wire `detail` stays a dict (domain/facts.py: `encode`, `decode`, one codec for every
system; `Ctx.resolved` and `Ctx.answered` build the result events).
"""

from __future__ import annotations

from typing import TypeVar

import msgspec

__all__ = ["AttackDetail", "Defense", "Flight", "Luck", "Transfer"]


class AttackDetail(msgspec.Struct, frozen=True, kw_only=True):
    """An attack at a rank (RK-32..RK-58): its type, stat, hits, cost, and its roll."""

    type: str = ""  # physical | weapon | magic | special (RK-61)
    stat: str = ""
    rank: str = ""
    hits: list[int] = []
    bonus: int = 0
    cost: int = 0
    name: str = ""  # a Noble Phantasm's or a spell's name
    rules: list[str] = []
    roll: int | None = None
    threshold: int | None = None
    target: str = ""
    rule: str = ""  # the rule of a failure (RK-34, RK-45...)


class Defense(msgspec.Struct, frozen=True, kw_only=True):
    """The answer to an attack: the defense roll, the reduction, what got through."""

    rule: str = ""
    roll: int | None = None
    threshold: int | None = None
    stat: str = ""  # the reduction's stat: END | AGI
    reduction: int | None = None
    counter: AttackDetail | None = None
    attacker: str = ""
    incoming: int = 0  # the attack's damage before the defense
    hp_before: int | None = None
    hp: int | None = None


class Luck(msgspec.Struct, frozen=True, kw_only=True):
    """A Luck die (RK-50): its effect on the next roll and the uses left."""

    delta: int = 0
    uses_left: int = 0
    rule: str = "RK-50"
    roll: int | None = None
    threshold: int | None = None


class Flight(msgspec.Struct, frozen=True, kw_only=True):
    """A flight (RK-68): who may block it, and the block's roll."""

    rule: str = "RK-68"
    type: str = ""  # "flight" on the pending block
    blocker: str = ""
    fleer: str = ""
    roll: int | None = None
    threshold: int | None = None


class Transfer(msgspec.Struct, frozen=True, kw_only=True):
    """Mana given between a Master and its Servant (RK-30)."""

    amount: int = 0
    target: str = ""
    rule: str = "RK-30"


S = TypeVar("S", bound=msgspec.Struct)
