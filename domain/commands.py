"""Every command a client can send, as frozen, tagged msgspec Structs (imperative names).

Decoding is strict (unknown fields are refused) and bounded by `Meta` constraints, so a
malformed request becomes a 4xx before the domain sees it.
"""

from __future__ import annotations

import typing
from typing import Annotated, Any, Literal, TypeVar

import msgspec
from msgspec import Meta

Name = Annotated[str, Meta(min_length=1, max_length=80)]
Id = Annotated[str, Meta(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_.:-]+$")]
Text = Annotated[str, Meta(max_length=2000)]
Delta = Annotated[int, Meta(ge=-1_000_000, le=1_000_000)]
Face = Annotated[int, Meta(ge=1, le=1_000_000)]
Faces = Annotated[list[Face], Meta(max_length=100)]
Options = Annotated[dict[str, Any], Meta(max_length=32)]
# A condition's name and note: one line of printable text (no control characters).
ConditionName = Annotated[str, Meta(min_length=1, max_length=40, pattern=r"^[^\x00-\x1f\x7f]+$")]
Note = Annotated[str, Meta(max_length=200, pattern=r"^[^\x00-\x1f\x7f]*$")]
Until = Literal["start_of_turn", "end_of_turn"]


class Command(
    msgspec.Struct, frozen=True, kw_only=True, tag_field="type", forbid_unknown_fields=True
):
    """Base of every command."""


class AddCombatant(Command, tag="add_combatant", frozen=True, kw_only=True):
    """Add a combatant with a sheet the rule system validates."""

    name: Name
    side: Name
    sheet: Annotated[dict[str, Any], Meta(max_length=64)] = {}
    controller: Name | None = None
    preset: Name | None = None
    hidden: Annotated[list[Id], Meta(max_length=16)] = []  # resources only the GM sees
    character: Id | None = None  # the War character this combatant is (War encounters only)


class RemoveCombatant(Command, tag="remove_combatant", frozen=True, kw_only=True):
    """Take a combatant out of the encounter (GM)."""

    combatant: Id
    reason: Text = ""


class RollInitiative(Command, tag="roll_initiative", frozen=True, kw_only=True):
    """Roll (or compare) initiative for every combatant (GM)."""

    dice: Faces | None = None


class StartCombat(Command, tag="start_combat", frozen=True, kw_only=True):
    """Start round 1 in initiative order (GM), rolling initiative if it was not rolled."""

    dice: Faces | None = None


class Act(Command, tag="act", frozen=True, kw_only=True):
    """Declare an action for `actor`; the rule system resolves it."""

    actor: Id
    action: Id
    target: Id | None = None
    targets: Annotated[list[Id], Meta(max_length=16)] = []
    rank: Annotated[str, Meta(max_length=8)] | None = None
    options: Options = {}
    dice: Faces | None = None


class React(Command, tag="react", frozen=True, kw_only=True):
    """Answer the pending attack aimed at `actor` (`none` takes it undefended)."""

    actor: Id
    reaction: Id
    options: Options = {}
    dice: Faces | None = None


class EndTurn(Command, tag="end_turn", frozen=True, kw_only=True):
    """End `actor`'s turn (or phase)."""

    actor: Id


class Adjust(Command, tag="adjust", frozen=True, kw_only=True):
    """Change a resource by hand (GM), with a reason for the log."""

    combatant: Id
    resource: Id
    delta: Delta
    reason: Text


class RepairArmor(Command, tag="repair_armor", frozen=True, kw_only=True):
    """Repair a combatant's armor (GM): regain `pr` resistance points, climbing back up the
    degradation levels (and their PP) as it goes; without `pr`, a full repair (TC-48)."""

    combatant: Id
    pr: Annotated[int, msgspec.Meta(ge=1, le=100_000)] | None = None
    reason: Text = ""


class Roll(Command, tag="roll", frozen=True, kw_only=True):
    """A free roll such as `2d6+3`; `hidden` rolls are the GM's alone."""

    expr: Annotated[str, Meta(min_length=1, max_length=40)]
    purpose: Text = ""
    hidden: bool = False
    dice: Faces | None = None


class Undo(Command, tag="undo", frozen=True, kw_only=True):
    """Revert the last step (or back to `to_version`) with compensating events (GM)."""

    reason: Text
    to_version: Annotated[int, Meta(ge=0)] | None = None


class AddEntropy(Command, tag="add_entropy", frozen=True, kw_only=True):
    """Mix a value into the dice before the first roll."""

    value: Annotated[str, Meta(min_length=1, max_length=256)]


class Dispute(Command, tag="dispute", frozen=True, kw_only=True):
    """Flag roll `roll` (its seq) for the table's attention."""

    roll: Annotated[int, Meta(ge=1)]
    reason: Text


class ApplyCondition(Command, tag="apply_condition", frozen=True, kw_only=True):
    """Put a condition on a combatant (GM). With `rounds: N` it expires at the Nth edge
    (`until`: the start or the end) of the bearer's own turns after it was applied; with
    no `rounds` it lasts until removed. `modifier` is added to the bearer's roll-under
    checks in every rule system (plain-d100 PD-7, d20-na NA-AMB-22, ranks-d100 RK-5,
    d100-tcs TC-15)."""

    combatant: Id
    name: ConditionName
    rounds: Annotated[int, Meta(ge=1, le=100)] | None = None
    until: Until = "end_of_turn"
    note: Note = ""
    modifier: Annotated[int, Meta(ge=-100, le=100)] | None = None


class RemoveCondition(Command, tag="remove_condition", frozen=True, kw_only=True):
    """Take a condition off a combatant (GM)."""

    combatant: Id
    name: ConditionName


class SetInitiative(Command, tag="set_initiative", frozen=True, kw_only=True):
    """Set the acting order by hand (GM), before or during the fight where the rule
    system allows it; `order` lists every combatant of the current order once."""

    order: Annotated[list[Id], Meta(min_length=1, max_length=64)]


class ContinueCombat(Command, tag="continue_combat", frozen=True, kw_only=True):
    """Go on with turns although only one side is left standing (GM)."""

    reason: Text = ""


class AnswerDispute(Command, tag="answer_dispute", frozen=True, kw_only=True):
    """The GM's answer to the open disputes of roll `roll`, for the whole table."""

    roll: Annotated[int, Meta(ge=1)]
    answer: Annotated[str, Meta(min_length=1, max_length=2000)]


class Close(Command, tag="close", frozen=True, kw_only=True):
    """Close the encounter and reveal the dice seeds (GM)."""

    reason: Text = ""


AnyCommand = (
    AddCombatant
    | RemoveCombatant
    | RollInitiative
    | StartCombat
    | Act
    | React
    | EndTurn
    | Adjust
    | RepairArmor
    | Roll
    | Undo
    | AddEntropy
    | Dispute
    | ApplyCondition
    | RemoveCondition
    | SetInitiative
    | ContinueCombat
    | AnswerDispute
    | Close
)


class ApplyDeadline(Command, tag="apply_deadline", frozen=True, kw_only=True):
    """The server's own command when a turn or a defence waited past its deadline
    (`deadline.hours`): `step` is the reminder (past half) or the passing (past all of
    it), for the wait that began at version `since`, falling due at `due` (ISO time).

    Not in `AnyCommand`: no client can send it. The server's deadline watcher decides it
    (server/services/deadlines.py) once its clock says so; the decider checks the wait
    is still the one named and not marked yet, so racing instances append it once.
    """

    step: Literal["remind", "pass"]
    since: Annotated[int, Meta(ge=1)]
    due: Annotated[str, Meta(max_length=40)] = ""


# The union named once; the tuple of its classes is read off it.
COMMANDS: tuple[type[Command], ...] = typing.get_args(AnyCommand)

command_decoder = msgspec.json.Decoder(AnyCommand)

T = TypeVar("T")


def _whole(value: Any) -> Any:
    """`value` with every integral float (`3.0`) made an int, the rest untouched.

    Only within int64, what msgspec decodes from an integer literal: `1e300` stays a float.
    """
    if isinstance(value, float) and value.is_integer() and -(2**63) <= value < 2**63:
        return int(value)
    if isinstance(value, list):
        return [_whole(v) for v in value]
    if isinstance(value, dict):
        return {k: _whole(v) for k, v in value.items()}
    return value


def decode_strict(raw: bytes, decoder: msgspec.json.Decoder[T], kind: Any) -> T:
    """Decode `raw` with `decoder` (of type `kind`), taking `3.0` where an int is due.

    JSON Schema, which GET /openapi.json publishes, counts `3.0` as an integer; msgspec's
    strict decoding does not. A body refused for a type retries once with its integral
    floats made ints, still strictly (no "3" for 3), so what the schema accepts is read.
    Raises msgspec.ValidationError / DecodeError.
    """
    try:
        return decoder.decode(raw)
    except msgspec.ValidationError:
        loose = msgspec.json.decode(raw)
        whole = _whole(loose)
        if msgspec.json.encode(whole) == msgspec.json.encode(loose):
            raise  # no float to make whole: the first error is the one to tell
        result: T = msgspec.convert(whole, kind)
        return result


def decode_command(raw: bytes) -> Command:
    """Strictly decode one command; raises msgspec.ValidationError / DecodeError."""
    result: Command = decode_strict(raw, command_decoder, AnyCommand)
    return result
