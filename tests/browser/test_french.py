"""Switching a running d20-na fight to French leaves no English word of the log's list on
the board, the GM console or the player view; screenshots of the French board."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.browser.test_ui import NARROW, WIDE, expect

pytestmark = pytest.mark.browser

ENGLISH = ("takes", "hits", "misses", "turn", "attack", "parry", "dodge", "fails",
           "succeeds", "dead", "damage")  # fmt: skip


def running_fight(base: str) -> tuple[str, str, str, str]:
    """Milicien against Fangeux, two blows in: eid and the GM's, player's, spectator's tokens."""
    with httpx.Client(base_url=base, timeout=10) as http:
        made = http.post("/api/encounters", json={"ruleset": "d20-na", "name": "Le gué"}).json()
        eid, gm = made["id"], made["gm_token"]
        auth = {"Authorization": f"Bearer {gm}"}

        def send(body: dict[str, Any]) -> dict[str, Any]:
            r = http.post(f"/api/encounters/{eid}/commands", json=body, headers=auth)
            assert r.status_code == 200, r.text
            out: dict[str, Any] = r.json()
            return out

        added = send({"type": "add_combatant", "name": "Milicien", "side": "ville",
                      "preset": "milicien", "controller": "alice"})  # fmt: skip
        send({"type": "add_combatant", "name": "Fangeux", "side": "marais", "preset": "fangeux"})
        send({"type": "start_combat"})
        send({"type": "act", "actor": "c2", "action": "attack", "target": "c1", "dice": [9]})
        send({"type": "react", "actor": "c1", "reaction": "parry", "dice": [13, 3, 3]})
        send({"type": "act", "actor": "c1", "action": "attack", "target": "c2", "dice": [9]})
        send({"type": "react", "actor": "c2", "reaction": "dodge", "dice": [6]})
        send({"type": "act", "actor": "c2", "action": "attack", "target": "c1", "dice": [8]})
        return eid, gm, str(added["player_token"]), str(made["spectator_token"])


def english_words(page: Any) -> list[str]:
    shown = page.locator("main").inner_text()
    shown = re.sub(r"\b[A-Z]{2}-(AMB-)?\d+\b", "", shown)  # rule ids are names, not words
    return [w for w in ENGLISH if re.search(rf"\b{w}\b", shown, re.IGNORECASE)]


def test_a_running_fight_in_french_shows_no_english_word(
    browser: Any, ui_server: Any, console: Any, shots: Path
) -> None:
    base = ui_server.base
    eid, gm, player, spectator = running_fight(base)
    pages = {
        "console": f"{base}/e/{eid}#token={gm}&role=gm",
        "player": f"{base}/e/{eid}#token={player}&as=c1",
        "board": f"{base}/e/{eid}#token={spectator}",
    }
    for label, url in pages.items():
        ctx = browser.new_context(viewport=WIDE, locale="en-US")  # its own storage and token
        page = ctx.new_page()
        console.watch(page, f"fr-{label}")
        page.goto(url)
        expect(page.locator("#conn")).to_have_attribute("data-state", "connected")
        expect(page.locator("#log li.reaction_resolved")).to_have_count(2)
        if page.locator("html").get_attribute("lang") != "fr":
            page.click("#lang-toggle")
        expect(page.locator("html")).to_have_attribute("lang", "fr")
        expect(page.locator("#log")).to_contain_text("Tour de Fangeux")
        assert english_words(page) == [], (label, english_words(page))
        if label == "board":
            expect(page.locator("#sides [data-chip=engaged]").first).to_contain_text("engagé avec")
            for name, size in (("1280", WIDE), ("375", NARROW)):
                page.set_viewport_size(size)
                page.wait_for_timeout(150)
                page.screenshot(path=str(shots / f"board-fr-{name}.png"), full_page=True)
            assert (shots / "board-fr-375.png").stat().st_size > 10_000
        ctx.close()
    assert console.errors == []
