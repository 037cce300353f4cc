"""Security headers on every page and API answer (issue 20 section 5), and the pages still
work under their Content-Security-Policy: a violation is a console error, which fails the
test (tests/browser/conftest.py)."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from server.http.headers import CSP
from tests.browser.conftest import UiServer
from tests.browser.helpers import Browser, Encounter, War, expect

pytestmark = pytest.mark.browser

EXPECTED = {
    "content-security-policy": CSP,
    "x-frame-options": "DENY",
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
}


def has_security_headers(headers: Any) -> bool:
    return all(headers.get(k) == v for k, v in EXPECTED.items())


def test_every_kind_of_answer_carries_the_security_headers(ui_server: UiServer) -> None:
    base = ui_server.base
    enc = Encounter.create(base, "plain-d100", "Headers")
    paths = [
        "/", f"/e/{enc.id}", "/simulate", "/docs", "/rules/PD-1", "/static/app.js",
        "/api/rulesets", f"/api/encounters/{enc.id}", "/openapi.json", "/healthz",
        "/api/encounters/not-a-uuid",  # 404 JSON
        f"/api/encounters/{enc.id}/events",  # 401 JSON
        f"/api/encounters/{enc.id}/events?after=%C2%B9",  # 400 JSON
    ]  # fmt: skip
    for path in paths:
        r = httpx.get(base + path, timeout=10)
        assert has_security_headers(r.headers), (path, r.status_code, dict(r.headers))
    assert "frame-ancestors 'none'" in CSP and "script-src 'self'" in CSP
    assert "'unsafe-inline'" not in CSP.split("style-src-attr")[0]  # no inline script/style


def test_the_pages_work_under_their_policy_with_no_violation(
    browser: Browser, ui_server: UiServer
) -> None:
    enc = Encounter.create(ui_server.base, "plain-d100", "Policy")
    enc.add("Guard", "watch", "guard")
    bandit = enc.add("Bandit", "outlaws", "bandit")
    enc.start()
    seen: list[Any] = []
    gm = browser.open(enc.gm_link, "gm", remember=enc.remembered())
    gm.on("response", lambda r: seen.append(r))
    expect(gm.locator("#conn")).to_have_attribute("data-state", "connected")
    # The HP bars set their width with a style attribute, which the policy allows.
    bar = gm.locator(".bar span, [role=meter] span").first
    expect(bar).to_be_attached()
    assert "width" in (bar.get_attribute("style") or "")
    gm.reload()
    expect(gm.locator("#conn")).to_have_attribute("data-state", "connected")
    main = next(r for r in seen if r.url.split("#")[0].endswith(f"/e/{enc.id}"))
    assert has_security_headers(main.headers)
    player = browser.open(enc.player_link(bandit), "player")
    expect(player.locator("#conn")).to_have_attribute("data-state", "connected")
    war = War.create(ui_server.base, "Policy War")
    war_page = browser.open(war.link, "war", remember=war.remembered())
    expect(war_page.locator("#conn")).to_have_attribute("data-state", "connected")
    home = browser.open("/", "home")
    expect(home.locator("#create-title")).to_be_visible()
    docs = browser.open("/docs", "docs")
    expect(docs.locator("body")).not_to_be_empty()
    docs.wait_for_timeout(500)  # its renderer runs; a violation would be logged by now
    sim = browser.open("/simulate", "simulate")
    expect(sim.locator("#main")).not_to_be_empty()
    sim.wait_for_timeout(300)
