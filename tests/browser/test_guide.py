"""The pictures of docs/first-fight.md and docs/premier-combat.md (issue 25 section 7):
each role's page at the start of a fight, at 1280 and 375 px, in English and French, and
each rule system's turn as the GM sees it. Each picture is taken after the page shows what
the guide says it shows (whose turn, the actor's actions, the role), so a guide picture
that no longer shows it fails here before it misleads a reader."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.browser.conftest import UiServer
from tests.browser.helpers import NARROW, WIDE, Browser, Encounter, expect, presets

SYSTEMS = ["plain-d100", "d20-na", "ranks-d100", "d100-tcs"]
LANGS = {"en": "en-US", "fr": "fr-FR"}
OFFERED = "#controls :is(button[data-act], button[data-first]):not([disabled])"
ROLE_WORDS = {
    "en": {"gm": "GM console", "player": "Player", "spectator": "Spectator"},
    "fr": {"gm": "Console du MJ", "player": "Joueur", "spectator": "Spectateur"},
}


def a_fight(base: str, ruleset: str) -> Encounter:
    """Two combatants from the system's presets, one a side, combat started."""
    first, second = list(presets(base, ruleset))[:2]
    enc = Encounter.create(base, ruleset, "First fight")
    enc.add("Alba", "Heroes", first)
    enc.add("Brun", "Foes", second)
    enc.start()
    return enc


def shoot(page: Any, shots: Path, name: str, size: dict[str, int], at: str = "") -> Path:
    """The viewport at `size`, scrolled to the element `at` (the top of the page without)."""
    page.set_viewport_size(size)
    page.wait_for_timeout(150)
    if at:
        page.locator(at).first.scroll_into_view_if_needed()
        page.wait_for_timeout(100)
    path = shots / f"{name}.png"
    page.screenshot(path=str(path))
    assert path.stat().st_size > 10_000
    return path


def opened(browser: Browser, enc: Encounter, role: str, lang: str) -> Any:
    if role == "gm":
        page = browser.open(enc.gm_link, "gm", remember=enc.remembered(), locale=LANGS[lang])
    elif role == "player":
        actor = enc.board()["actor"]
        page = browser.open(enc.player_link(actor), "player", locale=LANGS[lang])
    else:
        page = browser.open(enc.spectator_link, "spectator", locale=LANGS[lang])
    expect(page.locator("#conn")).to_have_attribute("data-state", "connected")
    expect(page.locator("#role-badge")).to_have_text(ROLE_WORDS[lang][role])
    expect(page.locator("#order li.current")).to_have_count(1)  # whose turn it is
    if role != "spectator":  # the actor's actions, offered to who may act
        expect(page.locator(OFFERED).first).to_be_visible()
    return page


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_guide_pictures_of_each_roles_page(
    browser: Browser, ui_server: UiServer, shots: Path, lang: str
) -> None:
    enc = a_fight(ui_server.base, "d20-na")
    for role in ("gm", "player", "spectator"):
        page = opened(browser, enc, role, lang)
        if role == "player":  # the attack's options in the page's words, not their keys
            weapon = page.locator("#controls label.mini", has=page.locator("[data-choice=weapon]"))
            expect(weapon.first).to_contain_text("arme" if lang == "fr" else "weapon")
        shoot(page, shots, f"guide-{role}-{lang}-1280", WIDE)
        shoot(page, shots, f"guide-{role}-{lang}-375", NARROW)


@pytest.mark.parametrize("ruleset", SYSTEMS)
def test_guide_pictures_of_each_rule_systems_turn(
    browser: Browser, ui_server: UiServer, shots: Path, ruleset: str
) -> None:
    enc = a_fight(ui_server.base, ruleset)
    for lang, size, width in (("en", WIDE, "1280"), ("fr", NARROW, "375")):
        page = opened(browser, enc, "gm", lang)
        shoot(page, shots, f"guide-turn-{ruleset}-{lang}-{width}", size, at="#controls ul.actions")
