"""The words of the console's events: conditions, an answered dispute, a fight continued.

Kept apart from the narrator so it moves with it; `describe` is called with a name
lookup (combatant id -> name as the state knew it before the event) and gives the
(English, French, extra fields) of a log line, or None for an event it does not word.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from domain import events as ev

__all__ = ["describe", "until_words"]

Said = tuple[str, str, dict[str, Any]]


# Conditions a rule system applies under a code name, in words (the GM's own conditions
# are named by the GM and told as named).
_NAMES = {"no_aoo": ("free of opportunity attacks", "à l'abri des attaques d'opportunité")}


def _name(code: str, fr: bool = False) -> str:
    words = _NAMES.get(code)
    return code if words is None else words[1] if fr else words[0]


def until_words(rounds: int | None, until: str) -> tuple[str, str]:
    """How long a condition lasts, in words: "for 2 turns (ends at the end of its turn)"."""
    if rounds is None:
        return "until removed", "jusqu'à ce qu'on la retire"
    start = until == "start_of_turn"
    if rounds == 1:
        return (
            "until the start of its next turn" if start else "until the end of its turn",
            "jusqu'au début de son prochain tour" if start else "jusqu'à la fin de son tour",
        )
    edge, edge_fr = ("start", "au début") if start else ("end", "à la fin")
    return (
        f"for {rounds} turns (ends at the {edge} of its turn)",
        f"pendant {rounds} tours (finit {edge_fr} de son tour)",
    )


def describe(event: ev.Event, name: Callable[[str], str], hidden_rolls: set[int]) -> Said | None:
    """The log line of a console event, or None if `event` is not one."""
    match event:
        case ev.ConditionApplied():
            return _applied(event, name(event.combatant_id))
        case ev.ConditionExpired():
            who = name(event.combatant_id)
            if event.reason == "out_of_fight":
                en = f"{who}: {_name(event.name)} ends (out of the fight)"
                fr = f"{who} : {_name(event.name, True)} prend fin (hors de combat)"
            else:
                en, fr = (
                    f"{who}: {_name(event.name)} wears off",
                    f"{who} : {_name(event.name, True)} se dissipe",
                )
            return en, fr, {"actor": event.combatant_id}
        case ev.ConditionRemoved():
            who = name(event.combatant_id)
            by, by_fr = ("GM", "Le MJ") if event.by_gm else ("", "")
            if by:
                return (
                    f"GM removes {_name(event.name)} from {who}",
                    f"{by_fr} retire {_name(event.name, True)} à {who}",
                    {"actor": event.combatant_id},
                )
            return (
                f"{who}: {_name(event.name)} ends",
                f"{who} : {_name(event.name, True)} prend fin",
                {"actor": event.combatant_id},
            )
        case ev.DisputeAnswered():
            return (
                f"GM answers the dispute of roll {event.seq}: {event.answer}",
                f"Le MJ répond à la contestation du jet {event.seq} : {event.answer}",
                {"hidden": event.seq in hidden_rolls},
            )
        case ev.CombatContinued():
            why = f": {event.reason}" if event.reason else ""
            why_fr = f" : {event.reason}" if event.reason else ""
            return (
                f"Only one side is standing; the GM goes on with the turns{why}",
                f"Un seul camp reste debout ; le MJ poursuit les tours{why_fr}",
                {},
            )
        case _:
            return None


def _applied(event: ev.ConditionApplied, who: str) -> Said:
    lasts, lasts_fr = until_words(event.rounds, event.until)
    by = "GM: " if event.by_gm else ""
    by_fr = "MJ : " if event.by_gm else ""
    en = f"{by}{who} gets {_name(event.name)}, {lasts}"
    fr = f"{by_fr}{who} reçoit {_name(event.name, True)}, {lasts_fr}"
    if event.modifier:
        en += f", {event.modifier:+d} to checks"
        fr += f", {event.modifier:+d} aux tests"
    if event.rule:
        en += f" ({event.rule})"
        fr += f" ({event.rule})"
    if event.note:
        en += f": {event.note}"
        fr += f" : {event.note}"
    return en, fr, {"actor": event.combatant_id}
