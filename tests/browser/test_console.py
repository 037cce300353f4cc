"""The GM's console in headless Chromium: conditions, card tools, the initiative by hand,
undo from the history, the decided and the closed fight, disputes, and the phone layout.

Every test opens its own encounter over HTTP (plain-d100 unless it says otherwise) and
its own browser context: nothing is shared between tests but the server.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.browser.test_ui import NARROW, WIDE, expect

pytestmark = pytest.mark.browser


@dataclass
class Fight:
    """One encounter, its GM token, and an HTTP client speaking as the GM."""

    base: str
    eid: str
    gm: str
    http: httpx.Client
    players: dict[str, str] = field(default_factory=dict)

    def send(self, body: dict[str, Any], token: str | None = None) -> dict[str, Any]:
        r = self.http.post(
            f"/api/encounters/{self.eid}/commands",
            json=body,
            headers={"Authorization": f"Bearer {token or self.gm}"},
        )
        assert r.status_code == 200, r.text
        out: dict[str, Any] = r.json()
        return out

    def board(self, token: str | None = None) -> dict[str, Any]:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        r = self.http.get(f"/api/encounters/{self.eid}", headers=headers)
        r.raise_for_status()
        out: dict[str, Any] = r.json()
        return out

    def add(self, name: str, side: str, preset: str, **more: Any) -> str:
        answer = self.send({"type": "add_combatant", "name": name, "side": side,
                            "preset": preset, **more})  # fmt: skip
        cid = str(answer["events"][0]["data"]["combatant_id"])
        if answer.get("player_token"):
            self.players[cid] = answer["player_token"]
        return cid

    @property
    def gm_url(self) -> str:
        return f"{self.base}/e/{self.eid}#token={self.gm}&role=gm"


@pytest.fixture
def fight(ui_server: Any) -> Iterator[Fight]:
    """A fresh plain-d100 encounter: Guard (c1, watch) and Bandit (c2, outlaws)."""
    with httpx.Client(base_url=ui_server.base, timeout=10) as http:
        made = http.post("/api/encounters", json={"ruleset": "plain-d100", "name": "Alley"})
        assert made.status_code == 201, made.text
        f = Fight(ui_server.base, made.json()["id"], made.json()["gm_token"], http)
        f.add("Guard", "watch", "guard")
        f.add("Bandit", "outlaws", "bandit")
        yield f


@pytest.fixture
def page(browser: Any, console: Any, request: pytest.FixtureRequest) -> Iterator[Any]:
    from playwright.sync_api import expect as pw_expect

    pw_expect.set_options(timeout=5000)
    ctx = browser.new_context(viewport=WIDE, locale="en-US")
    p = ctx.new_page()
    console.watch(p, request.node.name)
    yield p
    ctx.close()
    assert console.errors == []


def open_console(page: Any, fight: Fight) -> None:
    page.goto(fight.gm_url)
    expect(page.locator("#conn")).to_have_attribute("data-state", "connected")
    expect(page.locator("#cond-form")).to_be_visible()


def card(page: Any, cid: str) -> Any:
    return page.locator(f"#sides li.fighter[data-cid={cid}]")


def rolls_of(board: dict[str, Any]) -> list[int]:
    """The roll numbers the log shows: a free roll's own, and those a step took."""
    out: list[int] = []
    for line in board["log"]:
        out += [line["roll"]] if line.get("roll") else list(line.get("rolls") or [])
    return out


def test_a_condition_applied_from_the_console_expires_on_the_bearers_turn(
    page: Any, fight: Fight
) -> None:
    fight.send({"type": "start_combat", "dice": [50, 20]})  # Guard (c1) first
    open_console(page, fight)
    page.select_option("#cond-combatant", "c2")
    page.fill("#cond-name", "stunned")
    page.fill("#cond-rounds", "1")
    page.select_option("#cond-until", "end_of_turn")
    page.fill("#cond-mod", "-20")
    page.click("#cond-form button[type=submit]")
    chip = card(page, "c2").locator(".chip.cond[data-cond=stunned]")
    expect(chip).to_contain_text("1 left")
    expect(chip).to_contain_text("-20")
    page.click("#gm-actions button[data-end=c1]")  # the Guard's turn ends: not the bearer's
    expect(page.locator(".actor-now")).to_contain_text("Bandit")
    expect(chip).to_have_count(1)
    page.click("#gm-actions button[data-end=c2]")  # the bearer's turn ends: it wears off
    expect(page.locator(".actor-now")).to_contain_text("Guard")
    expect(chip).to_have_count(0)
    expect(page.locator("#log li.condition_expired")).to_contain_text("stunned wears off")


