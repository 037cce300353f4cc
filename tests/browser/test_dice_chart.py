"""The dice fairness chart on a board and in the roll audit panel."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.browser.test_ui import WIDE, expect, snap

pytestmark = pytest.mark.browser


def test_the_board_shows_the_dice_chart_after_a_dozen_rolls(
    browser: Any, ui_server: Any, console: Any, shots: Path
) -> None:
    base = ui_server.base
    made = httpx.post(
        f"{base}/api/encounters", json={"ruleset": "plain-d100", "name": "Dice check"}, timeout=5
    ).json()
    eid, gm = made["id"], made["gm_token"]
    headers = {"Authorization": f"Bearer {gm}"}
    for _ in range(12):
        body = {"type": "roll", "expr": "1d6", "purpose": "fairness"}
        r = httpx.post(f"{base}/api/encounters/{eid}/commands", json=body, headers=headers)
        assert r.status_code == 200, r.text
    manual: dict[str, Any] = {"type": "roll", "expr": "2d20", "purpose": "table", "dice": [20, 1]}
    r = httpx.post(f"{base}/api/encounters/{eid}/commands", json=manual, headers=headers)
    assert r.status_code == 200, r.text
    stats = httpx.get(f"{base}/api/encounters/{eid}/dice", timeout=5).json()
    p = stats["server"]["d6"]["p_value"]

    ctx = browser.new_context(viewport=WIDE, locale="en-US")
    page = ctx.new_page()
    console.watch(page, "dice-board")
    page.goto(f"{base}/e/{eid}#token={made['spectator_token']}")
    d6 = page.locator("#dice-stats .die-chart[data-die=d6]")
    expect(d6.locator("figcaption")).to_contain_text("12 rolls")
    expect(d6.locator("svg rect.bar")).to_have_count(6)
    expect(d6.locator("svg line.expected")).to_have_count(1)
    verdict = "consistent with a fair die" if p >= 0.05 else "unusual: p ="
    expect(d6.locator(".verdict")).to_contain_text(verdict)
    # The numbers are there as text too, for screen readers.
    counts = [str(stats["server"]["d6"]["faces"][str(f)]) for f in range(1, 7)]
    cells = d6.locator(".num-table tbody tr td:nth-child(2)")
    assert cells.all_text_contents() == counts
    expect(page.locator("#dice-stats .die-chart[data-die=d20]")).to_contain_text("2 rolls")
    expect(page.locator("#dice-stats")).to_contain_text("Physical dice")
    page.locator(".dice-card").scroll_into_view_if_needed()
    snap(page, shots, "dice-board")

    # French: the same verdict in French.
    page.click("#lang-toggle")
    fr = "compatible avec un dé équilibré" if p >= 0.05 else "inhabituel : p ="
    expect(page.locator("#dice-stats .die-chart[data-die=d6] .verdict")).to_contain_text(fr)
    page.click("#lang-toggle")

    # The audit panel of one d6 roll shows the d6 chart.
    page.locator("#log li.die_rolled button[data-roll]").first.click()
    expect(page.locator("#audit-dice .die-chart[data-die=d6]")).to_be_visible()
    expect(page.locator("#audit-dice .die-chart")).to_have_count(1)
    snap(page, shots, "dice-audit", full_page=False)
    ctx.close()
    assert not console.errors, console.errors


def test_a_bar_charts_axis_label_of_four_digits_is_not_cut(
    browser: Any, ui_server: Any, console: Any
) -> None:
    """The resolver's chart showed ".,550" for 1,550: the label ran off the left edge."""
    ctx = browser.new_context(viewport=WIDE, locale="en-US")
    page = ctx.new_page()
    console.watch(page, "chart-axis")
    page.goto(f"{ui_server.base}/")
    left = page.evaluate(
        """async () => {
            const { barChart } = await import('/static/lib/charts.js');
            const box = document.createElement('div');
            box.style.width = '320px';
            box.innerHTML = String(barChart([{label: '1', value: 1550}, {label: '2', value: 700}]));
            document.body.append(box);
            const label = [...box.querySelectorAll('text.ax')]
                .find((t) => t.textContent === '1,550');
            return label ? label.getBBox().x : null;
        }"""
    )
    ctx.close()
    assert left is not None and left >= 0
