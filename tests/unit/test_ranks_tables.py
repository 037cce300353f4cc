"""ranks-d100 tables against the digest's numbers, and rank arithmetic (RK-2..RK-13,
RK-23..RK-58, RK-70, RK-AMB-3, RK-AMB-4)."""

from __future__ import annotations

from typing import Any

import pytest

from domain.errors import Refused
from domain.rules.ranks.settings import merged
from domain.rules.ranks.sheet import validate
from domain.rules.ranks.tables import (
    LETTERS,
    Rank,
    gain_minus,
    gain_plus,
    health_malus,
    order_key,
    parse_rank,
    value,
)
from tests.unit.test_ranks_support import duel, master, only_check, servant

RANKS = list(LETTERS)

DIGEST: dict[str, list[int]] = {
    "threshold": [30, 40, 50, 60, 70, 90],  # RK-3
    "modifier.init": [-10, 0, 10, 20, 30, 50],  # RK-23
    "damage.physical.servant": [20, 25, 30, 35, 40, 50],  # RK-33
    "damage.physical.master": [5, 10, 15, 20, 25, 35],  # RK-33
    "reduction.servant": [25, 30, 35, 40, 45, 55],  # RK-36, RK-41
    "reduction.master": [10, 15, 20, 25, 30, 40],  # RK-36, RK-41
    "modifier.hp": [-10, 0, 10, 20, 30, 50],  # RK-37
    "damage.magic.servant": [30, 35, 40, 45, 50, 60],  # RK-43
    "damage.magic.master": [15, 20, 25, 30, 35, 45],  # RK-43
    "cost.magic": [5, 10, 15, 20, 25, 35],  # RK-44
    "survival.tours": [1, 2, 3, 4, 5, 7],  # RK-46
    "modifier.mana": [-10, 0, 10, 20, 30, 50],  # RK-47
    "luck.bonus": [5, 10, 15, 20, 25, 35],  # RK-50
    "luck.uses": [1, 2, 3, 4, 5, 7],  # RK-51
    "damage.np": [40, 50, 60, 70, 80, 100],  # RK-53
    "cost.np": [25, 35, 45, 55, 65, 85],  # RK-53
    "damage.spell.master": [30, 35, 40, 45, 50, 60],  # RK-56
    "cost.spell": [15, 20, 25, 30, 35, 45],  # RK-56
    "damage.spell.servant": [40, 45, 50, 55, 60, 70],  # RK-58
}
CELLS = [(name, i, v) for name, row in DIGEST.items() for i, v in enumerate(row)]


@pytest.mark.parametrize(("table", "level", "expected"), CELLS)
def test_every_table_cell_matches_the_digest(table: str, level: int, expected: int) -> None:
    assert value(table, Rank(level), {}) == expected


@pytest.mark.parametrize(("table", "level", "expected"), CELLS)
def test_a_table_override_replaces_exactly_one_cell(table: str, level: int, expected: int) -> None:
    key = f"{table}.{LETTERS[level]}"
    assert value(table, Rank(level), {key: expected + 1}) == expected + 1
    other = (level + 1) % 6
    assert value(table, Rank(other), {key: expected + 1}) == DIGEST[table][other]


def test_RK_2_the_ladder_is_ex_a_b_c_d_e() -> None:
    ranks = [parse_rank(r) for r in ["EX", "A", "B", "C", "D", "E"]]
    assert sorted(ranks, key=order_key, reverse=True) == ranks


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("E", Rank(0, 0)),
        ("E-", Rank(0, -1)),
        ("E+++", Rank(0, 3)),
        ("B+", Rank(3, 1)),
        ("EX", Rank(5, 0)),
        ("A-", Rank(4, -1)),
    ],
)
def test_ranks_are_read_with_their_half_ranks(text: str, expected: Rank) -> None:
    assert parse_rank(text) == expected
    assert str(expected) == text


@pytest.mark.parametrize(
    ("text", "rule"),
    [
        ("E++++", "RK-9"),
        ("D--", "RK-10"),
        ("C+-", "RK-10"),
        ("EX+", "RK-11"),
        ("EX-", "RK-11"),
        ("F", "RK-2"),
        ("", "RK-2"),
    ],
)
def test_impossible_ranks_are_refused_with_their_rule(text: str, rule: str) -> None:
    with pytest.raises(Refused) as info:
        parse_rank(text)
    assert info.value.rule == rule
    # A rank that is not a rank at all is malformed; a rank a rule forbids is refused by it.
    assert info.value.code == ("invalid" if rule == "RK-2" else "rule_violation")


def test_RK_9_a_fourth_plus_raises_the_rank() -> None:
    assert gain_plus(parse_rank("E+++")) == parse_rank("D")  # RK-78
    assert gain_plus(parse_rank("E++")) == parse_rank("E+++")


def test_RK_10_one_minus_at_most_and_a_plus_removes_it() -> None:
    assert gain_minus(parse_rank("D-")) == parse_rank("D-")  # RK-78: not E
    assert gain_plus(parse_rank("D-")) == parse_rank("D")  # RK-78
    assert gain_minus(parse_rank("D+")) == parse_rank("D")
    assert gain_minus(parse_rank("D")) == parse_rank("D-")


def test_RK_11_ex_takes_no_half_ranks() -> None:
    assert gain_plus(parse_rank("EX")) == parse_rank("EX")
    assert gain_minus(parse_rank("EX")) == parse_rank("EX")


