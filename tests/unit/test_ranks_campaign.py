"""The War (domain.campaign): daily recovery and upkeep, mana transfer, Luck per War."""

from __future__ import annotations

from typing import Any

import pytest

from domain import campaign as war
from domain.errors import Refused
from tests.unit.test_ranks_support import Table, master, servant


class War:
    def __init__(self, settings: dict[str, Any] | None = None) -> None:
        self.events = war.open_war("w1", "Fifth War", settings or {})
        self.state = war.replay(self.events)

    def do(self, command: war.CampaignCommand) -> list[war.CampaignEvent]:
        out = war.decide(self.state, command)
        self.events.extend(out)
        for e in out:
            war.evolve(self.state, e)
        return out

    def enroll(self, name: str, sheet: dict[str, Any], master: str | None = None) -> str:
        added = self.do(war.Enroll(name=name, sheet=sheet, master=master))[0]
        assert isinstance(added, war.CharacterEnrolled)
        return added.character_id

    def pools(self, cid: str) -> dict[str, int]:
        return self.state.characters[cid].resources


def test_RK_27_each_day_restores_50_capped_at_the_maximum() -> None:
    w = War()
    m = w.enroll("M", master(hp=5, mana=30))
    w.do(war.NewDay())
    assert (w.pools(m)["hp"], w.pools(m)["mana"]) == (55, 60)


@pytest.mark.parametrize(("rarity", "cost"), [(1, 5), (2, 10), (3, 15), (4, 20), (5, 25)])
def test_RK_28_upkeep_by_rarity(rarity: int, cost: int) -> None:
    w = War()
    m = w.enroll("M", master(MANA_STAT="EX"))
    w.enroll("S", servant(rarity=rarity), master=m)
    paid = [e for e in w.do(war.NewDay()) if isinstance(e, war.UpkeepPaid)]
    assert [(e.amount, e.rule) for e in paid] == [(cost, "RK-28")]
    assert w.pools(m)["mana"] == 100 - cost


def test_RK_29_a_berserker_costs_10_more() -> None:
    w = War()
    m = w.enroll("M", master(MANA_STAT="EX"))
    w.enroll("S", servant(rarity=3, **{"class": "Berserker"}), master=m)
    w.do(war.NewDay())
    assert w.pools(m)["mana"] == 100 - 25


def test_RK_AMB_8_recovery_comes_before_upkeep_and_0_mana_sidelines() -> None:
    w = War()
    m = w.enroll("M", master(mana=10))
    w.enroll("S", servant(rarity=3), master=m)
    w.do(war.NewDay())
    assert w.pools(m)["mana"] == 60 - 15
    w = War({"day_start.order": ["upkeep"]})
    m = w.enroll("M", master(mana=10))
    w.enroll("S", servant(rarity=3), master=m)
    out = w.do(war.NewDay())
    assert w.pools(m)["mana"] == 0
    assert [(e.character_id, e.rule) for e in out if isinstance(e, war.SidelinedForTheDay)] == [
        (m, "RK-26")
    ]


def test_RK_30_war_transfer_keeps_one_and_needs_the_bond() -> None:
    w = War()
    m = w.enroll("M", master())
    s = w.enroll("S", servant(mana=10), master=m)
    other = w.enroll("O", master())
    w.do(war.TransferMana(giver=m, receiver=s, amount=50))
    assert (w.pools(m)["mana"], w.pools(s)["mana"]) == (10, 60)
    with pytest.raises(Refused) as info:
        w.do(war.TransferMana(giver=s, receiver=m, amount=60))
    assert info.value.rule == "RK-30"
    with pytest.raises(Refused) as info:
        w.do(war.TransferMana(giver=m, receiver=other, amount=1))
    assert info.value.rule == "RK-30"


