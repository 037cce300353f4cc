"""ranks-d100 tables and rank arithmetic: the numbers of RK-3..RK-58 and the half-rank rules.

A rank is written `E`, `D`, `C`, `B`, `A` or `EX`, followed by up to three `+` or one `-`
(RK-9, RK-10); EX takes neither (RK-11). In code a rank is `Rank(level, half)` with level
0 (E) .. 5 (EX) and half in -1..+3.

Every table can be overridden per encounter through the `tables` setting, keyed
`"<table>.<RANK>"` (e.g. `{"reduction.master.B": 30}`, RK-AMB-2's `as_printed` fixture).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any, NamedTuple

from domain.errors import Invalid, RuleViolation

LETTERS: tuple[str, ...] = ("E", "D", "C", "B", "A", "EX")  # RK-2, lowest first
MAX_PLUS = 3  # RK-9
MAX_MINUS = 1  # RK-10


class Rank(NamedTuple):
    """A rank level (0 = E .. 5 = EX) and its half-ranks (-1..+3)."""

    level: int
    half: int = 0

    @property
    def letter(self) -> str:
        return LETTERS[self.level]

    def __str__(self) -> str:
        return self.letter + ("+" * self.half if self.half > 0 else "-" * -self.half)


def parse_rank(text: Any, rule: str = "RK-2") -> Rank:
    """Read `"B+"`, `"E-"`, `"EX"`; refuse what the ladder (RK-2, RK-9..RK-11) cannot hold."""
    if not isinstance(text, str) or not text:
        raise Invalid(
            rule=rule, reason="rank_one_with_not", params={"letters": list(LETTERS), "text": text}
        )
    body = text.rstrip("+-")
    marks = text[len(body) :]
    if body not in LETTERS:
        raise Invalid(
            rule=rule,
            reason="unknown_rank_ranks_are",
            params={"text": text, "letters": list(LETTERS)},
        )
    index = LETTERS.index(body)
    plus, minus = marks.count("+"), marks.count("-")
    if plus and minus:
        raise RuleViolation(rule="RK-10", reason="rank_mixes_signs", params={"text": text})
    if index == 5 and marks:
        raise RuleViolation(rule="RK-11", reason="ex_no_half_ranks", params={"text": text})
    if plus > MAX_PLUS:
        raise RuleViolation(rule="RK-9", reason="rank_too_many_plus", params={"text": text})
    if minus > MAX_MINUS:
        raise RuleViolation(rule="RK-10", reason="rank_too_many_minus", params={"text": text})
    return Rank(index, plus - minus)


def gain_plus(rank: Rank) -> Rank:
    """One more `+`: cancels a `-` (RK-10); a fourth raises the rank (RK-9); EX stays (RK-11)."""
    if rank.level == 5:
        return rank
    if rank.half < 0:
        return Rank(rank.level, 0)
    if rank.half == MAX_PLUS:
        return Rank(rank.level + 1, 0)
    return Rank(rank.level, rank.half + 1)


def gain_minus(rank: Rank) -> Rank:
    """One more `-`: removes a `+` first; a second `-` changes nothing (RK-10); EX stays."""
    if rank.level == 5 or rank.half < 0:
        return rank
    if rank.half > 0:
        return Rank(rank.level, rank.half - 1)
    return Rank(rank.level, -1)


def order_key(rank: Rank) -> tuple[int, int]:
    """Rank order, then half-ranks (RK-AMB-12, RK-AMB-14)."""
    return (rank.level, rank.half)


Row = tuple[int, int, int, int, int, int]

# name -> values for E, D, C, B, A, EX, with the rule that prints them.
TABLES: dict[str, tuple[Row, str]] = {
    "threshold": ((30, 40, 50, 60, 70, 90), "RK-3"),
    "modifier.init": ((-10, 0, 10, 20, 30, 50), "RK-23"),
    "damage.physical.servant": ((20, 25, 30, 35, 40, 50), "RK-33"),
    "damage.physical.master": ((5, 10, 15, 20, 25, 35), "RK-33"),
    "reduction.servant": ((25, 30, 35, 40, 45, 55), "RK-36"),
    "reduction.master": ((10, 15, 20, 25, 30, 40), "RK-36"),
    "modifier.hp": ((-10, 0, 10, 20, 30, 50), "RK-37"),
    "damage.magic.servant": ((30, 35, 40, 45, 50, 60), "RK-43"),
    "damage.magic.master": ((15, 20, 25, 30, 35, 45), "RK-43"),
    "cost.magic": ((5, 10, 15, 20, 25, 35), "RK-44"),
    "survival.tours": ((1, 2, 3, 4, 5, 7), "RK-46"),
    "modifier.mana": ((-10, 0, 10, 20, 30, 50), "RK-47"),
    "luck.bonus": ((5, 10, 15, 20, 25, 35), "RK-50"),
    "luck.uses": ((1, 2, 3, 4, 5, 7), "RK-51"),
    "damage.np": ((40, 50, 60, 70, 80, 100), "RK-53"),
    "cost.np": ((25, 35, 45, 55, 65, 85), "RK-53"),
    "damage.spell.master": ((30, 35, 40, 45, 50, 60), "RK-56"),
    "cost.spell": ((15, 20, 25, 30, 35, 45), "RK-56"),
    "damage.spell.servant": ((40, 45, 50, 55, 60, 70), "RK-58"),
}

# Which value family each table belongs to, for `half_rank.value_tables` (RK-AMB-4).
FAMILY: dict[str, str] = {
    "damage.physical.servant": "damage",
    "damage.physical.master": "damage",
    "damage.magic.servant": "damage",
    "damage.magic.master": "damage",
    "damage.np": "damage",
    "damage.spell.master": "damage",
    "damage.spell.servant": "damage",
    "reduction.servant": "reduction",
    "reduction.master": "reduction",
    "modifier.hp": "hp_mod",
    "modifier.mana": "mana_mod",
    "modifier.init": "init_mod",
}

# RK-AMB-3 `legacy_examples`: the RK-12 example ladders instead of the RK-33 E/D values.
LEGACY_EXAMPLES: dict[str, int] = {
    "damage.physical.servant.D": 30,
    "damage.physical.master.E": 10,
    "damage.physical.master.D": 15,
}


def check_overrides(overrides: Mapping[str, Any]) -> None:
    """Every override names a known table and rank and gives a whole number (RK-AMB-2)."""
    for key, value in overrides.items():
        table, _, letter = key.rpartition(".")
        if table not in TABLES or letter not in LETTERS:
            raise Invalid(
                rule="RK-AMB-2", reason="unknown_table_entry_tables_setting", params={"key": key}
            )
        if type(value) is not int:
            raise Invalid(
                rule="RK-AMB-2", reason="table_entry_must_whole_number", params={"key": key}
            )


def row(name: str, overrides: Mapping[str, Any]) -> list[int]:
    """A table row with the encounter's overrides applied."""
    values, _ = TABLES[name]
    return [
        int(overrides.get(f"{name}.{letter}", v)) for letter, v in zip(LETTERS, values, strict=True)
    ]


