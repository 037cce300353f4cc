"""server/patch.py: its patches, applied by jsonpatch (the reference), give the new board."""

from __future__ import annotations

import copy
import json
import random
from typing import Any

import jsonpatch

from server.live.patch import diff


def random_json(rng: random.Random, depth: int = 0) -> Any:
    r = rng.random()
    if depth > 3 or r < 0.3:
        return rng.choice([0, 1, 2, "a", "é", "", None, True, False])
    if r < 0.65:
        keys = ["a", "b", "a/b", "m~n", "", "c"]
        return {rng.choice(keys): random_json(rng, depth + 1) for _ in range(rng.randint(0, 4))}
    return [random_json(rng, depth + 1) for _ in range(rng.randint(0, 5))]


def changed(rng: random.Random, doc: Any) -> Any:
    """`doc` with a few of the changes boards go through (slid lists, some with items
    landing between kept ones, renamed keys)."""
    if isinstance(doc, list) and rng.random() < 0.25:
        kept = doc[rng.randint(0, len(doc)) :]
        for _ in range(rng.randint(1, 3)):
            kept.insert(rng.randint(0, len(kept)), random_json(rng))
        return kept
    if isinstance(doc, list) and rng.random() < 0.5:
        return doc[rng.randint(0, len(doc)) :] + [
            random_json(rng) for _ in range(rng.randint(0, 3))
        ]
    if isinstance(doc, dict) and doc and rng.random() < 0.5:
        out = dict(doc)
        key = rng.choice(list(out))
        out[key + "x"] = changed(rng, out.pop(key))
        return out
    return random_json(rng)


def test_every_patch_turns_the_old_document_into_the_new_one() -> None:
    rng = random.Random(7)
    for _ in range(5000):
        old = random_json(rng)
        new = changed(rng, old)
        before = copy.deepcopy(old)
        assert jsonpatch.apply_patch(old, diff(old, new)) == new
        assert old == before


def test_a_full_log_window_that_slid_by_one_line_is_one_remove_and_one_append() -> None:
    old = {"log": [{"v": v} for v in range(30)], "version": 30}
    new = {"log": [{"v": v} for v in range(1, 31)], "version": 31}
    assert diff(old, new) == [
        {"op": "remove", "path": "/log/0"},
        {"op": "add", "path": "/log/-", "value": {"v": 30}},
        {"op": "replace", "path": "/version", "value": 31},
    ]


def test_the_next_actors_legal_actions_are_a_move_and_a_small_patch() -> None:
    actions = [
        {"action": a, "enabled": True, "reason": None, "rule": "NA-12", "targets": ["c2", "c3"]}
        for a in "abcdef"
    ]
    old = {"legal": {"c1": actions}}
    new = {"legal": {"c2": [dict(x, targets=["c1", "c3"]) for x in actions]}}
    ops = diff(old, new)
    assert ops[0] == {"op": "move", "from": "/legal/c1", "path": "/legal/c2"}
    assert all(op["path"].endswith("/targets/0") for op in ops[1:])
    assert jsonpatch.apply_patch(old, ops) == new


def test_keys_are_escaped_as_json_pointers() -> None:
    assert diff({"a/b": 1, "m~n": 1}, {"a/b": 2}) == [
        {"op": "replace", "path": "/a~1b", "value": 2},
        {"op": "remove", "path": "/m~0n"},
    ]


def test_a_line_narrated_before_a_later_one_is_an_add_at_its_place_not_a_rewrite() -> None:
    old = [{"v": v} for v in range(30)]
    new = [*old[2:-1], {"v": 31}, old[-1], {"v": 32}]  # 31 lands before 29, 32 at the end
    assert diff(old, new) == [
        {"op": "remove", "path": "/0"},
        {"op": "remove", "path": "/0"},
        {"op": "add", "path": "/27", "value": {"v": 31}},
        {"op": "add", "path": "/-", "value": {"v": 32}},
    ]
    assert jsonpatch.apply_patch(old, diff(old, new)) == new


def test_a_list_changed_in_place_is_patched_in_place() -> None:
    old = [{"id": i, "hp": 10} for i in range(6)]
    new = [dict(x, hp=7) if x["id"] == 0 else x for x in old]
    assert diff(old, new) == [{"op": "replace", "path": "/0/hp", "value": 7}]


def test_true_and_1_and_false_and_0_are_different_values() -> None:
    for old, new in (({"a": 1}, {"a": True}), ([0], [False]), ({"a": [1]}, {"a": [True]})):
        ops = diff(old, new)
        assert ops and jsonpatch.apply_patch(old, ops) == new
        assert json.dumps(jsonpatch.apply_patch(old, ops)) == json.dumps(new)
