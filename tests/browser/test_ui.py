"""The web UI in headless Chromium: a GM and a player at one table, end to end.

Each test makes its own d20-na skirmish over HTTP (Milicien c1 against Fangeux c2, the
state a table reaches by the step before) and opens only the pages it checks.
"""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import httpx
import pytest

from tests.browser.helpers import NARROW, WIDE, Browser, ConsoleWatch, Encounter, expect, snap

if TYPE_CHECKING:
    from tests.browser.conftest import UiServer

pytestmark = pytest.mark.browser

__all__ = ["NARROW", "WIDE", "expect", "snap"]  # other browser tests import them from here

NAME = "Ambush at the bridge"


def skirmish(base: str, started: bool = True) -> Encounter:
    """A d20-na encounter with Milicien (c1, heroes) and Fangeux (c2, foes), as the GM
    adds them from the presets; started, Fangeux (INI 12) acts first."""
    enc = Encounter.create(base, "d20-na", NAME)
    enc.add("Milicien", "heroes", "milicien")
    enc.add("Fangeux", "foes", "fangeux")
    if started:
        enc.start()
    return enc


def after_the_first_attack(base: str) -> Encounter:
    """The skirmish after Fangeux attacked Milicien's head with a die entered by the GM
    (3) and Milicien dodged with a server roll; it is Milicien's turn."""
    enc = skirmish(base)
    enc.command(
        {
            "type": "act",
            "actor": "c2",
            "action": "attack",
            "target": "c1",
            "options": {"weapon": "claws", "aim": "head"},
            "dice": [3],
        }
    )
    enc.command({"type": "react", "actor": "c1", "reaction": "dodge"})
    return enc


def gm_console(browser: Browser, enc: Encounter) -> Any:
    """The GM console, in a browser that made the encounter (its links are kept)."""
    gm = browser.open(enc.gm_link, "gm", remember=enc.remembered())
    expect(gm.locator("#conn")).to_have_attribute("data-state", "connected")
    return gm


def player_page(browser: Browser, enc: Encounter, cid: str = "c1") -> Any:
    player = browser.open(enc.player_link(cid), f"player {cid}")
    expect(player.locator("#conn")).to_have_attribute("data-state", "connected")
    return player


def add(gm: Any, name: str, side: str, preset: str) -> None:
    gm.select_option("#add-preset", preset)
    gm.fill("#add-name", name)
    gm.fill("#add-side", side)
    gm.click("#add-form button[type=submit]")


def hp(page: Any, cid: str) -> Any:
    return page.locator(f"#sides [data-cid={cid}] [data-res=hp] .res-val")


def roll_button(page: Any, text: str) -> Any:
    return page.locator("#log li", has_text=text).last.locator("button[data-roll]").first


def test_a_gm_creates_an_encounter_from_the_home_page(browser: Browser) -> None:
    gm = browser.open("/", "gm")
    gm.select_option("#ruleset", "d20-na")
    expect(gm.locator("#settings [data-key='defense.max_per_type']")).to_have_value("3")
    gm.fill("#enc-name", NAME)
    gm.click("#create")
    gm.wait_for_url(re.compile(r"/e/[0-9a-f-]{36}#token=.+&role=gm$"))
    expect(gm.locator("#role-badge")).to_have_text("GM console")
    expect(gm.locator("#conn")).to_have_attribute("data-state", "connected")
    expect(gm.locator(".enc-name")).to_contain_text(NAME)
    encounter = gm.url.split("/e/")[1].split("#")[0]
    gm_token = gm.url.split("token=")[1].split("&")[0]
    stored = gm.evaluate(f"localStorage.getItem('fracas:enc:{encounter}')")
    assert gm_token in stored


def test_a_refused_sheet_shows_the_servers_message_beside_the_field(
    browser: Browser, ui_server: UiServer, console: ConsoleWatch
) -> None:
    enc = Encounter.create(ui_server.base, "d20-na", NAME)
    gm = gm_console(browser, enc)
    gm.select_option("#add-preset", "")
    gm.fill("#add-name", "Broken")
    gm.fill("#add-side", "foes")
    gm.fill("#add-sheet", '{"STR": 9, "wings": 2}')
    with console.allowing(r"status of 4[0-9][0-9]"):
        gm.click("#add-form button[type=submit]")
        expect(gm.locator("#sheet-error")).not_to_be_empty()
    expect(gm.locator("#add-sheet")).to_have_attribute("aria-invalid", "true")
    assert enc.board()["combatants"] == []