def test_RK_51_luck_uses_last_the_whole_war_and_reach_the_encounter() -> None:
    w = War()
    m = w.enroll("M", master(LCK="B"))
    w.do(war.SettleCharacter(character_id=m, hp=60, mana=60, luck=1, half_ranks_used=["STR"]))
    w.do(war.NewDay())
    char = w.state.characters[m]
    assert char.resources["luck"] == 1  # not refilled by a new Day
    assert char.half_ranks_used == []  # RK-8: switches come back each RP
    t = Table()
    cid = t.add("M", "a", war.encounter_sheet(w.state, char))
    assert t.c(cid).resources["luck"] == 1 and t.c(cid).maxima["luck"] == 4


def test_RK_25_the_dead_do_not_recover() -> None:
    w = War()
    m = w.enroll("M", master())
    w.do(war.SettleCharacter(character_id=m, hp=0, mana=20, luck=3))
    w.do(war.NewDay())
    assert w.pools(m)["hp"] == 0


def test_the_war_replays_to_the_same_state() -> None:
    w = War()
    m = w.enroll("M", master(mana=10))
    w.enroll("S", servant(rarity=2, **{"class": "Berserker"}), master=m)
    w.do(war.NewDay())
    w.do(war.NewDay())
    assert war.replay(w.events) == w.state


def test_RK_8_half_ranks_spent_earlier_in_the_day_stay_spent_in_the_next_encounter() -> None:
    from domain import commands as cmd
    from domain.dice import FixedRoller
    from domain.encounter import decide_and_fold, open_encounter
    from domain.errors import Refused
    from domain.evolve import replay
    from domain.rules.ranks.sheet import PRESETS

    state = replay(open_encounter("e", "ranks-d100", "t", {}, {"main": ("00", False)}))
    sheet = {**PRESETS["J1"], "half_ranks_used": ["STR"]}
    _, state = decide_and_fold(
        state, cmd.AddCombatant(name="J1", side="a", sheet=sheet), FixedRoller([])
    )
    assert state.game.uses("c1", "half_rank.STR") == 1
    assert state.game.uses("c1", "half_rank.AGI") == 0
    with pytest.raises(Refused):
        decide_and_fold(
            state,
            cmd.AddCombatant(
                name="X", side="b", sheet={**PRESETS["J1"], "half_ranks_used": ["nope"]}
            ),
            FixedRoller([]),
        )


def test_RK_25_settling_a_dead_character_cannot_bring_it_back() -> None:
    w = War()
    j1 = w.enroll("J1", master())
    w.do(war.SettleCharacter(character_id=j1, hp=0, mana=10, luck=1))
    with pytest.raises(Refused) as caught:
        w.do(war.SettleCharacter(character_id=j1, hp=40, mana=10, luck=1))
    assert caught.value.rule == "RK-25"


# --- a War's encounters: who joins, what is carried back (no database) -----------------


def war_encounter(w: War) -> tuple[Any, dict[str, str]]:
    """An encounter opened in `w` with everyone who may join; combatant id by character."""
    from domain import commands as cmd
    from domain.dice import FixedRoller
    from domain.encounter import decide_and_fold, open_encounter
    from domain.evolve import replay
    from domain.state import GM

    state = replay(open_encounter("e", "ranks-d100", "t", {}, {}, campaign="w1"))
    ids: dict[str, str] = {}
    for j in war.joining(w.state):
        add = cmd.AddCombatant(
            name=j.character.name, side=j.side, sheet=j.sheet, character=j.character.id
        )
        _, state = decide_and_fold(state, add, FixedRoller([]), GM)
        ids[j.character.id] = f"c{state.game.added}"
    return state, ids


def settled(events: list[war.CampaignEvent]) -> list[str]:
    return [e.character_id for e in events if isinstance(e, war.CharacterSettled)]


