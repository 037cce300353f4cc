"""A roll's audit tells its disputes and the GM's answer to them (issue 25): the table
that disputed a roll reads there what the GM said, in the JSON record and its text."""

from __future__ import annotations

from projections.audit import audit_text
from tests.e2e.conftest import Api


def test_a_rolls_audit_shows_its_dispute_and_the_gms_answer(api: Api) -> None:
    made = api.create("plain-d100")
    eid, gm, spectator = made["id"], made["gm_token"], made["spectator_token"]
    api.ok(eid, gm, {"type": "roll", "expr": "1d20", "purpose": "search", "dice": [3]})
    api.ok(eid, gm, {"type": "dispute", "roll": 1, "reason": "the die fell off the table"})
    open_ = api.http.get(
        f"/api/encounters/{eid}/rolls/1", headers={"Authorization": f"Bearer {spectator}"}
    )
    assert open_.status_code == 200, open_.text
    (dispute,) = open_.json()["disputes"]
    assert dispute["reason"] == "the die fell off the table" and "answer" not in dispute
    answered = api.ok(eid, gm, {"type": "answer_dispute", "roll": 1, "answer": "it stands"})
    r = api.http.get(
        f"/api/encounters/{eid}/rolls/1", headers={"Authorization": f"Bearer {spectator}"}
    )
    (dispute,) = r.json()["disputes"]
    assert dispute["answer"] == "it stands"
    assert dispute["answered_version"] == answered["version"]
    told = audit_text(r.json())  # the record's plain-text form, as the CLI prints it
    assert "GM's answer at version" in told and "it stands" in told
