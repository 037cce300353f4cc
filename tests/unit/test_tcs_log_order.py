"""d100-tcs's log tells each step after its cause, with numbers that agree (issue 21
finding 7): a second declared action lost to a critical failure (TC-13) says so, never
"None against None"; a fumble turned on the actor (TC-12, TC-14) and a friendly-fire hit
(TC-17) are told through the protections in the line that caused them, the armor's PR
loss with them, the defeat after."""

from __future__ import annotations

from domain import commands as cmd
from domain.encounter import open_encounter
from domain.evolve import evolve
from domain.state import EncounterState
from projections.log.core import LogLine, tell
from tests.unit.test_tcs_support import BOW, QUIET, Table, duel

MAIL = {"name": "mail", "levels": [{"pr": 10, "pp": 2}]}


def told(table: Table, settings: dict[str, object] | None = None) -> list[LogLine]:
    state, lines = EncounterState(), list[LogLine]()
    opened = open_encounter("enc", "d100-tcs", "t", QUIET | (settings or {}), {})
    for version, event in enumerate([*opened, *table.log], start=1):
        tell(lines, event, state, version)
        evolve(state, event)
    return [ln for ln in lines if ln.kind not in ("round_started", "turn_started")][5:]


def test_TC_13_a_second_attack_lost_to_a_critical_failure_is_told_as_lost() -> None:
    table, a, b = duel()
    table.act(a, "attack", b, [99], then={"action": "attack", "target": b})
    lines = told(table)
    assert [ln.kind for ln in lines] == ["action_resolved", "action_resolved"]
    assert "None" not in lines[1].text and "None" not in lines[1].text_fr
    assert "loses the rest of the round" in lines[1].text and "critical failure" in lines[1].text
    assert "perd le reste du round" in lines[1].text_fr


def test_TC_12_a_fumble_on_an_armored_actor_is_one_line_then_the_defeat() -> None:
    table, a, b = duel(a={"hp": 4, "armor": MAIL, "role": "NPC"})
    table.act(a, "attack", b, [99, 90])  # a fumble, then a failed last stand (TC-28)
    lines = told(table)
    assert [ln.kind for ln in lines] == ["action_resolved", "combatant_defeated"]
    line = lines[0]
    # sword 6, PP 2 stops 2, the armor's PR 10 -> 4 and the HP 4 -> 0, all in this line
    assert line.text == (
        "A misses B: 99 against 50 critical. The blow turns on A: 6 damage, 2 stopped by "
        "PP 2 (armor PR 4): 4 HP lost, HP 4 -> 0; last stand failed"
    )
    assert "4 PV perdus, PV 4 -> 0" in line.text_fr and "PR de l'armure 4" in line.text_fr
    assert line.rolls == [3, 4]  # the attack and the last stand (1 and 2: initiative)


def test_TC_12_a_fumble_bigger_than_the_pool_says_what_the_pool_lost() -> None:
    table, a, b = duel(a={"hp": 4, "role": "NPC"})
    table.act(a, "attack", b, [99, 90])
    line = told(table)[0]
    assert "6 damage: 4 HP lost, HP 4 -> 0" in line.text


def test_TC_17_a_friendly_fire_hit_is_told_through_the_allys_armor() -> None:
    table = Table(QUIET)
    archer = table.add("Archer", "a", PERC=60, weapons=[BOW])
    ally = table.add("Ally", "a", DEX=50, armor=MAIL)
    foe = table.add("Foe", "b", DEX=50)
    table.do(cmd.StartCombat(), [5, 10, 20])
    table.end(archer)
    table.act(ally, "attack", foe, [10])
    table.end(foe)
    table.act(archer, "attack", foe, [65])  # 61..70: the ally in contact takes it
    shot = told(table)[-1]
    assert shot.kind == "action_resolved"
    assert shot.text.endswith(
        "Friendly fire: Ally is hit, 5 damage, 2 stopped by PP 2 (armor PR 5): 3 HP lost, "
        "HP 20 -> 17"
    )
    kinds = [ln.kind for ln in told(table)]
    assert "resource_changed" not in kinds  # every change is in the line that caused it