def test_RK_25_RK_26_the_dead_and_the_sidelined_do_not_join_and_servants_side_with_masters() -> (
    None
):
    w = War()
    m = w.enroll("M", master())
    s = w.enroll("S", servant(), master=m)
    dead = w.enroll("D", master())
    w.do(war.SettleCharacter(character_id=dead, hp=0, mana=20, luck=3))
    dry = w.enroll("Dry", master())
    w.do(war.SettleCharacter(character_id=dry, hp=10, mana=0, luck=3))

    joined = war.joining(w.state)

    assert [j.character.id for j in joined] == [m, s]
    assert [j.side for j in joined] == ["M", "M"]
    assert joined[1].sheet["master"] == "M"


def test_RK_24_a_closed_encounter_settles_hp_and_mana_of_the_characters_who_fought() -> None:
    w = War()
    m = w.enroll("M", master())
    state, ids = war_encounter(w)
    c = state.game.combatants[ids[m]]
    c.resources["hp"], c.resources["mana"] = 12, 7

    [settled] = war.settlements(w.state, state.game, {})

    assert isinstance(settled, war.CharacterSettled)
    assert (settled.character_id, settled.hp, settled.mana) == (m, 12, 7)


def test_RK_51_luck_is_carried_back_only_when_it_lasts_the_war() -> None:
    w = War()
    m = w.enroll("M", master(LCK="B"))
    state, ids = war_encounter(w)
    state.game.combatants[ids[m]].resources["luck"] = 1

    [per_war] = war.settlements(w.state, state.game, {"luck.scope": "war"})
    [per_encounter] = war.settlements(w.state, state.game, {"luck.scope": "encounter"})

    assert isinstance(per_war, war.CharacterSettled)
    assert isinstance(per_encounter, war.CharacterSettled)
    assert per_war.luck == 1
    assert per_encounter.luck == w.pools(m)["luck"]


def test_RK_8_half_ranks_switched_on_in_the_encounter_are_carried_back_as_used() -> None:
    w = War()
    m = w.enroll("M", master())
    w.do(war.SettleCharacter(character_id=m, hp=60, mana=60, luck=3, half_ranks_used=["END"]))
    state, ids = war_encounter(w)
    state.game.limits[(ids[m], "half_rank.STR")] = ("rp", 1)

    [settled] = war.settlements(w.state, state.game, {})

    assert isinstance(settled, war.CharacterSettled)
    assert settled.half_ranks_used == ["END", "STR"]


def test_pools_carried_back_are_capped_at_the_wars_maxima_and_never_negative() -> None:
    w = War()
    m = w.enroll("M", master())
    state, ids = war_encounter(w)
    c = state.game.combatants[ids[m]]
    c.resources["hp"], c.resources["mana"] = 10_000, -5

    [settled] = war.settlements(w.state, state.game, {})

    assert isinstance(settled, war.CharacterSettled)
    assert (settled.hp, settled.mana) == (w.state.characters[m].maxima["hp"], 0)


def test_a_combatant_who_names_no_war_character_is_not_settled() -> None:
    from domain import commands as cmd
    from domain.dice import FixedRoller
    from domain.encounter import decide_and_fold
    from domain.state import GM

    w = War()
    m = w.enroll("M", master())
    state, ids = war_encounter(w)
    _, state = decide_and_fold(
        state, cmd.AddCombatant(name="Guard", side="x", sheet=master()), FixedRoller([]), GM
    )
    assert settled(war.settlements(w.state, state.game, {})) == [m]

    state.game.combatants[ids[m]].character = None  # named no character when added
    assert war.settlements(w.state, state.game, {}) == []


def test_an_unknown_war_event_type_raises_rather_than_being_skipped() -> None:
    with pytest.raises(ValueError, match="unknown War event"):
        war.event_from("war_dissolved", {})
    opened = war.event_from("war_opened", {"campaign_id": "w", "name": "n"})
    assert isinstance(opened, war.WarOpened)


def test_a_war_character_cannot_join_an_encounter_outside_a_war() -> None:
    from domain import commands as cmd
    from domain.errors import Invalid

    with pytest.raises(Invalid):
        Table().do(cmd.AddCombatant(name="M", side="a", sheet=master(), character="ch1"))
