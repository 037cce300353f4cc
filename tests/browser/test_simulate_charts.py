"""The resolver page's charts: win rates with intervals, histograms, two runs side by side."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from domain.rules.d20_na.resolver import simulate
from tests.browser.test_ui import WIDE, expect, snap

pytestmark = pytest.mark.browser


def test_the_resolver_page_charts_a_run_and_compares_it_with_a_shielded_one(
    browser: Any, ui_server: Any, console: Any, shots: Path
) -> None:
    from playwright.sync_api import expect as pw_expect

    pw_expect.set_options(timeout=15_000)
    ctx = browser.new_context(viewport=WIDE, locale="en-US")
    page = ctx.new_page()
    console.watch(page, "simulate-charts")
    page.goto(ui_server.base + "/simulate")
    page.select_option("#sim-preset-a", "milicien")
    page.select_option("#sim-preset-b", "fangeux")
    page.fill("#sim-fights", "60")
    page.fill("#sim-seed", "7")
    page.click("#sim-start")

    want = simulate("milicien", "fangeux", 60, seed="7", names=("Milicien", "Fangeux"))
    charts = page.locator("#sim-charts")
    expect(charts.locator("svg.chart")).to_have_count(3)
    expect(charts.locator(".rate-chart rect.bar")).to_have_count(2)
    expect(charts.locator(".rate-chart line.whisker")).to_have_count(6)
    expect(charts).to_contain_text("Rounds per fight")
    expect(charts).to_contain_text("Damage per hit")
    rounds_table = charts.locator(".hist-chart").nth(1).locator(".num-table tbody td:nth-child(2)")
    assert sum(int(c) for c in rounds_table.all_text_contents()) == 60
    assert sum(want.rounds_counts.values()) == 60

    # Keep it, give the Milicien a shield, run again: the two side by side.
    page.click("#sim-pin")
    page.locator("#sim-sheet-box-a summary").click()
    sheet = json.loads(page.locator("#sim-sheet-a").input_value())
    sheet["weapons"] = [w for w in sheet["weapons"] if not w.get("two_handed")]
    sheet["shield"] = {"name": "buckler", "parry": 3}
    page.fill("#sim-sheet-a", json.dumps(sheet))
    page.fill("#sim-name-a", "Milicien+shield")
    page.click("#sim-start")
    expect(page.locator("#sim-kept h3")).to_contain_text("Milicien vs Fangeux")
    expect(page.locator("#sim-now h3")).to_contain_text("Milicien+shield vs Fangeux")
    expect(page.locator("#sim-compare-box svg.chart")).to_have_count(6)
    expect(page.locator("#sim-delta")).to_contain_text("Milicien+shield: win rate")
    expect(page.locator("#sim-delta")).to_contain_text(f"{100 * want.rates['a'].rate:.1f}%")
    page.locator("#sim-compare-box").scroll_into_view_if_needed()
    snap(page, shots, "simulate-charts")
    ctx.close()
    assert not console.errors, console.errors
