"""The UI does what it says (issue 21 findings 4, 5, 8, 10), in headless Chromium: every
control it enables is one the server accepts, and does what its label says.

Each test makes its own encounter over HTTP (tests/browser/helpers.py) and opens its own
pages; the GM enters the dice in the console's dice box so that every roll is known.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

import pytest

from tests.browser.helpers import Browser, Encounter, expect

if TYPE_CHECKING:
    from tests.browser.conftest import UiServer

pytestmark = pytest.mark.browser


def connected(page: Any) -> Any:
    expect(page.locator("#conn")).to_have_attribute("data-state", "connected")
    return page


def checks(enc: Encounter) -> list[dict[str, Any]]:
    """Every roll's check, in order."""
    return [
        e["data"]["check"]
        for e in enc.events()
        if e["type"] == "die_rolled" and e["data"].get("check")
    ]


def with_dice(page: Any, faces: str) -> None:
    page.fill("#dice-input", faces)


def test_RK_6_RK_8_a_half_rank_activated_from_the_action_row_sets_the_rolls_threshold(
    browser: Browser, ui_server: UiServer
) -> None:
    enc = Encounter.create(ui_server.base, "ranks-d100", "Half-ranks")
    lancer = enc.add("Lancer", "servants", "Lancer")  # STR B+
    mage = enc.add("Mage", "masters", "J1", sheet={"END": "C-"})
    enc.start(dice=[99, 1])
    gm = connected(browser.open(enc.gm_link, "gm", remember=enc.remembered()))
    row = gm.locator(f"#gm-actions li[data-action=attack_physical][data-cid={lancer}]")
    # The rank select offers the letter the roll uses, not a "B+" it would not.
    expect(row.locator("[data-field=rank] option")).to_have_text(["E", "D", "C", "B"])
    box = row.locator("input[data-switch=activate][data-stat=STR]")
    expect(row.locator("label.half-rank")).to_contain_text("60 → 70")
    box.check()
    with_dice(gm, "65")  # a miss at B (60), a hit at B+ activated (70)
    row.locator("button[data-act=attack_physical]").click()
    pending = gm.locator(f"#gm-pending .react[data-cid={mage}]")
    expect(pending).to_be_visible()
    attack = checks(enc)[-1]
    assert (attack["threshold"], attack["outcome"]) == (70, "success")
    # The defence: the Mage's END C- is always on (40) unless deactivated (50), RK-7.
    defend = pending.locator("[data-reaction=defend_end]")
    expect(defend.locator("label.half-rank")).to_contain_text("40 → 50")
    defend.locator("input[data-switch=deactivate][data-stat=END]").check()
    with_dice(gm, "45")
    defend.locator("button[data-react=defend_end]").click()
    expect(gm.locator("#gm-pending .react")).to_have_count(0)
    defence = checks(enc)[-1]
    assert (defence["stat"], defence["threshold"], defence["outcome"]) == ("END", 50, "success")
    # RK-8: the Lancer's next attack phase shows the RP's switch as spent, and no box.
    enc.command({"type": "end_turn", "actor": lancer})
    enc.command({"type": "end_turn", "actor": mage})
    row = gm.locator(f"#gm-actions li[data-action=attack_physical][data-cid={lancer}]")
    expect(row.locator("[data-half-rank=used]")).to_contain_text("already switched")
    expect(row.locator("input[data-switch]")).to_have_count(0)


def resources_shown(page: Any, cid: str) -> list[str]:
    rows = page.locator(f"#sides li.fighter[data-cid={cid}] .res")
    return [str(k) for k in rows.evaluate_all("(els) => els.map((e) => e.dataset.res)")]


