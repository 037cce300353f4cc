"""Quick setup on the GM console in headless Chromium (issue 25 section 5): duplicate a
combatant, keep a sheet in the browser's library and add it to another encounter of the
same rule system in one click (not offered in another), and the players' entropy window
before the first roll, live as a player's page adds entropy. English and French.

Each test makes its own encounters over HTTP and opens its own browser contexts.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.browser.helpers import Encounter, War, expect

pytestmark = pytest.mark.browser


def console(browser: Any, enc: Encounter, name: str = "gm", **options: Any) -> Any:
    page = browser.open(enc.gm_link, name, remember=enc.remembered(), **options)
    expect(page.locator("#btn-init")).to_be_visible()
    return page


def test_duplicate_adds_the_next_free_number_with_the_sheets_maxima_and_no_controller(
    browser: Any, ui_server: Any
) -> None:
    enc = Encounter.create(ui_server.base, "plain-d100", "Goblin cave")
    goblin = enc.add("Goblin", "monsters", "bandit", controller="Alba", hidden=["hp"])
    enc.add("Guard", "watch", "guard")
    enc.command(
        {"type": "adjust", "combatant": goblin, "resource": "hp", "delta": -7, "reason": "trap"}
    )
    page = console(browser, enc)
    page.click(f'[data-tools="{goblin}"] button[data-duplicate]')
    expect(page.locator("#sides li.fighter", has_text="Goblin 2")).to_have_count(1)
    page.click(f'[data-tools="{goblin}"] button[data-duplicate]')
    expect(page.locator("#sides li.fighter", has_text="Goblin 3")).to_have_count(1)
    board = enc.board(enc.gm_token)
    by_name = {c["name"]: c for c in board["combatants"]}
    first, copy = by_name["Goblin"], by_name["Goblin 2"]
    assert first["resources"] == {"hp": 17}
    assert copy["resources"] == copy["maxima"] == first["maxima"] == {"hp": 24}
    assert (copy["side"], copy["controller"], copy["sheet"], copy["gm_only"]) == (
        "monsters",
        None,
        first["sheet"],
        ["hp"],
    )
    # One plain add_combatant per click: two arrivals after the GM's three commands.
    added = [e for e in enc.events() if e["type"] == "combatant_added"]
    assert [e["data"]["name"] for e in added] == ["Goblin", "Guard", "Goblin 2", "Goblin 3"]


def test_a_sheet_kept_in_the_library_is_added_to_another_encounter_of_its_rule_system_in_one_click(
    browser: Any, ui_server: Any
) -> None:
    first = Encounter.create(ui_server.base, "plain-d100", "First night")
    ogre = first.add("Ogre", "monsters", "guard")
    first.add("Scout", "heroes", "bandit")
    page = console(browser, first)
    expect(page.locator("#library-empty")).to_be_visible()
    page.click(f'[data-tools="{ogre}"] button[data-keep]')
    expect(page.locator(f'[data-tools="{ogre}"] [data-card-msg]')).to_have_text(
        "Saved to the library as Ogre"
    )
    expect(page.locator("#library li[data-lib]", has_text="Ogre")).to_have_count(1)

    second = Encounter.create(ui_server.base, "plain-d100", "Second night")
    page.goto(second.gm_link)  # the same browser: its library comes along
    entry = page.locator("#library li[data-lib]", has_text="Ogre")
    expect(entry).to_contain_text("side monsters")
    entry.locator("button[data-lib-add]").click()
    expect(page.locator("#sides li.fighter", has_text="Ogre")).to_have_count(1)
    entry.locator("button[data-lib-add]").click()  # the name is taken now: the next number
    expect(page.locator("#sides li.fighter", has_text="Ogre 2")).to_have_count(1)
    ogres = second.board(second.gm_token)["combatants"]
    assert [(c["name"], c["side"], c["maxima"]) for c in ogres] == [
        ("Ogre", "monsters", {"hp": 30}),
        ("Ogre 2", "monsters", {"hp": 30}),
    ]

    # Rename, then delete: the library is this browser's to edit.
    entry.locator("button[data-lib-rename]").click()
    page.locator("form[data-lib-form] input").fill("Cave ogre")
    page.locator("form[data-lib-form] button[type=submit]").click()
    expect(page.locator("#library li[data-lib] .lib-name")).to_have_text(["Cave ogre"])

    other = Encounter.create(ui_server.base, "d20-na", "Elsewhere")
    page.goto(other.gm_link)
    expect(page.locator("#btn-init")).to_be_visible()
    expect(page.locator("#library-empty")).to_be_visible()  # a plain-d100 sheet is not offered
    expect(page.locator("#library li[data-lib]")).to_have_count(0)

    page.goto(second.gm_link)
    page.locator("#library li[data-lib] button[data-lib-delete]").click()
    expect(page.locator("#library-msg")).to_have_text("Cave ogre deleted from the library")
    expect(page.locator("#library li[data-lib]")).to_have_count(0)


def test_the_gm_sees_live_who_has_added_entropy_before_the_first_roll_and_goes_on(
    browser: Any, ui_server: Any
) -> None:
    enc = Encounter.create(ui_server.base, "plain-d100", "Dice at dawn")
    ayla = enc.add("Ayla", "heroes", "guard", controller="Alba")
    enc.add("Brak", "heroes", "guard", controller="Brun")
    enc.add("Goblin", "monsters", "bandit")
    page = console(browser, enc)
    line = page.locator("#entropy-line")
    expect(line).to_have_text("entropy: Alba not yet, Brun not yet")

    player = browser.open(enc.player_link(ayla), "alba")
    player.click("#entropy-btn")
    expect(player.locator("#entropy-msg")).to_have_text("Entropy added")
    expect(line).to_have_text("entropy: Alba yes, Brun not yet")  # live, no reload
    expect(page.locator("#log")).to_contain_text("Ayla mixes entropy into the dice")
    assert "entropy" not in enc.board(enc.spectator_token)  # the GM's board only

    page.click("#entropy-wait")
    expect(page.locator("#entropy-note")).to_have_text(
        "Waiting for Brun: the line changes as each adds entropy."
    )
    page.click("#entropy-go")  # go on without Brun: initiative closes the window
    expect(page.locator("#entropy-window")).to_be_empty()
    expect(player.locator("#entropy-form")).to_be_hidden()
    board = enc.board(enc.gm_token)
    assert board["dice"]["rolls"] > 0 and board["entropy"]["open"] is False


def test_the_setup_tools_speak_french(browser: Any, ui_server: Any) -> None:
    enc = Encounter.create(ui_server.base, "plain-d100", "La grotte")
    goblin = enc.add("Gobelin", "monstres", "bandit")
    enc.add("Ayla", "héros", "guard", controller="Alba")
    page = console(browser, enc, "gm-fr", locale="fr-FR")
    expect(page.locator("#entropy-line")).to_have_text("entropie : Alba pas encore")
    expect(page.locator("#entropy-go")).to_have_text("Continuer : lancer l’initiative")
    expect(page.locator("#library-empty")).to_contain_text("Rien de gardé")
    page.click(f'[data-tools="{goblin}"] button[data-keep]')
    expect(page.locator(f'[data-tools="{goblin}"] [data-card-msg]')).to_have_text(
        "Gardé en bibliothèque sous le nom Gobelin"
    )
    expect(page.locator("#library button[data-lib-add]")).to_have_text("Ajouter")
    page.click(f'[data-tools="{goblin}"] button[data-duplicate]')
    expect(page.locator("#sides li.fighter", has_text="Gobelin 2")).to_have_count(1)
    expect(page.locator(f'[data-tools="{goblin}"] button[data-duplicate]')).to_have_text(
        "Dupliquer"
    )


def test_in_a_war_the_console_says_the_wars_characters_are_the_library(
    browser: Any, ui_server: Any
) -> None:
    war = War.create(ui_server.base, "The long war")
    war.enroll("J1")
    war.enroll("J2")
    enc = war.open_encounter("Ambush on day 0")
    page = browser.open(enc.gm_link, "gm", remember={**enc.remembered(), **war.remembered()})
    note = page.locator("#library-war-note")
    expect(note).to_contain_text("the War's characters are its library")
    expect(note.locator("a")).to_have_attribute("href", f"/w/{war.id}")
    page.goto(war.link)
    expect(page.locator("#open-form ~ small")).to_contain_text(
        "the War's characters are its library of sheets"
    )


def test_the_library_goes_to_another_device_with_the_export_link(
    browser: Any, ui_server: Any
) -> None:
    enc = Encounter.create(ui_server.base, "plain-d100", "Bridge")
    troll = enc.add("Troll", "monsters", "guard")
    page = console(browser, enc)
    page.click(f'[data-tools="{troll}"] button[data-keep]')
    expect(page.locator("#library li[data-lib]", has_text="Troll")).to_have_count(1)
    page.goto(ui_server.base + "/")
    page.click("#carry-link")
    link = page.input_value("#carry-out")
    other = browser.open(link, "other device")
    expect(other.locator("#carry-msg")).to_contain_text("1 library sheet(s)")
    fresh = Encounter.create(ui_server.base, "plain-d100", "Elsewhere")
    other.goto(fresh.gm_link)
    other.locator("#library li[data-lib]", has_text="Troll").locator("button[data-lib-add]").click()
    expect(other.locator("#sides li.fighter", has_text="Troll")).to_have_count(1)
