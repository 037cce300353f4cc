"""History in one place (issue 22): every stored event, an encounter's or a War's, is
decoded through domain/upcast.py, and nothing else reads an old shape."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

import pytest

from domain import campaign as war
from domain import events as ev
from domain import upcast

ROOT = Path(__file__).resolve().parents[2]


def test_encounter_and_war_tags_are_distinct_so_one_upcaster_table_serves_both() -> None:
    assert set(ev.BY_TAG).isdisjoint(war.EVENTS)


def rename(old: str, new: str) -> Any:
    def step(data: dict[str, Any]) -> dict[str, Any]:
        data[new] = data.pop(old)
        return data

    return step


def test_an_encounter_event_of_an_older_shape_is_decoded_through_its_upcaster(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(upcast.UPCASTERS, "combat_continued", rename("why", "reason"))
    assert ev.event_from("combat_continued", {"why": "one more"}) == ev.CombatContinued(
        reason="one more"
    )


def test_a_war_event_of_an_older_shape_is_decoded_through_its_upcaster(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(upcast.UPCASTERS, "war_opened", rename("title", "name"))
    opened = war.event_from("war_opened", {"campaign_id": "w", "title": "Autumn"})
    assert isinstance(opened, war.WarOpened) and opened.name == "Autumn"


def test_no_upcaster_is_registered_and_a_field_no_event_has_is_ignored_not_refused() -> None:
    assert upcast.UPCASTERS == {}
    stored = {"actor": "c1", "action": "attack", "outcome": "hit", "summary": "an old line"}
    decoded = ev.event_from("action_resolved", stored)
    assert isinstance(decoded, ev.ActionResolved)
    assert "summary" not in ev.event_data(decoded)[1]


def test_stored_events_are_converted_to_their_struct_only_in_the_two_event_from() -> None:
    """A `msgspec.convert` to an event class elsewhere would skip the upcaster."""
    found = []
    for folder in ("domain", "projections", "server"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for node in ast.walk(tree):
                if isinstance(node, ast.Attribute) and node.attr in ("BY_TAG", "EVENTS"):
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    places = {place.split(":")[0] for place in found}
    assert places <= {"domain/events.py", "domain/campaign.py"}, found
