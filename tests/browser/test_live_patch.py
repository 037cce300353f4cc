"""The live board on patches (`patch=1`) and the paged log, in headless Chromium.

server/static/lib/patch.js is checked against jsonpatch (the Python reference) on the RFC
6902 operations, then a spectator's page is followed through patched updates and pages
its log back to the first line.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import jsonpatch
import pytest

from server.live.patch import diff
from tests.browser.helpers import Browser, Encounter, expect

if TYPE_CHECKING:
    from tests.browser.conftest import UiServer

pytestmark = pytest.mark.browser

DOC = {"a/b": 1, "m~n": [1, 2, 3], "x": {"y": [{"z": True}, None], "s": "é"}, "n": None}
CASES: list[list[dict[str, Any]]] = [
    [{"op": "add", "path": "/new", "value": {"k": [1]}}],
    [{"op": "add", "path": "/m~0n/1", "value": 9}, {"op": "add", "path": "/m~0n/-", "value": 8}],
    [{"op": "remove", "path": "/a~1b"}, {"op": "remove", "path": "/m~0n/0"}],
    [{"op": "replace", "path": "/x/y/0/z", "value": False},
     {"op": "replace", "path": "/n", "value": 2}],
    [{"op": "move", "from": "/x/y", "path": "/moved"},
     {"op": "move", "from": "/m~0n/0", "path": "/m~0n/2"}],
    [{"op": "copy", "from": "/x", "path": "/x2"}, {"op": "replace", "path": "/x2/s", "value": "t"}],
    [{"op": "test", "path": "/x", "value": {"s": "é", "y": [{"z": True}, None]}},
     {"op": "add", "path": "/ok", "value": 1}],
    [{"op": "replace", "path": "", "value": [1, 2]}],
]  # fmt: skip
FAILING: list[list[dict[str, Any]]] = [
    [{"op": "test", "path": "/n", "value": 0}],
    [{"op": "remove", "path": "/nope"}],
    [{"op": "replace", "path": "/m~0n/3", "value": 1}],
    [{"op": "add", "path": "/m~0n/01", "value": 1}],
    [{"op": "move", "from": "/x", "path": "/x/inner"}],
]


def apply_in_page(page: Any, doc: Any, ops: list[dict[str, Any]]) -> Any:
    return page.evaluate(
        """async ([doc, ops]) => {
            const { applyPatch } = await import("/static/lib/patch.js");
            try { return { ok: applyPatch(doc, ops), doc }; }
            catch (e) { return { error: e.name, message: e.message, doc }; }
        }""",
        [doc, ops],
    )


def test_the_pages_json_patch_agrees_with_jsonpatch_and_leaves_its_input_alone(
    browser: Browser, ui_server: UiServer
) -> None:
    page = browser.open(ui_server.base + "/", "home")
    for ops in CASES:
        got = apply_in_page(page, DOC, ops)
        assert got.get("ok") == jsonpatch.apply_patch(DOC, ops), ops
        assert got["doc"] == DOC
    for ops in FAILING:
        with pytest.raises((jsonpatch.JsonPatchException, jsonpatch.JsonPointerException)):
            jsonpatch.apply_patch(DOC, ops)
        assert apply_in_page(page, DOC, ops).get("error") == "PatchError", ops
    # What the server sends: its own diffs of two boards, and jsonpatch's.
    old = {"log": [{"v": i} for i in range(30)], "c": [{"hp": 5}, {"hp": 7}], "legal": {"c1": []}}
    new = {"log": [{"v": i} for i in range(3, 33)], "c": [{"hp": 5}], "legal": {"c2": [1]}}
    for ops in (diff(old, new), jsonpatch.make_patch(old, new).patch):
        assert apply_in_page(page, old, json.loads(json.dumps(ops)))["ok"] == new


def test_a_spectator_follows_patched_updates_and_pages_the_log_back_to_its_first_line(
    browser: Browser, ui_server: UiServer
) -> None:
    enc = Encounter.create(ui_server.base, "d20-na", "Long fight")
    for i in range(45):
        enc.command(
            {"type": "roll", "expr": "1d20", "purpose": f"warm-up {i}", "hidden": i % 3 == 0}
        )
    sockets: list[str] = []
    page = browser.new_context().new_page()
    page.on("websocket", lambda ws: sockets.append(ws.url))
    page.goto(enc.spectator_link)
    expect(page.locator("#conn")).to_have_attribute("data-state", "connected")
    assert any("patch=1" in url for url in sockets)
    expect(page.locator("#log li")).to_have_count(30)
    enc.command({"type": "roll", "expr": "1d20", "purpose": "after the snapshot"})
    expect(page.locator("#log li").last).to_contain_text("after the snapshot")
    expect(page.locator("#log li")).to_have_count(31)  # appended from a patch
    earlier = page.locator("#log-earlier")
    expect(earlier).to_be_visible()
    earlier.click()
    expect(page.locator("#log li.encounter_opened")).to_have_count(1)
    expect(earlier).to_be_hidden()
    # 45 warm-up rolls, 15 of them hidden: the spectator's log holds the 30 others.
    expect(page.locator("#log li.die_rolled")).to_have_count(31)
    expect(page.locator("#log li.secret")).to_have_count(0)
    versions = [int(v) for v in page.locator("#log li").evaluate_all(
        "els => els.map((e) => e.dataset.version)")]  # fmt: skip
    assert versions == sorted(versions) and versions[0] == 1
