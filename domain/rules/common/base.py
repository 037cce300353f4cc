"""What every rule system provides to the encounter, behind one Protocol."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

import msgspec

from domain.commands import Act, React, RepairArmor
from domain.context import Ctx
from domain.errors import Invalid, Refused
from domain.rules.common.options import OptionTable
from domain.state import Game, Pending

# How a turn is played, as `GET /api/rulesets` declares it for the web UI: `single` is one
# action (or one slot) at a time; `two_declared` is two actions declared together at the
# start of the turn, the second as the first's `options.then` (d100-tcs, TC-7).
TurnShape = Literal["single", "two_declared"]


@dataclass(frozen=True)
class Setting:
    """A per-encounter setting: its default, allowed values and the rule it governs.

    A whole-number setting declares its range (`low`..`high`) or its `choices`; a list
    setting the values its items may take (`items`, at most `max_items` of them); anything
    else a `check` that raises Invalid.
    """

    default: Any
    description: str
    rule: str | None = None
    choices: tuple[Any, ...] = ()
    low: int | None = None
    high: int | None = None
    items: tuple[Any, ...] = ()
    max_items: int = 16
    check: Callable[[Any], None] | None = None

    def validate(self, key: str, value: Any) -> Any:
        """`value` if it fits this setting, else Invalid with the setting's rule id."""
        if type(value) is not type(self.default):
            raise Invalid(f"setting {key!r} takes a {type(self.default).__name__}", self.rule)
        if self.choices and value not in self.choices:
            raise Invalid(f"setting {key!r} must be one of {list(self.choices)}", self.rule)
        if type(value) is int and (
            (self.low is not None and value < self.low)
            or (self.high is not None and value > self.high)
        ):
            raise Invalid(
                f"setting {key!r} is a whole number from {self.low} to {self.high}", self.rule
            )
        if type(value) is list:
            if len(value) > self.max_items:
                raise Invalid(f"setting {key!r} holds at most {self.max_items} items", self.rule)
            bad = [v for v in value if self.items and v not in self.items]
            if bad:
                raise Invalid(
                    f"setting {key!r} takes only {list(self.items)}: not {bad}", self.rule
                )
        if self.check is not None:
            self.check(value)
        return value

    def describe(self) -> dict[str, Any]:
        """The setting as `GET /api/rulesets` shows it."""
        out: dict[str, Any] = {
            "default": self.default,
            "description": self.description,
            "rule": self.rule,
            "choices": list(self.choices),
        }
        if self.low is not None:
            out["min"] = self.low
        if self.high is not None:
            out["max"] = self.high
        if self.items:
            out["items"] = list(self.items)
        return out


def with_defaults(table: Mapping[str, Setting], settings: Mapping[str, Any]) -> dict[str, Any]:
    """An encounter's `settings` over the defaults of a rule system's settings `table`:
    every key of the table is there, and what the encounter set wins.

    The defaults of a table are gathered once (d20-na's act asks at every action, and the
    resolver runs thousands of those); the table itself is kept beside them, so an id
    reused by another table is never mistaken for it."""
    known = _DEFAULTS.get(id(table))
    if known is None or known[0] is not table:
        known = _DEFAULTS[id(table)] = (table, {k: spec.default for k, spec in table.items()})
    out = dict(known[1])
    out.update(settings)
    return out


_DEFAULTS: dict[int, tuple[Mapping[str, Setting], dict[str, Any]]] = {}


@dataclass(frozen=True)
class ActionSpec:
    """An action code the rule system accepts in `act`."""

    label: str
    label_fr: str
    free: bool = False  # may be taken outside one's own turn (RK-18, RK-30)
    needs_target: bool = False
    ranked: bool = False
    rule: str | None = None


@dataclass(frozen=True)
class Sheet:
    """A validated sheet and the resources it gives."""

    sheet: dict[str, Any]
    resources: dict[str, int]
    maxima: dict[str, int] = field(default_factory=dict)
    gm_only: tuple[str, ...] = ()
    # Limits already spent before this encounter (same Day of a War): (key, scope, rule).
    used: tuple[tuple[str, str, str | None], ...] = ()


class Cost(msgspec.Struct, frozen=True, kw_only=True):
    """What an action or reaction costs, in the rule system's own currency.

    `unit` names it: `half_action` (d20-na NA budget), `mana` / `luck` (ranks-d100),
    `action` / `energy` (d100-tcs). `left` is what the combatant would have after paying,
    where the system counts it (None: not a pool, or not shown to this view).
    """

    amount: int
    unit: str
    left: int | None = None


