"""`POST /api/simulate` (NA-37..NA-40): the 1v1 resolver over HTTP, on a real server."""

from __future__ import annotations

import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx
import pytest

from domain.rules.d20_na.resolver import simulate
from projections.log import narrate
from tests.e2e.conftest import Api

NAMES = ("Milicien", "Fangeux")
DUEL = {"ruleset": "d20-na", "a": "milicien", "b": "fangeux", "fights": 100, "seed": 7}


def post(api: Api, body: dict[str, Any]) -> Any:
    return api.http.post("/api/simulate", json=body, timeout=60)


def test_the_api_gives_the_numbers_of_the_domain_resolver(api: Api) -> None:
    r = post(api, DUEL)
    assert r.status_code == 200, r.text
    got = r.json()
    want = simulate("milicien", "fangeux", 100, seed=7, names=NAMES)
    assert got["fights"] == 100 and got["seed"] == "7"
    assert got["wins"] == want.wins and got["draws"] == want.draws
    for side in ("a", "b"):
        rate = want.rates[side]
        assert got["rates"][side] == {"rate": rate.rate, "low": rate.low, "high": rate.high}
        assert got["rates"][side]["low"] <= got["rates"][side]["rate"] <= got["rates"][side]["high"]
    assert got["mean_rounds"] == want.mean_rounds and got["sd_rounds"] == want.sd_rounds
    assert got["mean_damage_per_hit"] == want.mean_damage_per_hit
    assert want.example is not None
    assert got["narration"] == narrate(want.example.events, "en")
    assert "Round 1" in got["narration"] and "Fangeux attacks Milicien" in got["narration"]
    assert got["names"] == {"a": "Milicien", "b": "Fangeux"}
    assert "Milicien wins" in got["report"] and "95% CI" in got["report"]
    hist = got["histograms"]
    assert sum(b["count"] for b in hist["rounds"]) == got["fights"]
    assert all(b["low"] <= b["high"] for b in hist["rounds"] + hist["damage_per_hit"])
    assert "rounds per fight:" in got["report"] and "█" in got["report"]
    assert "encounter" not in got


def test_the_same_seed_gives_the_same_answer_and_french_narrates_in_french(api: Api) -> None:
    first, again = post(api, DUEL).json(), post(api, DUEL).json()
    assert first == again
    other = post(api, {**DUEL, "seed": 8}).json()
    assert other["narration"] != first["narration"] or other["wins"] != first["wins"]
    fr = post(api, {**DUEL, "lang": "fr"}).json()
    assert fr["wins"] == first["wins"] and "Fangeux attaque Milicien" in fr["narration"]
    assert "Milicien gagne" in fr["report"]
    unseeded = post(api, {"ruleset": "d20-na", "a": "milicien", "b": "fangeux", "fights": 3})
    assert unseeded.status_code == 200 and unseeded.json()["seed"]


def test_sheets_with_names_and_preset_overrides(api: Api) -> None:
    weakling = {
        "STR": 2, "END": 1, "HAB": 5, "ATT": 4, "PAR": 3, "NA": 1, "hp": 20,
        "weapons": [{"name": "stick", "dmg": 1}], "name": "Weakling",
    }  # fmt: skip
    body = {**DUEL, "a": {"preset": "fangeux", "FOR": 12, "name": "Brute"}, "b": weakling}
    r = post(api, body)
    assert r.status_code == 200, r.text
    got = r.json()
    assert got["names"] == {"a": "Brute", "b": "Weakling"}
    assert got["rates"]["a"]["rate"] > 0.9
    # {"preset": ..., "name": ...} alone is the preset itself: the same duel as by name.
    named = post(api, {**DUEL, "a": {"preset": "milicien", "name": "Bob"}}).json()
    plain = post(api, DUEL).json()
    assert named["wins"] == plain["wins"] and named["names"]["a"] == "Bob"


