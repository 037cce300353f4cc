"""Domain refusals carry facts, not sentences: a machine-readable code, a stable reason
key, the rule id that refused, and the parameters the words need.

The words themselves (English and French, from the same facts) live in one room,
projections/words/refusals.py; the domain stays free of sentences. A parameter given as
a combatant (anything with an `id` and a `name`) is kept as its id, and its name is kept
beside it in `names`, so the words can name it as the state knew it when it refused.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["Forbidden", "Invalid", "NotFound", "Refused", "RuleViolation"]


def _facts(reason: str, params: Mapping[str, Any], rule: str | None) -> str:
    """The facts as one plain line ("not_turn_of actor=c2 (RK-3)") for logs and str()."""
    args = " ".join(f"{k}={v!r}" for k, v in params.items())
    return " ".join(x for x in (reason, args, f"({rule})" if rule else "") if x)


class Refused(Exception):
    """A command the domain will not accept. Nothing is appended for it.

    `Refused(code, rule=..., reason=..., params=...)` is the form of the rule systems;
    `message` is only for refusals raised outside the domain's words (a replayed outcome,
    a server failure) and for the validation texts of `Invalid` that name a field.
    """

    status = 409

    def __init__(
        self,
        code: str,
        message: str = "",
        rule: str | None = None,
        *,
        reason: str = "",
        params: Mapping[str, Any] | None = None,
        names: Mapping[str, str] | None = None,
    ) -> None:
        self.code = code
        self.rule = rule
        self.reason = reason or code
        self.params: dict[str, Any] = {}
        self.names: dict[str, str] = dict(names or {})
        for key, value in (params or {}).items():
            if hasattr(value, "id") and hasattr(value, "name"):
                self.params[key], self.names[key] = value.id, value.name
            elif value is None or isinstance(value, str | int | float | bool | list | dict):
                self.params[key] = value
            elif isinstance(value, tuple) and not hasattr(value, "_fields"):
                self.params[key] = list(value)
            elif isinstance(value, set | frozenset):
                self.params[key] = sorted(value, key=str)
            else:  # a rank (a named tuple), a set...: its text, so the facts stay plain JSON
                self.params[key] = str(value)
        self.message = message or _facts(self.reason, self.params, rule)
        if code == "rule_violation":
            self.status = 422  # whichever constructor says it (issue 22 finding 3)
        super().__init__(self.message)


class _Coded(Refused):
    """A refusal whose code is its class's (`invalid`, `forbidden`)."""

    code_of = ""

    def __init__(
        self,
        message: str = "",
        rule: str | None = None,
        *,
        reason: str = "",
        params: Mapping[str, Any] | None = None,
    ) -> None:
        super().__init__(self.code_of, message, rule, reason=reason, params=params)


class Invalid(_Coded):
    """Well-formed JSON that names something that does not fit (unknown field value...)."""

    status = 422
    code_of = "invalid"


class Forbidden(_Coded):
    """The caller's role may not do this (a player acting for another's combatant)."""

    status = 403
    code_of = "forbidden"


class NotFound(Refused):
    """The command names a combatant, roll or reaction that does not exist."""

    status = 404

    def __init__(
        self, message: str = "", *, reason: str = "", params: Mapping[str, Any] | None = None
    ) -> None:
        super().__init__("not_found", message, reason=reason, params=params)


class RuleViolation(Refused):
    """A well-formed command or sheet that a rule of the system forbids; `rule` says which.

    The line with `Invalid`: a value of the wrong JSON type or form (not a whole number,
    not one of the listed words, a field missing) is `invalid`, even where a rule names
    the form; a value of the right form that a rule refuses (two-handed with a shield,
    a third stat at EX, a spell the caster does not know) is `rule_violation`.
    """

    def __init__(
        self,
        message: str = "",
        rule: str | None = None,
        *,
        reason: str = "",
        params: Mapping[str, Any] | None = None,
    ) -> None:
        super().__init__("rule_violation", message, rule, reason=reason, params=params)
