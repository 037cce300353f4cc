"""ranks-d100 Command Seals (RK-39, RK-18): a Master spends one, GM-declared on its sheet,
to force its Servant's interception. Counts and other effects have no numbers in the
source (RK-AMB-26); see domain/rules/ranks/seals.py."""

from __future__ import annotations

from typing import Any

import pytest

from domain import commands as cmd
from domain import events as ev
from domain.dice import FixedRoller
from domain.encounter import decide
from domain.errors import Forbidden, Invalid, Refused, RuleViolation
from domain.evolve import replay
from domain.rules import REGISTRY
from domain.state import Principal
from projections.log import describe
from tests.unit.test_ranks_support import Table, master, of_type, only_check, servant

RULES = REGISTRY["ranks-d100"]


def fight(seals: int | None = 2) -> tuple[Table, str, str, str, Principal]:
    """A Servant attacks a Master (seals declared or not) whose Servant is the GM's; the
    Master's player controls only the Master."""
    t = Table()
    a = t.add("F", "a", servant(STR="A"))
    sheet = master() if seals is None else master(command_seals=seals)
    m, s = t.add("M", "b", sheet), t.add("S", "b", servant(END="D"))
    t.do(cmd.StartCombat(), 99, 2, 1)
    t.act(a, "attack_physical", 10, target=m)  # Servant A: 40
    return t, a, m, s, Principal("player", frozenset({m}), "player:m")


def forced(m: str, **options: Any) -> cmd.React:
    return cmd.React(actor=m, reaction="intercept", options={"command_seal": True, **options})


def test_RK_39_a_master_declares_its_command_seals() -> None:
    out = RULES.validate_sheet(master(command_seals=3), {})
    assert out.sheet["command_seals"] == 3
    assert (out.resources["command_seals"], out.maxima["command_seals"]) == (3, 3)


@pytest.mark.parametrize("count", [-1, 100, 1.0, "3", True])
def test_RK_39_the_count_is_a_whole_number(count: Any) -> None:
    with pytest.raises(Invalid) as info:
        RULES.validate_sheet(master(command_seals=count), {})
    assert info.value.rule == "RK-39"


def test_RK_39_command_seals_are_a_masters() -> None:
    with pytest.raises(RuleViolation) as info:
        RULES.validate_sheet(servant(command_seals=1), {})
    assert info.value.rule == "RK-39"


def test_RK_AMB_26_no_count_is_invented_a_master_without_one_has_none() -> None:
    out = RULES.validate_sheet(master(), {})
    assert "command_seals" not in out.resources and "command_seals" not in out.sheet
    t, _, m, _, _ = fight(seals=None)
    refusal = t.refused(forced(m), 10)
    assert (refusal.code, refusal.rule) == ("limit_reached", "RK-39")


def test_RK_39_without_a_seal_a_player_cannot_make_a_servant_they_do_not_control_intercept() -> (
    None
):
    t, _, m, _, player = fight()
    with pytest.raises(Forbidden):
        decide(t.state, cmd.React(actor=m, reaction="intercept"), FixedRoller([10]), player)


def test_RK_39_a_command_seal_forces_the_servant_to_intercept() -> None:
    t, _, m, s, player = fight()
    out = t.do(forced(m), 10, who=player)
    spent = [e for e in of_type(out, ev.ResourceChanged) if e.resource == "command_seals"]
    assert [(e.combatant_id, e.delta, e.value, e.rule) for e in spent] == [(m, -1, 1, "RK-39")]
    assert only_check(out).stat == "END"  # the Servant may only use Endurance
    assert t.c(m).resources["hp"] == 60
    assert t.c(s).resources["hp"] == 50 - (40 - 30)
    resolved = of_type(out, ev.ReactionResolved)[0]
    assert (resolved.actor, resolved.outcome) == (s, "intercepted_reduced")


def test_RK_18_using_a_command_seal_rolls_no_die_of_its_own() -> None:
    t, _, m, _, player = fight()
    out = t.do(forced(m, reduce="none"), who=player)
    assert of_type(out, ev.DieRolled) == []
    assert t.c(m).resources["command_seals"] == 1


def test_RK_39_a_forced_servant_still_reduces_only_with_endurance() -> None:
    t, _, m, _, _ = fight()
    refusal = t.refused(forced(m, reduce="AGI"))
    assert (refusal.code, refusal.rule) == ("invalid", "RK-39")
    assert t.c(m).resources["command_seals"] == 2


def test_RK_39_each_forced_interception_spends_one_seal_until_none_is_left() -> None:
    t, a, m, _, _ = fight(seals=1)
    t.do(forced(m, reduce="none"))
    assert t.c(m).resources["command_seals"] == 0
    t.do(cmd.EndTurn(actor=a))
    while t.state.game.actor != a:
        t.do(cmd.EndTurn(actor=str(t.state.game.actor)))
    t.act(a, "attack_physical", 10, target=m)
    refusal = t.refused(forced(m))
    assert (refusal.code, refusal.rule) == ("limit_reached", "RK-39")
    assert isinstance(refusal, Refused)


def test_RK_39_the_command_seal_option_is_a_boolean() -> None:
    t, _, m, _, _ = fight()
    refusal = t.refused(cmd.React(actor=m, reaction="intercept", options={"command_seal": 1}))
    assert refusal.code == "invalid"


def test_RK_39_the_log_says_a_command_seal_was_used_in_english_and_french() -> None:
    t, _, m, _, _ = fight()
    before = len(t.events)
    t.do(forced(m, reduce="none"))
    state = replay(t.events[:before])
    lines = []
    for i, event in enumerate(t.events[before:], start=before + 1):
        line = describe(event, state, i)
        replay([event], state)
        if line is not None and line.kind == "resource_changed":
            lines.append((line.text, line.text_fr))
    assert (
        "M uses a Command Seal: their Servant must intercept (seals left: 1)",
        "M utilise un Sceau de Commandement : son Servant doit intercepter (sceaux restants : 1)",
    ) in lines