def test_the_gm_adds_two_combatants_and_gets_their_player_links(
    browser: Browser, ui_server: UiServer
) -> None:
    enc = Encounter.create(ui_server.base, "d20-na", NAME)
    gm = gm_console(browser, enc)
    add(gm, "Milicien", "heroes", "milicien")
    expect(gm.locator("#link-player-c1")).to_have_value(re.compile(r"#token=.+&as=c1$"))
    add(gm, "Fangeux", "foes", "fangeux")
    expect(gm.locator("#link-player-c2")).to_have_value(re.compile(r"&as=c2$"))
    expect(gm.locator("#link-spectator")).to_have_value(re.compile(r"&role=spectator$"))
    expect(gm.locator("#sides [data-cid=c1]")).to_contain_text("Milicien")
    expect(hp(gm, "c2")).to_have_text("70/70")


def test_a_player_page_sees_the_gms_actions_within_a_second(
    browser: Browser, ui_server: UiServer
) -> None:
    enc = skirmish(ui_server.base, started=False)
    gm = gm_console(browser, enc)
    player = browser.open(gm.input_value("#link-player-c1"), "player")
    expect(player.locator("#role-badge")).to_have_text("Player")
    expect(player.locator("#conn")).to_have_attribute("data-state", "connected")
    expect(player.locator("#mine [data-cid=c1]")).to_contain_text("Milicien")
    gm.click("#btn-start")
    expect(gm.locator("#round")).to_have_text("1")
    started = time.monotonic()
    expect(player.locator("#round")).to_have_text("1", timeout=1000)
    expect(player.locator("#log li.combat_started")).to_have_count(1, timeout=1000)
    assert time.monotonic() - started < 1.0
    expect(player.locator(".order li.current")).to_contain_text("Fangeux")


def test_the_player_answers_a_pending_attack_and_the_gm_sees_the_result(
    browser: Browser, ui_server: UiServer
) -> None:
    enc = skirmish(ui_server.base)
    gm, player = gm_console(browser, enc), player_page(browser, enc)
    row = gm.locator("#gm-actions li[data-action=attack]")
    expect(row.locator("button[data-act=attack]")).to_be_enabled()
    row.locator("[data-choice=aim]").select_option("head")
    gm.fill("#dice-input", "dice: 3")
    row.locator("button[data-act=attack]").click()
    expect(gm.locator("#gm-pending .react")).to_contain_text("Milicien must answer")
    expect(gm.locator("#dice-input")).to_have_value("")
    expect(player.locator("#pending")).to_contain_text("Milicien must answer")
    disabled = gm.locator("#gm-actions li.disabled").first
    expect(disabled.locator(".reason")).not_to_be_empty()
    player.locator("#mine button[data-react=dodge]").click()
    expect(gm.locator("#log li.reaction_resolved")).to_have_count(1)
    expect(gm.locator("#gm-pending")).to_contain_text("No attack is waiting")
    attack = roll_button(gm, "attacks Milicien").get_attribute("data-roll")
    answer = gm.locator("#log li.reaction_resolved").last
    dodge = answer.locator("button[data-roll]").first.get_attribute("data-roll")
    assert (int(attack), int(dodge)) == (enc.roll_seq("attack on"), enc.roll_seq("dodge"))
    declared = [e["data"] for e in enc.events() if e["type"] == "action_declared"]
    assert declared[-1]["options"]["aim"] == "head"


