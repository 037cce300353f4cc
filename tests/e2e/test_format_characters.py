"""Unicode format characters (category Cf) are refused in single-line fields (issue 20
section 5): a name with a bidi override could visually rewrite a log line, an invisible
one could pass for another name. 422 with a code, nothing appended."""

from __future__ import annotations

from typing import Any

import pytest

from tests.e2e.conftest import Api

FORMAT = {
    "right-to-left-override": "\u202e",
    "left-to-right-embedding": "\u202a",
    "pop-directional": "\u202c",
    "right-to-left-isolate": "\u2067",
    "first-strong-isolate": "\u2068",
    "pop-isolate": "\u2069",
    "zero-width-space": "\u200b",
    "zero-width-joiner": "\u200d",
    "zero-width-non-joiner": "\u200c",
    "left-to-right-mark": "\u200e",
    "byte-order-mark": "\ufeff",
    "word-joiner": "\u2060",
    "soft-hyphen": "\u00ad",
    "arabic-letter-mark": "\u061c",
    "tag-character": "\U000e0041",
}


def fields(ch: str) -> list[dict[str, Any]]:
    return [
        {"type": "add_combatant", "name": f"Gua{ch}rd", "side": "a", "preset": "guard"},
        {"type": "add_combatant", "name": "Ann", "side": f"wat{ch}ch", "preset": "guard"},
        {"type": "roll", "expr": "1d6", "purpose": f"dmg{ch}"},
    ]


@pytest.mark.parametrize("ch", list(FORMAT.values()), ids=list(FORMAT))
def test_a_format_character_in_a_single_line_field_is_refused_and_nothing_is_appended(
    api: Api, ch: str
) -> None:
    made = api.create()
    eid, gm = made["id"], made["gm_token"]
    before = api.board(eid, gm)["version"]
    for body in fields(ch):
        r = api.command(eid, gm, body)
        assert r.status_code == 422, (body, r.text)
        error = r.json()["error"]
        assert error["code"] == "invalid"
        assert f"U+{ord(ch):04X}" in error["message"]
    assert api.board(eid, gm)["version"] == before
    r = api.http.post("/api/encounters", json={"ruleset": "plain-d100", "name": f"Am{ch}bush"})
    assert r.status_code == 422 and r.json()["error"]["code"] == "invalid"


def test_names_in_other_scripts_and_emoji_are_still_accepted(api: Api) -> None:
    made = api.create()
    eid, gm = made["id"], made["gm_token"]
    for name in ("Élodie", "Ρέα", "Ярослава", "ليلى", "渡辺", "Guard 🛡️"):
        api.ok(eid, gm, {"type": "add_combatant", "name": name, "side": "a", "preset": "guard"})
    names = {c["name"] for c in api.board(eid, gm)["combatants"]}
    assert "ليلى" in names and "Guard 🛡️" in names
