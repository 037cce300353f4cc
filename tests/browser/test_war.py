"""The War page in headless Chromium: a GM runs a ranks-d100 campaign from the browser.

The steps run in order on one War, as a GM does between sessions: start it from the home
page, enroll J1 and J2 from presets, fight an encounter in the War, see the outcome carried
back, and start a new Day (recovery +50, capped at the maximum, RK-27).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.browser.test_ui import NARROW, WIDE, expect, snap

pytestmark = pytest.mark.browser


@dataclass
class Campaign:
    """The page and facts the steps share."""

    base: str
    gm: Any
    war: str = ""
    token: str = ""
    encounter: str = ""
    j2_hp: int = 0


@pytest.fixture(scope="module")
def campaign(browser: Any, ui_server: Any, console: Any) -> Iterator[Campaign]:
    from playwright.sync_api import expect as pw_expect

    pw_expect.set_options(timeout=5000)
    ctx = browser.new_context(viewport=WIDE, locale="en-US")
    page = ctx.new_page()
    console.watch(page, "war-gm")
    yield Campaign(base=ui_server.base, gm=page)
    ctx.close()


def war_state(c: Campaign) -> dict[str, Any]:
    r = httpx.get(f"{c.base}/api/campaigns/{c.war}", timeout=5)
    r.raise_for_status()
    out: dict[str, Any] = r.json()
    return out


def maxima(c: Campaign, name: str) -> dict[str, int]:
    found: dict[str, int] = next(x for x in war_state(c)["characters"] if x["name"] == name)[
        "maxima"
    ]
    return found


def row(page: Any, name: str) -> Any:
    return page.locator("#war-chars tbody tr", has=page.locator(".char-name", has_text=name))


def pool(page: Any, name: str, key: str) -> Any:
    return row(page, name).locator(f"[data-pool={key}] .res-val")


def enroll(page: Any, preset: str) -> None:
    page.select_option("#enroll-preset", preset)
    expect(page.locator("#enroll-name")).to_have_value(preset)
    page.click("#enroll-form button[type=submit]")
    expect(page.locator("#enroll-msg")).to_contain_text(f"{preset} enrolled")


def test_a_gm_starts_a_war_from_the_home_page(campaign: Campaign) -> None:
    gm = campaign.gm
    gm.goto(campaign.base + "/")
    gm.fill("#war-name", "The Fifth War")
    gm.click("#war-create")
    gm.wait_for_url(re.compile(r"/w/[0-9a-f-]{36}#token=.+$"))
    campaign.war = gm.url.split("/w/")[1].split("#")[0]
    campaign.token = gm.url.split("token=")[1]
    expect(gm.locator("#war-head h1")).to_contain_text("The Fifth War")
    expect(gm.locator("#war-day")).to_have_text("0")
    expect(gm.locator("#role-badge")).to_have_text("War GM")
    expect(gm.locator("#war-chars")).to_contain_text("No character enrolled yet.")
    stored = gm.evaluate(f"localStorage.getItem('fracas:war:{campaign.war}')")
    assert campaign.token in stored


def test_the_gm_enrolls_j1_and_j2_from_presets_and_sees_their_pools(campaign: Campaign) -> None:
    gm = campaign.gm
    enroll(gm, "J1")
    enroll(gm, "J2")
    chars = {c["name"]: c for c in war_state(campaign)["characters"]}
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
    campaign: Campaign, console: Any
) -> None:
    gm = campaign.gm
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
    assert len(war_state(campaign)["characters"]) == 2


def test_mana_moves_only_between_a_master_and_its_servant(campaign: Campaign, console: Any) -> None:
    gm = campaign.gm
    gm.select_option("#transfer-giver", label="J1 (p1)")
    gm.select_option("#transfer-receiver", label="J2 (p2)")
    gm.fill("#transfer-amount", "5")
    with console.allowing(r"status of 4[0-9][0-9]"):
        gm.click("#transfer-form button[type=submit]")
        expect(gm.locator("#transfer-msg")).to_contain_text("RK-30")
    expect(gm.locator("#transfer-msg")).to_have_class(re.compile("error"))


def test_an_encounter_opened_in_the_war_has_its_characters(campaign: Campaign) -> None:
    gm = campaign.gm
    gm.fill("#open-name", "Skirmish at the church")
    gm.click("#open-form button[type=submit]")
    gm.wait_for_url(re.compile(r"/e/[0-9a-f-]{36}#token=.+&role=gm$"))
    campaign.encounter = gm.url.split("/e/")[1].split("#")[0]
    expect(gm.locator("#role-badge")).to_have_text("GM console")
    expect(gm.locator(".enc-name")).to_contain_text("Skirmish at the church")
    expect(gm.locator("#sides")).to_contain_text("J1")
    expect(gm.locator("#sides")).to_contain_text("J2")
    expect(gm.locator("#war-link")).to_have_attribute("href", f"/w/{campaign.war}")
    expect(gm.locator("#war-link")).to_contain_text("The Fifth War")
    # The players' links of the War's characters are kept, as for added combatants.
    expect(gm.locator("#share input[id^=link-player-]")).to_have_count(2)


def test_the_gm_adjusts_j2s_hp_and_closes_the_encounter(campaign: Campaign) -> None:
    gm = campaign.gm
    j2 = gm.locator("#adj-combatant option", has_text="J2").get_attribute("value")
    gm.select_option("#adj-combatant", j2)
    gm.select_option("#adj-resource", "hp")
    gm.fill("#adj-delta", "-20")
    gm.fill("#adj-reason", "a sword through the shoulder")
    gm.click("#adjust-form button[type=submit]")
    line = gm.locator(f"#sides [data-cid={j2}] [data-res=hp] .res-val")
    top = maxima(campaign, "J2")["hp"]
    expect(line).to_have_text(f"{top - 20}/{top}")
    campaign.j2_hp = top - 20
    gm.click("#btn-close")
    expect(gm.locator(".status .badge.closed")).to_be_visible()


def test_back_on_the_war_page_j2s_hp_is_carried_back(campaign: Campaign) -> None:
    gm = campaign.gm
    gm.click("#war-link")
    gm.wait_for_url(re.compile(rf"/w/{campaign.war}$"))
    expect(gm.locator("#role-badge")).to_have_text("War GM")
    top = maxima(campaign, "J2")["hp"]
    expect(pool(gm, "J2", "hp")).to_have_text(f"{campaign.j2_hp}/{top}")
    expect(gm.locator("#war-encounters")).to_contain_text("Skirmish at the church")
    expect(gm.locator("#war-encounters")).to_contain_text("carried back")


def test_a_new_day_recovers_hp_up_to_the_maximum(campaign: Campaign, shots: Path) -> None:
    gm = campaign.gm
    top = maxima(campaign, "J2")["hp"]
    gm.click("#btn-new-day")
    expect(gm.locator("#war-day")).to_have_text("1")
    expect(pool(gm, "J2", "hp")).to_have_text(f"{top}/{top}")  # +50, capped (RK-27)
    gained = top - campaign.j2_hp
    expect(gm.locator("#day-report")).to_contain_text("Day 1")
    expect(gm.locator("#day-report")).to_contain_text(f"J2 +{gained} HP")
    assert war_state(campaign)["day"] == 1


def test_a_servant_costs_its_master_upkeep_and_mana_moves_between_them(
    campaign: Campaign, shots: Path
) -> None:
    gm = campaign.gm
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
    lancer = maxima(campaign, "Lancer")["mana"]
    gm.select_option("#transfer-giver", label="Lancer (p3)")
    gm.select_option("#transfer-receiver", label="J1 (p1)")
    gm.fill("#transfer-amount", "10")
    gm.click("#transfer-form button[type=submit]")
    expect(gm.locator("#transfer-msg")).to_have_text("Lancer gave 10 mana to J1")
    expect(pool(gm, "J1", "mana")).to_have_text("95/100")
    expect(pool(gm, "Lancer", "mana")).to_have_text(f"{lancer - 10}/{lancer}")
    snap(gm, shots, "war")
    assert (shots / "war-375.png").stat().st_size > 10_000


def test_the_war_page_speaks_french_and_is_keyboard_usable(campaign: Campaign) -> None:
    gm = campaign.gm
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


def test_no_console_errors_on_the_war_pages(console: Any) -> None:
    assert console.errors == []
