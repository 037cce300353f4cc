"""GET /api/encounters/{id}/export over HTTP: the forum post and the last turn, in either
language, with hidden rolls and GM-only resources only when the GM asks."""

from __future__ import annotations

from typing import Any

from tests.e2e.conftest import Api
from tests.e2e.test_http import setup_fight


def played(api: Api) -> dict[str, Any]:
    """Guard hits Bandit, who takes it; a hidden roll; Guard's HP kept from the players."""
    f = setup_fight(api)
    api.ok(f["id"], f["gm"], {"type": "add_combatant", "name": "Ogre", "side": "outlaws",
                              "preset": "bandit", "hidden": ["hp"]})  # fmt: skip
    api.ok(f["id"], f["gm"], {"type": "act", "actor": "c1", "action": "attack", "target": "c2",
                              "dice": [10]})  # fmt: skip
    api.ok(f["id"], f["gm"], {"type": "react", "actor": "c2", "reaction": "none"})
    api.ok(f["id"], f["gm"], {"type": "roll", "expr": "1d20", "hidden": True,
                              "purpose": "the ogre wakes", "dice": [17]})  # fmt: skip
    return f


def export(api: Api, f: dict[str, Any], token: str | None, **params: str) -> Any:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return api.http.get(f"/api/encounters/{f['id']}/export", params=params, headers=headers)


def test_the_last_turn_is_served_as_a_forum_post_in_french(api: Api) -> None:
    f = played(api)
    r = export(api, f, f["gm"], format="bbcode", scope="last_turn", lang="fr")
    assert r.status_code == 200, r.text
    post = r.text
    # The round's order is not in the last turn; the Ogre's, who came in during it, is.
    assert "[b]Tour de Guard[/b]" in post and post.count("Initiative") == 1
    (order,) = [line for line in post.splitlines() if "Initiative" in line]
    assert "Initiative : " in order and "Ogre" in order
    assert "Bandit ne se défend pas : 8 dégâts, PV 24 -> 16" in post
    assert f"/e/{f['id']}?roll=4]#4[/url]" in post and post.count("[url=http://") >= 1
    assert "ogre wakes" not in post


def test_hidden_rolls_and_resources_need_the_gm_and_include_hidden(api: Api) -> None:
    f = played(api)
    for token in (f["alice"], f["spectator"], None):
        page = export(api, f, token, format="text", include_hidden="true").text
        assert "ogre wakes" not in page and "Ogre (side outlaws): HP" not in page
    gm = export(api, f, f["gm"], format="markdown").text
    assert "ogre wakes" not in gm and "Ogre (side outlaws): HP" not in gm
    asked = export(api, f, f["gm"], format="markdown", include_hidden="true").text
    assert "ogre wakes" in asked and "Ogre (side outlaws): HP 24/24" in asked


def test_bad_export_parameters_are_4xx_json(api: Api) -> None:
    f = played(api)
    for params in ({"format": "pdf"}, {"format": "text", "scope": "week"},
                   {"format": "text", "lang": "de"},
                   {"format": "text", "include_hidden": "maybe"}):  # fmt: skip
        r = export(api, f, f["gm"], **params)
        assert r.status_code == 400 and r.json()["error"]["code"] == "invalid", params
