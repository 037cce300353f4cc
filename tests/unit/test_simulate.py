"""The 1v1 resolver (NA-37..NA-40, NA-AMB-28): duels through the decider, summaries, text."""

from __future__ import annotations

from typing import Any

import pytest

from domain import events as ev
from domain.chain import GENESIS, link
from domain.dice import FixedRoller
from domain.events import event_data
from domain.evolve import replay
from domain.rules.d20_na.resolver import fight, simulate, wilson
from domain.verify import verify
from projections.log import narrate

SWORD = {"name": "sword", "dmg": 5, "parry": 6}


def sheet(**over: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "STR": 10, "END": 5, "HAB": 10, "ATT": 12, "PAR": 10, "NA": 1, "INI": 5,
        "hp": 30, "weapons": [SWORD],
    }  # fmt: skip
    return base | over


def test_NA_37_a_duel_is_played_through_the_decider_to_a_winner() -> None:
    # A (INI 9) hits for 20 each time; B never gets through: A wins in round 2.
    a = sheet(INI=9)
    b = sheet(ATT=1)
    faces = [
        5, 20, 15,  # A hits; B's parry fails; torso: 20 + 5 - 5 = 20
        20,  # B misses (NA-12)
        5, 20, 15,  # round 2: A hits again, 40 >= 30
    ]  # fmt: skip
    result = fight(a, b, FixedRoller(faces))
    assert (result.winner, result.rounds) == ("a", 2)
    assert [(h.attacker, h.zone, h.damage) for h in result.hits] == [("a", "torso", 20)] * 2
    state = replay(result.events)  # the events are a whole encounter stream
    assert state.ledger.ruleset == "d20-na" and state.ledger.settings["profile"] == "resolver_1v1"
    assert [c.out for c in state.game.combatants.values()] == [None, "down"]


def test_NA_39_the_resolver_parries_with_the_shield_when_one_is_carried() -> None:
    a = sheet(INI=9)
    b = sheet(ATT=1, PAR=10, shield={"name": "shield", "parry": 9})
    faces = [10, 1, 15, 20, 10, 1, 15, 20]  # A margin 2 < parry margin 9, twice
    result = fight(a, b, FixedRoller(faces), max_rounds=2)
    assert [h.damage for h in result.hits] == [20 + 5 - 5 - 9] * 2
    assert result.winner is None  # both still standing when the rounds ran out


def test_NA_39_the_resolver_neither_aims_nor_uses_the_off_hand() -> None:
    a = sheet(INI=9, weapons=[SWORD, {"name": "dagger", "dmg": 1}], off_hand="dagger")
    result = fight(a, sheet(ATT=1), FixedRoller([20, 20]), max_rounds=1)
    rolls = [e for e in result.events if isinstance(e, ev.DieRolled)]
    assert len(rolls) == 2  # one attack roll each, no off-hand reroll (NA-17 is off)


def test_NA_AMB_28_the_dodge_policy_dodges_when_it_is_the_better_defense() -> None:
    a = sheet(INI=9)
    b = sheet(ATT=1, HAB=15, skills={"dodge": True})
    settings = {"resolver.defense_policy": "dodge_if_skilled_and_better"}
    result = fight(a, b, FixedRoller([10, 1, 20]), settings, max_rounds=1)
    reactions = [e.reaction for e in result.events if isinstance(e, ev.ReactionResolved)]
    assert reactions == ["dodge"]


def test_a_duel_nobody_can_win_is_a_draw_after_max_rounds() -> None:
    harmless = sheet(STR=0, weapons=[], END=10)
    result = fight(harmless, harmless, FixedRoller([20] * 40), max_rounds=5)
    assert result.winner is None and result.rounds == 5


def test_simulate_is_reproducible_and_counts_every_fight() -> None:
    one = simulate("milicien", "fangeux", 40, seed=7)
    two = simulate("milicien", "fangeux", 40, seed=7)
    assert (one.wins, one.mean_rounds, one.mean_damage_per_hit) == (
        two.wins,
        two.mean_rounds,
        two.mean_damage_per_hit,
    )
    assert sum(one.wins.values()) + one.draws == 40
    assert one.rates["a"].low <= one.rates["a"].rate <= one.rates["a"].high
    assert one.mean_damage_per_hit > 0 and one.sd_rounds >= 0
    other = simulate("milicien", "fangeux", 40, seed=8)
    assert other.example is not None and one.example is not None
    assert other.example.events != one.example.events


