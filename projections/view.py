"""The live fold the server caches per encounter: state plus log, and its position.

A `Projection` is rebuilt from zero by applying a stream's envelopes in version order.
It refuses a gap, a repeat or another stream's event with a ValueError, and once an
event failed to fold it refuses everything after it: a projection that skipped an event
would diverge quietly.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from domain.events import event_from
from domain.evolve import evolve
from domain.state import EncounterState
from projections.filter import is_veiled, secret_resources
from projections.log import LogLine
from projections.log import tell as tell_

__all__ = ["Projection", "fold"]

# The events a wait may begin at (domain/deadline.py), and how many of their times a
# projection keeps: the current wait began at one of the last few.
_WAIT_STARTS = frozenset({"turn_started", "reaction_awaited", "undone"})
TIMES = 64


class Projection:
    """An encounter's state and log lines, folded from its envelopes. Pure; no I/O.

    With `keep`, only the last `keep` log lines are kept, and `extend` describes only
    the envelopes that can still reach them: the board shows the tail of the log, and
    wording every event of a 10,000-event stream was two thirds of a cold load. Exports
    fold with `keep=None` and get every line.
    """

    def __init__(self, keep: int | None = None) -> None:
        self.keep = keep
        self.state = EncounterState()
        self.lines: list[LogLine] = []
        self.stream: str | None = None
        self._command: str | None = None  # the command whose batch is folding
        self._broken: str | None = None
        # When the events a wait may begin at were recorded (a turn's start, an attack's
        # wait, an undo), the last TIMES of them: a deadline counts from there.
        self._times: dict[int, str] = {}

    @property
    def version(self) -> int:
        """The version of the last envelope applied (0 before the first)."""
        return self.state.version

    def extend(self, envelopes: Sequence[Mapping[str, Any]]) -> None:
        """Fold envelopes in order, wording only those whose lines `keep` would keep."""
        first_told = len(envelopes) - self.keep if self.keep is not None else 0
        for i, envelope in enumerate(envelopes):
            self.apply(envelope, tell=i >= first_told)
        if self.keep is not None and len(self.lines) > self.keep:
            del self.lines[: len(self.lines) - self.keep]

    def apply(self, envelope: Mapping[str, Any], tell: bool = True) -> None:
        """Fold the next envelope: it must carry version `self.version + 1`.

        `tell=False` folds it without a log line (see `extend`).
        """
        if self._broken is not None:
            raise ValueError(f"the projection stopped at {self._broken}")
        version = envelope.get("version")
        if version != self.version + 1:
            raise ValueError(
                f"expected version {self.version + 1} of {self.stream or 'the stream'}, "
                f"got {version!r}"
            )
        stream = envelope.get("stream")
        if self.stream is not None and stream != self.stream:
            raise ValueError(f"version {version} belongs to {stream!r}, not {self.stream!r}")
        kind, data = envelope.get("type"), envelope.get("data")
        try:
            event = event_from(str(kind), dict(data or {}))
            if tell:
                tell_(self.lines, event, self.state, version, self._veiled(envelope))
            evolve(self.state, event, self._opens(envelope))
        except (ValueError, TypeError, KeyError) as error:
            self._broken = f"version {version} ({kind}): {error}"
            raise ValueError(f"cannot fold version {version} ({kind}): {error}") from error
        self.stream = str(stream) if stream is not None else None
        if kind in _WAIT_STARTS:
            recorded = (envelope.get("meta") or {}).get("recorded_at")
            if isinstance(recorded, str):
                self._times[int(version)] = recorded
                if len(self._times) > TIMES:
                    del self._times[next(iter(self._times))]

    def recorded_at(self, version: int) -> str | None:
        """When the event at `version` was recorded, if it may begin a wait and is among
        the last ones kept (None otherwise)."""
        return self._times.get(version)

    def _opens(self, envelope: Mapping[str, Any]) -> bool | None:
        """Does this envelope begin a command's batch? None if it carries no command id."""
        command = (envelope.get("meta") or {}).get("command_id")
        if command is None:
            return None
        opens = str(command) != self._command
        self._command = str(command)
        return opens

    def _veiled(self, envelope: Mapping[str, Any]) -> bool:
        """Is this envelope's step veiled from non-GM readers (projections/filter.py)?
        Marked at append since blinds exist; judged from its words before that."""
        meta = envelope.get("meta") or {}
        if "blind" in meta:
            return bool(meta.get("veiled", False))
        return is_veiled(envelope, secret_resources(self.state))


def fold(envelopes: Iterable[Mapping[str, Any]], upto: int | None = None) -> Projection:
    """A projection of `envelopes` (in version order), stopping after version `upto`."""
    proj = Projection()
    for envelope in envelopes:
        if upto is not None and proj.version >= upto:
            break
        proj.apply(envelope)
    return proj
