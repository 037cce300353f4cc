"""GET /api/encounters/{id}/dice and /api/campaigns/{id}/dice: faces per die size,
server and manual dice apart, hidden rolls counted for others only after close."""

from __future__ import annotations

from typing import Any

from tests.e2e.conftest import Api
from tests.e2e.test_campaign_http import j1_and_j2


def dice(api: Api, path: str, token: str | None = None) -> dict[str, Any]:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    r = api.http.get(path, headers=headers)
    assert r.status_code == 200, r.text
    answer: dict[str, Any] = r.json()
    return answer


def test_encounter_dice_are_counted_per_source_and_filtered_per_role(api: Api) -> None:
    made = api.create()
    eid, gm = made["id"], made["gm_token"]
    for _ in range(4):
        api.ok(eid, gm, {"type": "roll", "expr": "3d6", "purpose": "test"})
    api.ok(eid, gm, {"type": "roll", "expr": "1d20", "purpose": "secret", "hidden": True})
    api.ok(eid, gm, {"type": "roll", "expr": "2d6", "purpose": "table", "dice": [6, 6]})
    path = f"/api/encounters/{eid}/dice"

    public = dice(api, path)
    assert public == dice(api, path, made["spectator_token"])
    assert set(public) == {"server", "manual"}
    d6 = public["server"]["d6"]
    assert d6["rolls"] == 12 and sum(d6["faces"].values()) == 12
    assert list(d6["faces"]) == ["1", "2", "3", "4", "5", "6"]
    assert d6["df"] == 5 and 0.0 <= d6["p_value"] <= 1.0 and d6["chi2"] >= 0
    assert "d20" not in public["server"]  # the hidden roll, not before close
    assert public["manual"]["d6"]["faces"]["6"] == 2 and public["manual"]["d6"]["rolls"] == 2

    as_gm = dice(api, path, gm)
    assert as_gm["server"]["d20"]["rolls"] == 1
    assert as_gm["server"]["d20"]["df"] == 19

    api.ok(eid, gm, {"type": "close"})
    after = dice(api, path)
    assert after["server"]["d20"] == as_gm["server"]["d20"]
    assert after["server"]["d6"] == d6


def test_encounter_dice_refuse_a_foreign_token_and_an_unknown_encounter(api: Api) -> None:
    made, other = api.create(), api.create()
    r = api.http.get(
        f"/api/encounters/{made['id']}/dice",
        headers={"Authorization": f"Bearer {other['gm_token']}"},
    )
    assert r.status_code == 401 and r.json()["error"]["code"] == "unauthorized"
    r = api.http.get("/api/encounters/00000000-0000-4000-8000-000000000000/dice")
    assert r.status_code == 404 and r.json()["error"]["code"] == "not_found"
    assert api.http.get("/api/encounters/nope/dice").status_code in (400, 404)


def test_a_wars_dice_add_up_its_closed_encounters(api: Api) -> None:
    w, _j1, _j2 = j1_and_j2(api)
    path = f"/api/campaigns/{w.id}/dice"
    assert dice(api, path, w.gm)["server"] == {}
    totals = 0
    for _ in range(2):
        made = w.open_encounter()
        eid = made["id"]
        for _ in range(3):
            api.ok(eid, made["gm_token"], {"type": "roll", "expr": "2d6", "purpose": "x"})
        api.ok(
            eid, made["gm_token"], {"type": "roll", "expr": "1d8", "purpose": "x", "hidden": True}
        )
        totals += 6
        api.ok(eid, made["gm_token"], {"type": "close"})
    answer = dice(api, path)
    assert answer["server"]["d6"]["rolls"] == totals
    assert answer["server"]["d8"]["rolls"] == 2  # hidden, but every encounter is closed
    assert len(answer["encounters"]) == 2
    assert dice(api, path, w.gm)["server"] == answer["server"]
    r = api.http.get(path, headers={"Authorization": "Bearer nonsense"})
    assert r.status_code == 401
    assert (
        api.http.get("/api/campaigns/00000000-0000-4000-8000-000000000000/dice").status_code == 404
    )