def test_the_Fangeux_beats_the_Milicien_more_often_than_not() -> None:
    summary = simulate("milicien", "fangeux", 200, seed=1)
    assert summary.rates["b"].low > 0.5


@pytest.mark.parametrize(
    ("k", "n", "low", "high"),
    [(0, 10, 0.0, 0.2775), (5, 10, 0.2366, 0.7634), (10, 10, 0.7225, 1.0)],
)
def test_wilson_interval(k: int, n: int, low: float, high: float) -> None:
    rate = wilson(k, n)
    assert rate.low == pytest.approx(low, abs=1e-4)
    assert rate.high == pytest.approx(high, abs=1e-4)


def test_NA_38_a_fight_is_narrated_in_english_and_french() -> None:
    a = sheet(INI=9)
    b = sheet(ATT=1)
    result = fight(a, b, FixedRoller([5, 20, 15, 20, 5, 20, 15]), names=("Milicien", "Fangeux"))
    english = narrate(result.events)
    assert english.splitlines()[:3] == [
        "Round 1",
        "Milicien attacks Fangeux: 5 against 12, a hit (margin 7)",
        "Fangeux fails to parry (20 against 10). Milicien hits Fangeux on the torso: 20 damage"
        " (2 x FOR 10 + sword 5 - END 5), HP 30 -> 10",
    ]
    assert english.splitlines()[-1] == "Fangeux is out of the fight: down"
    french = narrate(result.events, "fr")
    assert ("Fangeux ne parvient pas à parer (20 pour 10). Milicien touche Fangeux au torse :"
            " 20 dégâts (2 x FOR 10 + sword 5 - END 5), PV 30 -> 10") in french  # fmt: skip
    assert french.splitlines()[-1] == "Fangeux est hors de combat : à terre"


def test_NA_38_the_example_fight_is_a_closed_stream_the_verifier_accepts() -> None:
    summary = simulate("milicien", "fangeux", 2, seed="audit")
    assert summary.example is not None
    events = summary.example.events
    assert isinstance(events[-1], ev.SeedRevealed)
    opened = events[0]
    assert isinstance(opened, ev.EncounterOpened)
    envelopes = []
    prev = GENESIS
    for version, event in enumerate(events, start=1):
        kind, data = event_data(event)
        envelope: dict[str, Any] = {
            "stream": f"encounter-{opened.encounter_id}",
            "version": version,
            "type": kind,
            "data": data,
            "meta": {"command_id": str(version), "actor": "gm", "rules_version": "1"},
            "prev_hash": prev,
        }
        envelope["hash"] = prev = link(prev, envelope)
        envelopes.append(envelope)
    report = verify(envelopes)
    assert report["chain"] and report["dice"], report
    assert report["unrevealed"] == 0
    assert report["rolls_checked"] == sum(isinstance(e, ev.DieRolled) for e in events)


def test_narration_tells_half_actions_shots_and_stopped_projectiles() -> None:
    def added(cid: str, name: str) -> ev.CombatantAdded:
        return ev.CombatantAdded(combatant_id=cid, name=name, side=cid, sheet={}, resources={})

    shot = {"roll": 3, "threshold": 8, "margin": 5, "target": "c2", "mode": "shoot"}
    events: list[ev.Event] = [
        ev.EncounterOpened(encounter_id="e", ruleset="d20-na", name="range"),
        added("c1", "Archer"),
        added("c2", "Knight"),
        ev.ActionResolved(actor="c1", action="move", outcome="done"),
        ev.ActionResolved(actor="c1", action="shoot", outcome="hit", detail=shot),
        ev.ReactionResolved(pending_id=1, actor="c2", reaction="parry", outcome="stopped",
                            damage_taken=0,
                            detail={**shot, "defense_roll": 1, "defense_margin": 3,
                                    "defense_success": True, "defended": True}),
    ]  # fmt: skip
    assert narrate(events).splitlines() == [
        "Archer moves",
        "Archer shoots at Knight: 3 against 8, a hit (margin 5)",
        "Knight stops the projectile (1, margin 3 against 5): no damage",
    ]
    assert narrate(events, "fr").splitlines()[1] == (
        "Archer tire sur Knight : 3 pour 8, touché (marge 5)"
    )
    with pytest.raises(ValueError):
        narrate(events, "de")
