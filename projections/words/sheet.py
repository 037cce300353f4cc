"""What a sheet's once-per-session abilities are called on the player's own sheet, by
their limit key (domain/terms.py `SessionUse`), in English and French."""

from __future__ import annotations

_NAMED: dict[str, tuple[str, str]] = {
    "second_wind": ("Second wind", "Second souffle"),
}


def use_words(key: str) -> tuple[str, str]:
    """An ability's name: a known key, a stat's half-rank, a potion by its name."""
    if key in _NAMED:
        return _NAMED[key]
    if key.startswith("half_rank."):
        stat = key.removeprefix("half_rank.")
        return f"Half-rank of {stat}", f"Demi-rang de {stat}"
    if key.startswith("item:"):
        name = key.removeprefix("item:")
        return f"Potion: {name}", f"Potion : {name}"
    return key.replace("_", " "), key.replace("_", " ")
