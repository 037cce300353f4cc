"""Issue 21: undo reverts whole steps, undo to V gives the board of `?at=V`, a fight is
always playable. Each test is a case that generated play (or the evening at the table)
found, replayed on the real decider through `tests/unit/play.py`'s table.
"""

from __future__ import annotations

from typing import Any

import pytest

from domain import commands as cmd
from domain import events as ev
from domain.errors import Invalid, Refused
from domain.rules import REGISTRY
from domain.state import Principal
from projections.words.refusals import said
from tests.unit.play import Table, undo_view

QUIET = {"init.reroll_each_round": False}


def _duel(ruleset: str, a: str, b: str, settings: dict[str, Any] | None = None) -> Table:
    t = Table(ruleset, settings=settings)
    t.send(cmd.AddCombatant(name="A", side="a", preset=a))
    t.send(cmd.AddCombatant(name="B", side="b", preset=b))
    return t


def _undo_matches_at(t: Table, events: list[ev.Event]) -> None:
    (undone,) = events
    assert isinstance(undone, ev.Undone)
    assert undo_view(t.board()) == undo_view(t.board(proj=t.at(undone.to_version)))


def test_finding_1_undo_last_step_at_a_tcs_round_start_reverts_the_whole_round_change() -> None:
    t = _duel("d100-tcs", "duelist", "archer")
    t.send(cmd.StartCombat(), faces=[10, 20])
    first = t.state.game.actor
    assert first is not None
    t.send(cmd.EndTurn(actor=first))
    second = t.state.game.actor
    assert second is not None
    before = t.version
    opened = t.send(cmd.EndTurn(actor=second), faces=[70, 5])
    assert any(isinstance(e, ev.RoundStarted) for e in opened)
    undone = t.send(cmd.Undo(reason="too soon"))
    assert undone == [ev.Undone(to_version=before, from_version=before + 1, reason="too soon")]
    assert (t.state.game.round, t.state.game.actor) == (1, second)
    _undo_matches_at(t, undone)


def test_finding_2_an_undo_into_a_round_started_batch_is_refused_as_invalid() -> None:
    t = _duel("d20-na", "milicien", "fangeux")
    t.send(cmd.StartCombat(), faces=[10, 5])
    start = t.version
    while t.state.game.round < 2:
        actor = t.state.game.actor
        assert actor is not None
        t.send(cmd.EndTurn(actor=actor))
    end = t.version
    with pytest.raises(Invalid) as refused:
        t.send(cmd.Undo(reason="mid", to_version=end - 1))
    why = refused.value
    assert (why.code, why.reason, why.params["after"]) == ("invalid", "undo_inside_step", end)
    en, fr = said(why)  # the facts, worded in both languages
    assert "inside one command's events" in en and str(end) in en and str(end) in fr
    assert t.version == end  # nothing appended
    t.send(cmd.Undo(reason="to the start", to_version=start))
    assert (t.state.game.round, t.state.game.actor) == (1, t.at(start).state.game.actor)


def test_finding_3_undo_last_step_strikes_the_adjust_only_not_a_later_dispute() -> None:
    t = _duel("plain-d100", "guard", "bandit")
    t.send(cmd.StartCombat(), faces=[50, 20])
    t.send(cmd.Roll(expr="1d20", purpose="luck"))
    t.send(cmd.Adjust(combatant="c1", resource="hp", delta=-3, reason="trap"))
    adjusted = t.version
    t.send(cmd.Dispute(roll=t.state.ledger.rolls, reason="the die fell off"))
    t.send(cmd.AnswerDispute(roll=t.state.ledger.rolls, answer="it stands"))
    t.send(cmd.Undo(reason="no trap"))
    assert t.board()["undone"] == [[adjusted, adjusted]]
    struck = [line.version for line in t.proj.lines if line.undone is not None]
    assert struck == [adjusted]
    assert [d["status"] for d in t.board()["disputes"]] == ["answered"]


def test_finding_9_undo_last_step_reverts_an_attack_with_its_automatic_turn_change() -> None:
    t = _duel("d100-tcs", "duelist", "archer", QUIET)
    t.send(cmd.StartCombat(), faces=[10, 20])
    actor, target = "c1", "c2"
    before = t.version
    attack = t.send(cmd.Act(actor=actor, action="attack", target=target), faces=[99, 1])
    kinds = [type(e) for e in attack]
    assert ev.TurnEnded in kinds and ev.TurnStarted in kinds  # the turn moved on by itself
    t.send(cmd.Undo(reason="again"))
    assert t.state.game.actor == actor and t.state.game == t.at(before).state.game
    assert t.state.ledger.head is not None and t.state.ledger.head.last <= before


