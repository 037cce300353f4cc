"""One way to build a result event (issue 22 finding 5): every rule system appends
`action_resolved` and `reaction_resolved` through `Ctx.resolved` and `Ctx.answered`, with
its typed facts encoded by the one codec in domain/facts.py."""

from __future__ import annotations

import ast
from pathlib import Path

import msgspec
import pytest

from domain import events as ev
from domain.context import Ctx
from domain.dice import FixedRoller
from domain.facts import decode, encode
from domain.rules import REGISTRY
from domain.rules.d20_na import payloads as d20
from domain.state import GM, EncounterState, Pending

ROOT = Path(__file__).resolve().parents[2]
RESULTS = {"ActionResolved", "ReactionResolved"}


def _built_by_hand(root: Path) -> list[str]:
    """Every call in domain/rules/ under `root` that builds a result event itself."""
    found = []
    for path in sorted((root / "domain" / "rules").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Call):
                name = getattr(node.func, "attr", None) or getattr(node.func, "id", None)
                if name in RESULTS:
                    found.append(f"{path.relative_to(root)}:{node.lineno} builds {name}")
    return found


def test_no_rule_system_builds_a_result_event_by_hand() -> None:
    assert _built_by_hand(ROOT) == []


def test_the_check_sees_a_result_event_built_by_hand(tmp_path: Path) -> None:
    rules = tmp_path / "domain" / "rules"
    rules.mkdir(parents=True)
    (rules / "x.py").write_text("ctx.emit(ev.ReactionResolved(pending_id=1))\n")
    assert _built_by_hand(tmp_path) == ["domain/rules/x.py:1 builds ReactionResolved"]


def test_ctx_resolved_and_answered_store_the_facts_as_the_codec_encodes_them() -> None:
    ctx = Ctx(EncounterState(), FixedRoller([]), GM, REGISTRY["d20-na"])
    hit = d20.Hit(roll=7, threshold=12, target="c2", zone="torso", damage=5)
    ctx.resolved("c1", "melee", "hit", hit)
    pending = Pending(3, "c1", "c2", "melee", None, 5, ["parry", "none"], encode(hit))
    answer = d20.Defended(target="c2", damage=5, defense_roll=15, defended=False)
    ctx.answered(pending, "c2", "parry", "hit", 5, answer)
    first, second = ctx.events
    assert isinstance(first, ev.ActionResolved) and isinstance(second, ev.ReactionResolved)
    assert (first.actor, first.action, first.outcome) == ("c1", "melee", "hit")
    assert first.detail == encode(hit) and decode(first.detail, d20.Hit) == hit
    assert (second.pending_id, second.actor, second.reaction, second.damage_taken) == (
        3,
        "c2",
        "parry",
        5,
    )
    assert decode(second.detail, d20.Defended) == answer


def test_decode_ignores_unknown_keys_and_refuses_a_wrong_type() -> None:
    assert decode({"roll": 4, "later_field": 1}, d20.Done) == d20.Done()
    assert decode({"roll": 4}, d20.AttackDetail).roll == 4
    with pytest.raises(msgspec.ValidationError):
        decode({"roll": "four"}, d20.AttackDetail)
