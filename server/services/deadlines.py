"""The deadline watcher: one background task per instance that finds the turns and
defences waiting past half or all of their encounter's `deadline.hours`, and appends the
reminder or the passing through the same path as any command (domain/deadline.py says
what is due; `apply_deadline` in the decider checks it once more).

Every instance may run it: the command is decided on the state it loaded and appended
at that version, so of three instances racing on one wait, one appends and the others
re-decide and are refused (`deadline_already`), which is the expected outcome here.
Bounded work: `batch` encounters a round, paged by stream; each check and each append
has a timeout; a database outage is logged and the next round tries again.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os

from domain import commands as cmd
from domain import deadline
from domain.errors import NotFound, Refused
from domain.state import Principal
from server.services.encounters import EncounterService, stream_of
from server.store.port import Clock

log = logging.getLogger(__name__)

# Who the watcher's commands are by, in their meta: the GM's authority, the server's name.
WATCHER = Principal("gm", name="deadline")
PREFIX = "encounter-"


def every_from_env(default: float = 30.0) -> float:
    """Seconds between rounds ($FRACAS_DEADLINE_EVERY, else 30)."""
    try:
        value = float(os.environ.get("FRACAS_DEADLINE_EVERY", "") or default)
    except ValueError:
        return default
    return value if value > 0 else default


class DeadlineWatcher:
    """Checks the encounters with a deadline, `batch` a round, every `every` seconds."""

    def __init__(
        self,
        service: EncounterService,
        clock: Clock,
        every: float = 30.0,
        batch: int = 200,
        timeout: float = 10.0,
    ) -> None:
        self.service = service
        self.clock = clock
        self.every = every
        self.batch = batch
        self.timeout = timeout
        self._after = ""  # the last stream of the page checked (keyset paging)
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._task = asyncio.create_task(self._running())

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task

    async def _running(self) -> None:
        while True:
            try:
                await asyncio.wait_for(self.round(), self.timeout * 6)
            except asyncio.CancelledError:
                raise
            except Exception:  # the database away, a round too slow: the next one retries
                log.exception("deadline check failed; retrying in %g s", self.every)
            await asyncio.sleep(self.every)

    async def round(self) -> int:
        """Check one page of encounters; the number of deadline steps appended."""
        streams = await asyncio.wait_for(
            self.service.store.deadline_streams(self._after, self.batch), self.timeout
        )
        self._after = streams[-1] if len(streams) >= self.batch else ""
        applied = 0
        for stream in streams:
            try:
                applied += await asyncio.wait_for(
                    self.check(stream.removeprefix(PREFIX)), self.timeout
                )
            except (Refused, NotFound):
                continue  # another instance (or a command) got there first
            except TimeoutError:
                log.warning("deadline check of %s timed out", stream)
        return applied

    async def check(self, encounter_id: str) -> int:
        """Append the deadline step due now for this encounter's wait, if one is (1/0)."""
        proj = await self.service.load(encounter_id)
        state = proj.state
        wait = deadline.waiting(state)
        if wait is None:
            return 0
        start = deadline.parse_time(proj.recorded_at(wait.since) or "")
        if start is None:  # the wait began longer ago than the projection keeps times
            recs = await self.service.store.read_stream(
                stream_of(encounter_id), after=wait.since - 1, upto=wait.since
            )
            start = deadline.parse_time(str(recs[0].meta.get("recorded_at", ""))) if recs else None
        if start is None:
            return 0
        step = deadline.due_step(state, wait, start, self.clock.now())
        if step is None:
            return 0
        _, due = deadline.due_at(start, deadline.hours_of(state.ledger.settings))
        command = cmd.ApplyDeadline(step=step, since=wait.since, due=deadline.iso(due))
        await self.service.execute(encounter_id, command, WATCHER)
        return 1