class LegalAction(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """One action (or, with `reaction`, one answer to a pending attack) an actor may take
    now, or why not: what the board's `legal` lists and the UI turns into buttons.

    `cost` is empty when the action is free. `chance` is the percent (0..100, an int) that
    the action's test succeeds, where the system can tell it from the state alone: the
    roll `die` under (or at) `threshold` on `stat`, for the first listed target and the
    default options. None when nothing is rolled, or it depends on what is not known yet.
    `reads` names the resources the odds are computed from (ranks-d100's health malus
    reads `hp`): a view that hides one of them hides the odds too (projections/board.py).
    """

    action: str
    enabled: bool
    reason: str
    rule: str | None
    targets: list[str]
    ranks: list[str] | None = None
    choices: dict[str, Any] | list[str] | None = None
    reaction: bool = False
    cost: list[Cost] = []
    chance: int | None = None
    stat: str | None = None
    threshold: int | None = None
    die: str | None = None
    reads: list[str] = []


@dataclass(frozen=True)
class TurnOver:
    """What `act` or `react` return when the turn of `actor` is over: the encounter ends
    it and hands the turn on (the rule system never ends a turn itself)."""

    actor: str


# What `act` and `react` return: the turn is over, or it goes on (or waits on a reaction).
Outcome = TurnOver | None


class RuleSystem(Protocol):
    """A rule system: sheets, initiative, turn structure, and the resolution of act/react.

    Every hook the encounter calls is here, typed; `Rules` gives the defaults most
    systems keep. A system puts its own conditions on through `ctx.condition`
    (d100-tcs: `no_aoo` after a disengage, TC-27) and reads their modifiers with
    `domain.conditions.modifiers`.
    """

    id: str
    name: str
    version: str
    settings: Mapping[str, Setting]
    actions: Mapping[str, ActionSpec]
    reactions: Mapping[str, ActionSpec]
    presets: Mapping[str, Mapping[str, Any]]
    options: OptionTable  # what each action and reaction takes (domain/rules/common/options.py)
    turn: TurnShape

    def validate_sheet(self, sheet: Mapping[str, Any], settings: Mapping[str, Any]) -> Sheet:
        """Check a sheet; raise domain.errors.Invalid (with the rule id) if it breaks a rule."""
        ...

    def initiative(self, ctx: Ctx, combatants: list[str]) -> dict[str, int]:
        """Each combatant's initiative score (rolling through ctx where the system rolls)."""
        ...

    def order(self, game: Game, scores: Mapping[str, int]) -> list[str]:
        """The acting order from the scores (ties broken the system's way)."""
        ...

    def start_round(self, ctx: Ctx) -> None:
        """Round-start bookkeeping (budgets, carry-overs): emit through ctx."""
        ...

    def advance(self, game: Game) -> tuple[bool, str, str] | None:
        """After a turn ends: (new_round?, next actor, phase), or None when nobody can act."""
        ...

    def end_round(self, ctx: Ctx) -> None:
        """What is settled at the end of a round, before the next one opens (TC-29)."""
        ...

    def turn_ended(self, ctx: Ctx, actor: str, round_over: bool) -> None:
        """Bookkeeping once `actor`'s turn has ended and the next one started (NA-AMB-3)."""
        ...

    def act(self, ctx: Ctx, command: Act) -> Outcome:
        """Resolve an action; emit events through ctx; raise Refused when a rule forbids."""
        ...

    def react(self, ctx: Ctx, command: React, pending: Pending) -> Outcome:
        """Resolve the answer to a pending attack (`none` = no defense)."""
        ...

    def after_command(self, ctx: Ctx) -> None:
        """After any command: what follows from the state (defeat at 0 HP, a fleer gone)."""
        ...

    def repair(self, ctx: Ctx, command: RepairArmor) -> None:
        """The GM's `repair_armor`; a system without armor refuses it."""
        ...

    def check_reorder(self, ctx: Ctx) -> None:
        """Raise Refused where the system forbids a hand-set order now (set_initiative)."""
        ...

    def legal(self, game: Game, actor: str, settings: Mapping[str, Any]) -> list[LegalAction]:
        """What `actor` may do now, each with why not, its cost and its odds."""
        ...


class Rules:
    """The defaults of the hooks most systems leave alone; a system subclasses it and
    overrides what it settles. (Every hook is still in `RuleSystem`, typed, never probed.)"""

    id: str
    turn: TurnShape = "single"

    def end_round(self, ctx: Ctx) -> None:
        return None

    def turn_ended(self, ctx: Ctx, actor: str, round_over: bool) -> None:
        return None

    def after_command(self, ctx: Ctx) -> None:
        return None

    def repair(self, ctx: Ctx, command: RepairArmor) -> None:
        raise Refused("rule_violation", f"{self.id} has no armor to repair")

    def check_reorder(self, ctx: Ctx) -> None:
        return None  # the GM may set the order by hand before and during the fight


def percent_under(
    threshold: int, faces: int, *, always: int = 0, never_from: int | None = None, tries: int = 1
) -> int:
    """The percent (0..100, rounded) that a 1dN roll succeeds at or under `threshold`.

    Faces 1..`always` succeed whatever the threshold (a critical success range) and faces
    from `never_from` up fail whatever it is (a critical failure range); `tries` counts
    the rolls when a failure may be rolled again (a shield's free reroll, NA-9).
    """
    top = faces if never_from is None else never_from - 1
    ok = max(0, min(faces, max(always, min(threshold, top))))
    miss = (faces - ok) / faces
    return round(100 * (1 - miss**tries))


def rotate(game: Game) -> tuple[bool, str, str] | None:
    """The plain turn order: the next active combatant after the last one, wrapping."""
    active = game.active()
    if not active:
        return None
    order = game.order or active
    last = game.last
    if last is None or last not in order:
        return game.round == 0, active[0], ""
    idx = order.index(last)
    for step in range(1, len(order) + 1):
        cand = order[(idx + step) % len(order)]
        if cand in active:
            return idx + step >= len(order), cand, ""
    return None
