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

    def __init__(self, message: str) -> None:
        super().__init__("forbidden", message)


class NotFound(Refused):
    """The command names a combatant, roll or reaction that does not exist."""

    status = 404

    def __init__(self, message: str) -> None:
        super().__init__("not_found", message)
