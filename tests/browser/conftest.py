"""A real `fracas serve` for the browser tests, a headless Chromium, and a console watch.

The server runs on the session's test database (the `database_url` fixture) and can be
killed and restarted on the same port. Playwright's sync API runs in plain sync tests and
fixtures, outside pytest-asyncio's loop.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.conftest import Instance, free_port, start_server, stop_server

CHROMIUM = os.environ.get("FRACAS_CHROMIUM", "/usr/bin/chromium")
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
SHOTS = Path(__file__).resolve().parent / "screenshots"


@dataclass
class UiServer:
    """One restartable server process on a fixed port."""

    database_url: str
    log_path: str
    port: int = field(default_factory=free_port)
    instance: Instance | None = None

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        self.instance = start_server(self.database_url, self.log_path, self.port)

    def kill(self) -> None:
        """Kill -9: no goodbye to the websockets, as when a host dies."""
        assert self.instance is not None
        self.instance.proc.kill()
        self.instance.proc.wait()
        self.instance.log.close()
        self.instance = None

    def stop(self) -> None:
        if self.instance is not None:
            stop_server(self.instance)
            self.instance = None


@pytest.fixture(scope="module")
def ui_server(database_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[UiServer]:
    log = tmp_path_factory.mktemp("ui-server") / "serve.log"
    server = UiServer(database_url, str(log))
    server.start()
    yield server
    server.stop()


class ConsoleWatch:
    """Every console error and page error of the pages it watches; some may be allowed
    for a while (the refused connections while the server is down)."""

    def __init__(self) -> None:
        self.errors: list[str] = []
        self.allowed: list[re.Pattern[str]] = []

    def watch(self, page: Any, name: str) -> None:
        page.on("console", lambda m: self._console(name, m))
        page.on("pageerror", lambda e: self.errors.append(f"{name}: page error: {e}"))

    def _console(self, name: str, message: Any) -> None:
        if message.type not in ("error", "assert"):
            return
        if any(p.search(message.text) for p in self.allowed):
            return
        self.errors.append(f"{name}: console {message.type}: {message.text}")

    @contextmanager
    def allowing(self, *patterns: str) -> Iterator[None]:
        compiled = [re.compile(p) for p in patterns]
        self.allowed += compiled
        try:
            yield
        finally:
            for p in compiled:
                self.allowed.remove(p)


@pytest.fixture(scope="module")
def console() -> ConsoleWatch:
    return ConsoleWatch()


@pytest.fixture(scope="module")
def browser(ui_server: UiServer) -> Iterator[Any]:
    """Chromium for one module. It needs `ui_server` first: the async database fixture
    must be set up before Playwright's own loop runs in this thread, and the browser is
    gone before any later module's async tests run."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield chromium
        chromium.close()


@pytest.fixture(scope="session")
def shots() -> Path:
    SHOTS.mkdir(parents=True, exist_ok=True)
    return SHOTS