def test_the_gm_removes_a_combatant_from_its_card(page: Any, fight: Fight) -> None:
    fight.add("Thug", "outlaws", "bandit")
    open_console(page, fight)
    expect(card(page, "c3")).to_have_count(1)
    card(page, "c3").locator("button[data-remove=c3]").click()
    page.click("#confirm-ok")
    expect(card(page, "c3")).to_have_count(0)
    assert [c["id"] for c in fight.board()["combatants"]] == ["c1", "c2"]


def test_remove_asks_first_and_cancel_keeps_the_combatant(page: Any, fight: Fight) -> None:
    fight.add("Thug", "outlaws", "bandit")
    fight.send({"type": "start_combat", "dice": [50, 20, 10]})
    open_console(page, fight)
    version = fight.board()["version"]
    card(page, "c3").locator("button[data-remove=c3]").click()
    dialog = page.get_by_role("dialog", name="Remove Thug?")
    expect(dialog).to_be_visible()
    expect(dialog).to_contain_text("Thug leaves the fight now")
    assert page.evaluate("document.activeElement.id") == "confirm-cancel"  # the safe choice
    page.keyboard.press("Escape")
    expect(dialog).to_have_count(0)
    expect(card(page, "c3")).to_have_count(1)
    assert fight.board()["version"] == version  # nothing sent


def test_close_asks_first_says_what_close_does_and_cancel_changes_nothing(
    page: Any, fight: Fight
) -> None:
    fight.send({"type": "start_combat"})
    open_console(page, fight)
    version = fight.board()["version"]
    page.click("#btn-close")
    dialog = page.get_by_role("dialog", name="Close the encounter and reveal the dice?")
    expect(dialog).to_be_visible()
    expect(dialog).to_contain_text("No undo can revert a close.")
    page.click("#confirm-cancel")
    expect(dialog).to_have_count(0)
    assert fight.board()["version"] == version and not fight.board()["encounter"]["closed"]
    page.click("#btn-close")
    page.click("#confirm-ok")
    expect(page.locator("#gm-closed")).to_contain_text("Closed · dice revealed")
    assert fight.board()["encounter"]["closed"]


def test_hp_hidden_at_add_time_is_not_in_the_players_view(
    page: Any, fight: Fight, browser: Any
) -> None:
    open_console(page, fight)
    page.select_option("#add-preset", "bandit")
    page.fill("#add-name", "Shade")
    page.fill("#add-side", "outlaws")
    page.check("#add-hidden input[data-hide=hp]")
    page.click("#add-form button[type=submit]")
    expect(card(page, "c3").locator("[data-res=hp] .res-val")).to_have_text("24/24")
    public = next(c for c in fight.board()["combatants"] if c["id"] == "c3")
    assert public["resources"] == {"hp": None} and public["hidden"] == ["hp"]
    player_token = fight.players[fight.add("Ayla", "watch", "guard")]
    ctx = browser.new_context(viewport=WIDE, locale="en-US")
    player = ctx.new_page()
    player.goto(f"{fight.base}/e/{fight.eid}#token={player_token}&as=c4")
    expect(player.locator("#sides li[data-cid=c3] [data-res=hp] .res-val")).to_have_text("hidden")
    assert "24" not in player.locator("#sides li[data-cid=c3]").inner_text()
    ctx.close()


def test_quick_minus_five_on_a_card(page: Any, fight: Fight) -> None:
    open_console(page, fight)
    card(page, "c1").locator("button[data-quick='-5']").click()
    expect(card(page, "c1").locator("[data-res=hp] .res-val")).to_have_text("25/30")
    changed = [ln for ln in fight.board(fight.gm)["log"] if ln["kind"] == "resource_changed"]
    assert "Guard's HP: 30 -> 25" in changed[-1]["text"]
    # "custom" with an empty field says so and sends nothing
    version = fight.board()["version"]
    card(page, "c1").locator("button[data-quick=custom]").click()
    expect(card(page, "c1").locator("[data-card-msg]")).to_contain_text("Enter a change")
    assert fight.board()["version"] == version


def test_the_gm_reorders_the_initiative_by_hand(page: Any, fight: Fight) -> None:
    fight.add("Thug", "outlaws", "bandit")
    fight.send({"type": "roll_initiative", "dice": [90, 50, 10]})
    open_console(page, fight)
    assert [o["id"] for o in fight.board()["order"]] == ["c1", "c2", "c3"]
    page.click("#gm-order button[data-oid=c1][data-move='1']")
    expect(page.locator("#gm-order li").first).to_contain_text("Bandit")
    assert [o["id"] for o in fight.board()["order"]] == ["c2", "c1", "c3"]
    # the keyboard stays in the panel
    assert page.evaluate("document.activeElement.closest('#controls') !== null")
    expect(page.locator("#btn-init")).to_be_enabled()
    page.click("#btn-start")
    expect(page.locator(".actor-now")).to_contain_text("Bandit")
    expect(page.locator("#btn-init")).to_be_disabled()
    expect(page.locator("#turn-why")).to_contain_text("combat has started")