def test_the_gm_resolves_a_pending_attack_as_no_defense(
    browser: Browser, ui_server: UiServer
) -> None:
    gm = gm_console(browser, after_the_first_attack(ui_server.base))
    expect(gm.locator("#log li.reaction_resolved")).to_have_count(1)
    before = int(hp(gm, "c2").inner_text().split("/")[0])
    row = gm.locator("#gm-actions li[data-action=attack]")
    expect(gm.locator("#gm-actions h3")).to_contain_text("Milicien")
    gm.fill("#dice-input", "2")
    row.locator("button[data-act=attack]").click()
    react = gm.locator("#gm-pending .react[data-cid=c2]")
    expect(react).to_contain_text("Answer for Fangeux")
    react.locator("button[data-react=none]").click()
    expect(gm.locator("#log li.reaction_resolved")).to_have_count(2)
    expect(gm.locator("#log li.reaction_resolved").last).to_contain_text("does not defend")
    after = int(hp(gm, "c2").inner_text().split("/")[0])
    assert after < before


def test_a_rolls_audit_shows_its_modifiers_with_their_rule_ids(
    browser: Browser, ui_server: UiServer
) -> None:
    gm = gm_console(browser, after_the_first_attack(ui_server.base))
    roll_button(gm, "attacks Milicien").click()
    panel = gm.locator("#audit")
    expect(panel).to_be_visible()
    body = gm.locator("#audit-body")
    expect(body.locator(".mods")).to_contain_text("aim at head")
    expect(body.locator(".mods")).to_contain_text("-4")
    expect(body.locator(".mods .rule")).to_have_text("NA-25")
    expect(body.locator(".mods .rule")).to_have_attribute("href", "/rules/NA-25")
    rule_text = httpx.get(ui_server.base + "/rules/NA-25", timeout=5)
    assert rule_text.status_code == 200 and "NA-25" in rule_text.text
    expect(body).to_contain_text("Fangeux")
    expect(body.locator(".proof")).to_have_attribute("data-proof", "manual")
    gm.keyboard.press("Escape")
    expect(panel).to_be_hidden()


def test_stepping_back_in_history_shows_the_earlier_hp(
    browser: Browser, ui_server: UiServer
) -> None:
    enc = after_the_first_attack(ui_server.base)
    gm, player = gm_console(browser, enc), player_page(browser, enc)
    before = hp(player, "c1").inner_text()
    version, back = enc.board()["version"], enc.board()["step_back"]
    gm.select_option("#adj-combatant", "c1")
    gm.select_option("#adj-resource", "hp")
    gm.fill("#adj-delta", "-10")
    gm.fill("#adj-reason", "falls off the bridge")
    gm.click("#adjust-form button[type=submit]")
    now, top = before.split("/")
    after = f"{int(now) - 10}/{top}"
    expect(hp(player, "c1")).to_have_text(after)
    player.fill("#hist-version", str(version))
    player.click("#hist-form button[type=submit]")
    expect(player.locator("#hist-state")).to_have_text(f"Viewing version {version}")
    expect(hp(player, "c1")).to_have_text(before)
    expect(player.locator("#controls")).to_have_js_property("disabled", True)
    player.click("#hist-back")  # a whole step back: where "undo last step" would go
    assert back is not None and back < version
    expect(player.locator("#hist-state")).to_have_text(f"Viewing version {back}")
    player.click("#hist-live")
    expect(player.locator("#hist-state")).to_contain_text("Live")
    expect(hp(player, "c1")).to_have_text(after)


def test_the_french_toggle_changes_the_labels_and_is_remembered(
    browser: Browser, ui_server: UiServer
) -> None:
    gm = gm_console(browser, skirmish(ui_server.base))
    expect(gm.locator("#gm-actions")).to_contain_text("Melee attack")
    gm.click("#lang-toggle")
    expect(gm.locator("#role-badge")).to_have_text("Console du MJ")
    expect(gm.locator("#gm-actions")).to_contain_text("Attaque au corps-à-corps")
    expect(gm.locator("#log li.encounter_opened")).to_contain_text("ouverte")
    expect(gm.locator("html")).to_have_attribute("lang", "fr")
    gm.reload()
    expect(gm.locator("#btn-start")).to_have_text("Commencer le combat")
    gm.click("#lang-toggle")
    expect(gm.locator("#role-badge")).to_have_text("GM console")


