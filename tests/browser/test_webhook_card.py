"""The GM console's webhook card in headless Chromium (issue 25 section 2): set the webhook
from the card, see its secret once, press "send a test" and see the delivery listed with
its status, against a real `fracas serve` allowed to call a receiver on 127.0.0.1.

The module's server has a database of its own: every instance on a database delivers its
webhooks, and the session's other servers may not call 127.0.0.1.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
from collections.abc import AsyncIterator, Iterator
from typing import Any
from unittest import mock

import httpx
import pytest
import pytest_asyncio

from tests.browser.conftest import UiServer
from tests.browser.test_ui import WIDE, expect
from tests.conftest import fresh_database
from tests.e2e.test_webhooks import FAST, Receiver

pytestmark = pytest.mark.browser


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def hook_database(server_url: str) -> AsyncIterator[str]:
    async with fresh_database(server_url) as url:
        yield url


@pytest.fixture(scope="module")
def ui_server(hook_database: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[UiServer]:
    """This module's server: allowed to call 127.0.0.1, with fast retries."""
    log = tmp_path_factory.mktemp("ui-webhooks") / "serve.log"
    server = UiServer(hook_database, str(log))
    with mock.patch.dict(os.environ, FAST):
        server.start()
    yield server
    server.stop()


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    r = Receiver()
    yield r
    r.down()


@pytest.fixture
def encounter(ui_server: UiServer) -> Iterator[dict[str, str]]:
    with httpx.Client(base_url=ui_server.base, timeout=10) as http:
        made = http.post("/api/encounters", json={"ruleset": "plain-d100", "name": "Alley"})
        assert made.status_code == 201, made.text
        yield {"id": made.json()["id"], "gm": made.json()["gm_token"], "base": ui_server.base}


def open_card(browser: Any, encounter: dict[str, str], locale: str = "en-US") -> Any:
    page = browser.open(
        f"/e/{encounter['id']}#token={encounter['gm']}&role=gm", viewport=WIDE, locale=locale
    )
    expect(page.locator("#conn")).to_have_attribute("data-state", "connected")
    expect(page.locator("#hook-card")).to_be_visible()
    return page


def test_a_webhook_set_from_the_card_sends_a_test_listed_as_delivered(
    browser: Any, encounter: dict[str, str], receiver: Receiver
) -> None:
    page = open_card(browser, encounter)
    expect(page.locator("#hook-deliveries")).to_contain_text("No webhook set.")
    page.fill("#hook-url", receiver.url)
    page.select_option("#hook-format", "discord")
    page.uncheck("#hook-form input[value=round_started]")
    page.click("#hook-save")
    expect(page.locator("#hook-msg")).to_have_text("Webhook saved.")
    secret = page.locator("#hook-secret-value")
    expect(secret).to_have_value(_hex64())
    expect(page.locator("#hook-secret-copy")).to_be_visible()
    page.click("#hook-test")
    item = page.locator("#hook-deliveries li[data-kind=test]")
    expect(item).to_have_attribute("data-status", "delivered", timeout=15000)
    expect(item).to_contain_text("test")
    expect(item).to_contain_text("delivered")
    # The receiver got the test, in Discord's form, signed with the secret shown once.
    headers, body = receiver.got[-1]
    signature = headers["x-fracas-signature"]
    key = secret.input_value().encode()
    assert signature == "sha256=" + hmac.new(key, body, hashlib.sha256).hexdigest()
    content = json.loads(body)["content"]
    assert "Alley" in content and content.endswith(f"/e/{encounter['id']}")
    # What the server holds is what the card set; reloading shows it, not the secret.
    with httpx.Client(base_url=encounter["base"]) as http:
        hook = http.get(f"/api/encounters/{encounter['id']}/webhook",
                        headers={"Authorization": f"Bearer {encounter['gm']}"}).json()  # fmt: skip
    assert hook["format"] == "discord" and "round_started" not in hook["kinds"]
    page.reload()
    expect(page.locator("#hook-url")).to_have_value(receiver.url)
    expect(page.locator("#hook-secret")).to_be_hidden()
    expect(page.locator("#hook-deliveries li[data-kind=test]")).to_have_count(1)
    page.click("#hook-delete")
    expect(page.locator("#hook-msg")).to_have_text("Webhook deleted.")
    expect(page.locator("#hook-deliveries")).to_contain_text("No webhook set.")
    expect(page.locator("#hook-test")).to_be_disabled()


def test_a_failing_receiver_shows_as_retrying_in_french(
    browser: Any, encounter: dict[str, str]
) -> None:
    failing = Receiver(status=500)
    try:
        page = open_card(browser, encounter, locale="fr-FR")
        if page.locator("html").get_attribute("lang") != "fr":
            page.click("#lang-toggle")
        expect(page.locator("#hook-title")).to_have_text("Webhook (jeu par forum)")
        page.fill("#hook-url", failing.url)
        page.click("#hook-save")
        expect(page.locator("#hook-msg")).to_have_text("Webhook enregistré.")
        page.click("#hook-test")
        status = page.locator("#hook-deliveries li[data-kind=test] .hook-status")
        expect(status).to_contain_text("HTTP 500", timeout=15000)
        expect(status).to_contain_text("tentative")
    finally:
        failing.down()


def _hex64() -> Any:
    import re

    return re.compile(r"^[0-9a-f]{64}$")
