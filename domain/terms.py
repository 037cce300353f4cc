"""The terms a rule system and the encounter exchange: settings, action specs, sheets,
costs, legal actions, the outcome of a turn, and the option tables.

Plain values, importing no `Ctx`: the `RuleSystem` Protocol (domain/context.py), the
shared kernel (domain/rules/common/) and every rule system name them without a cycle.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

import msgspec

from domain.errors import Invalid

if TYPE_CHECKING:
    from domain.state import Game

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
            raise Invalid(
                rule=self.rule,
                reason="setting_takes",
                params={"key": key, "type": type(self.default).__name__},
            )
        if self.choices and value not in self.choices:
            raise Invalid(
                rule=self.rule,
                reason="setting_must_one",
                params={"key": key, "choices": list(self.choices)},
            )
        if type(value) is int and (
            (self.low is not None and value < self.low)
            or (self.high is not None and value > self.high)
        ):
            raise Invalid(
                rule=self.rule,
                reason="setting_whole_number_from",
                params={"key": key, "low": self.low, "high": self.high},
            )
        if type(value) is list:
            if len(value) > self.max_items:
                raise Invalid(
                    rule=self.rule,
                    reason="setting_holds_most_items",
                    params={"key": key, "max_items": self.max_items},
                )
            bad = [v for v in value if self.items and v not in self.items]
            if bad:
                raise Invalid(
                    rule=self.rule,
                    reason="setting_takes_only_not",
                    params={"key": key, "items": list(self.items), "bad": bad},
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


class HalfRank(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """A half-rank switch a roll may use (ranks-d100 RK-6..RK-8), and its once-per-RP state.

    `option` is the act/react option that switches it (`activate` a positive half-rank,
    `deactivate` the negative one), sent as `{option: [stat]}`; `state` is `ready` (the
    switch is free this RP: `delta` is what it adds to the shown threshold), `used` (spent
    this RP: the roll is at the plain rank) or `on` (switched for the rest of the RP and
    already counted in the odds). `only_at` is the rank letter an attack must be made at
    for the switch to apply (RK-AMB-5's `action_rank`), None when any rank rolls the stat.
    """

    stat: str
    rank: str
    option: str
    state: str
    delta: int = 0
    rule: str = "RK-8"
    only_at: str | None = None


class SessionUse(msgspec.Struct, frozen=True, kw_only=True):
    """An ability a sheet gives once per session (RP): its limit key, as `limit_used` names
    it when spent (`second_wind`, `half_rank.STR`, `item:<potion>`), and its rule. The
    player's own sheet counts what is left of each (projections/sheet.py)."""

    key: str
    rule: str | None = None


class LegalAction(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """One action (or, with `reaction`, one answer to a pending attack) an actor may take
    now, or why not: what the board's `legal` lists and the UI turns into buttons.

    `cost` is empty when the action is free. `chance` is the percent (0..100, an int) that
    the action's test succeeds, where the system can tell it from the state alone: the
    roll `die` under (or at) `threshold` on `stat`, for the first listed target and the
    default options. None when nothing is rolled, or it depends on what is not known yet.
    `reads` names the resources the odds are computed from (ranks-d100's health malus
    reads `hp`): a view that hides one of them hides the odds too (projections/board.py).
    `half_rank` is the half-rank switch the roll may use (ranks-d100), with its state.
    `reason` is a refusal's stable key and `params` its facts: the board words them in
    English and French (projections/words/refusals.py).
    """

    action: str
    enabled: bool
    reason: str
    rule: str | None
    params: dict[str, Any] = {}
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
    half_rank: HalfRank | None = None


@dataclass(frozen=True)
class TurnOver:
    """What `act` or `react` return when the turn of `actor` is over: the encounter ends
    it and hands the turn on (the rule system never ends a turn itself)."""

    actor: str


# What `act` and `react` return: the turn is over, or it goes on (or waits on a reaction).
Outcome = TurnOver | None


Kind = Literal["int", "str", "bool", "list", "step"]


@dataclass(frozen=True)
class Option:
    """One option: its type, its range (int) or allowed values, and the rule it serves.

    `list` is a list of strings, each among `choices`, at most `max_length` of them; `step`
    is d100-tcs's second declared action `{action, target?, options?}` (TC-7), its options
    checked against that action's own declarations.
    """

    type: Kind
    rule: str
    description: str = ""
    low: int | None = None
    high: int | None = None
    choices: tuple[Any, ...] = ()
    max_length: int = 80  # characters of a str, items of a list


Declared = Mapping[str, Mapping[str, Option]]
# A check that needs the game: (game, actor, action or reaction, options, kind) -> None.
StateCheck = Callable[["Game", str, str, Mapping[str, Any], str], None]


@dataclass(frozen=True)
class OptionTable:
    """Every option each action and reaction of a rule system takes; `rule` is cited for
    what has no better rule (a reaction such as `none`)."""

    actions: Declared
    reactions: Declared
    rule: str
    state_check: StateCheck | None = None

    def of(self, kind: str, name: str) -> Mapping[str, Option]:
        table = self.actions if kind == "action" else self.reactions
        return table.get(name, {})