def test_a_players_dispute_appears_on_the_gm_console(
    browser: Browser, ui_server: UiServer, shots: Path
) -> None:
    enc = after_the_first_attack(ui_server.base)
    gm, player = gm_console(browser, enc), player_page(browser, enc)
    roll_button(player, "attacks Milicien").click()
    player.fill("#dispute-reason", "the GM rolled behind the screen")
    player.click("#dispute-form button[type=submit]")
    expect(player.locator("#audit-msg")).to_have_text("Dispute recorded")
    expect(player.locator("#audit-body .disputes")).to_contain_text("behind the screen")
    player.click("#audit-close")
    item = gm.locator(f"#gm-disputes li[data-roll='{enc.roll_seq('attack on')}']")
    expect(item).to_contain_text("the GM rolled behind the screen")
    expect(item.locator(".proof")).to_have_attribute("data-proof", "manual")
    item.locator("button[data-roll]").click()
    expect(gm.locator("#audit-body .disputes")).to_contain_text("behind the screen")
    expect(gm.locator("#audit-body .mods")).to_contain_text("aim at head")
    snap(gm, shots, "audit-disputed", full_page=False)
    gm.keyboard.press("Escape")


def test_a_bare_player_link_finds_its_combatants_through_the_token(
    browser: Browser, ui_server: UiServer
) -> None:
    enc = skirmish(ui_server.base)
    link = gm_console(browser, enc).input_value("#link-player-c2")
    bare = link.split("&as=")[0]  # as `fracas demo` and the create answer print them
    page = browser.open(bare, "bare-player")
    expect(page.locator("#role-badge")).to_have_text("Player")
    expect(page.locator("#mine div.mine[data-cid=c2]")).to_contain_text("Fangeux")


def test_pages_survive_a_server_restart_without_losing_or_repeating_log_lines(
    browser: Browser, ui_server: UiServer, console: ConsoleWatch
) -> None:
    enc = after_the_first_attack(ui_server.base)
    gm, player = gm_console(browser, enc), player_page(browser, enc)
    # A kill mid-request resets what was in flight (a socket, a log page): the page must
    # say "reconnecting" and recover, which is what the test checks, not stay silent.
    with console.allowing(
        r"WebSocket connection to .* failed",
        r"ERR_CONNECTION_REFUSED",
        r"ERR_CONNECTION_RESET",
        r"ERR_EMPTY_RESPONSE",
    ):
        ui_server.kill()
        expect(player.locator("#conn")).to_have_attribute("data-state", "reconnecting")
        expect(gm.locator("#conn")).to_have_attribute("data-state", "reconnecting")
        ui_server.start()
        # A change the pages may miss while they are still reconnecting.
        r = httpx.post(
            f"{ui_server.base}/api/encounters/{enc.id}/commands",
            json={"type": "roll", "expr": "2d6", "purpose": "while reconnecting"},
            headers={"Authorization": f"Bearer {enc.gm_token}"},
        )
        assert r.status_code == 200, r.text
        expect(player.locator("#conn")).to_have_attribute("data-state", "connected")
        expect(gm.locator("#conn")).to_have_attribute("data-state", "connected")
    expect(player.locator("#log li", has_text="while reconnecting")).to_have_count(1)
    gm.fill("#roll-expr", "1d6")
    gm.fill("#roll-purpose", "after the restart")
    gm.click("#roll-form button[type=submit]")
    expect(player.locator("#log li", has_text="after the restart")).to_have_count(1)
    server_lines = [(line["version"], line["text"]) for line in enc.board()["log"]]
    shown = player.eval_on_selector_all(
        "#log li",
        "lis => lis.map(li => [Number(li.dataset.version), li.querySelector('.text').textContent])",
    )
    assert [tuple(x) for x in shown] == server_lines
    assert len(set(server_lines)) == len(server_lines)


def test_undo_reverts_the_last_step_with_a_reason(browser: Browser, ui_server: UiServer) -> None:
    enc = after_the_first_attack(ui_server.base)
    gm, player = gm_console(browser, enc), player_page(browser, enc)
    now, top = hp(player, "c2").inner_text().split("/")
    gm.select_option("#adj-combatant", "c2")
    gm.select_option("#adj-resource", "hp")
    gm.fill("#adj-delta", "-5")
    gm.fill("#adj-reason", "a stray arrow")
    gm.click("#adjust-form button[type=submit]")
    expect(hp(player, "c2")).to_have_text(f"{int(now) - 5}/{top}")
    gm.fill("#undo-reason", "the arrow missed")
    gm.click("#undo-form button[type=submit]")
    expect(hp(player, "c2")).to_have_text(f"{now}/{top}")
    expect(player.locator("#log li.undone")).to_contain_text("the arrow missed")


