"""d100-tcs numbers: what each action costs, distances and limits, and the roll-under judge
with its critical ranges (the settings are in settings.py, the actions in specs.py).

The digest is shared/rules/d100-tcs.md (rule ids TC-n, ambiguities TC-AMB-n). Config
keys follow the digest's names; a fraction becomes a whole percent (`long_range.factor`
0.5 -> `long_range.factor_pct` 50) because events carry no floats.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from domain import conditions
from domain import events as ev
from domain.rules.common.judge import Judge, criticals_win, roll_under
from domain.state import Combatant

# code: (cost in actions, rule). `cast` costs the spell's actions; `stand_up` 1 when fast.
COSTS: dict[str, tuple[int, str]] = {
    "attack": (1, "TC-8"),
    "cast": (1, "TC-9"),
    "use_item": (1, "TC-19"),
    "drink_potion": (2, "TC-20"),
    "move": (1, "TC-21"),
    "stand_up": (2, "TC-25"),
    "focus": (1, "TC-26"),
    "disengage": (1, "TC-27"),
    "flee": (1, "TC-30"),
    "pursue": (1, "TC-34"),
    "rejoin": (2, "TC-34"),
    "let_flee": (0, "TC-35"),  # a choice (TC-33), not one of the turn's two actions
}

MOVE_M = 3  # TC-21
SPRINT_MAX_M = 2  # TC-22
FAST_STAND_ENERGY = 4  # TC-25
PER_TURN = 2  # TC-6
ACTIONS_KEY = "actions"  # turn-scoped limit: actions spent this turn


class Test:
    """A d100 roll-under test being built: stat, base and the modifiers with their rules."""

    def __init__(self, stat: str, base: int, rule: str = "TC-1") -> None:
        self.stat = stat
        self.base = base
        self.rule = rule
        self.modifiers: list[ev.Modifier] = []

    def add(self, source: str, delta: int, rule: str) -> None:
        if delta:
            self.modifiers.append(ev.Modifier(source=source, rule=rule, delta=delta))

    @property
    def threshold(self) -> int:
        return self.base + sum(m.delta for m in self.modifiers)

    def conditions(self, bearer: Combatant) -> Test:
        """TC-15's open list: the GM-declared modifiers of the bearer's conditions."""
        self.modifiers += conditions.modifiers(bearer, "TC-15")
        return self

    def scale(self, source: str, pct: int, rule: str) -> None:
        """TC-AMB-8: a percentage of the threshold so far, rounded down, as a modifier."""
        now = self.threshold
        self.add(source, now * pct // 100 - now, rule)

    def judge(self, cfg: Mapping[str, Any]) -> Judge:
        """TC-1 roll-under; TC-AMB-1 critical ranges win over the threshold."""
        verdict = criticals_win(int(cfg["crit.success_max"]), int(cfg["crit.fail_min"]))
        return roll_under(self.stat, self.base, self.modifiers, self.rule, verdict)
