"""A modifier the log tells is a modifier the dice used (issue 21 finding 6): a condition's
GM-declared check modifier is a term of the bearer's checks in every rule system, with the
source `condition: <name>` and the system's own rule; `legal` shows the threshold the
roll will have, and d20-na's log states the final threshold, not the base one."""

from __future__ import annotations

from typing import Any

import msgspec

from domain import commands as cmd
from domain import events as ev
from domain.encounter import open_encounter
from domain.rules import REGISTRY
from projections.log import narrate
from tests.unit import test_d20_na as d20
from tests.unit import test_ranks_support as ranks
from tests.unit import test_tcs_support as tcs


def stunned(rule: str, delta: int = -10) -> ev.Modifier:
    return ev.Modifier(source="condition: stunned", rule=rule, delta=delta)


def checks(events: list[ev.Event]) -> list[ev.Check]:
    return [e.check for e in events if isinstance(e, ev.DieRolled) and e.check is not None]


def odds(ruleset: str, state: Any, cid: str, action: str) -> dict[str, Any]:
    entries = msgspec.to_builtins(REGISTRY[ruleset].legal(state.game, cid, state.ledger.settings))
    found: dict[str, Any] = next(e for e in entries if e["action"] == action)
    return found


def test_RK_5_ranks_d100_adds_a_conditions_modifier_to_the_bearers_check() -> None:
    t, a, b = ranks.duel(ranks.master(STR="B"), ranks.master())
    t.do(cmd.ApplyCondition(combatant=a, name="stunned", modifier=-10))
    assert odds("ranks-d100", t.state, a, "attack_physical")["threshold"] == 50
    check = ranks.only_check(t.act(a, "attack_physical", 55, target=b))
    assert check.modifiers == [stunned("RK-5")]
    assert (check.base, check.threshold, check.outcome) == (60, 50, "failure")


def test_RK_5_ranks_d100_counts_the_defenders_condition_in_its_reduction_roll() -> None:
    t, a, b = ranks.duel(ranks.master(), ranks.master(END="B"))
    t.do(cmd.ApplyCondition(combatant=b, name="stunned", modifier=-20))
    t.act(a, "attack_physical", 10, target=b)
    assert odds("ranks-d100", t.state, b, "defend_end")["threshold"] == 40
    check = ranks.only_check(t.react(b, "defend_end", 45))
    assert (check.stat, check.threshold, check.modifiers) == ("END", 40, [stunned("RK-5", -20)])


def test_TC_15_d100_tcs_adds_a_conditions_modifier_to_the_bearers_test() -> None:
    table, a, b = tcs.duel()  # DEX 50
    table.do(cmd.ApplyCondition(combatant=a, name="stunned", modifier=-10), [])
    assert odds("d100-tcs", table.state, a, "attack")["threshold"] == 40
    found = tcs.checks(table.act(a, "attack", b, [45]))
    assert found[0].modifiers == [stunned("TC-15")]
    assert (found[0].base, found[0].threshold, found[0].outcome) == (50, 40, "failure")


def test_TC_15_a_bonus_condition_is_scaled_with_the_rest_by_long_range() -> None:
    bow = {"weapons": [tcs.BOW], "PERC": 60}
    table, a, b = tcs.duel(a=bow)
    table.do(cmd.ApplyCondition(combatant=a, name="aimed", modifier=20), [])
    found = tcs.checks(table.act(a, "attack", b, [35], distance=40))
    # (60 + 20) at half for the long range (TC-18, TC-AMB-8): 40
    assert found[0].threshold == 40
    assert ev.Modifier(source="condition: aimed", rule="TC-15", delta=20) in found[0].modifiers


def test_NA_AMB_22_d20_na_logs_the_final_threshold_when_a_condition_applies() -> None:
    table, a, b = d20.duel()
    table.do(cmd.ApplyCondition(combatant=a, name="grappled", modifier=-3))
    shown = odds("d20-na", table.state, a, "attack")["threshold"]
    events = table.act(a, "attack", b, [11])
    check = checks(events)[0]
    assert shown == check.threshold
    assert check.threshold == check.base + sum(m.delta for m in check.modifiers)
    resolved = [e for e in events if isinstance(e, ev.ActionResolved)]
    assert resolved[0].outcome == "miss" and resolved[0].detail["threshold"] == check.threshold
    stream = [*open_encounter("enc", "d20-na", "test", {}, {}), *table.log]
    text = narrate(stream)
    assert f"11 against {check.threshold}, a miss" in text
    assert f"11 against {check.base}," not in text
    assert f"11 pour {check.threshold}, raté" in narrate(stream, "fr")
