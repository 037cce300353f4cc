"""Dice fairness: how often each face came up, against what a fair die gives.

A pure fold over one encounter's envelopes (`GET /api/encounters/{id}/dice`) or several
(`GET /api/campaigns/{id}/dice`, every encounter of a War): per source (`server` dice the
seed drew, `manual` dice a GM entered) and per die size, the count of every face, the
Pearson chi-square statistic against the uniform expectation, its degrees of freedom
(faces - 1) and the p-value, the chance that a fair die scatters at least this much.

A hidden GM roll counts for the GM always and for anyone else only once the encounter
has closed (the board never showed its faces before). The p-value is the regularized
upper incomplete gamma function Q(df/2, chi2/2), computed here by its power series below
a + 1 and by its continued fraction above (Numerical Recipes, 6.2): no statistics library.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

__all__ = ["SOURCES", "Counts", "chi_square_p", "count", "fairness", "merge", "summary"]

SOURCES = ("server", "manual")
# source -> die size -> face -> how often it came up
Counts = dict[str, dict[int, dict[int, int]]]

_EPS = 1e-15
_TINY = 1e-300
_ITERATIONS = 10_000


def count(envelopes: Iterable[Mapping[str, Any]], role: str) -> Counts:
    """Faces per source and die size in one encounter's envelopes, as `role` may see them."""
    envs = list(envelopes)
    closed = any(e.get("type") == "encounter_closed" for e in envs)
    counts: Counts = {s: {} for s in SOURCES}
    for envelope in envs:
        if envelope.get("type") != "die_rolled":
            continue
        data: Mapping[str, Any] = envelope.get("data") or {}
        if data.get("hidden", False) and role != "gm" and not closed:
            continue
        source = "manual" if data.get("source") == "manual" else "server"
        sizes: Sequence[int] = data.get("sizes") or []
        faces: Sequence[int] = data.get("faces") or []
        for size, face in zip(sizes, faces, strict=False):
            per_size = counts[source].setdefault(int(size), {})
            per_size[int(face)] = per_size.get(int(face), 0) + 1
    return counts


def merge(parts: Iterable[Counts]) -> Counts:
    """The counts of several encounters added together (a War's)."""
    total: Counts = {s: {} for s in SOURCES}
    for part in parts:
        for source, sizes in part.items():
            for size, faces in sizes.items():
                into = total.setdefault(source, {}).setdefault(size, {})
                for face, n in faces.items():
                    into[face] = into.get(face, 0) + n
    return total


def summary(size: int, faces: Mapping[int, int]) -> dict[str, Any]:
    """One die size's counts with its chi-square test against a fair die.

    Every face from 1 to `size` is listed (zeros included). With one face or no roll
    there is nothing to test: `chi2`, `df` and `p_value` are then 0, 0 and 1.
    """
    rolls = sum(faces.values())
    listed = {str(f): faces.get(f, 0) for f in range(1, size + 1)}
    df = size - 1
    if rolls == 0 or df < 1:
        return {
            "faces": listed,
            "rolls": rolls,
            "expected": 0.0,
            "chi2": 0.0,
            "df": 0,
            "p_value": 1.0,
        }
    expected = rolls / size
    chi2 = sum((n - expected) ** 2 for n in listed.values()) / expected
    return {
        "faces": listed,
        "rolls": rolls,
        "expected": expected,
        "chi2": chi2,
        "df": df,
        "p_value": chi_square_p(chi2, df),
    }


def fairness(counts: Counts) -> dict[str, dict[str, dict[str, Any]]]:
    """The answer of the dice routes: `{source: {"d6": summary, ...}}`, sizes ascending."""
    return {
        source: {
            f"d{size}": summary(size, counts.get(source, {})[size])
            for size in sorted(counts.get(source, {}))
        }
        for source in SOURCES
    }


# --- the chi-square distribution ------------------------------------------------------


def chi_square_p(chi2: float, df: int) -> float:
    """P(X >= chi2) for X chi-square distributed with `df` degrees of freedom."""
    if df < 1:
        raise ValueError("a chi-square test needs at least one degree of freedom")
    if chi2 <= 0:
        return 1.0
    return gamma_q(df / 2, chi2 / 2)


def gamma_q(a: float, x: float) -> float:
    """The regularized upper incomplete gamma function Q(a, x) = 1 - P(a, x)."""
    if a <= 0 or x < 0:
        raise ValueError("Q(a, x) needs a > 0 and x >= 0")
    if x == 0:
        return 1.0
    if x < a + 1:
        return max(0.0, 1.0 - _series_p(a, x))
    return _fraction_q(a, x)


def _prefactor(a: float, x: float) -> float:
    """x^a e^-x / Gamma(a), through logarithms so that large a and x do not overflow."""
    return math.exp(a * math.log(x) - x - math.lgamma(a))


def _series_p(a: float, x: float) -> float:
    """P(a, x) by its series sum x^n / (a (a+1) ... (a+n)); converges fast for x < a + 1."""
    term = total = 1.0 / a
    denominator = a
    for _ in range(_ITERATIONS):
        denominator += 1
        term *= x / denominator
        total += term
        if abs(term) < abs(total) * _EPS:
            break
    return total * _prefactor(a, x)


def _fraction_q(a: float, x: float) -> float:
    """Q(a, x) by its continued fraction (modified Lentz); converges fast for x > a + 1."""
    b = x + 1 - a
    c = 1 / _TINY
    d = 1 / b
    h = d
    for i in range(1, _ITERATIONS):
        an = -i * (i - a)
        b += 2
        d = an * d + b
        d = _TINY if abs(d) < _TINY else d
        c = b + an / c
        c = _TINY if abs(c) < _TINY else c
        d = 1 / d
        delta = d * c
        h *= delta
        if abs(delta - 1) < _EPS:
            break
    return _prefactor(a, x) * h