def value(
    name: str,
    rank: Rank,
    overrides: Mapping[str, Any],
    families: Collection[str] = ("damage", "reduction", "hp_mod", "mana_mod", "init_mod"),
) -> int:
    """The table value at `rank`, shifted by its half-ranks when the table takes shifts.

    RK-12 / RK-AMB-4: step = gap / 5; a `+` uses the gap to the next rank up, a `-` the
    gap to the next rank down (E- uses E->D). The shift is always on, activated or not.
    """
    vals = row(name, overrides)
    base = vals[rank.level]
    if rank.half == 0 or FAMILY.get(name) not in families:
        return base
    if rank.half > 0:
        gap = vals[rank.level + 1] - base
    else:
        low = max(rank.level - 1, 0)  # E- has no rank below: it uses the E->D gap
        gap = vals[low + 1] - vals[low]
    return base + rank.half * (gap // 5)


def threshold(rank: Rank, overrides: Mapping[str, Any]) -> int:
    """The base threshold of a rank letter (RK-3); half-ranks are modifiers (RK-6, RK-7)."""
    return row("threshold", overrides)[rank.level]


def health_malus(hp: int) -> int:
    """RK-70: the threshold modifier for the current HP (absolute, RK-AMB-22)."""
    if hp >= 50:
        return 0
    if hp >= 31:
        return -5
    if hp >= 16:
        return -10
    if hp >= 6:
        return -20
    return -40
