"""A ranks-d100 counter-attack chosen from the GM console: same type, rank from the list."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from tests.browser.helpers import Browser, expect

pytestmark = pytest.mark.browser


def test_RK_61_RK_62_the_console_offers_a_counters_type_and_ranks_and_sends_them(
    browser: Browser, ui_server: Any
) -> None:
    base = ui_server.base
    with httpx.Client(base_url=base, timeout=10) as http:
        made = http.post("/api/encounters", json={"ruleset": "ranks-d100", "name": "Duel"}).json()
        eid, gm = made["id"], made["gm_token"]
        auth = {"Authorization": f"Bearer {gm}"}

        def send(body: dict[str, Any]) -> dict[str, Any]:
            r = http.post(f"/api/encounters/{eid}/commands", json=body, headers=auth)
            assert r.status_code == 200, r.text
            out: dict[str, Any] = r.json()
            return out

        send({"type": "add_combatant", "name": "J1", "side": "a", "preset": "J1"})
        send({"type": "add_combatant", "name": "J2", "side": "b", "preset": "J2"})
        send({"type": "start_combat", "dice": [90, 10]})  # J1 (c1) acts first
        send(
            {
                "type": "act",
                "actor": "c1",
                "action": "attack_physical",
                "target": "c2",
                "rank": "E",
                "dice": [5],
            }
        )
    page = browser.open(f"{base}/e/{eid}#token={gm}&role=gm", "counter-gm")
    counter = page.locator(".react [data-reaction=counter]")
    expect(counter.locator("select[data-choice=action] option")).to_have_text(["attack_physical"])
    # RK-49: J2 (STR A) counters a physical attack at rank A at most.
    expect(counter.locator("select[data-choice=rank] option")).to_have_text(
        ["E", "D", "C", "B", "A"]
    )
    counter.locator("button[data-react=counter]").click()
    expect(page.locator(".react")).to_have_count(0)
    board = httpx.get(f"{base}/api/encounters/{eid}", timeout=5).json()
    assert board["pending"] == []
    answered = [line for line in board["log"] if line["kind"] == "reaction_resolved"]
    assert answered and "J2 counter-attacks" in answered[-1]["text"]


def tcs_console(browser: Browser, base: str, label: str) -> tuple[str, str, Any]:
    """A started d100-tcs duel (Duelist c1 acts first) and its GM console in a new page."""
    with httpx.Client(base_url=base, timeout=10) as http:
        made = http.post("/api/encounters", json={"ruleset": "d100-tcs", "name": "Duel"}).json()
        eid, gm = made["id"], made["gm_token"]
        auth = {"Authorization": f"Bearer {gm}"}
        for name, preset in (("Duelist", "duelist"), ("Spear", "spearman")):
            r = http.post(
                f"/api/encounters/{eid}/commands",
                headers=auth,
                json={"type": "add_combatant", "name": name, "side": name, "preset": preset},
            )
            assert r.status_code == 200, r.text
        r = http.post(
            f"/api/encounters/{eid}/commands",
            headers=auth,
            json={"type": "start_combat", "dice": [10, 50]},
        )
        assert r.status_code == 200, r.text
    page = browser.open(f"{base}/e/{eid}#token={gm}&role=gm", label)
    return eid, gm, page


def test_TC_21_an_actions_numeric_choice_is_sent_as_a_number(
    browser: Browser, ui_server: Any
) -> None:
    base = ui_server.base
    eid, gm, page = tcs_console(browser, base, "tcs-gm")
    move = page.locator("#gm-actions li[data-action=move]")
    move.locator("select[data-choice=sprint]").select_option(label="1")
    move.locator("button[data-first=move]").click()
    page.locator("#gm-actions button[data-second='']").click()  # TC-7: nothing after it
    page.locator("#gm-actions button[data-declare]").click()
    expect(page.locator("#log li.action_resolved").last).to_contain_text("moves")
    events = httpx.get(
        f"{base}/api/encounters/{eid}/events", headers={"Authorization": f"Bearer {gm}"}, timeout=5
    ).json()["events"]
    declared = [e["data"] for e in events if e["type"] == "action_declared"]
    assert declared[-1]["action"] == "move" and declared[-1]["options"] == {"sprint": 1}


def test_TC_7_the_console_declares_a_second_action_with_the_first(
    browser: Browser, ui_server: Any
) -> None:
    base = ui_server.base
    eid, gm, page = tcs_console(browser, base, "tcs-then")
    page.locator("#gm-actions li[data-action=move] button[data-first=move]").click()
    page.locator("#gm-actions li[data-action=focus] button[data-second=focus]").click()
    page.locator("#gm-actions button[data-declare]").click()
    expect(page.locator("#log li.action_resolved")).to_have_count(2)
    events = httpx.get(
        f"{base}/api/encounters/{eid}/events", headers={"Authorization": f"Bearer {gm}"}, timeout=5
    ).json()["events"]
    declared = [e["data"] for e in events if e["type"] == "action_declared"]
    assert declared[0]["options"] == {"sprint": 0, "then": {"action": "focus"}}
    resolved = [e["data"]["action"] for e in events if e["type"] == "action_resolved"]
    assert resolved == ["move", "focus"]
