"""The War's narrator (projections/words/war.py): each War event in English and French,
told from the War before it, without changing the War it is given."""

from __future__ import annotations

from domain import campaign as war
from projections.words.war import hints, told


def a_war() -> war.CampaignState:
    state = war.replay(war.open_war("w1", "Fuyuki", {}))
    stats = ("STR", "END", "AGI", "MANA_STAT", "LCK")
    j = {"kind": "master", "MAGIC": "C", **{s: "C" for s in stats}}
    for name in ("Aldric", "Élise"):
        for event in war.decide(state, war.Enroll(name=name, sheet=j)):
            war.evolve(state, event)
    return state


def test_a_new_day_is_told_in_both_languages_with_what_each_pool_gained() -> None:
    state = a_war()
    war.evolve(state, war.CharacterSettled(character_id="p1", hp=10, mana=40, luck=2))
    events = war.decide(state, war.NewDay())
    lines = told(state, events)
    assert lines[0] == {"type": "day_started", "text": "Day 1", "text_fr": "Jour 1"}
    recovered = {line["text"]: line["text_fr"] for line in lines[1:]}
    gained = [t for t in recovered if t.startswith("Aldric +")]
    assert (
        len(gained) == 1
        and recovered[gained[0]].startswith("Aldric +")
        and "PV" in recovered[gained[0]]
    )
    assert (
        "Élise: already full" in recovered
        and recovered["Élise: already full"] == "Élise : déjà au maximum"
    )


def test_telling_does_not_move_the_war_it_is_given() -> None:
    state = a_war()
    events = war.decide(state, war.NewDay())
    told(state, events)
    assert state.day == 0


def test_a_mana_transfer_names_both_characters() -> None:
    state = a_war()
    lines = told(state, [war.ManaTransferred(giver="p1", receiver="p2", amount=5)])
    assert lines == [{"type": "mana_transferred", "text": "Aldric gives 5 mana to Élise (RK-30)",
                      "text_fr": "Aldric donne 5 PM à Élise (RK-30)"}]  # fmt: skip


def test_rk_27_rk_30_the_forms_notes_say_this_wars_numbers_and_order() -> None:
    """The War page words no rule number itself: the notes come from the rules' constants
    and the War's settings (RK-AMB-8: the order of a Day's steps, the cap)."""
    said = hints(war.CampaignState())
    assert said["new_day"].startswith(f"Recovery +{war.DAILY_RECOVERY} HP and mana (capped")
    assert "then Servants' upkeep" in said["new_day"]
    assert said["new_day_fr"].startswith(f"Récupération +{war.DAILY_RECOVERY} PV et mana")
    assert f"at least {war.MANA_KEPT} (RK-30)" in said["transfer"]
    assert f"au moins {war.MANA_KEPT} (RK-30)" in said["transfer_fr"]
    other = war.CampaignState(
        settings={"day_start.order": ["upkeep", "recover"], "recovery.cap_at_max": False}
    )
    turned = hints(other)
    assert turned["new_day"].startswith("Servants' upkeep, then recovery +")
    assert "capped" not in turned["new_day"] and "plafonnée" not in turned["new_day_fr"]
    assert turned["new_day_fr"].startswith("Entretien des Servants, puis récupération")
