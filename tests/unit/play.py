"""A table on the real decider for generated play and its regressions: commands go
through `decide_and_fold` (the incremental fold), every batch is kept as the stored
envelopes a server would write (one `command_id` per command) and folded by a
`Projection` (the service's cache), and any version can be folded fresh (`?at=V`).

Dice are drawn from a seeded generator, numbered per seed like the server's; `force`
queues faces that the next rolls take first (clamped to their die).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from domain import commands as cmd
from domain import events as ev
from domain.dice import Drawn
from domain.encounter import decide_and_fold, open_encounter
from domain.events import event_data
from domain.state import GM, EncounterState, Principal
from projections.board import board
from projections.view import Projection

ENCOUNTER = "7d3c2b1a-0f9e-4d8c-b7a6-5e4f3d2c1b0a"
STREAM = f"encounter-{ENCOUNTER}"

# What an undo's board may differ in from the board of `?at=V`: the version, the log
# (struck lines and the undo's own), what no undo touches (disputes, the dice).
# The deadline too: an undo restarts the wait (domain/deadline.py), so its `since` is the
# undo's version, not that of the turn's start which `?at=V` shows. And the GM's `entropy`:
# like the dice, no undo takes back a contribution or a roll (the window stays shut).
NOT_UNDONE = frozenset(
    {"version", "log", "undone", "disputes", "dice", "step_back", "deadline", "entropy"}
)


class Dice:
    """Seeded dice that look like the server's, with faces forced first when queued."""

    def __init__(self, rng: random.Random, next_roll: dict[str, int]) -> None:
        self.rng = rng
        self.next = dict(next_roll)
        self.forced: list[int] = []

    def roll(self, sizes: Sequence[int], *, hidden: bool = False) -> Drawn:
        seed = "hidden" if hidden else "main"
        n = self.next.get(seed, 1)
        self.next[seed] = n + 1
        faces = []
        for size in sizes:
            face = self.forced.pop(0) if self.forced else self.rng.randint(1, size)
            faces.append(min(max(face, 1), size))
        return Drawn(faces, "server", seed, n, "", list(sizes))

    def reveal(self, seed_id: str) -> bytes | None:
        return None


class Table:
    """One encounter: the decider's state, the stored envelopes and their projection."""

    def __init__(self, ruleset: str, seed: int = 0, settings: dict[str, Any] | None = None):
        self.ruleset = ruleset
        self.rng = random.Random(seed)
        self.envelopes: list[dict[str, Any]] = []
        self.proj = Projection()
        self.state = EncounterState()
        self.forced: list[int] = []
        self.commands = 0
        opened = open_encounter(
            ENCOUNTER,
            ruleset,
            "play",
            settings or {},
            {"main": ("00", False), "hidden": ("11", True)},
        )
        self._store(opened, "create")
        self.state = self.proj.state.clone()

    def _store(self, events: list[ev.Event], command_id: str) -> None:
        for event in events:
            kind, data = event_data(event)
            envelope = {
                "stream": STREAM,
                "version": len(self.envelopes) + 1,
                "type": kind,
                "data": data,
                "meta": {"command_id": command_id},
            }
            self.envelopes.append(envelope)
            self.proj.apply(envelope)

    @property
    def version(self) -> int:
        return self.state.version

    def send(
        self, command: cmd.Command, who: Principal = GM, faces: Sequence[int] = ()
    ) -> list[ev.Event]:
        """Decide and store one command (a refusal raises, nothing stored)."""
        dice = Dice(self.rng, self.state.ledger.next_roll)
        dice.forced = [*faces, *self.forced]
        events, after = decide_and_fold(self.state, command, dice, who)
        self.forced = []
        self.commands += 1
        self._store(events, f"cmd-{self.commands}")
        self.state = after
        return events

    def at(self, version: int) -> Projection:
        """The projection as `?at=version` folds it."""
        proj = Projection()
        for envelope in self.envelopes[:version]:
            proj.apply(envelope)
        return proj

    def replayed(self) -> Projection:
        return self.at(len(self.envelopes))

    def board(self, role: str = "gm", proj: Projection | None = None) -> dict[str, Any]:
        return board(proj or self.proj, role)


def undo_view(b: dict[str, Any]) -> dict[str, Any]:
    """A board without what an undo may leave different from `?at=V`."""
    return {k: v for k, v in b.items() if k not in NOT_UNDONE}
