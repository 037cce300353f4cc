"""The audit verifier: an honest stream passes, and each kind of tampering is named."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from domain import dice
from domain.chain import GENESIS, link
from domain.verify import verify, verify_bundle

ENCOUNTER = "5f0c8a6e-9d2b-4c71-8e3a-0b6d4f2a9c15"
STREAM = f"encounter-{ENCOUNTER}"
MAIN = bytes(range(32))
HIDDEN = bytes(range(100, 132))
CLIENT = dice.client_seed(["dragon", "🎲"])

Event = tuple[str, dict[str, Any]]


def chained(events: list[Event], stream: str = STREAM) -> list[dict[str, Any]]:
    """Envelopes numbered from 1 with a valid hash chain, as the store writes them."""
    envelopes = []
    prev_hash = GENESIS
    for version, (kind, data) in enumerate(events, start=1):
        envelope: dict[str, Any] = {
            "stream": stream,
            "version": version,
            "position": 1000 + version,
            "type": kind,
            "data": data,
            "meta": {
                "command_id": f"command-{version}",
                "actor": "gm",
                "recorded_at": f"2025-01-01T00:00:{version:02d}Z",
                "rules_version": "1",
            },
            "prev_hash": prev_hash,
        }
        envelope["hash"] = prev_hash = link(prev_hash, envelope)
        envelopes.append(envelope)
    return envelopes


def committed(seed_id: str, seed: bytes) -> Event:
    return ("seed_committed", {"seed_id": seed_id, "commitment": dice.commitment(seed)})


def revealed(seed_id: str, seed: bytes) -> Event:
    return ("seed_revealed", {"seed_id": seed_id, "seed": seed.hex()})


def rolled(n: int, expr: str, seed_id: str = "main", seed: bytes = MAIN) -> Event:
    parsed = dice.parse(expr)
    faces = dice.draw(seed, ENCOUNTER, CLIENT, n, parsed.sizes)
    return (
        "die_rolled",
        {
            "roll": n,
            "seed_id": seed_id,
            "client_seed": CLIENT,
            "source": "server",
            "expr": expr,
            "sizes": parsed.sizes,
            "faces": faces,
            "total": dice.total(parsed, faces),
            "purpose": "attack",
            "actor": "c1",
            "hidden": seed_id == "hidden",
        },
    )


def rolled_by_hand(expr: str, faces: list[int]) -> Event:
    parsed = dice.parse(expr)
    data = rolled(1, expr)[1] | {"source": "manual", "roll": None, "seed_id": None}
    return ("die_rolled", data | {"faces": faces, "total": dice.total(parsed, faces)})


ENTROPY: list[Event] = [
    ("entropy_added", {"by": "p1", "value": "dragon"}),
    ("entropy_added", {"by": "p2", "value": "🎲"}),
]


def honest_events() -> list[Event]:
    return [
        ("encounter_opened", {"ruleset": "d20-na", "name": "Bridge fight"}),
        committed("main", MAIN),
        committed("hidden", HIDDEN),
        *ENTROPY,
        rolled(1, "2d6+3"),
        rolled(2, "d100"),
        rolled(1, "1d20-2", "hidden", HIDDEN),
        rolled_by_hand("1d20", [17]),
        rolled(3, "3d6+1d4+2"),
        rolled(4, "1d20-2"),
        revealed("main", MAIN),
        revealed("hidden", HIDDEN),
    ]


def test_an_honest_stream_holds_and_every_server_roll_is_recomputed() -> None:
    report = verify(chained(honest_events()))
    assert report == {
        "chain": True,
        "dice": True,
        "rolls_checked": 5,
        "first_problem": None,
        "manual": 1,
        "unrevealed": 0,
        "problems": [],
        "entropy_join": "concat",  # no encounter_opened says otherwise
    }


def test_the_order_the_envelopes_arrive_in_does_not_matter() -> None:
    assert verify(list(reversed(chained(honest_events()))))["problems"] == []


def test_rolls_of_a_seed_not_yet_revealed_are_counted_not_failed() -> None:
    report = verify(chained(honest_events()[:-1]))
    assert (report["dice"], report["rolls_checked"], report["unrevealed"]) == (True, 4, 1)
    report = verify(chained(honest_events()[:-2]))
    assert (report["dice"], report["rolls_checked"], report["unrevealed"]) == (True, 0, 5)


def test_a_revealed_seed_that_does_not_match_its_commitment_is_caught() -> None:
    events = honest_events()
    events[11] = revealed("main", bytes(32))
    report = verify(chained(events))
    assert (report["chain"], report["dice"]) == (True, False)
    assert report["first_problem"] == (
        "the seed revealed for main at version 12 does not match its commitment"
    )


def test_an_edited_face_is_caught_by_recomputing_the_roll() -> None:
    events = copy.deepcopy(honest_events())
    data = events[6][1]
    true_face = data["faces"][0]
    data["faces"] = [true_face % 100 + 1]
    data["total"] = data["faces"][0]  # consistent with its expr: only the seed can tell
    report = verify(chained(events))
    assert (report["chain"], report["dice"]) == (True, False)
    assert report["first_problem"] == (
        f"roll 2 of seed main (version 7) shows {data['faces']} but the revealed seed "
        f"gives [{true_face}]"
    )


def test_a_missing_roll_number_shows_a_discarded_roll() -> None:
    events = honest_events()
    del events[6]
    report = verify(chained(events))
    assert (report["chain"], report["dice"], report["rolls_checked"]) == (True, False, 4)
    assert report["first_problem"] == "roll 2 of seed main is missing: a discarded roll"


def test_data_edited_without_rehashing_breaks_the_chain() -> None:
    envelopes = chained(honest_events())
    envelopes[6]["data"]["purpose"] = "a friendlier purpose"
    report = verify(envelopes)
    assert (report["chain"], report["dice"]) == (False, True)
    assert report["first_problem"] == (
        f"the hash chain of {STREAM} breaks: version 7: hash does not match its content"
    )


def test_a_chain_break_is_named_before_the_dice_problems_it_hides() -> None:
    envelopes = chained(honest_events())
    envelopes[5]["data"]["faces"] = [6, 6]
    envelopes[5]["data"]["total"] = 15
    report = verify(envelopes)
    assert (report["chain"], report["dice"]) == (False, False)
    assert report["first_problem"] == (
        f"the hash chain of {STREAM} breaks: version 6: hash does not match its content"
    )
    assert report["problems"][1].startswith("roll 1 of seed main (version 6) shows [6, 6]")


def test_a_total_that_is_not_what_the_expression_gives_is_caught() -> None:
    events = copy.deepcopy(honest_events())
    data = events[5][1]
    data["total"] += 1
    report = verify(chained(events))
    assert report["first_problem"] == (
        f"roll 1 of seed main (version 6): the total is {data['total']} but 2d6+3 showing "
        f"{data['faces']} makes {data['total'] - 1}"
    )


def test_manual_rolls_are_counted_and_their_totals_checked_but_not_recomputed() -> None:
    events = [*honest_events(), rolled_by_hand("2d6+1", [6, 6])]
    assert verify(chained(events))["manual"] == 2
    events.append(("die_rolled", rolled_by_hand("1d20", [5])[1] | {"total": 20}))
    report = verify(chained(events))
    assert report["first_problem"] == (
        "the manual roll at version 15: the total is 20 but 1d20 showing [5] makes 5"
    )


def test_a_manual_face_outside_its_die_is_caught() -> None:
    events = [*honest_events(), ("die_rolled", rolled_by_hand("1d20", [5])[1] | {"faces": [21]})]
    report = verify(chained(events))
    assert report["first_problem"] == "the manual roll at version 14: a d20 shows 1 to 20, not 21"


def test_a_roll_drawn_after_its_seed_was_revealed_is_caught() -> None:
    events = [*honest_events(), rolled(5, "d20")]
    report = verify(chained(events))
    assert report["first_problem"] == (
        "roll 5 of seed main (version 14) was drawn after its seed was revealed"
    )


def test_a_roll_from_a_seed_never_committed_is_caught() -> None:
    events = [*ENTROPY, committed("main", MAIN), rolled(1, "d20", "other", HIDDEN)]
    report = verify(chained(events))
    assert report["first_problem"] == (
        "roll 1 of seed other (version 4) uses a seed that was never committed before it"
    )


def test_a_roll_number_used_twice_is_caught() -> None:
    events = honest_events()
    events.insert(7, rolled(2, "d100"))
    report = verify(chained(events))
    assert report["first_problem"] == (
        "roll 2 of seed main (version 8) repeats a roll number: the same roll drawn twice"
    )


def test_a_client_seed_other_than_the_one_the_entropy_makes_is_caught() -> None:
    events = copy.deepcopy(honest_events())
    events[6][1]["client_seed"] = ""
    report = verify(chained(events))
    assert report["first_problem"] == (
        "roll 2 of seed main (version 7) uses client seed '' but the entropy added before "
        f"the first roll makes {CLIENT!r}"
    )


def test_rolls_without_entropy_use_an_empty_client_seed() -> None:
    events = [e for e in honest_events() if e[0] != "entropy_added"]
    report = verify(chained(events))
    assert report["first_problem"] == (
        f"roll 1 of seed main (version 4) uses client seed {CLIENT!r} but the entropy added "
        "before the first roll makes ''"
    )


def test_entropy_in_another_order_makes_another_client_seed() -> None:
    events = honest_events()
    events[3], events[4] = events[4], events[3]
    assert verify(chained(events))["dice"] is False


def test_entropy_added_after_the_first_roll_is_caught() -> None:
    events = honest_events()
    events.insert(8, ("entropy_added", {"by": "p3", "value": "late"}))
    report = verify(chained(events))
    assert report["first_problem"] == "entropy was added at version 9, after the first roll"


def test_a_seed_committed_again_before_it_was_revealed_is_caught() -> None:
    events = [*ENTROPY, committed("main", MAIN), rolled(1, "d20"), committed("main", HIDDEN)]
    report = verify(chained(events))
    assert report["first_problem"] == (
        "seed main was committed again at version 5 before its seed was revealed, "
        "so its earlier rolls can never be checked"
    )


def test_a_rotated_seed_numbers_its_rolls_from_one_again() -> None:
    events = [
        *ENTROPY,
        committed("main", MAIN),
        rolled(1, "d20"),
        revealed("main", MAIN),
        committed("main", HIDDEN),
        rolled(1, "2d6", "main", HIDDEN),
        revealed("main", HIDDEN),
    ]
    report = verify(chained(events))
    assert (report["problems"], report["rolls_checked"]) == ([], 2)


def test_the_encounter_id_comes_from_the_stream_unless_given() -> None:
    envelopes = chained(honest_events())
    assert verify(envelopes, ENCOUNTER)["dice"] is True
    report = verify(envelopes, "00000000-0000-4000-8000-000000000000")
    assert report["dice"] is False
    assert report["first_problem"] is not None
    assert report["first_problem"].startswith("roll 1 of seed main (version 6) shows")


def test_a_bundle_is_verified_with_its_own_encounter_id() -> None:
    bundle = {
        "format": "fracas-audit/1",
        "encounter": ENCOUNTER,
        "events": chained(honest_events()),
    }
    assert verify_bundle(bundle)["problems"] == []


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        (
            {"format": "fracas-audit/0"},
            "the bundle's format is 'fracas-audit/0', not one of fracas-audit/1, fracas-audit/2",
        ),
        ({"encounter": "another"}, f"the bundle of encounter-another holds events of ['{STREAM}']"),
        ({"events": None}, "the bundle needs an 'encounter' id and a list of 'events'"),
    ],
)
def test_a_bundle_that_is_not_what_it_claims_fails(change: dict[str, Any], problem: str) -> None:
    bundle = {
        "format": "fracas-audit/1",
        "encounter": ENCOUNTER,
        "events": chained(honest_events()),
    }
    report = verify_bundle(bundle | change)
    assert (report["chain"], report["first_problem"]) == (False, problem)


def test_nothing_to_verify_is_not_a_pass() -> None:
    report = verify([])
    assert (report["chain"], report["first_problem"]) == (False, "there are no events to verify")


@pytest.mark.parametrize(
    "envelope_change",
    [
        {"data": None},
        {"data": {"source": "server", "roll": "one", "seed_id": "main"}},
        {"data": {"source": "server", "roll": 1, "seed_id": "main", "expr": 5}},
        {"data": {"seed_id": "main", "commitment": "not hex"}, "type": "seed_committed"},
        {"data": {"seed_id": "main", "seed": "zz"}, "type": "seed_revealed"},
        {"data": {"source": "dream"}},
        {"data": {"source": "manual", "expr": "1d6", "faces": "six"}},
    ],
)
def test_malformed_dice_events_are_problems_not_crashes(envelope_change: dict[str, Any]) -> None:
    events = [*honest_events(), ("die_rolled", {})]
    envelopes = chained(events)
    envelopes[-1] |= envelope_change
    report = verify(chained([(e["type"], e["data"]) for e in envelopes]))
    assert (report["chain"], report["dice"]) == (True, False)
    assert report["first_problem"]
