"""d20-na while the actor's attack waits on a defence (issue 21 finding 8): no cost is
told as "(-2 left)", and a combatant felled by the answer is out under the turn that
felled it, before the turn is handed on."""

from __future__ import annotations

from typing import Any

import msgspec

from domain import events as ev
from domain.encounter import open_encounter
from domain.evolve import evolve
from domain.rules import REGISTRY
from domain.state import EncounterState
from projections.log.core import LogLine, tell
from tests.unit.test_d20_na import Table, duel


def legal(t: Table, cid: str) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = msgspec.to_builtins(
        REGISTRY["d20-na"].legal(t.state.game, cid, t.state.ledger.settings)
    )
    return found


def test_NA_6_an_action_the_budget_cannot_pay_tells_no_negative_balance() -> None:
    t, a, b = duel()
    t.act(a, "attack", b, [5])  # 2 half-actions spent, the hit waits on B
    entries = [e for e in legal(t, a) if e.get("cost")]
    assert entries and all(not e["enabled"] for e in entries)
    assert all((c.get("left") or 0) >= 0 for e in entries for c in e["cost"])


def log_of(t: Table) -> list[LogLine]:
    state, lines = EncounterState(), list[LogLine]()
    for version, event in enumerate([*open_encounter("enc", "d20-na", "test", {}, {}),
                                     *t.log], start=1):  # fmt: skip
        tell(lines, event, state, version)
        evolve(state, event)
    return lines


def test_a_combatant_felled_by_the_answer_is_out_under_the_turn_that_felled_it() -> None:
    t = Table()
    a, b = t.add("A", "a", INI=10), t.add("B", "b", hp=3)
    t.add("C", "b", INI=1)
    t.start()
    t.act(a, "attack", b, [5])
    out = t.react(b, "none", [10])
    kinds = [type(e).__name__ for e in out]
    assert kinds.index("CombatantDefeated") < kinds.index("TurnEnded")
    lines = [ln.kind for ln in log_of(t)]
    felled = lines.index("combatant_defeated")
    assert lines[felled - 1] == "reaction_resolved" and "turn_started" in lines[felled + 1 :]
    assert not any(isinstance(e, ev.CombatantDefeated) for e in out[kinds.index("TurnEnded") :])
