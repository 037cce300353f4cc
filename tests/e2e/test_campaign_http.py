"""The War over HTTP (stream `campaign-<uuid>`): characters that persist between
encounters, the daily cycle (RK-27..RK-29), Luck uses per War (RK-51), and an encounter
opened in the War that takes its combatants from it and carries its outcome back."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx

from tests.e2e.conftest import Api
from tests.e2e.test_ranks_http import master, servant


class WarClient:
    """One War driven over HTTP by its GM."""

    def __init__(self, api: Api, settings: dict[str, Any] | None = None) -> None:
        r = api.http.post(
            "/api/campaigns",
            json={"name": "Fifth War", "ruleset": "ranks-d100", "settings": settings or {}},
        )
        assert r.status_code == 201, r.text
        made = r.json()
        assert set(made) >= {"id", "version", "gm_token"}
        self.api, self.id, self.gm = api, made["id"], made["gm_token"]

    def command(self, body: Any, token: str | None = None) -> httpx.Response:
        headers = {"Authorization": f"Bearer {token or self.gm}"}
        return self.api.http.post(f"/api/campaigns/{self.id}/commands", json=body, headers=headers)

    def ok(self, body: dict[str, Any]) -> dict[str, Any]:
        r = self.command(body)
        assert r.status_code == 200, r.text
        answer: dict[str, Any] = r.json()
        return answer

    def enroll(self, name: str, sheet: dict[str, Any], master: str | None = None) -> str:
        body: dict[str, Any] = {"type": "enroll", "name": name, "sheet": sheet}
        body |= {"master": master} if master else {}
        cid: str = self.ok(body)["character_id"]
        return cid

    def state(self) -> dict[str, Any]:
        r = self.api.http.get(f"/api/campaigns/{self.id}")
        assert r.status_code == 200, r.text
        state: dict[str, Any] = r.json()
        return state

    def char(self, cid: str) -> dict[str, Any]:
        found: dict[str, Any] = next(c for c in self.state()["characters"] if c["id"] == cid)
        return found

    def open_encounter(self, **extra: Any) -> dict[str, Any]:
        r = self.api.http.post(
            "/api/encounters",
            json={"ruleset": "ranks-d100", "name": "Skirmish", "campaign": self.id, **extra},
            headers={"Authorization": f"Bearer {self.gm}"},
        )
        assert r.status_code == 201, r.text
        made: dict[str, Any] = r.json()
        return made


def presets(api: Api) -> dict[str, dict[str, Any]]:
    rulesets = api.http.get("/api/rulesets").json()
    found: dict[str, dict[str, Any]] = next(r for r in rulesets if r["id"] == "ranks-d100")[
        "presets"
    ]
    return found


def j1_and_j2(api: Api) -> tuple[WarClient, str, str]:
    w = WarClient(api)
    sheets = presets(api)
    return w, w.enroll("J1", sheets["J1"]), w.enroll("J2", sheets["J2"])


def board(api: Api, made: dict[str, Any]) -> dict[str, Any]:
    r = api.http.get(
        f"/api/encounters/{made['id']}", headers={"Authorization": f"Bearer {made['gm_token']}"}
    )
    assert r.status_code == 200, r.text
    found: dict[str, Any] = r.json()
    return found


def by_name(made_board: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {c["name"]: c for c in made_board["combatants"]}


def test_a_war_encounter_fights_with_the_wars_pools_and_carries_them_back(api: Api) -> None:
    w, j1, j2 = j1_and_j2(api)
    state = w.state()
    assert state["day"] == 0
    assert all("sheet" not in c for c in state["characters"])  # the public view
    r = api.http.get(f"/api/campaigns/{w.id}", headers={"Authorization": f"Bearer {w.gm}"})
    assert r.json()["characters"][0]["sheet"]["MANA_STAT"] == "EX"
    assert [(c["name"], c["hp"], c["mana"], c["luck"]) for c in state["characters"]] == [
        ("J1", 70, 100, 2),
        ("J2", 60, 50, 7),
    ]
    # Both arrive hurt: the War's pools go into the encounter (RK-24).
    w.ok({"type": "settle_character", "character_id": j1, "hp": 65, "mana": 100, "luck": 2})
    made = w.open_encounter()
    assert [(c["character_id"], c["name"]) for c in made["combatants"]] == [
        (j1, "J1"),
        (j2, "J2"),
    ]
    eid, gm = made["id"], made["gm_token"]
    seen = by_name(board(api, made))
    assert seen["J1"]["resources"] == {"hp": 65, "mana": 100, "luck": 2}
    assert seen["J2"]["resources"] == {"hp": 60, "mana": 50, "luck": 7}
    assert board(api, made)["encounter"]["campaign"] == w.id
    c1, c2 = seen["J1"]["id"], seen["J2"]["id"]
    # The RK-74 exchange: J1's magic attack, J2's Luck die and dodge.
    api.ok(eid, gm, {"type": "start_combat", "dice": [90, 65]})
    api.ok(
        eid,
        gm,
        {
            "type": "act",
            "actor": c1,
            "action": "attack_magic",
            "target": c2,
            "rank": "A",
            "dice": [11],
        },
    )
    api.ok(eid, gm, {"type": "act", "actor": c2, "action": "luck", "dice": [8]})
    api.ok(eid, gm, {"type": "react", "actor": c2, "reaction": "defend_agi", "dice": [46]})
    # The War does not move before the close.
    assert w.char(j1)["mana"] == 100 and w.state()["encounters"] == []
    closed = api.ok(eid, gm, {"type": "close"})
    assert closed["campaign"]["carried"] is True
    after = w.state()
    assert after["encounters"] == [eid]
    assert (w.char(j1)["hp"], w.char(j1)["mana"], w.char(j1)["luck"]) == (65, 75, 2)
    assert (w.char(j2)["hp"], w.char(j2)["mana"], w.char(j2)["luck"]) == (50, 50, 6)
    # Carrying back twice does not apply twice.
    again = w.ok({"type": "carry_back", "encounter": eid})
    assert again["carried"] is False and w.state()["version"] == after["version"]


def test_RK_27_RK_28_RK_29_a_new_day_recovers_50_capped_then_pays_the_upkeep(api: Api) -> None:
    w, j1, j2 = j1_and_j2(api)
    berserker = w.enroll("Heracles", servant(rarity=3, **{"class": "Berserker"}), master=j1)
    w.ok({"type": "settle_character", "character_id": j1, "hp": 10, "mana": 40, "luck": 2})
    w.ok({"type": "settle_character", "character_id": j2, "hp": 30, "mana": 45, "luck": 7})
    answer = w.ok({"type": "new_day"})
    kinds = [e["type"] for e in answer["events"]]
    assert kinds[0] == "day_started" and "upkeep_paid" in kinds
    paid = next(e["data"] for e in answer["events"] if e["type"] == "upkeep_paid")
    assert (paid["servant_id"], paid["amount"], paid["rule"]) == (berserker, 25, "RK-29")
    state = w.state()
    assert state["day"] == 1
    # J1: 10 + 50 HP; 40 + 50 mana, then 15 (R3) + 10 (Berserker) upkeep.
    assert (w.char(j1)["hp"], w.char(j1)["mana"]) == (60, 65)
    # J2: 30 + 50 HP capped at 60; 45 + 50 mana capped at 50 (RK-AMB-8).
    assert (w.char(j2)["hp"], w.char(j2)["mana"]) == (60, 50)
    w2 = WarClient(api)
    m = w2.enroll("M", master(MANA_STAT="EX"))
    w2.enroll("S", servant(rarity=2), master=m)
    w2.ok({"type": "new_day"})
    assert w2.char(m)["mana"] == 100 - 10  # RK-28: R2 costs 10


def test_RK_51_luck_uses_persist_across_the_encounters_of_a_war(api: Api) -> None:
    w, _, j2 = j1_and_j2(api)
    for day, left in ((1, 6), (2, 5)):
        w.ok({"type": "new_day"})
        assert w.state()["day"] == day
        made = w.open_encounter()
        eid, gm = made["id"], made["gm_token"]
        seen = by_name(board(api, made))
        c2 = seen["J2"]["id"]
        assert seen["J2"]["resources"]["luck"] == left + 1  # not refilled by the new Day
        api.ok(eid, gm, {"type": "start_combat", "dice": [10, 90]})  # J2 first
        api.ok(eid, gm, {"type": "act", "actor": c2, "action": "luck", "dice": [50]})
        api.ok(eid, gm, {"type": "close"})
        assert w.char(j2)["luck"] == left


def test_half_ranks_used_in_an_encounter_are_carried_to_the_war(api: Api) -> None:
    w = WarClient(api)
    a = w.enroll("A", master(STR="C+"))
    w.enroll("B", master())
    made = w.open_encounter()
    eid, gm = made["id"], made["gm_token"]
    seen = by_name(board(api, made))
    api.ok(eid, gm, {"type": "start_combat", "dice": [99, 1]})
    api.ok(
        eid,
        gm,
        {
            "type": "act",
            "actor": seen["A"]["id"],
            "action": "attack_physical",
            "target": seen["B"]["id"],
            "options": {"activate": ["STR"]},
            "dice": [90],
        },
    )
    api.ok(eid, gm, {"type": "close"})
    assert w.char(a)["half_ranks_used"] == ["STR"]
    w.ok({"type": "new_day"})
    assert w.char(a)["half_ranks_used"] == []  # RK-8: once per RP, and a Day is one RP


def test_the_dead_and_the_sidelined_stay_out_of_the_next_encounter(api: Api) -> None:
    w, _, j2 = j1_and_j2(api)
    w.ok({"type": "settle_character", "character_id": j2, "hp": 0, "mana": 10, "luck": 7})
    made = w.open_encounter()
    assert [c["name"] for c in made["combatants"]] == ["J1"]
    api.ok(made["id"], made["gm_token"], {"type": "close"})
    assert w.char(j2)["dead"] and w.char(j2)["hp"] == 0  # RK-25: the dead do not return


def test_war_tokens_are_checked(api: Api) -> None:
    w, _, _ = j1_and_j2(api)
    other = WarClient(api)
    before = w.state()["version"]
    body = {"type": "new_day"}
    r = api.http.post(f"/api/campaigns/{w.id}/commands", json=body)
    assert (r.status_code, r.json()["error"]["code"]) == (401, "unauthorized")
    assert w.command(body, token="nope").status_code == 401
    assert w.command(body, token=other.gm).status_code == 401
    made = api.create("ranks-d100")  # an encounter's GM token is not the War's
    assert w.command(body, token=made["gm_token"]).status_code in (401, 403)
    r = api.http.get(f"/api/campaigns/{w.id}", headers={"Authorization": "Bearer nope"})
    assert r.status_code == 401
    # Opening an encounter in the War takes the War's GM token.
    opening = {"ruleset": "ranks-d100", "name": "x", "campaign": w.id}
    r = api.http.post("/api/encounters", json=opening)
    assert (r.status_code, r.json()["error"]["code"]) == (401, "unauthorized")
    r = api.http.post(
        "/api/encounters", json=opening, headers={"Authorization": f"Bearer {other.gm}"}
    )
    assert r.status_code == 401
    assert w.state()["version"] == before


def test_malformed_or_refused_war_commands_append_nothing(api: Api) -> None:
    w, j1, j2 = j1_and_j2(api)
    before = w.state()["version"]
    bodies: list[Any] = [
        {"type": "new_day", "extra": 1},
        {"type": "enroll"},
        {"type": "enroll", "name": "", "sheet": {}},
        {"type": "transfer_mana", "giver": j1, "receiver": j2, "amount": 0},
        {"type": "settle_character", "character_id": j1, "hp": -1, "mana": 1, "luck": 1},
        {"type": "fly"},
        {"type": "carry_back", "encounter": "not-a-uuid-at-all-but-long-enough-x"},
        [],
    ]
    for body in bodies:
        r = w.command(body)
        assert (r.status_code, r.json()["error"]["code"]) == (422, "invalid"), (body, r.text)
    r = api.http.post(
        f"/api/campaigns/{w.id}/commands",
        content=b"{nope",
        headers={"Authorization": f"Bearer {w.gm}"},
    )
    assert (r.status_code, r.json()["error"]["code"]) == (400, "invalid")
    # Well-formed but refused by the rules: the rule id comes back.
    r = w.command({"type": "transfer_mana", "giver": j1, "receiver": j2, "amount": 5})
    assert r.status_code == 422 and r.json()["error"]["rule"] == "RK-30"
    r = w.command({"type": "enroll", "name": "X", "sheet": master(STR="EX", END="EX")})
    assert (r.status_code, r.json()["error"]["rule"]) == (422, "RK-31")
    r = w.command({"type": "transfer_mana", "giver": "p9", "receiver": j2, "amount": 5})
    assert (r.status_code, r.json()["error"]["code"]) == (404, "not_found")
    assert w.state()["version"] == before


def test_creating_a_war_and_unknown_wars(api: Api) -> None:
    r = api.http.post("/api/campaigns", json={"name": "W", "ruleset": "d20-na"})
    error = r.json()["error"]
    assert (r.status_code, error["code"], error["rule"]) == (422, "rule_violation", "RK-AMB-9")
    for body in (
        {"name": "", "ruleset": "ranks-d100"},
        {"name": "W", "ruleset": "ranks-d100", "settings": {"nope": 1}},
        {"name": "W", "ruleset": "ranks-d100", "settings": {"crit.fail_min": "x"}},
        {"name": "W", "ruleset": "ranks-d100", "extra": True},
    ):
        r = api.http.post("/api/campaigns", json=body)
        assert (r.status_code, r.json()["error"]["code"]) == (422, "invalid"), (body, r.text)
    missing = "6d1c2a8e-0f4b-4e3a-9c5d-7b2e1f0a9d84"
    assert api.http.get(f"/api/campaigns/{missing}").status_code == 404
    assert api.http.get("/api/campaigns/not-a-uuid").status_code == 404
    r = api.http.post(
        "/api/encounters", json={"ruleset": "ranks-d100", "name": "x", "campaign": missing}
    )
    assert r.status_code in (401, 404)


def test_a_war_encounter_takes_the_wars_settings_and_only_ranks_d100(api: Api) -> None:
    w = WarClient(api, {"tables": {"reduction.master.B": 30}})
    sheets = presets(api)
    w.enroll("J1", sheets["J1"])
    w.enroll("J2", sheets["J2"])
    made = w.open_encounter()
    assert board(api, made)["encounter"]["settings"] == {"tables": {"reduction.master.B": 30}}
    r = api.http.post(
        "/api/encounters",
        json={"ruleset": "plain-d100", "name": "x", "campaign": w.id},
        headers={"Authorization": f"Bearer {w.gm}"},
    )
    assert (r.status_code, r.json()["error"]["code"]) == (422, "invalid")


def test_a_war_seen_from_the_second_server(api: Api, api2: Api) -> None:
    w, _, _ = j1_and_j2(api)
    w.ok({"type": "new_day"})
    r = api2.http.get(f"/api/campaigns/{w.id}")
    assert r.status_code == 200 and r.json()["day"] == 1


def test_carry_back_needs_a_closed_encounter_of_this_war(api: Api) -> None:
    w, _, _ = j1_and_j2(api)
    made = w.open_encounter()
    r = w.command({"type": "carry_back", "encounter": made["id"]})
    assert (r.status_code, r.json()["error"]["code"]) == (422, "rule_violation")
    elsewhere = api.create("ranks-d100")
    r = w.command({"type": "carry_back", "encounter": elsewhere["id"]})
    assert (r.status_code, r.json()["error"]["code"]) == (422, "invalid")
    assert w.state()["encounters"] == []


def test_text_the_database_cannot_store_is_refused(api: Api) -> None:
    r = api.http.post("/api/campaigns", json={"name": "a\u0000b", "ruleset": "ranks-d100"})
    assert (r.status_code, r.json()["error"]["code"]) == (422, "invalid")
    w = WarClient(api)
    r = w.command({"type": "enroll", "name": "a\u0000b", "sheet": master()})
    assert (r.status_code, r.json()["error"]["code"]) == (422, "invalid")


def test_concurrent_war_commands_through_both_servers_all_land_once(api: Api, api2: Api) -> None:
    w, _, _ = j1_and_j2(api)
    headers = {"Authorization": f"Bearer {w.gm}"}

    def send(i: int) -> int:
        client = (api, api2)[i % 2].http
        url = f"/api/campaigns/{w.id}/commands"
        r = client.post(url, json={"type": "new_day"}, headers=headers)
        assert r.status_code in (200, 409), r.text
        return r.status_code

    with ThreadPoolExecutor(6) as pool:
        codes = list(pool.map(send, range(6)))
    assert w.state()["day"] == codes.count(200) >= 1
