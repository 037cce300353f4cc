"""`rule_violation` is 422 whichever constructor raised it (issue 22 finding 3): a
`Refused("rule_violation", ...)` in the encounter, a `RuleViolation` in a sheet check,
and one replayed from an Idempotency-Key all answer 422; other refusals keep theirs."""

from __future__ import annotations

import uuid

from domain.errors import Invalid, Refused, RuleViolation
from tests.e2e.conftest import Api
from tests.e2e.test_d20_na_http import sheet as na_sheet
from tests.e2e.test_http import setup_fight, version_of


def test_every_rule_violation_is_422_and_a_turn_refusal_stays_409() -> None:
    assert Refused("rule_violation", rule="RK-3", reason="combat_started").status == 422
    assert RuleViolation(reason="x", rule="NA-19").status == 422
    assert Refused("not_your_turn", reason="not_turn_of").status == 409
    assert Invalid("sheet.STR is required").status == 422


def test_a_refused_rule_violation_over_http_answers_422_and_appends_nothing(api: Api) -> None:
    f = setup_fight(api)
    before = version_of(api, f["id"])
    again = api.command(f["id"], f["gm"], {"type": "start_combat", "dice": [50, 20]})
    assert again.status_code == 422, again.text
    assert again.json()["error"]["code"] == "rule_violation"
    assert version_of(api, f["id"]) == before


def test_a_sheet_rule_violation_over_http_answers_422(api: Api) -> None:
    made = api.create("d20-na")
    bow = {"name": "bow", "kind": "shoot", "dmg": 8, "two_handed": True}
    shield = {"name": "buckler", "parry": 3}
    body = {"type": "add_combatant", "name": "archer", "side": "a",
            "sheet": na_sheet(weapons=[bow], shield=shield)}  # fmt: skip
    r = api.command(made["id"], made["gm_token"], body)
    assert (r.status_code, r.json()["error"]["code"], r.json()["error"]["rule"]) == (
        422, "rule_violation", "NA-19",
    ), r.text  # fmt: skip


def test_a_rule_violation_replayed_from_its_key_is_422_again(api: Api) -> None:
    f = setup_fight(api)
    key = uuid.uuid4().hex
    body = {"type": "start_combat", "dice": [50, 20]}
    first = api.command(f["id"], f["gm"], body, key=key)
    second = api.command(f["id"], f["gm"], body, key=key)
    assert (first.status_code, second.status_code) == (422, 422), (first.text, second.text)
    assert first.json() == second.json()
