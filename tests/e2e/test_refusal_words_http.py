"""Real refused HTTP commands in each rule system answer a reason key, its params, and
English and French words that name the facts (combatants by name, weapons, ranks): never
a generic "impossible pour l'instant", None, a repr or a raw combatant id."""

from __future__ import annotations

import re
from typing import Any

import pytest

from projections.words.refusals import WORDS
from tests.e2e.conftest import Api


def refused(api: Api, eid: str, token: str, body: dict[str, Any]) -> dict[str, Any]:
    r = api.command(eid, token, body)
    assert 400 <= r.status_code < 500, r.text
    error: dict[str, Any] = r.json()["error"]
    assert error["reason"] and isinstance(error["params"], dict), error
    assert error["reason"] in WORDS, error
    for text in (error["message"], error["message_fr"]):
        assert not re.search(r"\bNone\b|\bc\d+\b|<\w+ object|impossible pour l'instant", text), (
            error
        )
    return error


def started(
    api: Api, ruleset: str, a: dict[str, Any], b: dict[str, Any]
) -> tuple[str, str, str, str]:
    """An encounter of `ruleset` with Aldric (side a) and Élise (side b), combat started:
    (id, GM token, the actor's id, the other's id)."""
    made = api.create(ruleset)
    eid, gm = made["id"], made["gm_token"]
    api.ok(eid, gm, {"type": "add_combatant", "name": "Aldric", "side": "a", **a})
    api.ok(eid, gm, {"type": "add_combatant", "name": "Élise", "side": "b", **b})
    dice = {"plain-d100": [99, 1], "ranks-d100": [99, 1]}.get(ruleset)
    api.ok(eid, gm, {"type": "start_combat", **({"dice": dice} if dice else {})})
    actor = api.board(eid, gm)["actor"]
    return eid, gm, actor, "c2" if actor == "c1" else "c1"


def name_of(cid: str) -> str:
    return "Aldric" if cid == "c1" else "Élise"


def de(name: str) -> str:
    return f"d'{name}" if name[0] in "AEIOUÉ" else f"de {name}"


PRESETS = {"plain-d100": ("guard", "bandit"), "d20-na": ("milicien", "fangeux"),
           "ranks-d100": ("J1", "J2"), "d100-tcs": ("duelist", "spearman")}  # fmt: skip


@pytest.mark.parametrize("ruleset", sorted(PRESETS))
def test_a_command_out_of_turn_is_refused_in_french_naming_the_combatant(
    api: Api, ruleset: str
) -> None:
    presets = PRESETS[ruleset]
    eid, gm, actor, other = started(api, ruleset, {"preset": presets[0]}, {"preset": presets[1]})
    error = refused(api, eid, gm, {"type": "end_turn", "actor": other})
    assert error["code"] == "not_your_turn" and error["params"] == {"actor": other}, error
    assert error["message_fr"] == f"ce n'est pas le tour {de(name_of(other))}"
    assert error["message"] == f"it is not {name_of(other)}'s turn"
    react = refused(api, eid, gm, {"type": "react", "actor": actor, "reaction": "none"})
    assert name_of(actor) in react["message_fr"], react


def test_plain_d100_a_second_attack_says_whose_limit_in_french(api: Api) -> None:
    eid, gm, actor, other = started(api, "plain-d100", {"preset": "guard"}, {"preset": "bandit"})
    body = {"type": "act", "actor": actor, "action": "attack", "target": other}
    api.ok(eid, gm, {**body, "dice": [99]})
    error = refused(api, eid, gm, body)
    assert error["reason"] == "limit_used" and error["rule"] == "PD-2"
    assert (
        error["message_fr"]
        == f"{name_of(actor)} a déjà utilisé son attaque de ce tour (1 par tour)"
    )


def test_d20_na_sheet_and_weapon_refusals_name_the_weapon_in_french(api: Api) -> None:
    made = api.create("d20-na")
    bow = {"name": "arc", "kind": "shoot", "dmg": 8, "two_handed": True}
    sheet = {"STR": 10, "END": 5, "HAB": 10, "ATT": 12, "PAR": 10, "TIR": 10, "NA": 1, "INI": 5,
             "hp": 100, "weapons": [bow], "shield": {"name": "rondache", "parry": 3}}  # fmt: skip
    body = {"type": "add_combatant", "name": "Aldric", "side": "a", "sheet": sheet}
    error = refused(api, made["id"], made["gm_token"], body)
    assert (error["reason"], error["rule"], error["params"]) == (
        "two_handed_with_shield", "NA-19", {"weapon": "arc"},
    )  # fmt: skip
    assert error["message_fr"] == "arc se manie à deux mains et ne s'utilise pas avec un bouclier"
    eid, gm, actor, other = started(api, "d20-na", {"preset": "milicien"}, {"preset": "fangeux"})
    shot = refused(
        api, eid, gm, {"type": "act", "actor": actor, "action": "throw", "target": other}
    )
    assert shot["message_fr"].startswith("aucune arme de jet"), shot


