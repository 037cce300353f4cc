"""The War page in headless Chromium: a GM runs a ranks-d100 campaign from the browser.

A GM between sessions starts a War from the home page, enrolls J1 and J2 from presets,
fights an encounter in the War, sees the outcome carried back, and starts a new Day
(recovery +50, capped at the maximum, RK-27). Each test makes the War as it stands by the
step before over HTTP and opens only the pages it checks.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from tests.browser.helpers import NARROW, WIDE, Browser, ConsoleWatch, Encounter, War, expect, snap

if TYPE_CHECKING:
    from tests.browser.conftest import UiServer

pytestmark = pytest.mark.browser

WAR = "The Fifth War"
SKIRMISH = "Skirmish at the church"
WOUND = 20  # J2's HP lost in the skirmish


def war_with_j1_and_j2(base: str) -> War:
    """A War with J1 (p1, a Master) and J2 (p2) enrolled from the presets, on day 0."""
    war = War.create(base, WAR)
    war.enroll("J1")
    war.enroll("J2")
    return war


def after_the_skirmish(base: str) -> tuple[War, Encounter]:
    """J1 and J2's War after an encounter in it that cost J2 20 HP and was closed (the
    outcome carried back)."""
    war = war_with_j1_and_j2(base)
    enc = war.open_encounter(SKIRMISH)
    j2 = next(cid for cid, p in enc.players.items() if p["name"] == "J2")
    enc.command(
        {
            "type": "adjust",
            "combatant": j2,
            "resource": "hp",
            "delta": -WOUND,
            "reason": "a sword through the shoulder",
        }
    )
    enc.command({"type": "close"})
    return war, enc


def on_day_two_with_a_servant(base: str) -> War:
    """The War after the skirmish and day 1, with Lancer (p3) enrolled as J1's Servant,
    day 2 begun and 10 mana given by Lancer to J1."""
    war, _ = after_the_skirmish(base)
    war.new_day()
    war.enroll("Lancer", master="p1")
    war.new_day()
    war.command({"type": "transfer_mana", "giver": "p3", "receiver": "p1", "amount": 10})
    return war


def war_page(browser: Browser, war: War) -> Any:
    """The War page as its GM opens it from the link."""
    gm = browser.open(war.link, "war-gm", remember=war.remembered())
    expect(gm.locator("#role-badge")).to_have_text("War GM")
    return gm


def row(page: Any, name: str) -> Any:
    return page.locator("#war-chars tbody tr", has=page.locator(".char-name", has_text=name))


def pool(page: Any, name: str, key: str) -> Any:
    return row(page, name).locator(f"[data-pool={key}] .res-val")


def enroll(page: Any, preset: str) -> None:
    page.select_option("#enroll-preset", preset)
    expect(page.locator("#enroll-name")).to_have_value(preset)
    page.click("#enroll-form button[type=submit]")
    expect(page.locator("#enroll-msg")).to_contain_text(f"{preset} enrolled")


def test_a_gm_starts_a_war_from_the_home_page(browser: Browser) -> None:
    gm = browser.open("/", "war-gm")
    gm.fill("#war-name", WAR)
    gm.click("#war-create")
    gm.wait_for_url(re.compile(r"/w/[0-9a-f-]{36}#token=.+$"))
    war = gm.url.split("/w/")[1].split("#")[0]
    token = gm.url.split("token=")[1]
    expect(gm.locator("#war-head h1")).to_contain_text(WAR)
    expect(gm.locator("#war-day")).to_have_text("0")
    expect(gm.locator("#role-badge")).to_have_text("War GM")
    expect(gm.locator("#war-chars")).to_contain_text("No character enrolled yet.")
    stored = gm.evaluate(f"localStorage.getItem('fracas:war:{war}')")
    assert token in stored


def test_the_gm_enrolls_j1_and_j2_from_presets_and_sees_their_pools(
    browser: Browser, ui_server: UiServer
) -> None:
    war = War.create(ui_server.base, WAR)
    gm = war_page(browser, war)
    enroll(gm, "J1")
    enroll(gm, "J2")
    chars = {c["name"]: c for c in war.state()["characters"]}
    assert set(chars) == {"J1", "J2"}
    for name, c in chars.items():
        top = c["maxima"]
        expect(pool(gm, name, "hp")).to_have_text(f"{top['hp']}/{top['hp']}")
        expect(pool(gm, name, "mana")).to_have_text(f"{top['mana']}/{top['mana']}")
        luck = row(gm, name).locator("[data-pool=luck]")
        expect(luck).to_have_text(f"{top['luck']}/{top['luck']}")
        expect(row(gm, name).locator("[data-flag]")).to_have_attribute("data-flag", "ready")
    expect(row(gm, "J1")).to_contain_text("Master")


def test_an_invalid_sheet_shows_the_servers_error_beside_the_field(
    browser: Browser, ui_server: UiServer, console: ConsoleWatch
) -> None:
    war = war_with_j1_and_j2(ui_server.base)
    gm = war_page(browser, war)
    gm.select_option("#enroll-preset", "")
    gm.fill("#enroll-name", "Broken")
    gm.fill("#enroll-sheet", '{"kind": "master", "STR": "Z", "wings": 2}')
    with console.allowing(r"status of 4[0-9][0-9]"):
        gm.click("#enroll-form button[type=submit]")
        expect(gm.locator("#enroll-sheet-error")).not_to_be_empty()
    expect(gm.locator("#enroll-sheet")).to_have_attribute("aria-invalid", "true")
    gm.fill("#enroll-sheet", "{not json")
    gm.click("#enroll-form button[type=submit]")
    expect(gm.locator("#enroll-sheet-error")).to_contain_text("JSON")
    assert len(war.state()["characters"]) == 2


def test_mana_moves_only_between_a_master_and_its_servant(
    browser: Browser, ui_server: UiServer, console: ConsoleWatch
) -> None:
    war = war_with_j1_and_j2(ui_server.base)
    gm = war_page(browser, war)
    gm.select_option("#transfer-giver", label="J1 (p1)")
    gm.select_option("#transfer-receiver", label="J2 (p2)")
    gm.fill("#transfer-amount", "5")
    with console.allowing(r"status of 4[0-9][0-9]"):
        gm.click("#transfer-form button[type=submit]")
        expect(gm.locator("#transfer-msg")).to_contain_text("RK-30")
    expect(gm.locator("#transfer-msg")).to_have_class(re.compile("error"))
    assert [c["resources"]["mana"] for c in war.state()["characters"]] == [
        war.maxima("J1")["mana"],
        war.maxima("J2")["mana"],
    ]


def test_an_encounter_opened_in_the_war_has_its_characters(
    browser: Browser, ui_server: UiServer
) -> None:
    war = war_with_j1_and_j2(ui_server.base)
    gm = war_page(browser, war)
    gm.fill("#open-name", SKIRMISH)
    gm.click("#open-form button[type=submit]")
    gm.wait_for_url(re.compile(r"/e/[0-9a-f-]{36}#token=.+&role=gm$"))
    expect(gm.locator("#role-badge")).to_have_text("GM console")
    expect(gm.locator(".enc-name")).to_contain_text(SKIRMISH)
    expect(gm.locator("#sides")).to_contain_text("J1")
    expect(gm.locator("#sides")).to_contain_text("J2")
    expect(gm.locator("#war-link")).to_have_attribute("href", f"/w/{war.id}")
    expect(gm.locator("#war-link")).to_contain_text(WAR)
    # The players' links of the War's characters are kept, as for added combatants.
    expect(gm.locator("#share input[id^=link-player-]")).to_have_count(2)


def test_the_gm_adjusts_j2s_hp_and_closes_the_encounter(
    browser: Browser, ui_server: UiServer
) -> None:
    war = war_with_j1_and_j2(ui_server.base)
    enc = war.open_encounter(SKIRMISH)
    gm = browser.open(enc.gm_link, "gm", remember={**war.remembered(), **enc.remembered()})
    j2 = gm.locator("#adj-combatant option", has_text="J2").get_attribute("value")
    gm.select_option("#adj-combatant", j2)
    gm.select_option("#adj-resource", "hp")
    gm.fill("#adj-delta", f"-{WOUND}")
    gm.fill("#adj-reason", "a sword through the shoulder")
    gm.click("#adjust-form button[type=submit]")
    line = gm.locator(f"#sides [data-cid={j2}] [data-res=hp] .res-val")
    top = war.maxima("J2")["hp"]
    expect(line).to_have_text(f"{top - WOUND}/{top}")
    gm.click("#btn-close")
    gm.click("#confirm-ok")  # close asks first (no undo reverts it)
    expect(gm.locator(".status .badge.closed")).to_be_visible()


def test_back_on_the_war_page_j2s_hp_is_carried_back(browser: Browser, ui_server: UiServer) -> None:
    war, enc = after_the_skirmish(ui_server.base)
    gm = browser.open(enc.gm_link, "gm", remember={**war.remembered(), **enc.remembered()})
    gm.click("#war-link")
    gm.wait_for_url(re.compile(rf"/w/{war.id}$"))
    expect(gm.locator("#role-badge")).to_have_text("War GM")
    top = war.maxima("J2")["hp"]
    expect(pool(gm, "J2", "hp")).to_have_text(f"{top - WOUND}/{top}")
    expect(gm.locator("#war-encounters")).to_contain_text(SKIRMISH)
    expect(gm.locator("#war-encounters")).to_contain_text("carried back")


def test_a_new_day_recovers_hp_up_to_the_maximum(browser: Browser, ui_server: UiServer) -> None:
    war, _ = after_the_skirmish(ui_server.base)
    gm = war_page(browser, war)
    top = war.maxima("J2")["hp"]
    expect(pool(gm, "J2", "hp")).to_have_text(f"{top - WOUND}/{top}")
    gm.click("#btn-new-day")
    expect(gm.locator("#war-day")).to_have_text("1")
    expect(pool(gm, "J2", "hp")).to_have_text(f"{top}/{top}")  # +50, capped (RK-27)
    expect(gm.locator("#day-report")).to_contain_text("Day 1")
    expect(gm.locator("#day-report")).to_contain_text(f"J2 +{WOUND} HP")
    assert war.state()["day"] == 1


def test_a_servant_costs_its_master_upkeep_and_mana_moves_between_them(
    browser: Browser, ui_server: UiServer, shots: Path
) -> None:
    war, _ = after_the_skirmish(ui_server.base)
    war.new_day()
    gm = war_page(browser, war)
    gm.select_option("#enroll-preset", "Lancer")
    gm.select_option("#enroll-master", label="J1 (p1)")
    gm.click("#enroll-form button[type=submit]")
    expect(gm.locator("#enroll-msg")).to_contain_text("Lancer enrolled as p3")
    expect(row(gm, "Lancer")).to_contain_text("Servant of J1")
    gm.click("#btn-new-day")
    expect(gm.locator("#war-day")).to_have_text("2")
    expect(gm.locator("#day-report")).to_contain_text(
        "J1 pays 15 mana of upkeep for Lancer (RK-28)"
    )
    expect(pool(gm, "J1", "mana")).to_have_text("85/100")
    lancer = war.maxima("Lancer")["mana"]
    gm.select_option("#transfer-giver", label="Lancer (p3)")
    gm.select_option("#transfer-receiver", label="J1 (p1)")
    gm.fill("#transfer-amount", "10")
    gm.click("#transfer-form button[type=submit]")
    expect(gm.locator("#transfer-msg")).to_have_text("Lancer gave 10 mana to J1")
    expect(pool(gm, "J1", "mana")).to_have_text("95/100")
    expect(pool(gm, "Lancer", "mana")).to_have_text(f"{lancer - 10}/{lancer}")
    snap(gm, shots, "war")
    assert (shots / "war-375.png").stat().st_size > 10_000


def test_the_war_page_speaks_french_and_is_keyboard_usable(
    browser: Browser, ui_server: UiServer
) -> None:
    gm = war_page(browser, on_day_two_with_a_servant(ui_server.base))
    expect(gm.locator("#war-day")).to_have_text("2")
    gm.click("#lang-toggle")
    expect(gm.locator("#btn-new-day")).to_have_text("Nouveau jour")
    expect(gm.locator("#chars-title")).to_have_text("Personnages")
    gm.click("#lang-toggle")
    expect(gm.locator("#btn-new-day")).to_have_text("New day")
    gm.set_viewport_size(NARROW)
    gm.focus("#btn-new-day")
    gm.keyboard.press("Enter")
    expect(gm.locator("#war-day")).to_have_text("3")
    width = gm.evaluate("document.documentElement.scrollWidth")
    assert width <= NARROW["width"]
    gm.set_viewport_size(WIDE)
