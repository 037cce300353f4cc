"""The War page is live: a GM watching it sees HP change as an encounter of the War closes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.browser.test_ui import WIDE, expect, snap

pytestmark = pytest.mark.browser


def test_the_war_page_updates_live_when_an_encounter_of_the_war_closes(
    browser: Any, ui_server: Any, console: Any, shots: Path
) -> None:
    base = ui_server.base
    http = httpx.Client(base_url=base, timeout=10)
    made = http.post(
        "/api/campaigns", json={"name": "Live War", "ruleset": "ranks-d100", "settings": {}}
    ).json()
    war, gm = made["id"], made["gm_token"]
    auth = {"Authorization": f"Bearer {gm}"}
    presets = next(r for r in http.get("/api/rulesets").json() if r["id"] == "ranks-d100")
    for name in ("J1", "J2"):
        body = {"type": "enroll", "name": name, "sheet": presets["presets"][name]}
        assert http.post(f"/api/campaigns/{war}/commands", json=body, headers=auth).is_success

    ctx = browser.new_context(viewport=WIDE, locale="en-US")
    page = ctx.new_page()
    console.watch(page, "war-live")
    page.goto(f"{base}/w/{war}#token={gm}")
    j1 = page.locator("#war-chars tbody tr", has=page.locator(".char-name", has_text="J1"))
    expect(j1.locator("[data-pool=hp] .res-val")).to_contain_text("70")
    expect(page.locator("#conn")).to_have_attribute("data-state", "connected")

    # Elsewhere (another tab, another GM screen): a fight in the War, J1 hurt, closed.
    enc = http.post(
        "/api/encounters",
        json={"ruleset": "ranks-d100", "name": "Skirmish", "campaign": war},
        headers=auth,
    ).json()
    eg = {"Authorization": f"Bearer {enc['gm_token']}"}
    cid = next(c["combatant_id"] for c in enc["combatants"] if c["name"] == "J1")
    adjust = {"type": "adjust", "combatant": cid, "resource": "hp", "delta": -25, "reason": "hit"}
    for body in (adjust, {"type": "close"}):
        r = http.post(f"/api/encounters/{enc['id']}/commands", json=body, headers=eg)
        assert r.status_code == 200, r.text

    # The page never reloads nor loses focus: the feed brings the War's new pools.
    expect(j1.locator("[data-pool=hp] .res-val")).to_contain_text("45")
    expect(page.locator("#war-encounters")).to_contain_text("carried back")
    snap(page, shots, "war-live")
    ctx.close()
    http.close()
    assert not console.errors, console.errors
