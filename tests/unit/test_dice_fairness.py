"""Dice fairness (projections/dice.py): counts per face, chi-square, exact p-values."""

from __future__ import annotations

import math
from typing import Any

import pytest

from projections.dice import chi_square_p, count, fairness, gamma_q, merge, summary


def rolled(version: int, sizes: list[int], faces: list[int], **data: Any) -> dict[str, Any]:
    return {
        "stream": "encounter-x",
        "version": version,
        "type": "die_rolled",
        "data": {"seq": version, "sizes": sizes, "faces": faces, "source": "server", **data},
    }


def closed(version: int) -> dict[str, Any]:
    return {"stream": "encounter-x", "version": version, "type": "encounter_closed", "data": {}}


# Published upper critical values of the chi-square distribution (e.g. NIST/SEMATECH
# e-Handbook 1.3.6.7.4): P(X >= value) = p.
TABLE = [
    (1, 3.841, 0.05),
    (1, 6.635, 0.01),
    (2, 5.991, 0.05),
    (5, 11.070, 0.05),
    (5, 15.086, 0.01),
    (10, 18.307, 0.05),
    (19, 30.144, 0.05),
    (19, 36.191, 0.01),
    (99, 123.225, 0.05),
    (99, 134.642, 0.01),
    (99, 77.046, 0.95),
]


@pytest.mark.parametrize(("df", "chi2", "p"), TABLE)
def test_the_p_value_matches_the_published_chi_square_table(df: int, chi2: float, p: float) -> None:
    assert chi_square_p(chi2, df) == pytest.approx(p, abs=5e-5)


@pytest.mark.parametrize("chi2", [0.001, 0.5, 1.0, 2.7, 7.9, 30.0, 80.0])
def test_one_degree_of_freedom_is_the_complementary_error_function(chi2: float) -> None:
    assert chi_square_p(chi2, 1) == pytest.approx(math.erfc(math.sqrt(chi2 / 2)), rel=1e-12)


@pytest.mark.parametrize("chi2", [0.001, 0.5, 1.0, 2.7, 7.9, 30.0, 80.0])
def test_two_degrees_of_freedom_is_an_exponential(chi2: float) -> None:
    assert chi_square_p(chi2, 2) == pytest.approx(math.exp(-chi2 / 2), rel=1e-12)


def test_q_is_one_at_zero_and_vanishes_far_out() -> None:
    assert gamma_q(3.0, 0.0) == 1.0
    assert chi_square_p(0.0, 5) == 1.0
    assert 0.0 <= chi_square_p(5000.0, 5) < 1e-300


def test_series_and_continued_fraction_agree_where_they_meet() -> None:
    # Q(a, x) switches method at x = a + 1; both sides of the seam must agree.
    a = 9.5
    below, above = gamma_q(a, a + 1 - 1e-9), gamma_q(a, a + 1 + 1e-9)
    assert below == pytest.approx(above, rel=1e-7)


def test_faces_are_counted_per_die_size_from_the_events() -> None:
    envs = [
        rolled(1, [6, 6], [3, 5]),
        rolled(2, [20], [17]),
        rolled(3, [6, 6, 6], [3, 3, 1]),
    ]
    counts = count(envs, "public")
    assert counts["server"] == {6: {3: 3, 5: 1, 1: 1}, 20: {17: 1}}
    answer = fairness(counts)
    assert answer["server"]["d6"]["faces"] == {"1": 1, "2": 0, "3": 3, "4": 0, "5": 1, "6": 0}
    assert answer["server"]["d6"]["rolls"] == 5
    assert list(answer["server"]) == ["d6", "d20"]
    assert answer["manual"] == {}


def test_the_chi_square_of_a_lopsided_d6() -> None:
    # 12 rolls, expected 2 per face; observed 6, 2, 2, 1, 1, 0:
    # (16 + 0 + 0 + 1 + 1 + 4) / 2 = 11, df 5 -> p just under 0.05 (11.070 is the cut).
    got = summary(6, {1: 6, 2: 2, 3: 2, 4: 1, 5: 1})
    assert got["chi2"] == pytest.approx(11.0)
    assert got["df"] == 5
    assert got["expected"] == pytest.approx(2.0)
    assert got["p_value"] == pytest.approx(0.05137, abs=5e-5)


def test_a_perfectly_even_die_has_p_one() -> None:
    got = summary(4, {1: 3, 2: 3, 3: 3, 4: 3})
    assert got["chi2"] == 0.0 and got["p_value"] == 1.0


def test_manual_dice_are_kept_apart_from_server_dice() -> None:
    envs = [rolled(1, [20], [20], source="manual"), rolled(2, [20], [4])]
    answer = fairness(count(envs, "gm"))
    assert answer["manual"]["d20"]["faces"]["20"] == 1
    assert answer["manual"]["d20"]["rolls"] == 1
    assert answer["server"]["d20"]["faces"]["20"] == 0
    assert answer["server"]["d20"]["faces"]["4"] == 1


def test_a_hidden_roll_counts_for_others_only_after_close() -> None:
    envs = [rolled(1, [6], [2]), rolled(2, [6], [6], hidden=True)]
    before = fairness(count(envs, "public"))["server"]["d6"]
    assert before["rolls"] == 1 and before["faces"]["6"] == 0
    gm = fairness(count(envs, "gm"))["server"]["d6"]
    assert gm["rolls"] == 2 and gm["faces"]["6"] == 1
    after = fairness(count([*envs, closed(3)], "public"))["server"]["d6"]
    assert after["rolls"] == 2 and after["faces"]["6"] == 1


def test_a_war_adds_its_encounters_counts() -> None:
    one = count([rolled(1, [6], [1])], "public")
    two = count([rolled(1, [6, 8], [1, 8], source="manual"), rolled(2, [6], [2])], "public")
    answer = fairness(merge([one, two]))
    assert answer["server"]["d6"]["faces"] == {"1": 1, "2": 1, "3": 0, "4": 0, "5": 0, "6": 0}
    assert answer["manual"]["d6"]["rolls"] == 1 and answer["manual"]["d8"]["rolls"] == 1


def test_other_events_are_ignored() -> None:
    other = {"stream": "encounter-x", "version": 1, "type": "turn_ended", "data": {}}
    assert fairness(count([other], "gm")) == {"server": {}, "manual": {}}
