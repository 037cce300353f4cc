"""domain.chain.chain_rows: the rows an append writes, built without any store."""

from __future__ import annotations

import pytest

from domain.chain import GENESIS, chain_rows, first_break, link

META = {"actor": "gm", "command_id": "c-1"}
AT = "2026-11-29T11:00:00.000000Z"


def test_rows_link_each_event_to_the_one_before_and_carry_recorded_at_in_meta() -> None:
    rows = chain_rows("encounter-x", 0, GENESIS, [("a_b", {"n": 1}), ("c", {})], META, AT)

    assert [r["prev_hash"] for r in rows] == [GENESIS, rows[0]["hash"]]
    assert all(r["meta"] == {**META, "recorded_at": AT} and r["recorded_at"] == AT for r in rows)
    envelopes = [
        {"stream": "encounter-x", "version": v, **{k: r[k] for k in ("type", "data", "meta")}}
        | {"prev_hash": r["prev_hash"], "hash": r["hash"]}
        for v, r in enumerate(rows, start=1)
    ]
    assert first_break(envelopes) is None


def test_rows_after_version_two_hash_their_own_version_and_the_given_prev_hash() -> None:
    prev = "ab" * 32
    [row] = chain_rows("s", 2, prev, [("hit", {"n": 3})], META, AT)
    envelope = {"stream": "s", "version": 3, "type": "hit", "data": {"n": 3}, "meta": row["meta"]}
    assert row["hash"] == link(prev, envelope)


def test_the_same_inputs_give_the_same_hashes() -> None:
    one = chain_rows("s", 0, GENESIS, [("hit", {"é": [1, 2]})], META, AT)
    assert chain_rows("s", 0, GENESIS, [("hit", {"é": [1, 2]})], META, AT) == one
    assert chain_rows("s", 0, GENESIS, [("hit", {"é": [1, 2]})], META, AT[:-2] + "1Z") != one


def test_a_float_anywhere_is_refused() -> None:
    with pytest.raises(ValueError, match="float"):
        chain_rows("s", 0, GENESIS, [("hit", {"n": 1}), ("healed", {"hp": [0.5]})], META, AT)
