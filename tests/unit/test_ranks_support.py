"""Shared given/when helpers for the ranks-d100 tests (no tests of its own)."""

from __future__ import annotations

from typing import Any, TypeVar

import msgspec
import pytest

from domain import commands as cmd
from domain import events as ev
from domain.dice import FixedRoller
from domain.encounter import decide, open_encounter
from domain.errors import Refused
from domain.evolve import replay
from domain.rules import REGISTRY
from domain.state import GM, Combatant, Principal

E = TypeVar("E", bound=ev.Event)
ENCOUNTER = "5f0c8a6e-9d2b-4c71-8e3a-0b6d4f2a9c15"


def master(**stats: Any) -> dict[str, Any]:
    """A Master with C everywhere unless told otherwise."""
    base: dict[str, Any] = {"kind": "master", "MAGIC": "C"}
    base.update({s: "C" for s in ("STR", "END", "AGI", "MANA_STAT", "LCK")})
    base.update(stats)
    return base


def servant(**stats: Any) -> dict[str, Any]:
    """A Servant with C everywhere unless told otherwise."""
    base: dict[str, Any] = {"kind": "servant", "NP": "C", "rarity": 1}
    base.update({s: "C" for s in ("STR", "END", "AGI", "MANA_STAT", "LCK")})
    base.update(stats)
    return base


class Table:
    """An encounter under ranks-d100: commands in, events out, state kept by replay."""

    def __init__(self, settings: dict[str, Any] | None = None) -> None:
        self.events: list[ev.Event] = open_encounter(
            ENCOUNTER, "ranks-d100", "test", settings or {}, {}
        )
        self.state = replay(self.events)

    def do(self, command: cmd.Command, *faces: int, who: Principal = GM) -> list[ev.Event]:
        roller = FixedRoller(faces)
        out = decide(self.state, command, roller, who)
        assert roller.remaining == [], "every face given was used"
        self.events.extend(out)
        replay(out, self.state)
        return out

    def refused(self, command: cmd.Command, *faces: int) -> Refused:
        """`decide` raises (so nothing would be appended) and the state is untouched."""
        version = self.state.version
        with pytest.raises(Refused) as info:
            decide(self.state, command, FixedRoller(faces))
        assert self.state.version == version
        return info.value

    def add(
        self, name: str, side: str, sheet: dict[str, Any] | None = None, preset: str | None = None
    ) -> str:
        out = self.do(cmd.AddCombatant(name=name, side=side, sheet=sheet or {}, preset=preset))
        added = out[0]
        assert isinstance(added, ev.CombatantAdded)
        return added.combatant_id

    def c(self, cid: str) -> Combatant:
        return self.state.game.combatants[cid]

    def act(
        self,
        actor: str,
        action: str,
        *faces: int,
        target: str | None = None,
        rank: str | None = None,
        **options: Any,
    ) -> list[ev.Event]:
        return self.do(
            cmd.Act(actor=actor, action=action, target=target, rank=rank, options=options), *faces
        )

    def react(self, actor: str, reaction: str, *faces: int, **options: Any) -> list[ev.Event]:
        return self.do(cmd.React(actor=actor, reaction=reaction, options=options), *faces)


def duel(
    a: dict[str, Any],
    b: dict[str, Any],
    settings: dict[str, Any] | None = None,
) -> tuple[Table, str, str]:
    """Two combatants on opposite sides, combat started, the first one acting."""
    t = Table(settings)
    c1, c2 = t.add("A", "a", a), t.add("B", "b", b)
    t.do(cmd.StartCombat(), 99, 1)  # initiative: c1 far ahead whatever the Agility
    assert t.state.game.actor == c1
    return t, c1, c2


def legal_of(t: Table, cid: str) -> list[dict[str, Any]]:
    """What the board offers `cid` now."""
    offered: list[dict[str, Any]] = msgspec.to_builtins(
        REGISTRY["ranks-d100"].legal(t.state.game, cid, t.state.ledger.settings)
    )
    return offered


def checks(events: list[ev.Event]) -> list[ev.Check]:
    return [e.check for e in events if isinstance(e, ev.DieRolled) and e.check is not None]


def only_check(events: list[ev.Event]) -> ev.Check:
    found = checks(events)
    assert len(found) == 1
    return found[0]


def of_type(events: list[ev.Event], kind: type[E]) -> list[E]:
    return [e for e in events if isinstance(e, kind)]
