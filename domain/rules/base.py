"""What every rule system provides to the encounter, behind one Protocol."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from domain.commands import Act, React
from domain.context import Ctx
from domain.errors import Invalid
from domain.rules.options import OptionTable
from domain.state import Game, Pending


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


class RuleSystem(Protocol):
    """A rule system: sheets, initiative, turn structure, and the resolution of act/react.

    Optional hooks, looked up with getattr: `settle(ctx)` after every command,
    `end_round(ctx)` before a new round, `repair(ctx, command)` (repair_armor), and
    `check_reorder(ctx)`, which raises Refused where the system forbids a hand-set order
    (set_initiative). A system puts its own conditions on through `ctx.condition`
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
    options: OptionTable  # what each action and reaction takes (domain/rules/options.py)

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

    def act(self, ctx: Ctx, command: Act) -> None:
        """Resolve an action; emit events through ctx; raise Refused when a rule forbids."""
        ...

    def react(self, ctx: Ctx, command: React, pending: Pending) -> None:
        """Resolve the answer to a pending attack (`none` = no defense)."""
        ...

    def legal(self, game: Game, actor: str, settings: Mapping[str, Any]) -> list[dict[str, Any]]:
        """What `actor` may do now: [{action, enabled, reason, rule, targets, ranks}]."""
        ...


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
