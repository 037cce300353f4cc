"""The board (projections/board.py) as msgspec Structs: the read model every client reads,
in GET /api/encounters/{id}, the websocket's snapshot, update and patch messages, and
GET /api/schema.

Two roles see two boards of one shape: the GM's (`GmBoard`) holds every value; the
public board (`PublicBoard`: players and spectators) holds `null` where a GM-only
resource's value would be, leaves hidden rolls out of `log`, `disputes` and `dice`, and
drops from `legal` what a cost would leave of a secret pool and the odds computed from
one. tests/e2e/test_board_types.py decodes real boards of every rule system into them.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec
from msgspec import UNSET, Meta, UnsetType

from domain.terms import HalfRank
from projections.log.core import LogLine

Uuid = Annotated[str, Meta(description="a lower-case uuid")]


class BoardEncounter(msgspec.Struct, kw_only=True):
    """The encounter: its id, name, rule system, settings as set, whether it is closed,
    and the War it was opened in."""

    id: Uuid
    name: str
    ruleset: str
    settings: dict[str, Any]
    closed: bool
    campaign: Uuid | None


class OrderEntry(msgspec.Struct, kw_only=True):
    """One place in the turn order, with its initiative score (None before it is rolled)."""

    id: str
    name: str
    score: int | None


class BoardCondition(msgspec.Struct, kw_only=True):
    """A condition on a combatant: `left` turn edges of kind `until` to go (None: until
    removed)."""

    name: str
    until: str
    rounds: int | None
    left: int | None
    note: str
    modifier: int | None
    rule: str | None


class Chip(msgspec.Struct, kw_only=True):
    """A status worth showing, in words (`value` None: the status alone says it)."""

    key: str
    label: str
    label_fr: str
    value: str | None


class PublicCombatant(msgspec.Struct, kw_only=True):
    """A combatant as the public board shows it: a GM-only resource (listed in `hidden`)
    has `null` for its value and maximum."""

    id: str
    name: str
    side: str
    controller: str | None
    resources: dict[str, int | None]
    maxima: dict[str, int | None]
    out: str | None
    out_text: str | None
    out_text_fr: str | None
    status: dict[str, Any]
    conditions: list[BoardCondition]
    chips: list[Chip]
    labels: dict[str, str]
    labels_fr: dict[str, str]
    kinds: dict[str, Literal["hp", "mana", "other"]]  # how a page draws each resource
    hidden: list[str]


class GmCombatant(PublicCombatant, kw_only=True):
    """A combatant as the GM's board shows it: every value, `hidden` empty; its `sheet` as
    the rule system checked it and the resources only the GM sees (`gm_only`), so the
    console can add a copy or keep the sheet in its library with one `add_combatant`."""

    resources: dict[str, int]  # type: ignore[assignment]  # narrower than the public one
    maxima: dict[str, int]  # type: ignore[assignment]
    sheet: dict[str, Any]
    gm_only: list[str]


class PendingReaction(msgspec.Struct, kw_only=True):
    """An attack waiting on its target's reaction: who, what, and the reactions offered."""

    id: int
    attacker: str
    attacker_name: str
    target: str
    target_name: str
    action: str
    rank: str | None
    damage: int | None  # None on a public board when a side of the blow is veiled
    options: list[str]
    text: str
    text_fr: str


class LegalCost(msgspec.Struct, kw_only=True):
    """What an action costs in its system's currency (`unit`); `left` what would remain
    (absent where the system does not count it, or on a public board for a secret pool)."""

    amount: int
    unit: str
    left: int | UnsetType | None = UNSET


class LegalEntry(msgspec.Struct, kw_only=True):
    """One action (or, with `reaction`, one answer to a pending attack) a combatant may
    take now, or why not (`enabled` false, `reason` and its `rule`). `chance` is the
    percent that its test succeeds (the `die` under `threshold` on `stat`) where the state
    tells it; a field at its default is absent."""

    action: str
    enabled: bool
    reason: str
    reason_fr: str
    rule: str | None
    targets: list[str]
    ranks: list[str] | UnsetType | None = UNSET
    choices: dict[str, Any] | list[str] | UnsetType | None = UNSET
    reaction: bool | UnsetType = UNSET
    cost: list[LegalCost] | UnsetType = UNSET
    chance: Annotated[int, Meta(ge=0, le=100)] | UnsetType | None = UNSET
    stat: str | UnsetType | None = UNSET
    threshold: int | UnsetType | None = UNSET
    die: str | UnsetType | None = UNSET
    half_rank: HalfRank | UnsetType | None = UNSET  # ranks-d100's switch (RK-6..RK-8)
    # A refusal's facts: its stable key and parameters (the words come from them).
    reason_key: str | UnsetType = UNSET
    params: dict[str, Any] | UnsetType = UNSET


