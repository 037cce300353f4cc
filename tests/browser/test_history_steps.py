"""The history bar moves by whole steps (issue 21, finding 2): back goes where "undo last
step" would, never inside one command's events, and forward retraces the way back."""

from __future__ import annotations

from typing import Any

import pytest

from tests.browser.test_console import Fight, card, fight, open_console, page  # noqa: F401
from tests.browser.test_ui import expect

pytestmark = pytest.mark.browser


def test_the_history_bar_steps_back_and_forward_by_whole_commands(
    page: Any,  # noqa: F811
    fight: Fight,  # noqa: F811
) -> None:
    fight.send({"type": "start_combat", "dice": [50, 20]})
    started = fight.board()["version"]
    fight.send({"type": "adjust", "combatant": "c2", "resource": "hp", "delta": -5,
                "reason": "arrows"})  # fmt: skip
    adjusted = fight.board()["version"]
    ended = fight.send({"type": "end_turn", "actor": "c1"})
    assert len(ended["events"]) >= 2  # turn_ended and turn_started: one step of two events
    assert fight.board()["step_back"] == adjusted
    open_console(page, fight)
    hp = card(page, "c2").locator("[data-res=hp] .res-val")
    page.click("#hist-back")
    expect(page.locator("#hist-state")).to_have_text(f"Viewing version {adjusted}")
    expect(page.locator("#hist-undo")).to_have_text(f"Undo back to version {adjusted}")
    expect(hp).to_have_text("19/24")
    page.click("#hist-back")
    expect(page.locator("#hist-state")).to_have_text(f"Viewing version {started}")
    expect(hp).to_have_text("24/24")
    page.click("#hist-forward")
    expect(page.locator("#hist-state")).to_have_text(f"Viewing version {adjusted}")
    page.click("#hist-forward")
    expect(page.locator("#hist-state")).to_contain_text("Live")
    expect(page.locator(".actor-now")).to_contain_text("Bandit")
