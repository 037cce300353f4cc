"""The GM console while PostgreSQL is down: "reconnecting", then the command lands once.

Its own embedded PostgreSQL in a scratch folder (never the machine's, nor the session's
test server) and its own `fracas serve` on it; the page's command meets real 503
`unavailable` answers and is sent again with the same Idempotency-Key.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from server.store.embedded import EmbeddedPostgres
from tests.e2e.conftest import Api, start_server, stop_server

pytestmark = pytest.mark.browser


def expect(locator: Any) -> Any:
    from playwright.sync_api import expect as pw_expect

    return pw_expect(locator)


@pytest.fixture
def own_table(scratch_dir: Path, browser: Any) -> Iterator[tuple[EmbeddedPostgres, Api, Any]]:
    pg = EmbeddedPostgres(scratch_dir / "home", database="fracas")
    url = pg.start()
    server = start_server(url, str(scratch_dir / "serve.log"))
    api = Api(server.base)
    ctx = browser.new_context(viewport={"width": 1280, "height": 860}, locale="en-US")
    try:
        yield pg, api, ctx.new_page()
    finally:
        ctx.close()
        api.http.close()
        stop_server(server)
        pg.stop()


def rolled(api: Api, eid: str, token: str, purpose: str) -> int:
    events = api.events(eid, token)
    return sum(1 for e in events if e["type"] == "die_rolled" and e["data"]["purpose"] == purpose)


def test_a_command_sent_while_the_database_is_down_waits_and_lands_once(
    own_table: tuple[EmbeddedPostgres, Api, Any], console: Any
) -> None:
    pg, api, gm = own_table
    # The browser reports each 503 it is answered during the outage: expected here.
    with console.allowing("status of 503"):
        made = api.create()
        eid, token = made["id"], made["gm_token"]
        gm.goto(api.base + made["links"]["gm"])
        expect(gm.locator("#conn")).to_have_attribute("data-state", "connected")

        for lang, words, purpose in (
            ("en", "reconnecting", "during the outage"),
            ("fr", "reconnexion", "pendant la panne"),
        ):
            if lang == "fr":
                gm.click("#lang-toggle")
                expect(gm.locator("html")).to_have_attribute("lang", "fr")
            pg.stop()
            assert httpx.get(api.base + "/healthz", timeout=5).status_code == 503
            gm.fill("#roll-expr", "1d6")
            gm.fill("#roll-purpose", purpose)
            gm.click("#roll-form button[type=submit]")
            banner = gm.locator("#reconnecting")
            expect(banner).to_be_visible(timeout=10_000)
            expect(banner).to_contain_text(words)
            pg.start()
            expect(banner).to_be_hidden(timeout=30_000)
            expect(gm.locator("#log li", has_text=purpose)).to_have_count(1, timeout=15_000)
            assert rolled(api, eid, token, purpose) == 1
