"""The narrator: one line per meaningful step of an encounter, in English and French.

`core` words the shared events and keeps the log (`tell`); one module per rule system
words its own actions, reactions, outcomes, purposes, resources and reasons from the
facts its events carry. `narrate` tells a whole stream as text (the resolver's fights).
"""

from __future__ import annotations

from collections.abc import Iterable

from domain import events as ev
from domain.evolve import evolve
from domain.state import EncounterState, Pending
from projections.log.core import (
    NARRATORS,
    LogLine,
    Narrator,
    Said,
    Words,
    describe,
    kind_of,
    outcome_words,
    principal,
    tell,
)
from projections.log.d20_na import D20Na
from projections.log.plain_d100 import PlainD100
from projections.log.ranks import Ranks
from projections.log.tcs import Tcs

__all__ = [
    "LANGS",
    "LogLine",
    "Narrator",
    "Said",
    "describe",
    "kind_of",
    "narrate",
    "outcome_words",
    "pending_text",
    "principal",
    "said",
    "tell",
]

NARRATORS.update(
    {"d20-na": D20Na(), "plain-d100": PlainD100(), "ranks-d100": Ranks(), "d100-tcs": Tcs()}
)
LANGS = ("en", "fr")
# What a fight's narration keeps: the blows and who fell, under their round headings.
_FIGHT = frozenset({"round_started", "action_resolved", "reaction_resolved", "combatant_defeated"})


def said(line: LogLine, lang: str) -> str:
    """A line's text in `lang` ("en" or "fr")."""
    return line.text_fr if lang == "fr" else line.text


def pending_text(state: EncounterState, pending: Pending) -> tuple[str, str]:
    """The pending attack in words ("Bandit must answer Guard's attack (8 damage)")."""
    w = Words(state)
    return w.narrator.pending(pending.attacker, pending.target, pending.action, pending.damage, w)


def narrate(events: Iterable[ev.Event], lang: str = "en") -> str:
    """A fight as text, one line per blow under its round, in English or French (NA-38)."""
    if lang not in LANGS:
        raise ValueError(f"no narration in {lang!r}; languages: {list(LANGS)}")
    state = EncounterState()
    lines: list[LogLine] = []
    for version, event in enumerate(events, start=1):
        tell(lines, event, state, version)
        evolve(state, event)
    return "\n".join(said(line, lang) for line in lines if line.kind in _FIGHT)
