"""The pages on a phone (375 px wide): the GM sees the fight in two screens, every target
is big enough to touch, and the sections a GM folds stay folded.

Each test makes its own fight over HTTP (tests/browser/helpers.py, `fight`) and opens
only the pages it checks, 375 px wide unless it says otherwise.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.browser.helpers import CASTS, NARROW, WIDE, Browser, answer, attack, expect, fight

pytestmark = pytest.mark.browser

TWO_SCREENS = 1300  # px from the top of the page: what a phone shows in two screens

# Where each thing sits on the page, in px from its top (bottom edges: wholly seen).
BOTTOMS = """(sel) => [...document.querySelectorAll(sel)]
  .filter((e) => e.getClientRects().length)
  .map((e) => Math.round(e.getBoundingClientRect().bottom + window.scrollY))"""

# WCAG 2.2 target size (minimum, 2.5.8): every target the page shows is 24 x 24 px, or
# a 24 px circle on its centre meets no other target nor another small target's circle.
TOO_SMALL = """() => {
  const sel = 'a[href], button, input:not([type=hidden]), select, textarea, summary, '
    + '[tabindex]:not([tabindex="-1"])';
  const els = [...document.querySelectorAll(sel)].filter((e) => {
    const r = e.getBoundingClientRect();
    return r.width > 0 && r.height > 0 && r.right > 0 && r.left < innerWidth
      && getComputedStyle(e).visibility !== 'hidden';
  });
  const boxes = els.map((e) => e.getBoundingClientRect());
  const big = (r) => r.width >= 23.99 && r.height >= 23.99;
  const centre = (r) => [r.left + r.width / 2, r.top + r.height / 2];
  const out = [];
  els.forEach((e, i) => {
    const r = boxes[i];
    if (big(r)) return;
    const [x, y] = centre(r);
    const clash = boxes.some((o, j) => {
      if (j === i) return false;
      if (!big(o)) {
        const [ox, oy] = centre(o);
        return Math.hypot(x - ox, y - oy) < 24;
      }
      const dx = Math.max(o.left - x, 0, x - o.right);
      const dy = Math.max(o.top - y, 0, y - o.bottom);
      return Math.hypot(dx, dy) < 12;
    });
    if (clash) {
      const cls = typeof e.className === 'string' ? e.className.trim().replace(/\\s+/g, '.') : '';
      const name = e.tagName.toLowerCase() + (e.id ? '#' + e.id : '') + (cls ? '.' + cls : '');
      const text = (e.textContent || e.value || '').trim().slice(0, 20);
      out.push(`${name} ${Math.round(r.width)}x${Math.round(r.height)} "${text}"`);
    }
  });
  return out;
}"""


def phone_console(browser: Browser, enc: Any) -> Any:
    gm = browser.open(enc.gm_link, "gm", remember=enc.remembered(), viewport=NARROW)
    expect(gm.locator("#conn")).to_have_attribute("data-state", "connected")
    return gm


def bottoms(page: Any, selector: str) -> list[int]:
    found: list[int] = page.evaluate(BOTTOMS, selector)
    return found


@pytest.mark.parametrize("ruleset", list(CASTS))
def test_at_375_px_the_gm_sees_the_turn_its_actions_a_defence_and_every_hp_in_two_screens(
    browser: Browser, ui_server: Any, ruleset: str
) -> None:
    enc = fight(ui_server.base, ruleset)
    gm = phone_console(browser, enc)
    actor = enc.board(enc.gm_token)["actor"]
    expect(gm.locator(".actor-now")).to_contain_text(enc.players[actor]["name"])
    expect(gm.locator("#gm-actions li.action").first).to_be_visible()
    # Whose turn, what the actor may do now (with End turn), every combatant and its HP.
    assert max(bottoms(gm, ".actor-now")) <= TWO_SCREENS
    offered = bottoms(gm, "#gm-actions li.action:not(.disabled)")
    assert len(offered) >= 2 and max(offered) <= TWO_SCREENS, offered
    assert bottoms(gm, "#gm-actions [data-end]")[0] <= TWO_SCREENS
    names = gm.locator(".roster li .fname").all_inner_texts()
    assert names == [who for who, _, _ in CASTS[ruleset]] or sorted(names) == sorted(
        who for who, _, _ in CASTS[ruleset]
    )
    hps = bottoms(gm, ".roster li [data-res=hp]")
    assert len(hps) == len(CASTS[ruleset]) and max(hps) <= TWO_SCREENS, hps
    for cid in enc.players:
        shown = gm.locator(f".roster li[data-cid={cid}] [data-res=hp] .res-val").inner_text()
        assert shown == gm.locator(f"#sides [data-cid={cid}] [data-res=hp] .res-val").inner_text()
    assert gm.evaluate("document.documentElement.scrollWidth") <= NARROW["width"]
    # An attack waiting for its answer, with the answers the GM may give for the target.
    if attack(enc):
        expect(gm.locator("#gm-pending .react button[data-react]").first).to_be_visible()
        assert max(bottoms(gm, "#gm-pending .react button[data-react]")) <= TWO_SCREENS
        assert max(bottoms(gm, "#pending .pending")) <= TWO_SCREENS
    else:
        assert enc.board()["pending"] == [] and ruleset == "d100-tcs"
    # The setup forms wait below, folded.
    expect(gm.locator("#add-form")).to_be_hidden()
    assert min(bottoms(gm, "#add-card")) > max(hps)


def open_every_fold(page: Any) -> None:
    page.evaluate("document.querySelectorAll('details').forEach((d) => { d.open = true; })")
    page.wait_for_timeout(100)


@pytest.mark.parametrize("ruleset", ["d20-na", "ranks-d100", "d100-tcs"])
def test_at_375_px_every_target_of_the_gm_console_and_the_players_page_is_24_px(
    browser: Browser, ui_server: Any, ruleset: str
) -> None:
    enc = fight(ui_server.base, ruleset)
    if attack(enc):  # the log has roll links and rule chips, the console a defence to answer
        answer(enc)
        enc.command({"type": "end_turn", "actor": enc.board()["actor"]})
        attack(enc)
    for _ in CASTS[ruleset]:  # a d100-tcs Mage has no weapon: the next actor attacks
        if any(line.get("rule") for line in enc.board()["log"]):
            break
        enc.command({"type": "end_turn", "actor": enc.board()["actor"]})
        attack(enc)
    enc.command({"type": "roll", "expr": "1d6", "purpose": "search"})
    gm = phone_console(browser, enc)
    expect(gm.locator("#log li button[data-roll]").first).to_be_attached()
    expect(gm.locator("#log li a.rule").first).to_be_attached()
    open_every_fold(gm)
    expect(gm.locator("#export-hidden")).to_be_visible()
    assert gm.evaluate(TOO_SMALL) == []
    for cid in enc.players:
        player = browser.open(enc.player_link(cid), f"player {cid}", viewport=NARROW)
        expect(player.locator("#conn")).to_have_attribute("data-state", "connected")
        expect(player.locator("#mine [data-cid]").first).to_be_visible()
        open_every_fold(player)
        assert player.evaluate(TOO_SMALL) == [], cid


def test_a_folded_section_stays_folded_after_a_reload(browser: Browser, ui_server: Any) -> None:
    enc = fight(ui_server.base, "plain-d100")
    # On a phone the setup forms start folded; one opened stays open, one folded again
    # stays folded.
    gm = phone_console(browser, enc)
    expect(gm.locator("#add-form")).to_be_hidden()
    gm.click("#add-card summary")
    expect(gm.locator("#add-form")).to_be_visible()
    gm.reload()
    expect(gm.locator("#add-form")).to_be_visible()
    expect(gm.locator("#adjust-form")).to_be_hidden()
    gm.click("#add-card summary")
    gm.reload()
    expect(gm.locator("#conn")).to_have_attribute("data-state", "connected")
    expect(gm.locator("#add-form")).to_be_hidden()
    # On a wide screen everything starts open; the log folded stays folded, in French too.
    gm.set_viewport_size(WIDE)
    wide = browser.open(enc.gm_link, "gm wide", remember=enc.remembered())
    expect(wide.locator("#log")).to_be_visible()
    wide.click("#log-card summary")
    expect(wide.locator("#log")).to_be_hidden()
    wide.reload()
    expect(wide.locator("#conn")).to_have_attribute("data-state", "connected")
    expect(wide.locator("#log")).to_be_hidden()
    expect(wide.locator("#adjust-form")).to_be_visible()
    wide.click("#lang-toggle")
    expect(wide.locator("#log-title")).to_have_text("Journal")
    expect(wide.locator("#log")).to_be_hidden()
    wide.click("#log-card summary")
    wide.reload()
    expect(wide.locator("#log")).to_be_visible()
