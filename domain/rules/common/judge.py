"""The roll-under judge every rule system's checks are written with (PD-1, NA-11, TC-1, RK-4).

A check rolls one die under a threshold: the stat's base plus its modifiers (or a
threshold the system computed itself, e.g. ranks-d100's clamp, RK-AMB-17). What differs
between systems is only the verdict on a face (criticals, the comparison) and, for
d20-na, the margin: each system passes its own.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from domain import events

Verdict = Callable[[int, int], str]  # (face, threshold) -> the check's outcome
Judge = Callable[[list[int]], events.Check]


def roll_under(
    stat: str,
    base: int,
    modifiers: Sequence[events.Modifier],
    rule: str,
    verdict: Verdict,
    *,
    threshold: int | None = None,
    margin: Callable[[int, int], int] | None = None,
) -> Judge:
    """The judge of a roll of one die under `threshold` (default: base + the modifiers);
    the margin is threshold - face unless `margin` says otherwise."""
    mods = list(modifiers)
    limit = base + sum(m.delta for m in mods) if threshold is None else threshold

    def judge(faces: list[int]) -> events.Check:
        face = faces[0]
        return events.Check(
            stat=stat,
            base=base,
            modifiers=list(mods),
            threshold=limit,
            outcome=verdict(face, limit),
            margin=limit - face if margin is None else margin(face, limit),
            rule=rule,
        )

    return judge


def criticals_win(success_max: int, fail_min: int) -> Verdict:
    """d100 under the threshold, but a critical range wins whatever the threshold
    (TC-AMB-1, RK-AMB-1): a face at or under `success_max` is a critical success, one at
    or over `fail_min` a critical failure."""

    def verdict(face: int, threshold: int) -> str:
        if face <= success_max:
            return "critical_success"
        if face >= fail_min:
            return "critical_failure"
        return "success" if face <= threshold else "failure"

    return verdict


SUCCESS = ("success", "critical_success")


def succeeded(check: events.Check | None) -> bool:
    """A check that succeeded, critically or not (no check: no success)."""
    return check is not None and check.outcome in SUCCESS