@pytest.mark.parametrize(("rank", "threshold"), list(zip(RANKS, DIGEST["threshold"], strict=True)))
def test_RK_3_base_threshold_by_rank_through_decide(rank: str, threshold: int) -> None:
    t, a, b = duel(master(STR=rank), master())
    check = only_check(t.act(a, "attack_physical", threshold, target=b))
    assert (check.base, check.threshold, check.outcome) == (threshold, threshold, "success")
    t2, a2, b2 = duel(master(STR=rank), master())
    assert only_check(t2.act(a2, "attack_physical", threshold + 1, target=b2)).outcome == "failure"


# RK-13: rows are the rank, columns -, base, +, ++, +++ (+ columns activated).
RK13 = {
    "E": [20, 30, 40, 50, 60],
    "D": [30, 40, 50, 60, 70],
    "C": [40, 50, 60, 70, 80],
    "B": [50, 60, 70, 80, 90],
    "A": [60, 70, 80, 90, 100],
}
RK13_CELLS = [
    (letter + ("-" if i == 0 else "+" * (i - 1)), row[i])
    for letter, row in RK13.items()
    for i in range(5)
]


@pytest.mark.parametrize(("rank", "expected"), RK13_CELLS)
def test_RK_13_threshold_with_half_ranks(rank: str, expected: int) -> None:
    t, a, b = duel(master(STR=rank), master())
    options: dict[str, Any] = {"activate": ["STR"]} if "+" in rank else {}
    check = only_check(t.act(a, "attack_physical", 1 + 5, target=b, **options))
    assert check.threshold == expected
    rules = {m.rule for m in check.modifiers}
    assert rules == ({"RK-6"} if "+" in rank else {"RK-7"} if "-" in rank else set())


def test_RK_12_half_ranks_shift_table_values() -> None:
    # gap 5 -> 1 per half-rank, gap 10 -> 2, gap 20 -> 4 (RK-AMB-4), on the tables.
    assert value("damage.physical.servant", parse_rank("E+"), {}) == 21
    assert value("damage.np", parse_rank("E+"), {}) == 42
    assert value("damage.np", parse_rank("A+"), {}) == 84
    assert value("modifier.hp", parse_rank("A+"), {}) == 34
    assert value("reduction.master", parse_rank("E-"), {}) == 9


def test_RK_12_the_shift_is_on_even_when_the_plus_is_not_activated() -> None:
    t, a, b = duel(servant(STR="E+"), master())
    out = t.act(a, "attack_physical", 10, target=b)  # no activation: threshold 30
    assert only_check(out).threshold == 30
    assert t.state.game.pending[0].damage == 21


@pytest.mark.parametrize(
    ("kind", "expected"),
    [
        ("servant", [19, 20, 21, 22, 23, 24, 25]),
        ("master", [4, 5, 6, 7, 8, 9, 10]),
    ],
)
def test_RK_AMB_3_half_rank_values_come_from_the_tables(kind: str, expected: list[int]) -> None:
    ranks = ["E-", "E", "E+", "E++", "E+++", "D-", "D"]
    got = [value(f"damage.physical.{kind}", parse_rank(r), {}) for r in ranks]
    assert got == expected


@pytest.mark.parametrize(
    ("kind", "expected"),
    [
        ("servant", [18, 20, 22, 24, 26, 28, 30]),
        ("master", [9, 10, 11, 12, 13, 14, 15]),
    ],
)
def test_RK_76_legacy_examples_mode_gives_the_printed_ladders(
    kind: str, expected: list[int]
) -> None:
    cfg = merged({"half_rank.value_examples_mode": "legacy_examples"})
    ranks = ["E-", "E", "E+", "E++", "E+++", "D-", "D"]
    got = [value(f"damage.physical.{kind}", parse_rank(r), cfg["tables"]) for r in ranks]
    assert got == expected


def test_RK_AMB_4_costs_and_counts_take_no_shift() -> None:
    assert value("cost.magic", parse_rank("B+"), {}, ()) == 20
    sheet = validate(master(LCK="B+"), merged({}))
    assert sheet.resources["luck"] == 4


@pytest.mark.parametrize(
    ("hp", "malus"),
    [
        (100, 0),
        (50, 0),
        (49, -5),
        (31, -5),
        (30, -10),
        (16, -10),
        (15, -20),
        (6, -20),
        (5, -40),
        (1, -40),
    ],
)
def test_RK_70_health_bands(hp: int, malus: int) -> None:
    assert health_malus(hp) == malus


@pytest.mark.parametrize(("end", "hp"), list(zip(RANKS, [40, 50, 60, 70, 80, 100], strict=True)))
def test_RK_37_hp_pool_is_50_plus_the_endurance_modifier(end: str, hp: int) -> None:
    assert validate(master(END=end, MANA_STAT="D"), merged({})).maxima["hp"] == hp


@pytest.mark.parametrize(("mana", "pool"), list(zip(RANKS, [40, 50, 60, 70, 80, 100], strict=True)))
def test_RK_47_mana_pool_is_50_plus_the_mana_modifier(mana: str, pool: int) -> None:
    assert validate(master(MANA_STAT=mana), merged({})).maxima["mana"] == pool


@pytest.mark.parametrize(("lck", "uses"), list(zip(RANKS, DIGEST["luck.uses"], strict=True)))
def test_RK_51_luck_uses_per_war_by_luck_rank(lck: str, uses: int) -> None:
    sheet = validate(master(LCK=lck, MANA_STAT="D"), merged({}))
    assert sheet.resources["luck"] == sheet.maxima["luck"] == uses
