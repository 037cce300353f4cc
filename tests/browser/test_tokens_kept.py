"""Tokens in the browser (issue 20 section 4): the live socket carries its token in the
Sec-WebSocket-Protocol header, never in a URL the server logs; a link never replaces the
token this browser keeps for an encounter without asking, and an import adds, never
overwrites."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.browser.conftest import UiServer
from tests.browser.helpers import Browser, Encounter, War, expect

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
