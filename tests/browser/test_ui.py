"""The web UI in headless Chromium: a GM and a player at one table, end to end.

The tests run in order on one encounter (a d20-na skirmish): each step builds on the
previous one, as a session at the table does.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

pytestmark = pytest.mark.browser

WIDE = {"width": 1280, "height": 860}
NARROW = {"width": 375, "height": 740}


@dataclass
class Table:
    """The pages and facts the steps share."""

    base: str
    gm: Any
    player: Any = None
    spectator: Any = None
    encounter: str = ""
    gm_token: str = ""
    attack_roll: int = 0
    dodge_roll: int = 0
    open: Any = None  # opens a new page in a fresh browser context


@pytest.fixture(scope="module")
def table(browser: Any, ui_server: Any, console: Any) -> Iterator[Table]:
    from playwright.sync_api import expect

    expect.set_options(timeout=5000)
    contexts = []

    def page(name: str) -> Any:
        ctx = browser.new_context(viewport=WIDE, locale="en-US")
        contexts.append(ctx)
        p = ctx.new_page()
        console.watch(p, name)
        return p

    t = Table(base=ui_server.base, gm=page("gm"), open=page)
    yield t
    for ctx in contexts:
        ctx.close()


def expect(locator: Any) -> Any:
    from playwright.sync_api import expect as pw_expect

    return pw_expect(locator)


def board(t: Table, token: str | None = None) -> dict[str, Any]:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    r = httpx.get(f"{t.base}/api/encounters/{t.encounter}", headers=headers, timeout=5)
    r.raise_for_status()
    out: dict[str, Any] = r.json()
    return out


def add(gm: Any, name: str, side: str, preset: str) -> None:
    gm.select_option("#add-preset", preset)
    gm.fill("#add-name", name)
    gm.fill("#add-side", side)
    gm.click("#add-form button[type=submit]")


def hp(page: Any, cid: str) -> Any:
    return page.locator(f"#sides [data-cid={cid}] [data-res=hp] .res-val")


def roll_button(page: Any, text: str) -> Any:
    return page.locator("#log li", has_text=text).last.locator("button[data-roll]").first


def snap(page: Any, shots: Path, name: str, full_page: bool = True) -> None:
    """The page at 1280 px and at 375 px wide (a panel: the viewport, made tall)."""
    for label, size in (("1280", WIDE), ("375", NARROW)):
        page.set_viewport_size(size if full_page else {**size, "height": 1100})
        page.wait_for_timeout(150)
        page.screenshot(path=str(shots / f"{name}-{label}.png"), full_page=full_page)
    page.set_viewport_size(WIDE)


def test_a_gm_creates_an_encounter_from_the_home_page(table: Table) -> None:
    gm = table.gm
    gm.goto(table.base + "/")
    gm.select_option("#ruleset", "d20-na")
    expect(gm.locator("#settings [data-key='defense.max_per_type']")).to_have_value("3")
    gm.fill("#enc-name", "Ambush at the bridge")
    gm.click("#create")
    gm.wait_for_url(re.compile(r"/e/[0-9a-f-]{36}#token=.+&role=gm$"))
    expect(gm.locator("#role-badge")).to_have_text("GM console")
    expect(gm.locator("#conn")).to_have_attribute("data-state", "connected")
    expect(gm.locator(".enc-name")).to_contain_text("Ambush at the bridge")
    table.encounter = gm.url.split("/e/")[1].split("#")[0]
    table.gm_token = gm.url.split("token=")[1].split("&")[0]
    stored = gm.evaluate(f"localStorage.getItem('fracas:enc:{table.encounter}')")
    assert table.gm_token in stored


def test_a_refused_sheet_shows_the_servers_message_beside_the_field(
    table: Table, console: Any
) -> None:
    gm = table.gm
    gm.select_option("#add-preset", "")
    gm.fill("#add-name", "Broken")
    gm.fill("#add-side", "foes")
    gm.fill("#add-sheet", '{"STR": 9, "wings": 2}')
    with console.allowing(r"status of 4[0-9][0-9]"):
        gm.click("#add-form button[type=submit]")
        expect(gm.locator("#sheet-error")).not_to_be_empty()
    expect(gm.locator("#add-sheet")).to_have_attribute("aria-invalid", "true")
    assert board(table)["combatants"] == []


def test_the_gm_adds_two_combatants_and_gets_their_player_links(table: Table) -> None:
    gm = table.gm
    add(gm, "Milicien", "heroes", "milicien")
    expect(gm.locator("#link-player-c1")).to_have_value(re.compile(r"#token=.+&as=c1$"))
    add(gm, "Fangeux", "foes", "fangeux")
    expect(gm.locator("#link-player-c2")).to_have_value(re.compile(r"&as=c2$"))
    expect(gm.locator("#link-spectator")).to_have_value(re.compile(r"&role=spectator$"))
    expect(gm.locator("#sides [data-cid=c1]")).to_contain_text("Milicien")
    expect(hp(gm, "c2")).to_have_text("70/70")


def test_a_player_page_sees_the_gms_actions_within_a_second(table: Table) -> None:
    player = table.open("player")
    player.goto(table.gm.input_value("#link-player-c1"))
    expect(player.locator("#role-badge")).to_have_text("Player")
    expect(player.locator("#conn")).to_have_attribute("data-state", "connected")
    expect(player.locator("#mine [data-cid=c1]")).to_contain_text("Milicien")
    table.player = player
    table.gm.click("#btn-start")
    expect(table.gm.locator("#round")).to_have_text("1")
    started = time.monotonic()
    expect(player.locator("#round")).to_have_text("1", timeout=1000)
    expect(player.locator("#log li.combat_started")).to_have_count(1, timeout=1000)
    assert time.monotonic() - started < 1.0
    expect(player.locator(".order li.current")).to_contain_text("Fangeux")


def test_the_player_answers_a_pending_attack_and_the_gm_sees_the_result(table: Table) -> None:
    gm, player = table.gm, table.player
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
    table.attack_roll = int(roll_button(gm, "attacks Milicien").get_attribute("data-roll"))
    answer = gm.locator("#log li.reaction_resolved").last
    table.dodge_roll = int(answer.locator("button[data-roll]").first.get_attribute("data-roll"))


def test_the_gm_resolves_a_pending_attack_as_no_defense(table: Table) -> None:
    gm = table.gm
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


def test_a_rolls_audit_shows_its_modifiers_with_their_rule_ids(table: Table) -> None:
    gm = table.gm
    roll_button(gm, "attacks Milicien").click()
    panel = gm.locator("#audit")
    expect(panel).to_be_visible()
    body = gm.locator("#audit-body")
    expect(body.locator(".mods")).to_contain_text("aim at head")
    expect(body.locator(".mods")).to_contain_text("-4")
    expect(body.locator(".mods .rule")).to_have_text("NA-25")
    expect(body.locator(".mods .rule")).to_have_attribute("href", "/rules/NA-25")
    rule_text = httpx.get(table.base + "/rules/NA-25", timeout=5)
    assert rule_text.status_code == 200 and "NA-25" in rule_text.text
    expect(body).to_contain_text("Fangeux")
    expect(body.locator(".proof")).to_have_attribute("data-proof", "manual")
    gm.keyboard.press("Escape")
    expect(panel).to_be_hidden()


def test_stepping_back_in_history_shows_the_earlier_hp(table: Table) -> None:
    gm, player = table.gm, table.player
    before = hp(player, "c1").inner_text()
    version = board(table)["version"]
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
    player.click("#hist-back")
    expect(player.locator("#hist-state")).to_have_text(f"Viewing version {version - 1}")
    player.click("#hist-live")
    expect(player.locator("#hist-state")).to_contain_text("Live")
    expect(hp(player, "c1")).to_have_text(after)


def test_the_french_toggle_changes_the_labels_and_is_remembered(table: Table) -> None:
    gm = table.gm
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


def test_a_players_dispute_appears_on_the_gm_console(table: Table, shots: Path) -> None:
    gm, player = table.gm, table.player
    roll_button(player, "attacks Milicien").click()
    player.fill("#dispute-reason", "the GM rolled behind the screen")
    player.click("#dispute-form button[type=submit]")
    expect(player.locator("#audit-msg")).to_have_text("Dispute recorded")
    expect(player.locator("#audit-body .disputes")).to_contain_text("behind the screen")
    player.click("#audit-close")
    item = gm.locator(f"#gm-disputes li[data-roll='{table.attack_roll}']")
    expect(item).to_contain_text("the GM rolled behind the screen")
    expect(item.locator(".proof")).to_have_attribute("data-proof", "manual")
    item.locator("button[data-roll]").click()
    expect(gm.locator("#audit-body .disputes")).to_contain_text("behind the screen")
    expect(gm.locator("#audit-body .mods")).to_contain_text("aim at head")
    snap(gm, shots, "audit-disputed", full_page=False)
    gm.keyboard.press("Escape")


def test_a_bare_player_link_finds_its_combatants_through_the_token(table: Table) -> None:
    link = table.gm.input_value("#link-player-c2")
    bare = link.split("&as=")[0]  # as `fracas demo` and the create answer print them
    page = table.open("bare-player")
    page.goto(bare)
    expect(page.locator("#role-badge")).to_have_text("Player")
    expect(page.locator("#mine div.mine[data-cid=c2]")).to_contain_text("Fangeux")
    page.context.close()


def test_pages_survive_a_server_restart_without_losing_or_repeating_log_lines(
    table: Table, ui_server: Any, console: Any
) -> None:
    gm, player = table.gm, table.player
    with console.allowing(r"WebSocket connection to .* failed", r"ERR_CONNECTION_REFUSED"):
        ui_server.kill()
        expect(player.locator("#conn")).to_have_attribute("data-state", "reconnecting")
        expect(gm.locator("#conn")).to_have_attribute("data-state", "reconnecting")
        ui_server.start()
        # A change the pages may miss while they are still reconnecting.
        r = httpx.post(
            f"{table.base}/api/encounters/{table.encounter}/commands",
            json={"type": "roll", "expr": "2d6", "purpose": "while reconnecting"},
            headers={"Authorization": f"Bearer {table.gm_token}"},
        )
        assert r.status_code == 200, r.text
        expect(player.locator("#conn")).to_have_attribute("data-state", "connected")
        expect(gm.locator("#conn")).to_have_attribute("data-state", "connected")
    expect(player.locator("#log li", has_text="while reconnecting")).to_have_count(1)
    gm.fill("#roll-expr", "1d6")
    gm.fill("#roll-purpose", "after the restart")
    gm.click("#roll-form button[type=submit]")
    expect(player.locator("#log li", has_text="after the restart")).to_have_count(1)
    server_lines = [(line["version"], line["text"]) for line in board(table)["log"]]
    shown = player.eval_on_selector_all(
        "#log li",
        "lis => lis.map(li => [Number(li.dataset.version), li.querySelector('.text').textContent])",
    )
    assert [tuple(x) for x in shown] == server_lines
    assert len(set(server_lines)) == len(server_lines)


def test_undo_reverts_the_last_step_with_a_reason(table: Table) -> None:
    gm, player = table.gm, table.player
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


def test_the_last_turn_is_copied_as_bbcode_and_markdown(table: Table) -> None:
    gm = table.gm
    gm.click("button[data-export=bbcode][data-scope=last]")
    out = gm.locator("#export-out")
    last_turn = r"^\[size=150\]\[b\]Ambush at the bridge\[/b\].*\[b\]\w+'s turn\[/b\]"
    expect(out).to_have_value(re.compile(last_turn, re.S))
    expect(out).to_have_value(re.compile(r"\[url=http://[^\]]+\?roll=\d+\]#\d+\[/url\]"))
    gm.click("button[data-export=markdown][data-scope=all]")
    expect(out).to_have_value(re.compile(r"Fangeux", re.S))


def test_screenshots_of_the_board_and_the_gm_console(table: Table, shots: Path) -> None:
    spectator = table.open("spectator")
    spectator.goto(table.gm.input_value("#link-spectator"))
    expect(spectator.locator("#role-badge")).to_have_text("Spectator")
    expect(spectator.locator("#conn")).to_have_attribute("data-state", "connected")
    expect(spectator.locator("#controls")).to_have_count(0)
    snap(spectator, shots, "board")
    snap(table.player, shots, "player")
    snap(table.gm, shots, "gm-console")
    for name in ("board", "player", "gm-console"):
        assert (shots / f"{name}-375.png").stat().st_size > 10_000


def test_after_close_a_server_roll_is_verified_in_its_audit(table: Table, shots: Path) -> None:
    gm = table.gm
    gm.click("#btn-close")
    expect(gm.locator(".status .badge.closed")).to_be_visible()
    expect(table.player.locator(".status .badge.closed")).to_be_visible()
    gm.locator(f"#log button[data-roll='{table.dodge_roll}']").click()
    body = gm.locator("#audit-body")
    expect(body.locator(".proof")).to_have_attribute("data-proof", "verified")
    expect(body).to_contain_text("dodge")
    snap(gm, shots, "audit", full_page=False)
    gm.keyboard.press("Escape")


def test_no_console_errors_in_any_page(console: Any) -> None:
    assert console.errors == []