def test_the_last_turn_is_copied_as_bbcode_and_markdown(
    browser: Browser, ui_server: UiServer
) -> None:
    gm = gm_console(browser, after_the_first_attack(ui_server.base))
    gm.click("button[data-export=bbcode][data-scope=last]")
    out = gm.locator("#export-out")
    last_turn = rf"^\[size=150\]\[b\]{NAME}\[/b\].*\[b\]\w+'s turn\[/b\]"
    expect(out).to_have_value(re.compile(last_turn, re.S))
    expect(out).to_have_value(re.compile(r"\[url=http://[^\]]+\?roll=\d+\]#\d+\[/url\]"))
    gm.click("button[data-export=markdown][data-scope=all]")
    expect(out).to_have_value(re.compile(r"Fangeux", re.S))


def test_screenshots_of_the_board_and_the_gm_console(
    browser: Browser, ui_server: UiServer, shots: Path
) -> None:
    enc = after_the_first_attack(ui_server.base)
    gm, player = gm_console(browser, enc), player_page(browser, enc)
    spectator = browser.open(gm.input_value("#link-spectator"), "spectator")
    expect(spectator.locator("#role-badge")).to_have_text("Spectator")
    expect(spectator.locator("#conn")).to_have_attribute("data-state", "connected")
    expect(spectator.locator("#controls")).to_have_count(0)
    snap(spectator, shots, "board")
    snap(player, shots, "player")
    snap(gm, shots, "gm-console")
    # A phone opens the console folded (its sections fold as the page is built): the
    # 375 px picture is that page, not the wide one narrowed.
    phone = browser.open(enc.gm_link, "gm phone", remember=enc.remembered(), viewport=NARROW)
    expect(phone.locator("#conn")).to_have_attribute("data-state", "connected")
    expect(phone.locator("#gm-pending .react, #gm-actions li.action").first).to_be_visible()
    phone.wait_for_timeout(150)
    phone.screenshot(path=str(shots / "gm-console-375.png"), full_page=True)
    for name in ("board", "player", "gm-console"):
        assert (shots / f"{name}-375.png").stat().st_size > 10_000


def test_after_close_a_server_roll_is_verified_in_its_audit(
    browser: Browser, ui_server: UiServer, shots: Path
) -> None:
    enc = after_the_first_attack(ui_server.base)
    gm, player = gm_console(browser, enc), player_page(browser, enc)
    gm.click("#btn-close")
    gm.click("#confirm-ok")  # close asks first (no undo reverts it)
    expect(gm.locator(".status .badge.closed")).to_be_visible()
    expect(player.locator(".status .badge.closed")).to_be_visible()
    gm.locator(f"#log button[data-roll='{enc.roll_seq('dodge')}']").click()
    body = gm.locator("#audit-body")
    expect(body.locator(".proof")).to_have_attribute("data-proof", "verified")
    expect(body).to_contain_text("dodge")
    snap(gm, shots, "audit", full_page=False)
    gm.keyboard.press("Escape")


@pytest.mark.parametrize("locale", ["en-US", "fr-FR"])
def test_the_home_pages_settings_are_labelled_in_words_not_raw_keys(
    browser: Browser, locale: str
) -> None:
    """Issue 25: the settings showed `crit.success_max` as their label."""
    page = browser.open("/", "home", locale=locale)
    page.select_option("#ruleset", "d20-na")
    box = page.locator("#settings [data-setting='test.success_cmp']")
    label = box.locator("label")
    words = "A d20 test succeeds" if locale == "en-US" else "Un test au d20 réussit"
    expect(label).to_contain_text(words)
    assert "test.success_cmp" not in label.inner_text()
    expect(box.locator("small code").first).to_have_text("test.success_cmp")  # the API's key
    labels = page.locator("#settings .setting label").all_inner_texts()
    assert labels and not [t for t in labels if re.fullmatch(r"[\w.]+", t.strip())]
