"""The players' side of the table in headless Chromium: alerts, links, player dice.

Each test makes its own encounter over HTTP and opens its own browser contexts.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest

pytestmark = pytest.mark.browser

# Records every notification the page makes; the context grants the permission.
FAKE_NOTIFICATION = """
window.__notes = [];
window.Notification = class {
  constructor(title, options) { window.__notes.push({ title, body: (options || {}).body || "" }); }
  static get permission() { return "granted"; }
  static requestPermission() { return Promise.resolve("granted"); }
};
"""


def expect(locator: Any) -> Any:
    from playwright.sync_api import expect as pw_expect

    return pw_expect(locator)


class Table:
    """One encounter made over HTTP: Guard (c1, the GM's NPC) and Bandit (c2, Alice's)."""

    def __init__(self, base: str) -> None:
        self.base = base
        self.http = httpx.Client(base_url=base, timeout=10)
        made = self.http.post("/api/encounters", json={"ruleset": "plain-d100", "name": "Ambush"})
        made.raise_for_status()
        self.id, self.gm = made.json()["id"], made.json()["gm_token"]
        self.send({"type": "add_combatant", "name": "Guard", "side": "watch", "preset": "guard"})
        bandit = self.send(
            {
                "type": "add_combatant",
                "name": "Bandit",
                "side": "outlaws",
                "preset": "bandit",
                "controller": "alice",
            }
        )
        self.alice = bandit["player_token"]

    def send(self, body: dict[str, Any], token: str | None = None) -> Any:
        r = self.http.post(
            f"/api/encounters/{self.id}/commands",
            json=body,
            headers={"Authorization": f"Bearer {token or self.gm}"},
        )
        assert r.status_code == 200, r.text
        return r.json()

    def tokens(self) -> list[dict[str, Any]]:
        r = self.http.get(
            f"/api/encounters/{self.id}/tokens", headers={"Authorization": f"Bearer {self.gm}"}
        )
        r.raise_for_status()
        out: list[dict[str, Any]] = r.json()["tokens"]
        return out

    @property
    def player_url(self) -> str:
        return f"{self.base}/e/{self.id}#token={self.alice}"

    @property
    def gm_url(self) -> str:
        return f"{self.base}/e/{self.id}#token={self.gm}&role=gm"


@pytest.fixture
def table(ui_server: Any) -> Iterator[Table]:
    t = Table(ui_server.base)
    yield t
    t.http.close()


@pytest.fixture
def open_page(browser: Any, console: Any) -> Iterator[Callable[..., Any]]:
    from playwright.sync_api import expect as pw_expect

    pw_expect.set_options(timeout=5000)
    contexts: list[Any] = []

    def page(url: str, name: str, locale: str = "en-US", notifications: bool = False) -> Any:
        ctx = browser.new_context(locale=locale, viewport={"width": 1280, "height": 860})
        if notifications:
            ctx.grant_permissions(["notifications"])
            ctx.add_init_script(FAKE_NOTIFICATION)
        contexts.append(ctx)
        p = ctx.new_page()
        console.watch(p, name)
        p.goto(url)
        return p

    yield page
    for ctx in contexts:
        ctx.close()


def test_a_players_title_marks_their_turn_and_an_attack_and_clears_after(
    table: Table, open_page: Callable[..., Any]
) -> None:
    player = open_page(table.player_url, "player", notifications=True)
    expect(player.locator("#mine [data-cid=c2]")).to_be_visible()
    expect(player).to_have_title("Ambush · Fracas")
    player.click("#notify-btn")  # nothing is asked before the player allows it here
    expect(player.locator("#notify-btn")).to_have_attribute("data-state", "on")

    table.send({"type": "start_combat", "dice": [20, 50]})  # Bandit acts first
    expect(player).to_have_title("(!) Your turn - Fracas")
    notes = player.evaluate("window.__notes")
    assert len(notes) == 1 and "Bandit" in notes[0]["body"], notes

    table.send({"type": "end_turn", "actor": "c2"}, table.alice)  # Guard's turn now
    expect(player).to_have_title("Ambush · Fracas")
    attack = {"type": "act", "actor": "c1", "action": "attack", "target": "c2", "dice": [10]}
    table.send(attack)
    expect(player).to_have_title("(!) Attack: defend - Fracas")
    assert len(player.evaluate("window.__notes")) == 2

    table.send({"type": "react", "actor": "c2", "reaction": "none"}, table.alice)
    expect(player).to_have_title("Ambush · Fracas")


def test_the_gm_is_alerted_for_an_npcs_turn_and_a_new_dispute(
    table: Table, open_page: Callable[..., Any]
) -> None:
    gm = open_page(table.gm_url, "gm")
    expect(gm.locator("#share")).to_be_visible()
    table.send({"type": "start_combat", "dice": [20, 50]})  # Bandit (Alice's): no alert
    expect(gm.locator("#gm-actions h3")).to_contain_text("Bandit")
    expect(gm).to_have_title("Ambush · Fracas")
    table.send({"type": "roll", "expr": "1d6", "purpose": "luck"}, table.alice)
    table.send({"type": "end_turn", "actor": "c2"}, table.alice)  # Guard: the GM's NPC
    expect(gm).to_have_title("(!) Your turn - Fracas")
    table.send({"type": "end_turn", "actor": "c1"})
    expect(gm).to_have_title("Ambush · Fracas")
    table.send({"type": "dispute", "roll": 1, "reason": "odd"}, table.alice)
    expect(gm).to_have_title("(!) New dispute - Fracas")
    gm.click("#gm-disputes")  # the GM looks: the mark goes
    expect(gm).to_have_title("Ambush · Fracas")


def test_a_french_page_says_its_alert_in_french(
    table: Table, open_page: Callable[..., Any]
) -> None:
    player = open_page(table.player_url, "player-fr", locale="fr-FR")
    expect(player.locator("#mine-title")).to_have_text("Vos combattants")
    table.send({"type": "start_combat", "dice": [20, 50]})
    expect(player).to_have_title("(!) À vous - Fracas")
    expect(player.locator("#sound-toggle")).to_have_text("Son : coupé")


def test_a_player_adds_entropy_rolls_a_free_die_and_the_gm_sees_it(
    table: Table, open_page: Callable[..., Any]
) -> None:
    gm = open_page(table.gm_url, "gm")
    player = open_page(table.player_url, "player")
    expect(player.locator("#entropy-form")).to_be_visible()
    player.click("#entropy-btn")
    expect(player.locator("#entropy-msg")).to_have_text("Entropy added")
    expect(gm.locator("#log")).to_contain_text("mixes entropy into the dice")
    player.fill("#proll-expr", "2d6")
    player.fill("#proll-purpose", "searching the cart")
    player.click("#proll-form button[type=submit]")
    expect(gm.locator("#log li.die_rolled", has_text="searching the cart")).to_be_visible()
    expect(player.locator("#entropy-form")).to_be_hidden()  # the dice are drawn now
    rolled = [
        e for e in table.send({"type": "roll", "expr": "1d4", "purpose": "x"})["events"]
    ]  # the entropy went into every roll's client seed
    assert rolled[0]["data"]["client_seed"] != ""


def test_a_revoked_links_page_says_access_revoked(
    table: Table, open_page: Callable[..., Any], console: Any
) -> None:
    player = open_page(table.player_url, "player")
    expect(player.locator("#conn")).to_have_attribute("data-state", "connected")
    alice = next(t for t in table.tokens() if t["combatants"] == ["c2"])
    r = table.http.delete(
        f"/api/encounters/{table.id}/tokens/{alice['id']}",
        headers={"Authorization": f"Bearer {table.gm}"},
    )
    assert r.status_code == 200
    with console.allowing(r"401", r"WebSocket"):
        expect(player.locator("#conn")).to_have_text("access revoked")
        expect(player.locator("#proll-form button[type=submit]")).to_be_disabled()
        player.reload()
        expect(player.locator("#revoked")).to_contain_text("Access revoked")


def test_the_share_card_lists_a_combatant_added_by_another_client_and_manages_its_links(
    table: Table, open_page: Callable[..., Any]
) -> None:
    gm = open_page(table.gm_url, "gm")
    expect(gm.locator("#share li[data-cid=c2]")).to_be_visible()
    table.send({"type": "add_combatant", "name": "Wolf", "side": "wild", "preset": "bandit"})
    row = gm.locator("#share li[data-cid=c3]")
    expect(row).to_contain_text("Wolf")
    expect(row.locator("[data-links]")).to_have_attribute("data-links", "1")
    row.locator("button[data-link-copy]").click()  # this browser holds none: a new one
    expect(gm.locator("#link-player-c3")).to_have_value(re.compile(r"#token=.+&as=c3$"))
    expect(row.locator("[data-links]")).to_have_attribute("data-links", "2")
    link = gm.input_value("#link-player-c3")
    row.locator("button[data-link-revoke]").click()
    expect(row.locator("[data-links]")).to_have_attribute("data-links", "0")
    assert not [t for t in table.tokens() if t["combatants"] == ["c3"]]
    token = link.split("#token=")[1].split("&")[0]
    me = table.http.get(
        f"/api/encounters/{table.id}/me", headers={"Authorization": f"Bearer {token}"}
    )
    assert me.status_code == 401


def test_the_home_page_carries_this_browsers_encounters_to_another_device(
    table: Table, open_page: Callable[..., Any]
) -> None:
    gm = open_page(table.gm_url, "gm")
    expect(gm.locator("#share")).to_be_visible()
    gm.goto(table.base + "/")
    gm.click("#carry-link")
    link = gm.input_value("#carry-out")
    assert "#import=" in link
    other = open_page(link, "other device")
    expect(other.locator("#carry-msg")).to_contain_text("Imported: ")
    expect(other.locator(f"#mine-title + ul a[href*='{table.id}']")).to_have_text("Ambush")


def test_no_console_errors_in_any_page(console: Any) -> None:
    assert console.errors == []


def test_after_close_the_players_page_turns_its_forms_off_and_says_closed(
    table: Table, open_page: Callable[..., Any]
) -> None:
    table.send({"type": "start_combat", "dice": [20, 50]})  # Bandit (c2, Alice's) first
    player = open_page(table.player_url, "player")
    expect(player.locator("#mine li.action button").first).to_be_enabled()
    table.send({"type": "close"})
    mine = player.locator("#mine div.mine[data-cid=c2]")
    expect(mine).to_have_attribute("data-closed", "")
    expect(mine).to_contain_text("The encounter is closed: nothing more is played.")
    expect(player.locator("#mine button")).to_have_count(0)
    expect(player.locator("#proll-form button[type=submit]")).to_be_disabled()
    expect(player.locator("#entropy-form")).to_be_hidden()


def test_a_resource_of_zero_out_of_zero_draws_an_empty_bar(
    ui_server: Any, open_page: Callable[..., Any]
) -> None:
    with httpx.Client(base_url=ui_server.base, timeout=10) as http:
        made = http.post("/api/encounters", json={"ruleset": "d100-tcs", "name": "Bars"}).json()
        body = {"type": "add_combatant", "name": "Archer", "side": "a", "preset": "archer"}
        r = http.post(f"/api/encounters/{made['id']}/commands", json=body,
                      headers={"Authorization": f"Bearer {made['gm_token']}"})  # fmt: skip
        assert r.status_code == 200, r.text
    page = open_page(f"{ui_server.base}/e/{made['id']}", "spectator")
    energy = page.locator("#sides [data-res=energy] .res-bar > span")
    expect(energy).to_have_attribute("style", "width:0%")  # 0/0: nothing in it
    hp = page.locator("#sides [data-res=hp] .res-bar > span")
    expect(hp).to_have_attribute("style", "width:100%")  # 18/18
