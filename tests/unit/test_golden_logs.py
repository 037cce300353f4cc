"""The log of each seed worked example, told from its event stream with forced dice, in
English and French, compared with tests/golden/*.txt (a GM read them: every line says
something a player needs, once). FRACAS_REGEN_GOLDEN=1 rewrites the files instead."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from domain import commands as cmd
from domain import events as ev
from domain.encounter import open_encounter
from domain.events import event_data
from projections.export import text
from tests.unit import test_d20_na as na
from tests.unit import test_tcs_support as tcs
from tests.unit.test_ranks_example import j1_attacks_j2

GOLDEN = Path(__file__).resolve().parent.parent / "golden"
REGEN = os.environ.get("FRACAS_REGEN_GOLDEN") == "1"


def envelopes(ruleset: str, name: str, events: list[ev.Event],
              settings: dict[str, Any] | None = None) -> list[dict[str, Any]]:  # fmt: skip
    """The stream as the store keeps it: the opening, then the table's events."""
    opened = [] if events and isinstance(events[0], ev.EncounterOpened) else \
        open_encounter("example", ruleset, name, settings or {}, {})  # fmt: skip
    out = []
    for version, event in enumerate([*opened, *events], start=1):
        kind, data = event_data(event)
        out.append({"stream": "encounter-example", "version": version, "type": kind, "data": data})
    return out


def ranks_j1_j2() -> list[dict[str, Any]]:
    """RK-74: J1's rank-A magic attack, J2's Luck die and Agility reduction, J2's failure."""
    t, j1, j2 = j1_attacks_j2({})
    t.do(cmd.EndTurn(actor=j1))
    t.act(j2, "attack_physical", 71, target=j1, rank="A")
    return envelopes("ranks-d100", "J1 against J2 (RK-74)", t.events)


def d20_milicien_fangeux() -> list[dict[str, Any]]:
    """NA-43..NA-45: 24 damage not parried, a miss, 19 damage parried; then NA-15: a parry
    that succeeds but loses the margin contest."""
    table, m, f = na.milicien_fangeux(fangeux={"STR": 12})
    table.act(f, "attack", m, [9])
    table.react(m, "parry", [13, 3, 3])
    table.act(m, "attack", f, [15])
    table.end(f)
    table.act(f, "attack", m, [9])
    table.react(m, "parry", [2, 9, 5])
    table.act(m, "attack", f, [9])
    table.react(f, "dodge", [6])
    table.act(f, "attack", m, [8])  # margin 4
    table.react(m, "parry", [7, 13, 2])  # PAR 9: margin 2, the attack prevails
    return envelopes("d20-na", "Milicien against Fangeux (NA-43)", table.log)


def d20_crossbow() -> list[dict[str, Any]]:
    """NA-46: the Milicien's crossbow at 40 m, 26 damage, then the reload."""
    table, m, f = na.milicien_fangeux(milicien={"INI": 13}, fangeux={"END": 11})
    table.act(m, "shoot", f, [3, 15, 7], weapon="crossbow", distance=40)
    table.act(f, "attack", m, [15])
    table.act(m, "reload", weapon="crossbow")
    return envelopes("d20-na", "The crossbow shot (NA-46)", table.log)


def tcs_exchange() -> list[dict[str, Any]]:
    """TC-42..TC-44 and TC-31: a blow degrades B's mail, B answers, B's low morale is
    checked at the end of the round and fails: B flees and A lets it go."""
    mail = {"name": "mail", "levels": [{"pr": 10, "pp": 3}, {"pr": 5, "pp": 1}],
            "end_required": 0}  # fmt: skip
    table, a, b = tcs.duel(a={"weapons": [{"name": "blade", "damage": 12}]},
                           b={"armor": mail, "morale": 3})  # fmt: skip
    table.act(a, "attack", b, [10])
    # B's blow ends the round: B's morale check, 45 against 30, fails and B flees (TC-31)
    table.act(b, "attack", a, [30, 45])
    table.act(a, "let_flee")
    return envelopes("d100-tcs", "Blade against mail (TC-44)", table.log, tcs.QUIET)


EXAMPLES: dict[str, Callable[[], list[dict[str, Any]]]] = {
    "ranks-d100-j1-j2": ranks_j1_j2,
    "d20-na-milicien-fangeux": d20_milicien_fangeux,
    "d20-na-crossbow": d20_crossbow,
    "d100-tcs-exchange": tcs_exchange,
}


@pytest.mark.parametrize("lang", ["en", "fr"])
@pytest.mark.parametrize("example", sorted(EXAMPLES))
def test_the_worked_example_reads_as_its_golden_log(example: str, lang: str) -> None:
    told = text(EXAMPLES[example](), "public", lang=lang)
    path = GOLDEN / f"{example}.{lang}.txt"
    if REGEN:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(told, encoding="utf-8")
    assert path.exists(), f"no golden file {path.name}: run with FRACAS_REGEN_GOLDEN=1"
    assert told == path.read_text(encoding="utf-8")


def test_the_d20_na_example_says_its_24_19_and_26_damage_once_each() -> None:
    told = text(d20_milicien_fangeux(), "public") + text(d20_crossbow(), "public")
    for amount in (24, 19, 26):
        assert sum(f" {amount} damage" in line for line in told.splitlines()) == 1, amount
    assert "Milicien parries (margin 2) but the attack prevails (margin 4): full damage" in told
