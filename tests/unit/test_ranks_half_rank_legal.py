"""ranks-d100 half-rank switches as `legal` offers them (issue 21 finding 4): the
activate / deactivate choice on actions and defences (RK-6, RK-7), its once-per-RP state
per stat (RK-8), and rank selects that offer no "B+" the roll would not use."""

from __future__ import annotations

from typing import Any

from domain import commands as cmd
from tests.unit.test_ranks_support import Table, duel, legal_of, master, only_check, servant


def entry(t: Table, cid: str, action: str) -> dict[str, Any]:
    return next(e for e in legal_of(t, cid) if e["action"] == action)


def send(t: Table, cid: str, e: dict[str, Any], *faces: int, **extra: Any) -> Any:
    """The command the console builds from an entry: first target, top rank, every choice
    at its first value."""
    options = {k: v[0] for k, v in (e.get("choices") or {}).items()} | extra
    target = (e.get("targets") or [None])[0]
    rank = (e.get("ranks") or [None])[-1]
    if e.get("reaction"):
        return t.do(cmd.React(actor=cid, reaction=e["action"], options=options), *faces)
    return t.do(
        cmd.Act(actor=cid, action=e["action"], target=target, rank=rank, options=options), *faces
    )


def attacked(defender: dict[str, Any]) -> tuple[Table, str, str]:
    """A's hit (STR C, roll 10) waits on B's defence."""
    t, a, b = duel(master(), defender)
    t.act(a, "attack_physical", 10, target=b)
    assert t.state.game.pending
    return t, a, b


def test_RK_6_legal_offers_activating_a_positive_half_rank_and_the_roll_uses_it() -> None:
    t, a, _ = duel(master(STR="B+"), master())
    attack = entry(t, a, "attack_physical")
    assert attack["choices"]["activate"] == [["STR"]]
    assert attack["half_rank"] == {
        "stat": "STR", "rank": "B+", "option": "activate", "state": "ready", "delta": 10,
        "rule": "RK-6",
    }  # fmt: skip
    assert attack["threshold"] == 60  # dormant until switched (RK-6)
    check = only_check(send(t, a, attack, 70))
    assert (check.threshold, check.outcome) == (70, "success")


def test_RK_6_the_rank_select_offers_the_letter_not_a_b_plus_the_roll_would_not_use() -> None:
    t, a, _ = duel(master(STR="B+"), master())
    attack = entry(t, a, "attack_physical")
    assert attack["ranks"] == ["E", "D", "C", "B"]
    check = only_check(t.act(a, "attack_physical", 60, target=attack["targets"][0], rank="B"))
    assert check.threshold == 60  # the letter, unswitched: exactly what the select said


def test_RK_8_the_switch_is_spent_once_per_RP_and_legal_says_so() -> None:
    t, a, b = duel(master(STR="B+"), master())
    send(t, a, entry(t, a, "attack_physical"), 90)  # activated, missed: still spent
    t.do(cmd.EndTurn(actor=a))
    t.do(cmd.EndTurn(actor=b))
    attack = entry(t, a, "attack_physical")
    assert "activate" not in (attack.get("choices") or {})
    assert (attack["half_rank"]["state"], attack["half_rank"].get("delta", 0)) == ("used", 0)
    assert attack["threshold"] == 60


def test_RK_8_each_stat_keeps_its_own_switch() -> None:
    t, a, b = duel(master(STR="B+", AGI="C+"), master())
    send(t, a, entry(t, a, "attack_physical"), 90)
    t.do(cmd.EndTurn(actor=a))
    t.do(cmd.EndTurn(actor=b))
    flee = entry(t, a, "flee")
    assert flee["choices"] == {"activate": [["AGI"]]}
    assert flee["half_rank"]["state"] == "ready"


def test_RK_7_a_defence_offers_deactivating_a_negative_half_rank() -> None:
    t, _, b = attacked(master(END="C-"))
    defend = entry(t, b, "defend_end")
    assert defend["reaction"] and defend["choices"] == {"deactivate": [["END"]]}
    assert (defend["threshold"], defend["half_rank"]["delta"]) == (40, 10)
    check = only_check(send(t, b, defend, 50))
    assert (check.threshold, check.outcome) == (50, "success")


def test_RK_6_a_defence_offers_activating_and_the_agility_roll_uses_it() -> None:
    t, _, b = attacked(master(AGI="D++"))
    defend = entry(t, b, "defend_agi")
    assert defend["choices"] == {"activate": [["AGI"]]} and defend["threshold"] == 40
    assert only_check(send(t, b, defend, 60)).threshold == 60


def test_RK_AMB_10_a_switch_for_the_rest_of_the_RP_shows_as_on_and_counts_in_the_odds() -> None:
    t, a, b = duel(master(STR="B+"), master(), {"half_rank.activation_scope": "rest_of_rp"})
    send(t, a, entry(t, a, "attack_physical"), 90)
    t.do(cmd.EndTurn(actor=a))
    t.do(cmd.EndTurn(actor=b))
    attack = entry(t, a, "attack_physical")
    assert attack["half_rank"]["state"] == "on" and attack["threshold"] == 70
    assert "activate" not in (attack.get("choices") or {})
    assert only_check(send(t, a, attack, 70)).threshold == 70


def test_RK_AMB_5_with_action_ranks_the_switch_names_the_letter_it_applies_at() -> None:
    t, a, _ = duel(master(STR="B+"), master(), {"threshold_source": "action_rank"})
    attack = entry(t, a, "attack_physical")
    assert attack["half_rank"]["only_at"] == "B"
    assert only_check(send(t, a, attack, 70)).threshold == 70


def test_RK_6_a_stat_without_half_ranks_offers_no_switch() -> None:
    t, a, _ = duel(master(), master())
    attack = entry(t, a, "attack_physical")
    assert "half_rank" not in attack and not attack.get("choices")


def test_RK_6_a_counter_offers_its_stats_switch_and_the_counter_roll_uses_it() -> None:
    t, _, b = attacked(master(STR="B+"))  # A's physical attack at rank C
    counter = entry(t, b, "counter")
    choices = counter["choices"]
    assert choices["action"] == ["attack_physical"] and choices["activate"] == [["STR"]]
    assert choices["rank"] == ["C", "B"]  # letters: no "B+" the roll would not use
    options = {"action": "attack_physical", "rank": "B", "activate": ["STR"]}
    check = only_check(t.react(b, "counter", 70, **options))
    assert (check.stat, check.threshold, check.outcome) == ("STR", 70, "success")


def test_RK_39_an_interception_offers_the_servants_endurance_switch() -> None:
    t = Table()
    m = t.add("M", "a", master())
    t.add("S", "a", servant(END="C+", master="M"))
    foe = t.add("F", "b", master())
    t.do(cmd.StartCombat(), 1, 2, 99)  # F first
    t.act(foe, "attack_physical", 10, target=m)
    intercept = entry(t, m, "intercept")
    assert intercept["half_rank"]["stat"] == "END" and intercept["choices"]["activate"] == [["END"]]
    check = only_check(t.react(m, "intercept", 60, activate=["END"]))
    assert (check.stat, check.threshold) == ("END", 60)
