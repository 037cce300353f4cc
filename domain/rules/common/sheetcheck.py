"""Checks shared by the rule systems' sheet validation: a clear `Invalid` naming the field."""

from __future__ import annotations

from typing import Any

from domain.errors import Invalid


def whole(where: str, value: Any, low: int, high: int) -> int:
    """A whole number in [low, high] (booleans are not numbers here)."""
    if type(value) is not int or not low <= value <= high:
        raise Invalid(f"{where} must be a whole number from {low} to {high}")
    return value


def flag(where: str, value: Any) -> bool:
    if type(value) is not bool:
        raise Invalid(f"{where} must be true or false")
    return value


def name(where: str, value: Any) -> str:
    if not isinstance(value, str) or not 1 <= len(value) <= 40:
        raise Invalid(f"{where} must be a name of 1 to 40 characters")
    return value
