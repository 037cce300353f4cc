"""Every event of an encounter stream, as frozen, tagged msgspec Structs.

Rules for evolving stored events (they are facts: never rewritten):
1. A tag never changes meaning. A new meaning gets a new tag.
2. A new field always has a default, so old events still decode.
3. A field is never renamed or retyped in place; a real change registers an upcaster
   in `domain/upcast.py`, which every stored event passes through when decoded
   (`event_from` here, the one place stored encounter events are decoded), turning the
   old shape into the new one at decode time. None is registered yet.
4. No floats: the hash chain needs one canonical text per value.
5. Events carry facts, never sentences: the narrators (projections/log/) word them.
Rule systems use these shared events; their own numbers ride in `detail`, a dict on the
wire that each system encodes from one typed payload Struct (domain/rules/*_payloads.py)
and decodes with the same Struct, so the resolver, the log and the audit read the same
fields and old events still fold.
"""

from __future__ import annotations

import typing
from collections.abc import Mapping
from typing import Any, Literal

import msgspec

from domain.upcast import upcast


class Event(msgspec.Struct, frozen=True, kw_only=True, tag_field="type"):
    """Base of every event: frozen, keyword-only, tagged by `type`."""


class Modifier(msgspec.Struct, frozen=True, kw_only=True):
    """One term added to a threshold, with where it came from and the rule that says so."""

    source: str
    rule: str | None = None
    delta: int