class BoardReorder(msgspec.Struct, kw_only=True):
    """Whether the GM may set the initiative order by hand now (`set_initiative`), and if
    not why (`reason`, `reason_fr`, `rule`: d100-tcs rolls it every round, TC-4)."""

    enabled: bool
    reason: str | UnsetType = UNSET
    reason_fr: str | UnsetType = UNSET
    rule: str | UnsetType | None = UNSET


class BoardDispute(msgspec.Struct, kw_only=True):
    """A dispute of a roll: who sent it, why, and the GM's answer once given."""

    roll: int
    by: str
    by_name: str
    reason: str
    status: Literal["open", "answered"]
    answer: str | None


class BoardDice(msgspec.Struct, kw_only=True):
    """The dice seeds: each commitment (a hash) by seed id, the seeds revealed, and the
    number of rolls this view counts."""

    commitments: dict[str, str]
    revealed: list[str]
    rolls: int


class BoardDeadline(msgspec.Struct, kw_only=True):
    """The current wait's deadline (`deadline.hours`, `deadline.policy`): who the fight
    waits on (`turn` or `defence`), since which version, when the reminder and the
    deadline fall (ISO times, UTC; None if the start time is unknown), and whether the
    reminder was given or the deadline passed for this wait."""

    who: str
    who_name: str
    waiting: Literal["turn", "defence"]
    since: int
    hours: int
    policy: Literal["alert", "no_defense", "pass"]
    remind_at: str | None
    due: str | None
    reminded: bool
    passed: bool


class PublicBoard(msgspec.Struct, kw_only=True):
    """The board for a player or a spectator (CONTRACT section 6). `legal` lists, per
    combatant that may act now (the actor and every pending reaction's target), what it
    may do; `decided` is true when one side alone stands and turns stopped there (the GM
    closes or continues); `undone` holds the version spans an undo reverted."""

    encounter: BoardEncounter
    version: int
    round: int
    round_label: str
    round_label_fr: str
    phase: str
    phase_text: str
    phase_text_fr: str
    actor: str | None
    started: bool
    order: list[OrderEntry]
    sides: list[str]
    combatants: list[PublicCombatant]
    pending: list[PendingReaction]
    legal: dict[str, list[LegalEntry]]
    log: list[LogLine]
    disputes: list[BoardDispute]
    dice: BoardDice
    winner: str | None
    decided: bool
    undone: list[Annotated[list[int], Meta(min_length=2, max_length=2)]]
    reorder: BoardReorder
    # The version "undo last step" goes back to (the start of the last step in effect,
    # minus one), None with nothing to undo: the history bar moves by whole steps.
    step_back: int | None
    # The current wait's deadline, None when the encounter sets none or nothing waits.
    deadline: BoardDeadline | None = None


class EntropyPlayer(msgspec.Struct, kw_only=True):
    """A player (the `controller` of one or more combatants) and whether any of their
    combatants' links has added entropy."""

    name: str
    combatants: list[str]
    added: bool


class BoardEntropy(msgspec.Struct, kw_only=True):
    """Who has mixed entropy into the dice (`add_entropy`, CONTRACT section 6), never the
    values: `open` while no roll was made (entropy counts only before the first), the
    number of contributions, whether the GM added some, each player yes or no, and the
    names of any other sender (a player link of a combatant with no controller)."""

    open: bool
    count: int
    gm: bool
    players: list[EntropyPlayer]
    others: list[str]


class GmBoard(PublicBoard, kw_only=True):
    """The board for the GM: every value, hidden rolls and their lines included, and who
    has added entropy (`entropy`)."""

    combatants: list[GmCombatant]  # type: ignore[assignment]
    entropy: BoardEntropy


# What GET /api/encounters/{id} and the websocket's boards are: a GM's board is also a
# valid PublicBoard, so a client that reads one reads both.
BOARDS = (GmBoard, PublicBoard)
