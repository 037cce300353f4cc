"""Tokens in the browser (issue 20 section 4): the live socket carries its token in the
Sec-WebSocket-Protocol header, never in a URL the server logs; a link never replaces the
token this browser keeps for an encounter without asking, and an import adds, never
overwrites."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.browser.conftest import UiServer
from tests.browser.helpers import Browser, ConsoleWatch, Encounter, War, expect

pytestmark = pytest.mark.browser


def test_the_gm_pages_socket_carries_its_token_in_the_header_and_the_log_has_none(
    browser: Browser, ui_server: UiServer
) -> None:
    enc = Encounter.create(ui_server.base, "plain-d100", "Header")
    enc.add("Guard", "watch", "guard")
    sockets: list[Any] = []
    ctx = browser.new_context("gm")
    ctx.on("page", lambda page: page.on("websocket", lambda ws: sockets.append(ws)))
    page = ctx.new_page()
    page.goto(enc.gm_link)
    expect(page.locator("#conn")).to_have_attribute("data-state", "connected")
    assert sockets and all(enc.gm_token not in ws.url for ws in sockets)
    assert all("token=" not in ws.url for ws in sockets)
    war = War.create(ui_server.base, "Header War")
    war_page = ctx.new_page()
    war_page.goto(war.link)
    expect(war_page.locator("#conn")).to_have_attribute("data-state", "connected")
    assert any("/ws/campaigns/" in ws.url for ws in sockets)
    assert all(war.gm_token not in ws.url for ws in sockets)
    log = Path(ui_server.log_path).read_text()
    assert enc.gm_token not in log and war.gm_token not in log
    assert f"/ws/encounters/{enc.id}" in log  # the handshake was logged, tokenless


def visit(page: Any, url: str) -> None:
    """A whole new load of `url` (a hash change alone does not rerun the page)."""
    page.goto("about:blank")
    page.goto(url)


def _stored(page: Any, key: str) -> dict[str, Any]:
    raw = page.evaluate(f"localStorage.getItem({key!r})")
    found: dict[str, Any] = json.loads(raw) if raw else {}
    return found


def _dialogs(page: Any, accept: bool) -> list[str]:
    """Every confirm() the page shows, answered `accept`."""
    seen: list[str] = []

    def answer(dialog: Any) -> None:
        seen.append(dialog.message)
        if accept:
            dialog.accept()
        else:
            dialog.dismiss()

    page.on("dialog", answer)
    return seen


def _second_gm_token(enc: Encounter) -> str:
    r = httpx.post(
        f"{enc.base}/api/encounters/{enc.id}/tokens", json={"role": "gm"},
        headers={"Authorization": f"Bearer {enc.gm_token}"}, timeout=10,
    )  # fmt: skip
    assert r.status_code == 201, r.text
    token: str = r.json()["token"]
    return token


def test_a_spectator_token_sent_as_a_gm_link_never_replaces_the_kept_gm_token(
    browser: Browser, ui_server: UiServer
) -> None:
    enc = Encounter.create(ui_server.base, "plain-d100", "Lockout")
    enc.add("Guard", "watch", "guard")
    key = f"fracas:enc:{enc.id}"
    page = browser.open(enc.gm_link, "gm", remember=enc.remembered())
    expect(page.locator("#role-badge")).to_have_attribute("data-role", "gm")
    asked = _dialogs(page, accept=True)
    visit(page, enc.link(enc.spectator_token, "&role=gm"))  # the hijack link a player sends
    expect(page.locator("#role-badge")).to_have_attribute("data-role", "spectator")
    assert asked == []  # a spectator token is not a GM token: nothing to ask
    assert _stored(page, key)["gm"] == enc.gm_token
    visit(page, f"{enc.base}/e/{enc.id}")  # the bare page: still this browser's GM console
    expect(page.locator("#role-badge")).to_have_attribute("data-role", "gm")


def test_another_gm_token_replaces_the_kept_one_only_when_the_gm_says_yes(
    browser: Browser, ui_server: UiServer
) -> None:
    enc = Encounter.create(ui_server.base, "plain-d100", "Second GM")
    other = _second_gm_token(enc)
    key = f"fracas:enc:{enc.id}"
    page = browser.open(enc.gm_link, "gm", remember=enc.remembered())
    expect(page.locator("#role-badge")).to_have_attribute("data-role", "gm")
    asked = _dialogs(page, accept=False)
    visit(page, enc.link(other, "&role=gm"))
    expect(page.locator("#role-badge")).to_have_attribute("data-role", "gm")
    assert len(asked) == 1 and "Second GM" in asked[0]
    assert _stored(page, key)["gm"] == enc.gm_token  # declined: kept
    yes = browser.open(enc.gm_link, "gm2", remember=enc.remembered())
    expect(yes.locator("#role-badge")).to_have_attribute("data-role", "gm")
    answered = _dialogs(yes, accept=True)
    visit(yes, enc.link(other, "&role=gm"))
    expect(yes.locator("#role-badge")).to_have_attribute("data-role", "gm")
    assert len(answered) == 1
    assert _stored(yes, key)["gm"] == other  # accepted: replaced


def test_an_import_link_adds_encounters_and_never_overwrites_a_kept_token(
    browser: Browser, ui_server: UiServer
) -> None:
    enc = Encounter.create(ui_server.base, "plain-d100", "Kept")
    war = War.create(ui_server.base, "Kept War")
    new = Encounter.create(ui_server.base, "plain-d100", "Carried")
    page = browser.open("/", "home", remember={**enc.remembered(), **war.remembered()})
    expect(page.locator("#create-title")).to_be_visible()
    carried = {
        "format": "fracas-browser/1",
        "encounters": {
            enc.id: {"gm": enc.spectator_token, "name": "Hijack", "players": {}},
            new.id: {"gm": new.gm_token, "name": "Carried", "players": {}},
        },
        "wars": {war.id: {"gm": "someone-elses", "name": "Hijack"}},
    }
    encoded = page.evaluate(
        "(o) => import('/static/lib/store.js').then((s) => s.encodeExport(o))", carried
    )
    visit(page, f"{ui_server.base}/#import={encoded}")
    expect(page.locator("#create-title")).to_be_visible()
    page.wait_for_function(f"localStorage.getItem('fracas:enc:{new.id}') !== null")
    mine = _stored(page, f"fracas:enc:{enc.id}")
    assert mine["gm"] == enc.gm_token and mine["name"] == "Kept"
    assert _stored(page, f"fracas:war:{war.id}")["gm"] == war.gm_token
    assert _stored(page, f"fracas:enc:{new.id}")["gm"] == new.gm_token  # added


def test_a_war_link_with_a_token_the_war_refuses_keeps_the_kept_gm_token(
    browser: Browser, ui_server: UiServer, console: ConsoleWatch
) -> None:
    war = War.create(ui_server.base, "Kept War")
    page = browser.open(war.link, "war gm", remember=war.remembered())
    expect(page.locator("#role-badge")).to_have_attribute("data-role", "gm")
    other = War.create(ui_server.base, "Other War")
    asked = _dialogs(page, accept=True)
    with console.allowing("status of 401"):  # the refused link's token, then the kept one
        visit(page, f"{ui_server.base}/w/{war.id}#token={other.gm_token}")
        expect(page.locator("#role-badge")).to_have_attribute("data-role", "gm")
    assert asked == []
    assert _stored(page, f"fracas:war:{war.id}")["gm"] == war.gm_token
