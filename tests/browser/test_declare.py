"""Issue 11.5 and 11.6 in the page: the buttons show each action's cost and odds as `legal`
lists them, and a d100-tcs turn (declared `turn: "two_declared"` in `GET /api/rulesets`)
is two explicit steps, first action then second (or nothing), shown, then confirmed.
A d20-na console (turn `single`) has no second-action row at all."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from tests.browser.helpers import Browser, Encounter, expect

pytestmark = pytest.mark.browser


def test_the_rulesets_declare_their_turn_shape(ui_server: Any) -> None:
    rulesets = httpx.get(f"{ui_server.base}/api/rulesets", timeout=10).json()
    assert {r["id"]: r["turn"] for r in rulesets} == {
        "plain-d100": "single",
        "d20-na": "single",
        "ranks-d100": "single",
        "d100-tcs": "two_declared",
    }


def test_TC_7_a_tcs_player_declares_two_actions_sees_both_and_both_are_logged(
    browser: Browser, ui_server: Any
) -> None:
    enc = Encounter.create(ui_server.base, "d100-tcs", "Two steps")
    duelist = enc.add("Duelist", "a", "duelist")
    enc.add("Spear", "b", "spearman")
    enc.start([10, 50])  # TC-4: the Duelist's 10 acts first
    page = browser.open(enc.player_link(duelist), "tcs-player")
    mine = page.locator(f"#mine [data-cid={duelist}]")
    # TC-1, TC-2, TC-6: the attack button says what it costs and its odds (DEX 60).
    expect(mine.locator("[data-odds=attack]")).to_have_text("1 action (1 left) · 60% (DEX 60)")
    expect(mine.locator("[data-step-head='1']")).to_be_visible()
    expect(mine.locator("[data-then]")).to_have_count(0)  # no picker below the buttons
    mine.locator("li[data-action=move] select[data-choice=sprint]").select_option(label="1")
    mine.locator("button[data-first=move]").click()
    # Step 2: nothing is sent yet; the first action is shown, the second is asked for.
    expect(mine.locator("[data-step=first]")).to_contain_text("Move")
    expect(mine.locator("[data-step-head='2']")).to_be_visible()
    assert [e for e in enc.events() if e["type"] == "action_declared"] == []
    mine.locator("button[data-second=focus]").click()
    expect(mine.locator("[data-step=second]")).to_contain_text("Focus")
    expect(mine.locator("[data-step=first]")).to_contain_text("Move")
    mine.locator("button[data-declare]").click()
    expect(page.locator("#log li.action_resolved")).to_have_count(2)
    declared = [e["data"] for e in enc.events() if e["type"] == "action_declared"]
    assert declared == [
        {**declared[0], "action": "move", "options": {"sprint": 1, "then": {"action": "focus"}}}
    ]
    resolved = [e["data"]["action"] for e in enc.events() if e["type"] == "action_resolved"]
    assert resolved == ["move", "focus"]


def test_TC_7_a_first_action_can_be_changed_and_nothing_can_follow_it(
    browser: Browser, ui_server: Any
) -> None:
    enc = Encounter.create(ui_server.base, "d100-tcs", "Change of mind")
    enc.add("Duelist", "a", "duelist")
    enc.add("Spear", "b", "spearman")
    enc.start([10, 50])
    page = browser.open(enc.gm_link, "tcs-gm", remember=enc.remembered())
    actions = page.locator("#gm-actions")
    actions.locator("button[data-first=focus]").click()
    actions.locator("button[data-redo]").click()  # back to step 1
    expect(actions.locator("[data-step-head='1']")).to_be_visible()
    actions.locator("button[data-first=disengage]").click()
    actions.locator("button[data-second='']").click()  # nothing after it
    expect(actions.locator("[data-step=second]")).to_contain_text("Nothing")
    actions.locator("button[data-declare]").click()
    expect(page.locator("#log li.action_resolved")).to_have_count(1)
    declared = [e["data"] for e in enc.events() if e["type"] == "action_declared"]
    assert [(d["action"], d["options"]) for d in declared] == [("disengage", {})]


def test_the_d20_na_console_has_no_TC_7_row_and_shows_costs_and_odds(
    browser: Browser, ui_server: Any
) -> None:
    enc = Encounter.create(ui_server.base, "d20-na", "One slot at a time")
    fangeux = enc.add("Fangeux", "b", "fangeux")  # INI 12: acts first (NA-4)
    milicien = enc.add("Milicien", "a", "milicien")
    enc.start()
    gm = browser.open(enc.gm_link, "na-gm", remember=enc.remembered())
    actions = gm.locator("#gm-actions")
    expect(actions.locator("button[data-act=attack]")).to_be_visible()
    expect(actions.locator("[data-then]")).to_have_count(0)
    expect(actions.locator(".two-declared")).to_have_count(0)
    expect(actions.locator("code.rule", has_text="TC-7")).to_have_count(0)
    # NA-2, NA-6, NA-11: ATT 12, a full action out of 2*1+1 half-actions.
    expect(actions.locator("[data-odds=attack]")).to_have_text(
        "2 half-actions (1 left) · 60% (ATT 12)"
    )
    # The Fangeux hits (d20 1 <= 12): the Milicien's player sees what a defense costs.
    enc.command({"type": "act", "actor": fangeux, "action": "attack", "target": milicien,
                 "dice": [1]})  # fmt: skip
    player = browser.open(enc.player_link(milicien), "na-player")
    react = player.locator(f"#mine .react[data-cid={milicien}]")
    # NA-7, NA-13: the first parry is a half-action, on PAR 9; NA-10 a skilled dodge on HAB 11.
    expect(react.locator("[data-odds=parry]")).to_have_text("1 half-action (2 left) · 45% (PAR 9)")
    expect(react.locator("[data-odds=dodge]")).to_have_text("1 half-action (2 left) · 55% (HAB 11)")
