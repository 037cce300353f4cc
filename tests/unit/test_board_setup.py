"""What the GM's board gives the console's quick setup (issue 25 section 5): each
combatant's checked sheet and GM-only resources, so one `add_combatant` adds a copy, and
who has added entropy before the first roll, yes or no per player, never the values."""

from __future__ import annotations

import json
from collections.abc import Sequence

import pytest

from domain import commands as c
from domain.dice import FixedRoller
from domain.encounter import decide, open_encounter
from domain.evolve import evolve, replay
from domain.rules import REGISTRY
from domain.state import GM, EncounterState, Principal
from projections.board import board
from projections.log import LogLine, tell
from projections.view import Projection

ALBA = Principal("player", frozenset({"c2"}), "player:c2")
BRUN = Principal("player", frozenset({"c3"}), "player:c3")
GOBLIN_LINK = Principal("player", frozenset({"c1"}), "player:c1")


def opened(ruleset: str = "plain-d100") -> EncounterState:
    return replay(open_encounter("e-1", ruleset, "Setup", {}, {"main": ("00", False)}))


def run(
    state: EncounterState, command: c.Command, who: Principal = GM, faces: Sequence[int] = ()
) -> None:
    for event in decide(state, command, FixedRoller(faces), who):
        evolve(state, event)


def view(state: EncounterState, role: str = "gm") -> dict[str, object]:
    proj = Projection()
    proj.state = state
    return board(proj, role)


def table() -> EncounterState:
    """A goblin (the GM's), Alba's fighter and Brun's fighter, nothing rolled yet."""
    state = opened()
    run(state, c.AddCombatant(name="Goblin", side="monsters", preset="bandit"))
    run(state, c.AddCombatant(name="Ayla", side="heroes", preset="guard", controller="Alba"))
    run(state, c.AddCombatant(name="Brak", side="heroes", preset="guard", controller="Brun"))
    return state


def test_before_anyone_adds_entropy_the_gm_board_says_every_player_not_yet() -> None:
    assert view(table())["entropy"] == {
        "open": True,
        "count": 0,
        "gm": False,
        "players": [
            {"name": "Alba", "combatants": ["c2"], "added": False},
            {"name": "Brun", "combatants": ["c3"], "added": False},
        ],
        "others": [],
    }


def test_a_players_entropy_turns_their_no_into_yes_and_the_values_stay_out() -> None:
    state = table()
    run(state, c.AddEntropy(value="alba-secret-42"), ALBA)
    entropy = view(state)["entropy"]
    assert isinstance(entropy, dict)
    assert [(p["name"], p["added"]) for p in entropy["players"]] == [
        ("Alba", True),
        ("Brun", False),
    ]
    assert entropy["count"] == 1
    assert "alba-secret-42" not in json.dumps(entropy)


def test_the_first_roll_closes_the_window_and_the_public_board_has_no_entropy() -> None:
    state = table()
    run(state, c.AddEntropy(value="x"), BRUN)
    run(state, c.AddEntropy(value="y"))
    run(state, c.Roll(expr="1d6"), faces=[3])
    entropy = view(state)["entropy"]
    assert isinstance(entropy, dict)
    assert (entropy["open"], entropy["gm"], entropy["count"]) == (False, True, 2)
    assert "entropy" not in view(state, "public")


def test_an_npcs_link_that_adds_entropy_is_named_among_the_others() -> None:
    state = table()
    run(state, c.AddEntropy(value="z"), GOBLIN_LINK)
    entropy = view(state)["entropy"]
    assert isinstance(entropy, dict)
    assert entropy["others"] == ["Goblin"]
    assert not any(p["added"] for p in entropy["players"])


def test_the_log_names_the_player_who_added_entropy_by_their_combatant() -> None:
    state = table()
    (added,) = decide(state, c.AddEntropy(value="x"), FixedRoller([]), ALBA)
    lines: list[LogLine] = []
    tell(lines, added, state, state.version + 1)
    assert [(line.text, line.text_fr) for line in lines] == [
        ("Ayla mixes entropy into the dice", "Ayla ajoute de l'entropie aux dés")
    ]


def test_the_public_board_carries_no_sheet() -> None:
    combatant = view(table(), "public")["combatants"]
    assert isinstance(combatant, list)
    assert all("sheet" not in x and "gm_only" not in x for x in combatant)


@pytest.mark.parametrize(
    ("ruleset", "preset"),
    [(r, p) for r in sorted(REGISTRY) for p in sorted(REGISTRY[r].presets)],
)
def test_the_gm_boards_sheet_adds_a_copy_with_the_same_maxima_and_no_damage(
    ruleset: str, preset: str
) -> None:
    state = opened(ruleset)
    run(state, c.AddCombatant(name="Orc", side="monsters", preset=preset, hidden=[]))
    first = view(state)["combatants"]
    assert isinstance(first, list)
    original = first[0]
    run(
        state,
        c.Adjust(
            combatant="c1", resource=next(iter(original["resources"])), delta=-1, reason="hit"
        ),
    )
    again = view(state)["combatants"]
    assert isinstance(again, list)
    run(
        state,
        c.AddCombatant(
            name="Orc 2", side="monsters", sheet=again[0]["sheet"], hidden=again[0]["gm_only"]
        ),
    )
    copy = view(state)["combatants"]
    assert isinstance(copy, list)
    assert copy[1]["maxima"] == original["maxima"]
    assert copy[1]["resources"] == original["resources"]  # the maxima: not the damage
    assert copy[1]["sheet"] == original["sheet"]