def test_undo_to_a_past_version_from_the_history_strikes_the_undone_lines(
    page: Any, fight: Fight
) -> None:
    fight.send({"type": "start_combat", "dice": [50, 20]})
    back_to = fight.board()["version"]
    for _ in range(2):
        fight.send({"type": "adjust", "combatant": "c2", "resource": "hp", "delta": -5,
                    "reason": "arrows"})  # fmt: skip
    open_console(page, fight)
    expect(card(page, "c2").locator("[data-res=hp] .res-val")).to_have_text("14/24")
    page.fill("#hist-version", str(back_to))
    page.click("#hist-form button[type=submit]")
    expect(page.locator("#hist-undo")).to_have_text(f"Undo back to version {back_to}")
    page.click("#hist-undo")
    expect(page.locator("#hist-state")).to_contain_text("Live")
    expect(card(page, "c2").locator("[data-res=hp] .res-val")).to_have_text("24/24")
    struck = page.locator("#log li.reverted")
    expect(struck).to_have_count(2)
    expect(struck.first).to_contain_text("arrows")


def test_a_closed_encounter_disables_every_control_and_shows_one_verified_banner(
    page: Any, fight: Fight
) -> None:
    fight.send({"type": "start_combat"})  # two server rolls of initiative
    open_console(page, fight)
    page.click("#btn-close")
    page.click("#confirm-ok")
    banner = page.locator("#gm-closed")
    expect(banner).to_contain_text("Closed · dice revealed")
    expect(banner.locator("[data-proof]")).to_have_attribute("data-proof", "verified")
    expect(banner).to_contain_text("verified: chain and 2 rolls check out")
    href = banner.locator("#audit-bundle").get_attribute("href")
    assert href == f"/api/encounters/{fight.eid}/export?format=json"
    bundle = fight.http.get(href).json()  # public once closed
    assert bundle["format"] == "fracas-audit/2"
    expect(page.locator(".closed-banner")).to_have_count(1)
    controls = "#controls button, #controls input, #controls select, #controls textarea"
    enabled = page.evaluate(
        f"""[...document.querySelectorAll('{controls}, #sides .gm-tools button')]
           .filter((el) => !el.disabled && !el.closest('#gm-disputes')).map((el) => el.outerHTML)"""
    )
    assert enabled == []


def test_a_fight_with_one_side_left_offers_close_or_continue(page: Any, fight: Fight) -> None:
    fight.send({"type": "start_combat", "dice": [50, 20]})
    fight.send({"type": "adjust", "combatant": "c2", "resource": "hp", "delta": -24,
                "reason": "rock"})  # fmt: skip
    fight.send({"type": "end_turn", "actor": "c1"})
    assert fight.board()["decided"] is True and fight.board()["actor"] is None
    open_console(page, fight)
    decision = page.locator("#gm-decision .decision")
    expect(decision).to_contain_text("Only watch is left standing.")
    expect(decision.locator("button[data-decide=close]")).to_be_visible()
    decision.locator("button[data-decide=continue]").click()
    expect(page.locator("#gm-decision .decision")).to_have_count(0)
    expect(page.locator(".actor-now")).to_contain_text("Guard")


def test_a_dispute_shows_in_the_header_with_the_combatants_name_and_the_gm_answers(
    page: Any, fight: Fight
) -> None:
    fight.add("Ayla", "outlaws", "bandit", controller="ayla")
    fight.send({"type": "start_combat", "dice": [50, 20, 10]})
    fight.send({"type": "act", "actor": "c1", "action": "attack", "target": "c3"})
    rolls = rolls_of(fight.board())
    fight.send({"type": "dispute", "roll": rolls[-1], "reason": "that was a 12"},
               token=fight.players["c3"])  # fmt: skip
    open_console(page, fight)
    badge = page.locator("#dispute-count")
    expect(badge).to_have_text("⚑ 1 open dispute(s)")
    item = page.locator(f"#gm-disputes li[data-roll='{rolls[-1]}']")
    expect(item).to_contain_text("disputed by Ayla: that was a 12")
    expect(item.locator(".dispute-detail")).to_contain_text("Guard")  # the roll's audit
    item.locator("input[name=answer]").fill("The audit shows a fair d100")
    item.locator("button[type=submit]").click()
    expect(item).to_contain_text("answered: The audit shows a fair d100")
    expect(badge).to_be_hidden()
    public = fight.board(fight.players["c3"])
    assert public["disputes"][0]["answer"] == "The audit shows a fair d100"
    assert any("answers the dispute" in ln["text"] for ln in public["log"])


