"""A table the rule-system tests share: an encounter fed commands with FixedRoller faces."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from domain import commands as cmd
from domain import events as ev
from domain.dice import FixedRoller
from domain.encounter import decide, open_encounter
from domain.evolve import evolve, replay
from domain.state import GM, Principal


class EncounterTable:
    """An encounter under `ruleset`; every face given to a command must be used."""

    ruleset = ""

    def __init__(self, settings: dict[str, Any] | None = None) -> None:
        self.state = replay(open_encounter("enc", self.ruleset, "test", settings or {}, {}))
        self.log: list[ev.Event] = []

    def do(
        self, command: cmd.Command, faces: Sequence[int] = (), who: Principal = GM
    ) -> list[ev.Event]:
        roller = FixedRoller(faces)
        events = decide(self.state, command, roller, who)
        assert not roller.remaining, f"unused faces {roller.remaining}"
        for event in events:
            evolve(self.state, event)
        self.log += events
        return events
