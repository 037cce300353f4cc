"""French grammar the narrators share: "de" elided before a vowel, a word agreed with
its count. Kept tiny and pure so every room that words French says it the same way."""

from __future__ import annotations

__all__ = ["de", "plural"]

_VOWELS = frozenset("aeiouyàâäéèêëîïôöùûüÿæœAEIOUYÀÂÄÉÈÊËÎÏÔÖÙÛÜŸÆŒ")


def de(name: str) -> str:
    """ "de Bran", "d'Aldric": the preposition before a name, elided before a vowel."""
    return f"d'{name}" if name[:1] in _VOWELS else f"de {name}"


def plural(count: int, one: str, many: str | None = None) -> str:
    """ "1 restant", "6 restants": the word agreed with its count (French: 0 and 1 are
    singular)."""
    word = one if abs(count) < 2 else (many or f"{one}s")
    return f"{count} {word}"
