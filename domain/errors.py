"""Domain refusals: a machine-readable code, a sentence, and the rule id that refused."""

from __future__ import annotations


class Refused(Exception):
    """A command the domain will not accept. Nothing is appended for it."""

    status = 409

    def __init__(self, code: str, message: str, rule: str | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.rule = rule


class Invalid(Refused):
    """Well-formed JSON that names something that does not fit (unknown field value...)."""

    status = 422

    def __init__(self, message: str, rule: str | None = None) -> None:
        super().__init__("invalid", message, rule)


class Forbidden(Refused):
    """The caller's role may not do this (a player acting for another's combatant)."""

    status = 403

    def __init__(self, message: str, rule: str | None = None) -> None:
        super().__init__("forbidden", message, rule)


class NotFound(Refused):
    """The command names a combatant, roll or reaction that does not exist."""

    status = 404

    def __init__(self, message: str) -> None:
        super().__init__("not_found", message)


class RuleViolation(Refused):
    """A well-formed command or sheet that a rule of the system forbids; `rule` says which.

    The line with `Invalid`: a value of the wrong JSON type or form (not a whole number,
    not one of the listed words, a field missing) is `invalid`, even where a rule names
    the form; a value of the right form that a rule refuses (two-handed with a shield,
    a third stat at EX, a spell the caster does not know) is `rule_violation`.
    """

    status = 422

    def __init__(self, message: str, rule: str) -> None:
        super().__init__("rule_violation", message, rule)