def test_at_375_px_the_turn_panel_is_within_the_first_screen_without_side_scroll(
    page: Any, fight: Fight
) -> None:
    fight.send({"type": "start_combat", "dice": [50, 20]})
    page.set_viewport_size(NARROW)
    page.goto(fight.gm_url)  # the forms start folded on a phone (#cond-form too)
    expect(page.locator("#conn")).to_have_attribute("data-state", "connected")
    expect(page.locator("#gm-actions button[data-end=c1]")).to_be_visible()
    box = page.locator("#turn-card").bounding_box()
    assert box is not None and box["y"] >= 0 and box["y"] + 120 <= NARROW["height"], box
    end = page.locator("#gm-actions button[data-end=c1]").bounding_box()
    assert end is not None and end["height"] >= 40, end  # reachable with a thumb
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= NARROW["width"], width


def test_screenshots_of_the_console_with_conditions_and_a_dispute(
    page: Any, fight: Fight, shots: Path
) -> None:
    fight.add("Ayla", "outlaws", "bandit", controller="ayla")
    fight.send({"type": "start_combat", "dice": [50, 20, 10]})
    fight.send({"type": "apply_condition", "combatant": "c2", "name": "stunned", "rounds": 2,
                "until": "end_of_turn", "modifier": -20, "note": "a blow to the head"})  # fmt: skip
    fight.send({"type": "apply_condition", "combatant": "c3", "name": "prone"})
    fight.send({"type": "act", "actor": "c1", "action": "attack", "target": "c3"})
    rolls = rolls_of(fight.board())
    fight.send({"type": "dispute", "roll": rolls[-1], "reason": "that was a 12"},
               token=fight.players["c3"])  # fmt: skip
    open_console(page, fight)
    expect(page.locator("#dispute-count")).to_be_visible()
    expect(page.locator(".chip.cond[data-cond=stunned]")).to_be_visible()
    expect(page.locator("#gm-disputes .dispute-detail")).to_be_visible()
    page.screenshot(path=str(shots / "console-conditions-1280.png"), full_page=True)
    # At 375 px, the first screen and a half: the turn panel first, then the tools.
    page.set_viewport_size({**NARROW, "height": 1100})
    page.wait_for_timeout(200)
    page.screenshot(path=str(shots / "console-conditions-375.png"))


def test_a_rolls_audit_panel_shows_the_gms_answer_to_its_dispute(page: Any, fight: Fight) -> None:
    fight.send({"type": "roll", "expr": "1d20", "purpose": "search", "dice": [3]})
    fight.send({"type": "dispute", "roll": 1, "reason": "fell off the table"})
    fight.send({"type": "answer_dispute", "roll": 1, "answer": "it stands"})
    open_console(page, fight)
    page.locator("#log li.die_rolled button[data-roll]").first.click()
    body = page.locator("#audit-body")
    expect(body).to_contain_text("fell off the table")
    expect(body.locator(".dispute-answer")).to_contain_text("answered: it stands")


def test_the_gm_adds_three_copies_of_a_combatant_in_one_go(page: Any, fight: Fight) -> None:
    open_console(page, fight)
    page.fill("#add-name", "Goblin")
    page.fill("#add-side", "outlaws")
    page.select_option("#add-preset", "bandit")
    page.fill("#add-copies", "3")
    page.click("#add-form button[type=submit]")
    expect(page.locator("#sides li.fighter", has_text="Goblin 3")).to_have_count(1)
    names = [c["name"] for c in fight.board()["combatants"]]
    assert names == ["Guard", "Bandit", "Goblin 1", "Goblin 2", "Goblin 3"]
    expect(page.locator("#add-copies")).to_have_value("1")  # back to one for the next add
    page.fill("#add-copies", "40")
    page.click("#add-form button[type=submit]")
    expect(page.locator("#add-msg")).to_contain_text("from 1 to 20")
    assert len(fight.board()["combatants"]) == 5


def test_the_consoles_keyboard_shortcuts_are_listed_and_do_what_they_say(
    page: Any, fight: Fight
) -> None:
    fight.send({"type": "start_combat", "dice": [50, 20]})  # Guard (c1) first
    open_console(page, fight)
    keys = page.locator("#gm-keys")
    expect(keys).to_contain_text("end the current actor's turn")
    page.locator("body").click(position={"x": 5, "y": 5})
    page.keyboard.press("a")
    focused = page.evaluate("document.activeElement.closest('#gm-actions li.action') !== null")
    assert focused
    page.keyboard.press("Escape")
    page.evaluate("document.activeElement.blur()")
    page.keyboard.press("e")
    expect(page.locator(".actor-now")).to_contain_text("Bandit")
    assert fight.board()["actor"] == "c2"
    page.keyboard.press("u")
    assert page.evaluate("document.activeElement.id") == "undo-reason"
    page.keyboard.press("e")  # typing in the reason: no shortcut
    assert fight.board()["actor"] == "c2"
    expect(page.locator("#undo-reason")).to_have_value("e")
