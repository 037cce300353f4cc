"""The options an action or reaction takes, as each rule system declares them, and the one
checker every `act` / `react` passes before anything is recorded.

A rule system declares, per action and per reaction, each option's name, scalar type,
range or allowed values, and the rule that governs it (`OptionTable`). `check` refuses,
with code `invalid` and a rule id: an option nobody declared, a value of the wrong type or
out of its range, and options over `MAX_OPTIONS_BYTES` once encoded. A system may add a
check that needs the game (d100-tcs: the weapon named must be the one in hand).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal, Protocol

import msgspec

from domain.errors import Invalid
from domain.state import Game
from domain.terms import ActionSpec, Option, OptionTable

MAX_OPTIONS_BYTES = 2048  # the options of one act/react, encoded as JSON


class Declares(Protocol):
    """What `check` reads of a rule system: its option table and the specs of its actions
    and reactions (for the rule a refusal cites). Every `RuleSystem` has them."""

    @property
    def options(self) -> OptionTable: ...
    @property
    def actions(self) -> Mapping[str, ActionSpec]: ...
    @property
    def reactions(self) -> Mapping[str, ActionSpec]: ...


def describe(option: Option) -> dict[str, Any]:
    """An option as `GET /api/rulesets` shows it."""
    out: dict[str, Any] = {"type": option.type, "rule": option.rule}
    if option.description:
        out["description"] = option.description
    if option.low is not None:
        out["min"] = option.low
    if option.high is not None:
        out["max"] = option.high
    if option.choices:
        out["choices"] = list(option.choices)
    if option.type in ("str", "list"):
        out["max_length"] = option.max_length
    return out


def describe_all(declared: Mapping[str, Option]) -> dict[str, dict[str, Any]]:
    return {name: describe(opt) for name, opt in declared.items()}


def check(
    rules: Declares,
    game: Game,
    actor: str,
    kind: Literal["action", "reaction"],
    name: str,
    options: Mapping[str, Any],
) -> None:
    """Refuse (Invalid, with a rule id) options `rules` does not declare for `name`."""
    table = rules.options
    specs = rules.actions if kind == "action" else rules.reactions
    spec = specs.get(name)
    rule = (spec.rule if spec is not None else None) or table.rule
    if not options:
        return
    size = len(msgspec.json.encode(options))
    if size > MAX_OPTIONS_BYTES:
        raise Invalid(
            rule=rule,
            reason="options_are_limited_bytes_encoded",
            params={"max": MAX_OPTIONS_BYTES, "size": size},
        )
    _check_all(table, table.of(kind, name), options, f"{kind} {name}", rule, nested=False)
    if table.state_check is not None:
        table.state_check(game, actor, name, options, kind)


def _check_all(
    table: OptionTable,
    declared: Mapping[str, Option],
    options: Mapping[str, Any],
    what: str,
    rule: str,
    *,
    nested: bool,
) -> None:
    unknown = sorted(k for k in options if k not in declared)
    if unknown:
        params = {"what": what, "unknown": unknown, "known": sorted(declared)}
        raise Invalid(rule=rule, reason="unknown_options", params=params)
    for key, value in options.items():
        opt = declared[key]
        if opt.type == "step":
            if nested:
                raise Invalid(
                    rule=opt.rule, reason="options_declares_only_second_action", params={"key": key}
                )
            _check_step(table, key, opt, value)
        else:
            _check_value(key, opt, value)


def _check_value(key: str, opt: Option, value: Any) -> None:
    where = f"options.{key}"
    if opt.type == "bool":
        if type(value) is not bool:
            raise Invalid(rule=opt.rule, reason="option_true_false", params={"where": where})
    elif opt.type == "int":
        if type(value) is not int:
            raise Invalid(rule=opt.rule, reason="option_whole_number", params={"where": where})
        if (opt.low is not None and value < opt.low) or (opt.high is not None and value > opt.high):
            raise Invalid(
                rule=opt.rule,
                reason="whole_number_from",
                params={"where": where, "low": opt.low, "high": opt.high},
            )
    elif opt.type == "str":
        if type(value) is not str or not 1 <= len(value) <= opt.max_length:
            raise Invalid(
                rule=opt.rule,
                reason="text_1_characters",
                params={"where": where, "max_length": opt.max_length},
            )
    elif opt.type == "list":
        if (
            type(value) is not list
            or len(value) > opt.max_length
            or not all(type(v) is str for v in value)
        ):
            raise Invalid(
                rule=opt.rule,
                reason="list_most_names",
                params={"where": where, "max_length": opt.max_length},
            )
        bad = [v for v in value if opt.choices and v not in opt.choices]
        if bad:
            raise Invalid(
                rule=opt.rule,
                reason="takes_only_not",
                params={"where": where, "choices": list(opt.choices), "bad": bad},
            )
        return
    if opt.choices and value not in opt.choices:
        raise Invalid(
            rule=opt.rule, reason="one_of", params={"where": where, "choices": list(opt.choices)}
        )


def _check_step(table: OptionTable, key: str, opt: Option, value: Any) -> None:
    where = f"options.{key}"
    if type(value) is not dict or set(value) - {"action", "target", "options"}:
        raise Invalid(rule=opt.rule, reason="step_shape", params={"where": where})
    action = value.get("action")
    if type(action) is not str or action not in table.actions:
        raise Invalid(
            rule=opt.rule,
            reason="step_action_one_of",
            params={"where": where, "actions": sorted(table.actions)},
        )
    target = value.get("target")
    if target is not None and (type(target) is not str or not 1 <= len(target) <= 64):
        raise Invalid(rule=opt.rule, reason="target_combatant_id", params={"where": where})
    more = value.get("options", {})
    if type(more) is not dict:
        raise Invalid(rule=opt.rule, reason="options_object", params={"where": where})
    _check_all(table, table.of("action", action), more, f"{where} {action}", opt.rule, nested=True)