def test_ranks_d100_a_rank_above_the_cap_is_refused_in_french_with_its_ranks(api: Api) -> None:
    j = {"kind": "master", "MAGIC": "C", **{s: "C" for s in ("END", "AGI", "MANA_STAT", "LCK")}}
    eid, gm, actor, other = started(api, "ranks-d100", {"sheet": {**j, "STR": "B"}},
                                    {"sheet": {**j, "STR": "C"}})  # fmt: skip
    body = {"type": "act", "actor": actor, "action": "attack_physical", "target": other,
            "rank": "A", "dice": [10]}  # fmt: skip
    error = refused(api, eid, gm, body)
    assert (error["reason"], error["rule"]) == ("rank_above_cap", "RK-35")
    own = "B" if actor == "c1" else "C"
    assert error["message_fr"] == f"{name_of(actor)} attaque au plus au rang {own} avec STR, pas A"


def test_d100_tcs_a_missing_potion_is_refused_in_french_naming_the_drinker(api: Api) -> None:
    eid, gm, actor, _ = started(api, "d100-tcs", {"preset": "duelist"}, {"preset": "spearman"})
    body = {"type": "act", "actor": actor, "action": "drink_potion", "options": {"item": "élixir"}}
    error = refused(api, eid, gm, body)
    assert (error["reason"], error["rule"]) == ("no_potion_left", "TC-20"), error
    assert error["message_fr"] == f"{name_of(actor)} n'a plus de potion élixir"


def test_a_war_command_answers_its_lines_worded_by_the_server(api: Api) -> None:
    body = {"name": "Fuyuki", "ruleset": "ranks-d100"}
    made = api.http.post("/api/campaigns", json=body).json()
    wid, gm = made["id"], made["gm_token"]
    stats = ("STR", "END", "AGI", "MANA_STAT", "LCK")
    sheet = {"kind": "master", "MAGIC": "C", **{s: "C" for s in stats}}
    auth = {"Authorization": f"Bearer {gm}"}
    url = f"/api/campaigns/{wid}/commands"
    r = api.http.post(url, json={"type": "enroll", "name": "Élise", "sheet": sheet}, headers=auth)
    assert r.status_code == 200, r.text
    assert r.json()["lines"][0]["text_fr"] == "Élise rejoint la Guerre (Master)"
    day = api.http.post(url, json={"type": "new_day"}, headers=auth).json()
    assert day["lines"][0] == {"type": "day_started", "text": "Day 1", "text_fr": "Jour 1"}
    assert {"text": "Élise: already full", "text_fr": "Élise : déjà au maximum"}.items() <= (
        day["lines"][1].items()
    )


def server_error(r: Any, status: int) -> dict[str, Any]:
    assert r.status_code == status, r.text
    error: dict[str, Any] = r.json()["error"]
    assert error["reason"] in WORDS, error
    assert error["message_fr"] != error["message"], error
    assert "la requête ne convient pas" not in error["message_fr"], error
    return error


def test_the_servers_own_errors_answer_their_reason_in_english_and_french(api: Api) -> None:
    made = api.create()
    eid, gm = made["id"], made["gm_token"]
    bearer = {"Authorization": f"Bearer {gm}"}

    bad_format = api.http.get(f"/api/encounters/{eid}/export", params={"format": "xml"})
    error = server_error(bad_format, 400)
    assert (error["reason"], error["message"], error["message_fr"]) == (
        "export_format_one_of",
        "format is one of json, markdown, bbcode, text",
        "format vaut json, markdown, bbcode ou text",
    )

    ghost = api.http.post(
        f"/api/encounters/{eid}/tokens", json={"role": "player", "combatants": ["c9"]},
        headers=bearer,
    )  # fmt: skip
    error = server_error(ghost, 422)
    assert (error["reason"], error["params"]) == (
        "no_combatant_this_encounter",
        {"combatant_id": "c9"},
    )
    assert error["message_fr"] == "aucun combattant « c9 » dans cette rencontre"

    no_token = api.http.post(f"/api/encounters/{eid}/tokens", json={"role": "spectator"})
    error = server_error(no_token, 401)
    assert error["message_fr"] == "envoyez Authorization: Bearer <jeton>"
