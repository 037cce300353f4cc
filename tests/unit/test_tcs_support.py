"""Shared helpers for the d100-tcs tests: a table fed commands with FixedRoller faces."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from domain import commands as cmd
from domain import events as ev
from domain.errors import Refused
from tests.unit.encounter_table import EncounterTable

SWORD = {"name": "sword", "damage": 6}
SPEAR = {"name": "spear", "piercing": [4, 2]}
BOW = {"name": "bow", "damage": 5, "ranged": True, "base_range_m": 30}
# No turn-over initiative rolls unless a test asks for them.
QUIET = {"init.reroll_each_round": False}


def fighter(**over: Any) -> dict[str, Any]:
    base: dict[str, Any] = {"DEX": 50, "PERC": 50, "END": 40, "hp": 20, "energy": 10,
                            "weapons": [SWORD]}  # fmt: skip
    return base | over


class Table(EncounterTable):
    """An encounter under d100-tcs, fed commands one at a time."""

    ruleset = "d100-tcs"

    def add(self, name: str, side: str, preset: str | None = None, **fields: Any) -> str:
        sheet_ = fields if preset else fighter(**fields)
        self.do(cmd.AddCombatant(name=name, side=side, sheet=sheet_, preset=preset))
        return f"c{self.state.game.added}"

    def act(self, actor: str, action: str, target: str | None = None, faces: Sequence[int] = (),
            then: dict[str, Any] | None = None, **options: Any) -> list[ev.Event]:  # fmt: skip
        if then is not None:
            options["then"] = then
        return self.do(cmd.Act(actor=actor, action=action, target=target, options=options),
                       faces)  # fmt: skip

    def end(self, actor: str, faces: Sequence[int] = ()) -> list[ev.Event]:
        return self.do(cmd.EndTurn(actor=actor), faces)

    def res(self, cid: str, name: str = "hp") -> int:
        return self.state.game.combatants[cid].resources[name]

    def status(self, cid: str, key: str) -> Any:
        return self.state.game.combatants[cid].status.get(key)

    def out(self, cid: str) -> str | None:
        return self.state.game.combatants[cid].out

    @property
    def actor(self) -> str | None:
        return self.state.game.actor


def duel(settings: dict[str, Any] | None = None, a: dict[str, Any] | None = None,
         b: dict[str, Any] | None = None) -> tuple[Table, str, str]:  # fmt: skip
    """A (initiative 10) against B (initiative 20), started: A has the first turn."""
    table = Table(QUIET | (settings or {}))
    first = table.add("A", "a", **(a or {}))
    second = table.add("B", "b", **(b or {}))
    table.do(cmd.StartCombat(), [10, 20])
    return table, first, second


def of(events: list[ev.Event], kind: type[ev.Event]) -> list[Any]:
    return [e for e in events if isinstance(e, kind)]


def checks(events: list[ev.Event]) -> list[ev.Check]:
    return [e.check for e in of(events, ev.DieRolled) if e.check is not None]


def refused(code: str, rule: str | None) -> Any:
    class Check:
        def __enter__(self) -> None:
            return None

        def __exit__(self, kind: Any, exc: Any, tb: Any) -> bool:
            assert isinstance(exc, Refused), f"expected Refused({code}), got {exc!r}"
            assert (exc.code, exc.rule) == (code, rule), (exc.code, exc.rule, exc.message)
            return True

    return Check()
