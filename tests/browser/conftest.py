"""A real `fracas serve` for the browser tests, a headless Chromium, and a console watch.

The server runs on the session's test database (the `database_url` fixture) and can be
killed and restarted on the same port. Playwright's sync API runs in plain sync tests and
fixtures, outside pytest-asyncio's loop.

Server and Chromium are per module and hold no test state; contexts, pages and the
console watch are per test. A test builds its own encounter or War over HTTP
(tests/browser/helpers.py) and opens its pages with `browser.open(url, name, remember=...)`
(or `browser.new_context()`); any console error or page error in them fails the test at
its teardown, unless it happened inside `console.allowing(pattern, ...)`.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests.browser.helpers import Browser, ConsoleWatch
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


@pytest.fixture(autouse=True)
def console() -> Iterator[ConsoleWatch]:
    """The console watch of one test: every page the test opens through `browser` is
    watched, and no console error or page error may be left at its end. Playwright's
    `expect` waits 5 s by default in each test (a test may raise it for itself)."""
    from playwright.sync_api import expect as pw_expect

    pw_expect.set_options(timeout=5000)
    watch = ConsoleWatch()
    yield watch
    assert watch.errors == [], "console errors:\n" + "\n".join(watch.errors)


@pytest.fixture(scope="module")
def chromium(ui_server: UiServer) -> Iterator[Any]:
    """Chromium for one module (it holds no test state: each test has its own contexts).
    It needs `ui_server` first: the async database fixture must be set up before
    Playwright's own loop runs in this thread, and the browser is gone before any later
    module's async tests run."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        launched = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield launched
        launched.close()


@pytest.fixture
def browser(chromium: Any, console: ConsoleWatch, ui_server: UiServer) -> Iterator[Browser]:
    """This test's view of the module's Chromium (see `Browser`)."""
    b = Browser(chromium, console, ui_server.base)
    yield b
    b.close()


@pytest.fixture(scope="session")
def shots() -> Path:
    SHOTS.mkdir(parents=True, exist_ok=True)
    return SHOTS