def test_after_a_live_patch_minus_five_on_a_card_changes_hp_and_the_rows_keep_their_order(
    browser: Browser, ui_server: UiServer
) -> None:
    enc = Encounter.create(ui_server.base, "ranks-d100", "Quick buttons")
    mage = enc.add("Mage", "masters", "J1")
    enc.add("Rival", "rivals", "J2")
    gm = connected(browser.open(enc.gm_link, "gm", remember=enc.remembered()))
    card = gm.locator(f"#sides li.fighter[data-cid={mage}]")
    order = list(enc.board(enc.gm_token)["combatants"][0]["resources"])
    assert order[0] == "hp" and len(order) > 2
    expect(card.locator("[data-res=hp] .res-val")).to_have_text("70/70")
    # A change from elsewhere reaches this page as a patch replacing hp.
    enc.command({"type": "adjust", "combatant": mage, "resource": "hp", "delta": -1,
                 "reason": "elsewhere"})  # fmt: skip
    expect(card.locator("[data-res=hp] .res-val")).to_have_text("69/70")
    assert resources_shown(gm, mage) == order
    expect(card.locator("select[data-quick-res]")).to_have_value("hp")
    card.locator("button[data-quick='-5']").click()
    expect(card.locator("[data-res=hp] .res-val")).to_have_text("64/70")
    mine = enc.board(enc.gm_token)["combatants"][0]
    after = mine["resources"]
    assert after["hp"] == 64 and after["luck"] == mine["maxima"]["luck"]
    # The GM's pick is kept by name across the next live patch too.
    card.locator("select[data-quick-res]").select_option("mana")
    enc.command({"type": "adjust", "combatant": mage, "resource": "hp", "delta": -1,
                 "reason": "elsewhere"})  # fmt: skip
    expect(card.locator("[data-res=hp] .res-val")).to_have_text("63/70")
    expect(card.locator("select[data-quick-res]")).to_have_value("mana")
    mana = after["mana"]
    card.locator("button[data-quick='-1']").click()
    expect(card.locator("[data-res=mana] .res-val")).to_contain_text(str(mana - 1))
    assert enc.board(enc.gm_token)["combatants"][0]["resources"]["hp"] == 63


def test_d20_na_a_players_attack_waiting_on_the_gms_defence_is_not_their_turn_to_play(
    browser: Browser, ui_server: UiServer
) -> None:
    enc = Encounter.create(ui_server.base, "d20-na", "Waiting")
    hero = enc.add("Hero", "heroes", "milicien", controller="alice")
    brute = enc.add("Brute", "monsters", "fangeux")
    enc.start()
    actor = enc.board(enc.gm_token)["actor"]
    me, foe = (hero, brute) if actor == hero else (brute, hero)
    enc.command({"type": "act", "actor": me, "action": "attack", "target": foe, "dice": [1]})
    assert enc.board(enc.gm_token)["pending"], "the hit waits on the GM's answer"
    page = connected(browser.open(enc.player_link(me), "player"))
    mine = page.locator(f"#mine .mine[data-cid={me}]")
    expect(mine.locator("[data-waiting]")).to_be_visible()
    expect(mine.locator("h3")).not_to_have_text(re.compile("turn", re.I))
    expect(mine).not_to_contain_text("left)")
    expect(mine.locator("button[data-act]")).to_have_count(0)
    expect(mine.locator(f"button[data-end={me}]")).to_be_disabled()
    # The GM console: End turn is off too while the defence waits.
    gm = connected(browser.open(enc.gm_link, "gm", remember=enc.remembered()))
    expect(gm.locator(f"#gm-actions button[data-end={me}]")).to_be_disabled()
    expect(gm.locator("#gm-actions")).not_to_contain_text("-2 left")


def test_TC_18_TC_4_the_console_sets_a_shots_distance_and_offers_no_reorder_mid_fight(
    browser: Browser, ui_server: UiServer
) -> None:
    enc = Encounter.create(ui_server.base, "d100-tcs", "Long shot")
    archer = enc.add("Archer", "a", "archer")  # PERC 60, bow with a 30 m base range
    enc.add("Duelist", "b", "duelist")
    enc.start(dice=[5, 50])  # ascending: the Archer first
    gm = connected(browser.open(enc.gm_link, "gm", remember=enc.remembered()))
    row = gm.locator(f"#gm-actions li[data-action=attack][data-cid={archer}]")
    # TC-7: a declared turn; the first step's row carries the distance field.
    row.locator("input[data-choice=distance]").fill("40")
    row.locator("button[data-first=attack]").click()
    gm.locator("#gm-actions button[data-second='']").click()
    with_dice(gm, "45")  # under 60, over 30: a miss only at long range
    gm.locator(f"#gm-actions button[data-declare={archer}]").click()
    expect(gm.locator("#gm-actions [data-step=first]")).to_have_count(0)
    shot = checks(enc)[-1]
    assert (shot["threshold"], shot["outcome"]) == (30, "failure")
    assert shot["modifiers"][-1]["rule"] == "TC-18"
    # TC-4: initiative is rolled again every round, so no arrow is enabled mid-fight.
    arrows = gm.locator("#gm-order button[data-move]")
    expect(arrows.first).to_be_visible()
    for i in range(arrows.count()):
        expect(arrows.nth(i)).to_be_disabled()
    expect(gm.locator("#gm-order [data-reorder-off]")).to_contain_text("TC-4")
