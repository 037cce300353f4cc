"""The resolver's distributions: buckets for the page, block-character bars for the CLI."""

from __future__ import annotations

from domain.rules.d20_na.resolver import Bucket, buckets, simulate
from projections.words.resolver import text_histogram


def test_few_values_get_a_bucket_each_with_the_gaps_kept() -> None:
    assert buckets({3: 2, 5: 1}) == [Bucket(3, 3, 2), Bucket(4, 4, 0), Bucket(5, 5, 1)]


def test_a_wide_range_is_cut_into_at_most_twelve_equal_buckets() -> None:
    got = buckets({v: 1 for v in range(1, 101)})
    assert len(got) <= 12
    assert got[0].low == 1 and got[-1].high == 100
    assert sum(b.count for b in got) == 100
    assert {b.high - b.low for b in got[:-1]} == {8}


def test_no_values_give_no_buckets() -> None:
    assert buckets({}) == []


def test_the_text_histogram_draws_the_peak_full_width() -> None:
    lines = text_histogram({1: 4, 2: 2, 3: 1}, width=8)
    assert lines == ["  1 ████████ 4", "  2 ████     2", "  3 ██       1"]


def test_a_summary_keeps_the_distributions_its_means_come_from() -> None:
    s = simulate("milicien", "fangeux", 20, seed="h")
    assert sum(s.rounds_counts.values()) == 20
    mean = sum(r * n for r, n in s.rounds_counts.items()) / 20
    assert abs(mean - s.mean_rounds) < 1e-9
    hits = sum(s.damage_counts.values())
    assert abs(sum(d * n for d, n in s.damage_counts.items()) / hits - s.mean_damage_per_hit) < 1e-9
