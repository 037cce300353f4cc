"""The player's own sheet on their page, in English and French: the sheet's stats, its
resources with their maxima and the once-per-session uses left, kept live; never another
combatant's sheet.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.browser.helpers import NARROW, Browser, Encounter, expect

pytestmark = pytest.mark.browser

WORDS = {
    "en-US": ("Your sheet", "Second wind", "1 of 1 left", "used", "Stats"),
    "fr-FR": ("Votre fiche", "Second souffle", "encore 1 sur 1", "utilisé", "Caractéristiques"),
}


@pytest.mark.parametrize("locale", list(WORDS))
def test_the_player_sees_their_own_sheet_and_its_second_wind_spent_live(
    browser: Browser, ui_server: Any, locale: str
) -> None:
    title, wind, left, spent, stats = WORDS[locale]
    enc = Encounter.create(ui_server.base, "plain-d100", "Alley")
    guard = enc.add("Guard", "watch", "guard")
    enc.add("Bandit", "outlaws", "bandit")
    enc.start(dice=[50, 20])  # the Guard first
    page = browser.open(enc.player_link(guard), "player", locale=locale, viewport=NARROW)
    expect(page.locator("#conn")).to_have_attribute("data-state", "connected")
    sheet = page.locator("#my-sheet .sheet")
    expect(page.locator("#sheet-title")).to_have_text(title)
    expect(sheet).to_have_count(1)  # the Guard's, never the Bandit's
    expect(sheet).to_have_attribute("data-cid", guard)
    expect(sheet.locator("h4").first).to_be_visible()
    expect(sheet.locator("[data-stat=skill] dd")).to_have_text("55")
    expect(sheet.locator("[data-stat=dodge] dd")).to_have_text("30")
    expect(sheet.locator("h4", has_text=stats)).to_have_count(1)
    expect(sheet.locator("[data-res=hp] td")).to_have_text("30/30")
    use = sheet.locator("[data-use=second_wind]")
    expect(use.locator(".use-name")).to_have_text(wind)
    expect(use.locator(".use-left")).to_have_text(left)
    expect(use.locator(".rule")).to_have_text("PD-3")
    # Within the player's first screen and a half on a phone, below their controls.
    box = use.bounding_box()
    assert box is not None and box["y"] + box["height"] <= 1100, box
    assert page.locator("#sides [data-cid=c2]").count() == 1  # the board still shows both
    enc.command({"type": "act", "actor": guard, "action": "second_wind"})
    expect(use.locator(".use-left")).to_have_text(spent)
    expect(use).to_have_attribute("data-left", "0")
    enc.command({"type": "adjust", "combatant": guard, "resource": "hp", "delta": -4,
                 "reason": "a fall"})  # fmt: skip
    expect(sheet.locator("[data-res=hp] td")).to_have_text("26/30")