def test_finding_9_an_undo_to_a_version_an_earlier_undo_reverted_gives_its_board() -> None:
    t = _duel("plain-d100", "guard", "bandit")
    t.send(cmd.StartCombat(), faces=[50, 20])
    t.send(cmd.Act(actor="c1", action="attack", target="c2"), faces=[10])
    t.send(cmd.React(actor="c2", reaction="none"), faces=[4])
    reacted = t.version
    t.send(cmd.Undo(reason="the reaction was wrong"))
    first_undo = t.version
    t.send(cmd.React(actor="c2", reaction="dodge"), faces=[95, 3])
    undone = t.send(cmd.Undo(reason="it was right", to_version=reacted))
    assert t.state.game == t.at(reacted).state.game
    _undo_matches_at(t, undone)
    struck = {line.version for line in t.proj.lines if line.undone is not None}
    assert struck and min(struck) > first_undo  # the reaction is back in effect, the dodge not


def test_finding_9_continue_combat_in_tcs_gives_the_turn_to_the_side_left() -> None:
    t = _duel("d100-tcs", "duelist", "archer", QUIET)
    t.send(cmd.StartCombat(), faces=[10, 20])
    t.send(cmd.RemoveCombatant(combatant="c2", reason="gone"))
    assert t.board()["decided"]
    t.send(cmd.ContinueCombat(reason="a last look around"))
    assert t.state.game.actor == "c1" and not t.board()["decided"]
    t.send(cmd.EndTurn(actor="c1"))
    assert t.state.game.actor == "c1"


def test_finding_9_continue_combat_in_d20_na_survives_the_next_end_turn() -> None:
    t = _duel("d20-na", "milicien", "fangeux")
    t.send(cmd.StartCombat(), faces=[10, 5])
    t.send(cmd.RemoveCombatant(combatant="c2", reason="gone"))
    t.send(cmd.ContinueCombat(reason="search the room"))
    for _ in range(3):
        actor = t.state.game.actor
        assert actor == "c1"
        t.send(cmd.EndTurn(actor=actor))
    assert t.state.game.actor == "c1"


def test_finding_9_a_fight_where_nobody_is_left_standing_is_decided() -> None:
    t = _duel("d100-tcs", "duelist", "archer", QUIET)
    t.send(cmd.StartCombat(), faces=[10, 20])
    t.send(cmd.RemoveCombatant(combatant="c2", reason="gone"))
    t.send(cmd.ContinueCombat(reason="on"))
    t.send(cmd.RemoveCombatant(combatant="c1", reason="gone too"))
    b = t.board()
    assert (b["actor"], b["decided"], b["winner"]) == (None, True, None)


def test_finding_9_a_dispute_from_an_undone_combatant_names_no_raw_id() -> None:
    t = _duel("plain-d100", "guard", "bandit")
    t.send(cmd.AddCombatant(name="C", side="b", preset="bandit"))
    t.send(cmd.Roll(expr="1d6", purpose="omen"))
    t.send(cmd.Undo(reason="no C", to_version=t.version - 2))
    t.send(
        cmd.Dispute(roll=1, reason="odd"), who=Principal("player", frozenset({"c3"}), "player:c3")
    )
    line = t.proj.lines[-1]
    assert "c3" not in line.text and "a player" in line.text and "un joueur" in line.text_fr
    assert t.board()["disputes"][0]["by_name"] == "a player"


def test_generated_play_a_move_after_the_gm_removed_an_engaged_foe_does_not_crash() -> None:
    t = _duel("d100-tcs", "duelist", "shield_bearer", QUIET)
    t.send(cmd.StartCombat(), faces=[10, 20])
    t.send(
        cmd.Act(actor="c1", action="attack", target="c2", options={"weapon": "sword"}), faces=[30]
    )
    assert "c2" in t.state.game.combatants["c1"].status.get("engaged", [])
    t.send(cmd.RemoveCombatant(combatant="c2", reason="gone"))
    t.send(cmd.ContinueCombat(reason="on"))
    assert t.state.game.actor == "c1"
    t.send(cmd.Act(actor="c1", action="move", options={"sprint": 0}))  # no KeyError
    assert not t.state.game.combatants["c1"].status.get("engaged")


