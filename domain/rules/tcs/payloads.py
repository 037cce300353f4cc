"""d100-tcs's resolution facts, typed: what the rule modules write into `detail` and what
the narrator and the audit read back from it.

On the wire `detail` stays a dict (domain/facts.py: `encode`, `decode`, one codec for every
system; `Ctx.resolved` and `Ctx.answered` build the result events).
"""

from __future__ import annotations

import msgspec

__all__ = ["Blow", "Deed"]


class Blow(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """A hit on someone other than the target (a fumble turned on the actor, a friendly-fire
    ally): the same facts as a target's hit, so that its line can tell each of them."""

    damage: int | None = None
    pp: int | None = None
    armor: str = ""
    shield: str = ""
    hp_loss: int | None = None
    hp_before: int | None = None
    hp: int | None = None
    last_stand: str = ""


class Deed(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """What one action of a turn did: its roll, the hit through armor to HP, a fumble,
    a friendly-fire ally, a spell, an item, a move. Unset facts stay at their defaults
    (and off the wire)."""

    rule: str = ""
    target: str = ""
    label: str = ""  # the TCS's, spell's, item's or potion's name as the sheet writes it
    roll: int | None = None
    threshold: int | None = None
    spell: str = ""
    # the hit (TC-39..TC-57): damage before protections, PP absorbed, armor state after
    damage: int | None = None
    pp: int | None = None
    armor: str = ""  # held | degraded | broken
    shield: str = ""  # held | broken (a hit on the shield, TC-57)
    hp_loss: int | None = None
    hp_before: int | None = None
    hp: int | None = None
    last_stand: str = ""  # "" | stood | fell (TC-28)
    # a critical failure (TC-12, TC-14)
    fumble: str = ""  # table | none | self
    crit_table: int | None = None
    effect: str = ""
    self_hp_loss: int | None = None
    self_blow: Blow | None = None  # the fumble's hit on the actor, through its protections
    friendly_fire: str = ""  # the ally hit (TC-17)
    ally_hp_loss: int | None = None
    ally_blow: Blow | None = None
    # the other actions
    reason: str = ""  # why a step is void or cancelled: a code (critical_failure...)
    left: int | None = None  # actions still to prepare a spell (TC-9)
    metres: int | None = None
    healed: int | None = None
    bonus: int | None = None
    let: list[str] = []
