"""Checks shared by the rule systems' sheet validation: a clear `Invalid` naming the field."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from domain.errors import Invalid


def whole(where: str, value: Any, low: int, high: int) -> int:
    """A whole number in [low, high] (booleans are not numbers here)."""
    if type(value) is not int or not low <= value <= high:
        raise Invalid(
            reason="must_whole_number_from", params={"where": where, "low": low, "high": high}
        )
    return value


def flag(where: str, value: Any) -> bool:
    if type(value) is not bool:
        raise Invalid(reason="must_true_false", params={"where": where})
    return value


def name(where: str, value: Any) -> str:
    if not isinstance(value, str) or not 1 <= len(value) <= 40:
        raise Invalid(reason="must_name_1_40_characters", params={"where": where})
    return value


Stats = Mapping[str, tuple[int, int, int | None]]  # name: (min, max, default; None = required)


def stats(sheet: Mapping[str, Any], table: Stats, other: Iterable[str] = ()) -> dict[str, Any]:
    """The whole-number stats of `table` read from `sheet`, defaults filled; a field that
    is neither a stat nor one of `other` (checked by the caller) is refused."""
    unknown = set(sheet) - set(table) - set(other)
    if unknown:
        raise Invalid(reason="unknown_sheet_fields", params={"unknown": sorted(unknown)})
    out: dict[str, Any] = {}
    for key, (low, high, default) in table.items():
        value = sheet.get(key, default)
        if value is None:
            raise Invalid(reason="sheet_required", params={"key": key})
        out[key] = whole(f"sheet.{key}", value, low, high)
    return out


def with_preset(
    presets: Mapping[str, Mapping[str, Any]], preset: Any, sheet: Mapping[str, Any]
) -> dict[str, Any] | None:
    """`sheet`'s fields over those of the preset named `preset`; None if there is no such
    preset (each caller says so in its own words: a command, the CLI, the HTTP body)."""
    base = presets.get(preset) if isinstance(preset, str) else None
    return None if base is None else {**base, **sheet}