def test_finding_6_a_d20_na_line_states_the_final_threshold_with_a_condition() -> None:
    t = _duel("d20-na", "milicien", "fangeux")
    t.send(cmd.StartCombat())
    actor = t.state.game.actor
    assert actor is not None
    target = "c2" if actor == "c1" else "c1"
    t.send(cmd.ApplyCondition(combatant=actor, name="blessed", modifier=5))
    weapon = "claws" if actor == "c2" else "sword"
    events = t.send(
        cmd.Act(actor=actor, action="attack", target=target, options={"weapon": weapon}),
        faces=[10],
    )
    (check,) = [e.check for e in events if isinstance(e, ev.DieRolled) and e.check is not None]
    line = next(line for line in t.proj.lines if line.kind == "action_resolved")
    assert f"against {check.threshold}" in line.text


def test_a_tcs_disengage_condition_is_told_in_words_not_its_code_name() -> None:
    t = _duel("d100-tcs", "duelist", "shield_bearer", QUIET)
    t.send(cmd.StartCombat(), faces=[10, 20])
    t.send(
        cmd.Act(actor="c1", action="attack", target="c2", options={"weapon": "sword"}), faces=[30]
    )
    t.send(cmd.Act(actor="c2", action="disengage"))
    assert not any("no_aoo" in line.text for line in t.proj.lines)


PAIRS = {
    "plain-d100": ("guard", "bandit"),
    "ranks-d100": ("J1", "J2"),
    "d20-na": ("milicien", "fangeux"),
    "d100-tcs": ("duelist", "shield_bearer"),
}


@pytest.mark.parametrize("ruleset", sorted(PAIRS))
def test_a_combatant_added_mid_fight_joins_the_order_and_takes_a_turn(ruleset: str) -> None:
    """The evening's reinforcements: added after the start, a combatant used to stay out
    of the initiative order for good (every system), seen but never acting."""
    a, b = PAIRS[ruleset]
    t = _duel(ruleset, a, b)
    t.send(cmd.StartCombat())
    before = list(t.state.game.order)
    (added, *_) = t.send(cmd.AddCombatant(name="Late", side="b", preset=b))
    late = added.combatant_id  # type: ignore[attr-defined]
    game = t.state.game
    assert late in game.order and [c for c in game.order if c != late] == before
    assert late in game.scores  # its initiative rolled as the system rolls it
    acted = set()
    for _ in range(12):
        game = t.state.game
        if game.pending:
            t.send(cmd.React(actor=game.pending[0].target, reaction="none"))
        elif game.actor is not None:
            acted.add(game.actor)
            t.send(cmd.EndTurn(actor=game.actor))
    assert late in acted
    assert any(line.kind == "initiative_set" for line in t.proj.lines)


def test_generated_play_an_attacker_knocked_out_while_its_attack_waits_hands_on_after_it() -> None:
    """The long run's find: the GM's -30 on a plain-d100 attacker whose attack waits for
    the dodge. The defender still answers; then the turn goes to someone standing."""
    t = Table("plain-d100")
    t.send(cmd.AddCombatant(name="G", side="a", preset="guard"))
    t.send(cmd.AddCombatant(name="B", side="b", preset="bandit"))
    t.send(cmd.SetInitiative(order=["c2", "c1"]))
    t.send(cmd.StartCombat())
    t.send(cmd.Act(actor="c2", action="attack", target="c1"), faces=[10])  # a hit
    assert t.state.game.pending
    t.send(cmd.Adjust(combatant="c2", resource="hp", delta=-30, reason="GM"))
    assert t.state.game.combatants["c2"].out is not None
    t.send(cmd.React(actor="c1", reaction="none"))
    game = t.state.game
    assert not game.pending
    assert game.actor is None or game.combatants[game.actor].out is None


def test_TC_9_a_spell_with_no_foe_left_is_refused_under_the_rule_legal_names() -> None:
    """The long run's find: with no foe in the fight (the GM went on with one side), legal
    showed `cast` disabled for TC-9 (no target) while the decider refused a cast sent as
    offered under TC-10 (no spell named), an option the caster could not choose."""
    t = _duel("d100-tcs", "mage", "duelist", QUIET)
    t.send(cmd.StartCombat(), faces=[10, 20])
    t.send(cmd.RemoveCombatant(combatant="c2", reason="fled the field"))
    t.send(cmd.ContinueCombat(reason="on"))
    game = t.state.game
    assert game.actor == "c1"
    rules = {k: s.default for k, s in REGISTRY["d100-tcs"].settings.items()} | QUIET
    (cast,) = [e for e in REGISTRY["d100-tcs"].legal(game, "c1", rules) if e.action == "cast"]
    assert not cast.enabled and cast.rule == "TC-9" and cast.targets == []
    with pytest.raises(Refused) as refused:
        t.send(cmd.Act(actor="c1", action="cast"))
    assert (refused.value.rule, refused.value.reason) == ("TC-9", "no_target")
    assert refused.value.status == 422
