"""d20-na (shared/rules/d20-na.md): the rule system and its 1v1 resolver (NA-37)."""

from domain.rules.d20_na.system import D20NA

__all__ = ["D20NA"]