def test_save_stores_the_told_fight_as_an_encounter_that_verifies(api: Api) -> None:
    seed = f"api-save-{uuid.uuid4().hex[:8]}"
    r = post(api, {**DUEL, "seed": seed, "save": True})
    assert r.status_code == 200, r.text
    got = r.json()
    enc = got["encounter"]
    eid = enc["id"]
    assert enc["saved"] is True and enc["board"].startswith(f"/e/{eid}#token=")
    report = api.http.get(f"/api/encounters/{eid}/verify").json()
    assert report["chain"] is True and report["dice"] is True and report["rolls_checked"] > 0
    assert report["problems"] == [] and report["first_problem"] is None
    token = enc["board"].split("#token=")[1]
    board = api.http.get(
        f"/api/encounters/{eid}", headers={"Authorization": f"Bearer {token}"}
    ).json()
    assert board["encounter"]["ruleset"] == "d20-na" and board["encounter"]["closed"]
    assert board["winner"] is not None and "main" in board["dice"]["revealed"]
    again = post(api, {**DUEL, "seed": seed, "save": True}).json()
    assert again["encounter"]["id"] == eid and again["encounter"]["saved"] is False
    # The encounter id comes from the seed: other fighters cannot claim the stored fight.
    other = post(api, {**DUEL, "b": "milicien", "seed": seed, "save": True})
    assert other.status_code == 409 and other.json()["error"]["code"] == "conflict"


def test_saves_of_one_seed_racing_each_other_store_one_fight_and_never_fail(api: Api) -> None:
    """Six saves of the same seed at once: one stores the fight, the others find it stored
    or answer 409 (the seed row or the events were written by the winner meanwhile);
    none answers 5xx, and the stream holds the fight once."""
    seed = f"api-race-{uuid.uuid4().hex[:8]}"
    body = {**DUEL, "fights": 20, "seed": seed, "save": True}
    with ThreadPoolExecutor(6) as pool:
        answers = list(pool.map(lambda _: post(api, body), range(6)))
    assert sorted({r.status_code for r in answers}) in ([200], [200, 409]), [
        r.text for r in answers
    ]
    saved = [r.json()["encounter"] for r in answers if r.status_code == 200]
    assert sum(e["saved"] for e in saved) == 1 and len({e["id"] for e in saved}) == 1
    for r in answers:
        if r.status_code == 409:
            assert r.json()["error"]["code"] == "conflict"
    report = api.http.get(f"/api/encounters/{saved[0]['id']}/verify").json()
    assert report["chain"] is True and report["dice"] is True and report["problems"] == []


TWO_HANDED_WITH_SHIELD = {
    "preset": "milicien",
    "weapons": [{"name": "bow", "kind": "shoot", "dmg": 8, "two_handed": True}],
    "shield": {"name": "s", "parry": 3},
}


@pytest.mark.parametrize(
    ("change", "rule"),
    [
        ({"bogus": 1}, None),
        ({"fights": 0}, None),
        ({"fights": 5000}, None),
        ({"lang": "de"}, None),
        ({"a": "nobody"}, None),
        ({"b": TWO_HANDED_WITH_SHIELD}, "NA-19"),
        ({"ruleset": "plain-d100"}, "NA-37"),
        ({"ruleset": "chess"}, None),
    ],
)
def test_bad_input_is_refused_with_422_and_a_code(
    api: Api, change: dict[str, Any], rule: str | None
) -> None:
    r = post(api, {**DUEL, **change})
    assert r.status_code == 422, r.text
    error = r.json()["error"]
    # A rule's refusal is a rule_violation with its rule id; anything else is invalid.
    assert error["code"] == ("rule_violation" if rule else "invalid") and error["message"]
    assert error.get("rule") == rule


def test_a_missing_fighter_and_bad_json_are_refused(api: Api) -> None:
    r = post(api, {"ruleset": "d20-na", "a": "milicien"})
    assert r.status_code == 422 and r.json()["error"]["code"] == "invalid"
    r = api.http.post("/api/simulate", content=b"{not json")
    assert r.status_code == 400 and r.json()["error"]["code"] == "invalid"


def test_the_server_keeps_serving_while_it_simulates(api: Api) -> None:
    """The duels run in a worker thread: other requests are answered meanwhile."""
    body = {**DUEL, "fights": 2000, "seed": "busy"}
    with ThreadPoolExecutor(1) as pool:
        running = pool.submit(post, api, body)
        time.sleep(0.3)
        started = time.monotonic()
        health = httpx.get(api.base + "/healthz", timeout=10)
        waited = time.monotonic() - started
        busy = not running.done()
        done = running.result()
    assert health.status_code == 200 and done.status_code == 200, done.text
    assert done.json()["fights"] == 2000
    if busy:  # the simulation was still running when /healthz was answered
        assert waited < 1.0, waited
