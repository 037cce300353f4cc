"""The current wait's deadline (`deadline.hours`) on the board, the player's page and the
GM console, in English and French: whose turn, when it falls due, what then happens."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from tests.browser.helpers import Encounter
from tests.browser.test_ui import WIDE, expect

pytestmark = pytest.mark.browser


def waiting_turn(base: str) -> tuple[str, str, str, str]:
    """Guard's turn under a 48 h deadline with the pass policy: eid and the tokens."""
    settings = {"deadline.hours": 48, "deadline.policy": "pass"}
    enc = Encounter.create(base, "plain-d100", "Post", settings)
    guard = enc.add("Guard", "w", "guard")
    enc.add("Bandit", "o", "bandit")
    enc.start(dice=[50, 20])
    return enc.id, enc.gm_token, enc.players[guard]["token"], enc.spectator_token


def test_every_page_shows_the_deadline_of_the_waiting_turn(
    browser: Any, ui_server: Any, console: Any
) -> None:
    base = ui_server.base
    eid, gm, player, spectator = waiting_turn(base)
    due = httpx.get(f"{base}/api/encounters/{eid}").json()["deadline"]["due"]
    pages = {
        "console": f"{base}/e/{eid}#token={gm}&role=gm",
        "player": f"{base}/e/{eid}#token={player}&as=c1",
        "board": f"{base}/e/{eid}#token={spectator}",
    }
    for label, url in pages.items():
        ctx = browser.new_context(viewport=WIDE, locale="en-US")
        page = ctx.new_page()
        console.watch(page, f"deadline-{label}")
        page.goto(url)
        expect(page.locator("#conn")).to_have_attribute("data-state", "connected")
        if page.locator("html").get_attribute("lang") != "en":
            page.click("#lang-toggle")
        shown = page.locator("#deadline .deadline")
        expect(shown).to_have_attribute("data-due", due)
        expect(shown).to_contain_text("Deadline: Guard's turn is due")
        expect(shown).to_contain_text("then the turn passes")
        expect(shown.locator("time")).to_have_attribute("datetime", due)
        page.click("#lang-toggle")
        expect(page.locator("html")).to_have_attribute("lang", "fr")
        expect(shown).to_contain_text("Délai : le tour de Guard est attendu pour le")
        expect(shown).to_contain_text("ensuite le tour passe")
        ctx.close()
    assert console.errors == []
