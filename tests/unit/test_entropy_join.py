"""The entropy join (issue 24): contributions are length-prefixed (netstrings) before
hashing, so ["ab", "c"] and ["a", "bc"] make different client seeds; `encounter_opened`
records the join; bundles of format fracas-audit/1 (plain concatenation) still verify,
and the verifier says which format and which join it read."""

from __future__ import annotations

import hashlib
from typing import Any

import pytest

from domain import dice
from domain import events as ev
from domain.encounter import open_encounter
from domain.evolve import evolve
from domain.state import EncounterState
from domain.verify import verify, verify_bundle
from tests.unit.test_verify import ENCOUNTER, MAIN, Event, chained, committed, revealed


def test_two_splits_of_the_same_letters_make_two_client_seeds() -> None:
    assert dice.client_seed(["ab", "c"], dice.NETSTRING) != dice.client_seed(
        ["a", "bc"], dice.NETSTRING
    )
    # The old join could not tell them apart: that is why it is no longer used.
    assert dice.client_seed(["ab", "c"], dice.CONCAT) == dice.client_seed(["a", "bc"], dice.CONCAT)


@pytest.mark.parametrize(
    ("values", "joined"),
    [
        (["ab", "c"], b"2:ab,1:c,"),
        (["a", "bc"], b"1:a,2:bc,"),
        (["", "x"], b"0:,1:x,"),
        (["🎲", "é"], b"4:\xf0\x9f\x8e\xb2,2:\xc3\xa9,"),  # lengths in UTF-8 bytes
        (["1:a,"], b"4:1:a,,"),  # a value that looks like a netstring is still one value
    ],
)
def test_each_contribution_is_its_byte_length_a_colon_its_bytes_and_a_comma(
    values: list[str], joined: bytes
) -> None:
    assert dice.joined(values, dice.NETSTRING) == joined
    assert dice.client_seed(values, dice.NETSTRING) == hashlib.sha256(joined).hexdigest()


def test_nobody_contributing_is_still_the_empty_client_seed() -> None:
    assert dice.client_seed([], dice.NETSTRING) == dice.client_seed([], dice.CONCAT) == ""


def test_an_unknown_join_is_refused() -> None:
    with pytest.raises(dice.DiceError):
        dice.client_seed(["a"], "comma")


def test_a_new_encounter_records_the_netstring_join_and_replay_reads_it() -> None:
    opened = open_encounter(ENCOUNTER, "plain-d100", "Bridge", {}, {})[0]
    assert isinstance(opened, ev.EncounterOpened) and opened.entropy_join == "netstring"
    state = evolve(EncounterState(), opened)
    assert state.ledger.entropy_join == "netstring"
    # An encounter_opened stored before the field existed is of the old join.
    old = ev.EncounterOpened(encounter_id=ENCOUNTER, ruleset="plain-d100", name="Old")
    assert evolve(EncounterState(), old).ledger.entropy_join == "concat"


def _roll(client: str, n: int = 1) -> Event:
    parsed = dice.parse("1d20")
    faces = dice.draw(MAIN, ENCOUNTER, client, n, parsed.sizes)
    return ("die_rolled", {"roll": n, "seed_id": "main", "client_seed": client,
                           "source": "server", "expr": "1d20", "sizes": parsed.sizes,
                           "faces": faces, "total": dice.total(parsed, faces)})  # fmt: skip


def _stream(join: str | None, values: list[str], client: str) -> list[dict[str, Any]]:
    opened: dict[str, Any] = {"encounter_id": ENCOUNTER, "ruleset": "plain-d100", "name": "B"}
    if join is not None:
        opened["entropy_join"] = join
    entropy = [("entropy_added", {"by": "p1", "value": v}) for v in values]
    return chained([("encounter_opened", opened), *entropy, committed("main", MAIN),
                    _roll(client), revealed("main", MAIN)])  # fmt: skip


def test_the_verifier_tells_the_two_joins_apart() -> None:
    netstring = dice.client_seed(["ab", "c"], dice.NETSTRING)
    concat = dice.client_seed(["ab", "c"], dice.CONCAT)
    good = verify(_stream("netstring", ["ab", "c"], netstring))
    assert (good["dice"], good["entropy_join"], good["rolls_checked"]) == (True, "netstring", 1)
    # The same roll under the other split of the letters does not verify.
    assert verify(_stream("netstring", ["a", "bc"], netstring))["dice"] is False
    # A roll made with the old join, in a stream that records the new one, does not either.
    assert verify(_stream("netstring", ["ab", "c"], concat))["dice"] is False
    # Under the old join the two splits are one seed: both verify, as they always did.
    for values in (["ab", "c"], ["a", "bc"]):
        old = verify(_stream(None, values, concat))
        assert (old["dice"], old["entropy_join"]) == (True, "concat")


def test_a_format_1_bundle_still_verifies_and_the_report_says_what_was_read() -> None:
    concat = dice.client_seed(["ab", "c"], dice.CONCAT)
    one = {
        "format": "fracas-audit/1",
        "encounter": ENCOUNTER,
        "events": _stream(None, ["ab", "c"], concat),
    }
    report = verify_bundle(one)
    assert (report["problems"], report["format"], report["entropy_join"]) == (
        [],
        "fracas-audit/1",
        "concat",
    )
    netstring = dice.client_seed(["ab", "c"], dice.NETSTRING)
    two = {"format": "fracas-audit/2", "encounter": ENCOUNTER,
           "events": _stream("netstring", ["ab", "c"], netstring)}  # fmt: skip
    report = verify_bundle(two)
    assert (report["problems"], report["format"], report["entropy_join"]) == (
        [],
        "fracas-audit/2",
        "netstring",
    )
    # A format 1 bundle cannot hold the new join: it predates it.
    mislabelled = verify_bundle({**two, "format": "fracas-audit/1"})
    assert (
        mislabelled["first_problem"]
        == "a fracas-audit/1 bundle joins entropy by plain concatenation only"
    )


def test_an_unknown_join_in_a_stream_is_a_problem() -> None:
    report = verify(_stream("comma", [], ""))
    assert report["dice"] is False
    assert report["first_problem"] == "unknown entropy join 'comma' at version 1"
