"""The one clock the server reads the time through: what the store stamps an event with
(`recorded_at`) and what the deadline watcher compares deadlines to.

`Clock` is the system's time. `FileClock` adds an offset in seconds read from a file
(`fracas serve --clock-file PATH`), so a test moves the time of a real server forward by
writing a number; a missing or unreadable file is no offset. Nothing over HTTP moves it.
"""

from __future__ import annotations

import os
from datetime import UTC, datetime, timedelta
from pathlib import Path


class Clock:
    """The system's UTC time."""

    def now(self) -> datetime:
        return datetime.now(UTC)

    def stamp(self) -> str:
        """now as 2026-12-01T10:00:00.123456Z (hashed into the chain: the format must
        never change)."""
        return self.now().isoformat(timespec="microseconds")[:-6] + "Z"


class FileClock(Clock):
    """The system's time plus the offset (seconds, a number) written in `path`, read again
    whenever the file changes."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        self._seen: tuple[int, int] | None = None
        self._offset = timedelta()

    def offset(self) -> timedelta:
        try:
            st = self.path.stat()
        except OSError:
            return timedelta()
        mark = (st.st_mtime_ns, st.st_size)
        if mark != self._seen:
            try:
                self._offset = timedelta(seconds=float(self.path.read_text().strip() or 0))
            except (OSError, ValueError, OverflowError):
                self._offset = timedelta()
            self._seen = mark
        return self._offset

    def now(self) -> datetime:
        return datetime.now(UTC) + self.offset()


SYSTEM = Clock()