class Check(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """How a roll was judged: stat, base threshold, modifiers, final threshold, outcome."""

    stat: str
    base: int
    modifiers: list[Modifier] = []
    threshold: int
    outcome: str  # success | failure | critical_success | critical_failure
    margin: int | None = None
    rule: str | None = None
    under: bool = True  # roll-under (d100 <= T); False for roll-high checks


# --- lifecycle -------------------------------------------------------------------------


class EncounterOpened(Event, tag="encounter_opened", frozen=True, kw_only=True):
    """A GM opened an encounter under a rule system with its settings."""

    encounter_id: str
    ruleset: str
    name: str
    settings: dict[str, Any] = {}
    campaign: str | None = None
    rules_version: str = "1"
    # How `entropy_added` values are joined into the client seed (domain/dice.py): new
    # encounters record "netstring"; an event without the field is of the old "concat".
    entropy_join: Literal["concat", "netstring"] = "concat"


class SeedCommitted(Event, tag="seed_committed", frozen=True, kw_only=True):
    """The server drew a secret seed and published only its SHA-256."""

    seed_id: str
    commitment: str
    hidden: bool = False


class EntropyAdded(Event, tag="entropy_added", frozen=True, kw_only=True):
    """A participant mixed a value into the client seed before the first roll."""

    by: str
    value: str


class SeedRevealed(Event, tag="seed_revealed", frozen=True, kw_only=True):
    """The secret seed, published at close so anyone can recompute the rolls."""

    seed_id: str
    seed: str


class EncounterClosed(Event, tag="encounter_closed", frozen=True, kw_only=True):
    """The encounter ended; nothing but disputes may follow."""

    reason: str = ""


# --- combatants -----------------------------------------------------------------------


class CombatantAdded(Event, tag="combatant_added", frozen=True, kw_only=True):
    """A combatant joined, with a validated sheet and its starting resources."""

    combatant_id: str
    name: str
    side: str
    sheet: dict[str, Any]
    resources: dict[str, int]
    maxima: dict[str, int] = {}
    controller: str | None = None
    gm_only: list[str] = []  # resource names hidden from players and spectators
    character: str | None = None  # the War character it is; older streams: see carry_back


class CombatantRemoved(Event, tag="combatant_removed", frozen=True, kw_only=True):
    """A combatant left the encounter (by the GM)."""

    combatant_id: str
    reason: str = ""


class CombatantDefeated(Event, tag="combatant_defeated", frozen=True, kw_only=True):
    """A combatant is out of the fight: dead, out of mana, fled..."""

    combatant_id: str
    reason: str
    rule: str | None = None


class ResourceChanged(Event, tag="resource_changed", frozen=True, kw_only=True):
    """A resource moved by `delta` to `value` (already clamped to its floor)."""

    combatant_id: str
    resource: str
    delta: int
    value: int
    reason: str
    rule: str | None = None
    by_gm: bool = False


class StatusSet(Event, tag="status_set", frozen=True, kw_only=True):
    """A rule system's per-combatant status (carry-overs, activations, engagement)."""

    combatant_id: str
    key: str
    value: Any = None
    rule: str | None = None


class LimitUsed(Event, tag="limit_used", frozen=True, kw_only=True):
    """One use of a limited ability: per turn, round, session (RP) or campaign (War)."""

    combatant_id: str
    key: str
    scope: str  # turn | round | session | campaign
    rule: str | None = None


# --- dice -----------------------------------------------------------------------------


class DieRolled(Event, tag="die_rolled", frozen=True, kw_only=True):
    """Dice were rolled (or entered by the GM); faces are stored, never re-rolled."""

    seq: int  # per-encounter ordinal of rolls: the `n` of /rolls/{n} and disputes
    roll: int | None  # roll number on its seed; None for manual dice
    seed_id: str | None
    client_seed: str = ""
    source: str  # server | manual
    expr: str
    sizes: list[int]
    faces: list[int]
    total: int
    purpose: str
    actor: str | None = None
    hidden: bool = False
    check: Check | None = None


class RollDisputed(Event, tag="roll_disputed", frozen=True, kw_only=True):
    """Someone flagged a roll for the table's attention; the roll itself is unchanged."""

    seq: int
    by: str
    reason: str


class DisputeAnswered(Event, tag="dispute_answered", frozen=True, kw_only=True):
    """The GM answered the open disputes of roll `seq`; the table sees the answer."""

    seq: int
    answer: str
    by: str = "gm"


# --- conditions -----------------------------------------------------------------------


class ConditionApplied(Event, tag="condition_applied", frozen=True, kw_only=True):
    """A condition was put on a combatant, by the GM or by its rule system (`rule`).

    `rounds` counts edges (`until`: start_of_turn | end_of_turn) of the bearer's own
    turns after this event; at the last one the decider emits `condition_expired`.
    None lasts until removed. A condition of the same name is replaced."""

    combatant_id: str
    name: str
    until: str = "end_of_turn"
    rounds: int | None = None
    note: str = ""
    modifier: int | None = None  # added to the bearer's roll-under checks (PD-7, NA-AMB-22)
    rule: str | None = None
    by_gm: bool = False


class ConditionExpired(Event, tag="condition_expired", frozen=True, kw_only=True):
    """A condition ran out: its last turn edge came (`duration`), or its bearer is out of
    the fight and has no more turns to count (`out_of_fight`)."""

    combatant_id: str
    name: str
    reason: str = "duration"
    rule: str | None = None


class ConditionRemoved(Event, tag="condition_removed", frozen=True, kw_only=True):
    """The GM (or a rule system, with its rule) took a condition off before it ran out."""

    combatant_id: str
    name: str
    rule: str | None = None
    by_gm: bool = False


# --- turn order -----------------------------------------------------------------------


class InitiativeSet(Event, tag="initiative_set", frozen=True, kw_only=True):
    """The acting order, highest first, with each combatant's score."""

    order: list[str]
    scores: dict[str, int]


class CombatStarted(Event, tag="combat_started", frozen=True, kw_only=True):
    """Combat began in initiative order."""

    order: list[str]


class RoundStarted(Event, tag="round_started", frozen=True, kw_only=True):
    """A new round (NA Round, RK Tour, TC round) began."""

    round: int


class TurnStarted(Event, tag="turn_started", frozen=True, kw_only=True):
    """It is `actor`'s turn (in `phase`, where the rule system has phases)."""

    actor: str
    phase: str = ""


class TurnEnded(Event, tag="turn_ended", frozen=True, kw_only=True):
    """`actor`'s turn ended."""

    actor: str


# --- actions --------------------------------------------------------------------------


class ActionDeclared(Event, tag="action_declared", frozen=True, kw_only=True):
    """An actor declared an action (the dice and results follow)."""

    actor: str
    action: str
    target: str | None = None
    targets: list[str] = []
    rank: str | None = None
    options: dict[str, Any] = {}


class ActionResolved(Event, tag="action_resolved", frozen=True, kw_only=True):
    """What an action did, in the rule system's words and numbers."""

    actor: str
    action: str
    outcome: str
    detail: dict[str, Any] = {}


class ReactionAwaited(Event, tag="reaction_awaited", frozen=True, kw_only=True):
    """An attack waits for its target's answer (or the GM's "no defense")."""

    pending_id: int
    attacker: str
    target: str
    action: str
    rank: str | None = None
    damage: int = 0
    options: list[str] = []
    detail: dict[str, Any] = {}


class ReactionDeclared(Event, tag="reaction_declared", frozen=True, kw_only=True):
    """The target answered a pending attack (or the GM chose no defense)."""

    pending_id: int
    actor: str
    reaction: str
    options: dict[str, Any] = {}
    by_gm: bool = False


class ReactionResolved(Event, tag="reaction_resolved", frozen=True, kw_only=True):
    """The pending attack is settled: how much got through and why."""

    pending_id: int
    actor: str
    reaction: str
    outcome: str
    damage_taken: int
    detail: dict[str, Any] = {}


class CombatContinued(Event, tag="combat_continued", frozen=True, kw_only=True):
    """The GM chose to go on with turns although only one side is left standing."""

    reason: str = ""


class Undone(Event, tag="undone", frozen=True, kw_only=True):
    """The GM reverted the game to how it stood after `to_version`; dice stay spent."""

    to_version: int
    from_version: int
    reason: str


class DeadlineReminded(Event, tag="deadline_reminded", frozen=True, kw_only=True):
    """Half of `deadline.hours` went by while `who`'s `waiting` (`turn` or `defence`,
    the latter for pending attack `pending_id`) stood since version `since`: a reminder.
    `due` is when the deadline falls (ISO time, UTC)."""

    who: str
    waiting: Literal["turn", "defence"]
    since: int
    pending_id: int | None = None
    hours: int
    due: str = ""


class DeadlinePassed(Event, tag="deadline_passed", frozen=True, kw_only=True):
    """`deadline.hours` went by while `who`'s `waiting` stood since version `since`: the
    encounter's `policy` applies (`alert`: nothing more; `no_defense`: the defence is
    answered `none`; `pass`: the turn ends, a defence is answered `none`), through the
    events that follow in the same step."""

    who: str
    waiting: Literal["turn", "defence"]
    since: int
    pending_id: int | None = None
    hours: int
    policy: Literal["alert", "no_defense", "pass"]
    due: str = ""


AnyEvent = (
    EncounterOpened
    | SeedCommitted
    | EntropyAdded
    | SeedRevealed
    | EncounterClosed
    | CombatantAdded
    | CombatantRemoved
    | CombatantDefeated
    | ResourceChanged
    | StatusSet
    | LimitUsed
    | DieRolled
    | RollDisputed
    | DisputeAnswered
    | ConditionApplied
    | ConditionExpired
    | ConditionRemoved
    | InitiativeSet
    | CombatStarted
    | RoundStarted
    | TurnStarted
    | TurnEnded
    | ActionDeclared
    | ActionResolved
    | ReactionAwaited
    | ReactionDeclared
    | ReactionResolved
    | CombatContinued
    | Undone
    | DeadlineReminded
    | DeadlinePassed
)

# The union named once; the tuple of its classes is read off it.
CORE_EVENTS: tuple[type[Event], ...] = typing.get_args(AnyEvent)

# Converting to the one class a tag names is ~50x cheaper than to the whole union.
BY_TAG: dict[str, type[Event]] = {str(cls.__struct_config__.tag): cls for cls in CORE_EVENTS}


def event_from(type_: str, data: Mapping[str, Any]) -> Event:
    """Decode a stored (type, data) pair into its event, through the upcaster (rule 3);
    ValueError for an unknown tag."""
    cls = BY_TAG.get(type_)
    if cls is None:
        raise ValueError(f"unknown event type {type_!r}")
    return msgspec.convert(upcast(type_, data), cls)


def event_data(event: Event) -> tuple[str, dict[str, Any]]:
    """The (type, data) pair stored for an event."""
    raw: dict[str, Any] = msgspec.to_builtins(event)
    type_ = raw.pop("type")
    return str(type_), raw
