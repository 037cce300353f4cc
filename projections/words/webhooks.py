"""What a webhook announces (CONTRACT section 8), English and French from the events'
facts: which events are announced, of which kind, about whom, in which words.

A text is what the public board shows: a hidden roll's dispute is never announced (the
delivery filters events for the public view before they reach `message`). `story` picks
what the public log said since the last announcement (the spectator's lines: who
attacked whom, the roll, the damage, who falls), and `content` fits those lines, the
announcement and the link into Discord's 2,000 characters.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal, get_args

from domain import events as ev
from domain.state import EncounterState
from projections.log import LogLine, said
from projections.log.core import Words, sender
from projections.words import deadlines
from projections.words.french import de

# What a webhook may announce: the one list (the PUT body's type, the documents' and the
# default kinds all read it).
Kind = Literal[
    "turn_started",
    "reaction_awaited",
    "round_started",
    "dispute_opened",
    "encounter_closed",
    "deadline",
]
KINDS: tuple[str, ...] = get_args(Kind)
TEST = "test"  # the kind of a delivery the GM asks for from the console
DeliveryKind = Literal[Kind, "test"]  # a delivery's kind: an announced one, or a test
LIMIT = 2000  # Discord's bound on a message's `content`
LINE = 300  # a told line longer than this is cut (a 2,000-character dispute reason)
STORY = 50  # the most lines one delivery tells (the latest ones)
ELLIPSIS = "…"


def _name(state: EncounterState, cid: str) -> str:
    c = state.game.combatants.get(cid)
    return c.name if c is not None else cid


def message(
    event: ev.Event, state: EncounterState, lang: str
) -> tuple[str, str, str | None] | None:
    """(kind, text, combatant) for an event a webhook may announce, else None.

    `state` is the encounter as it stood before the event (names of the leaving stay).
    """
    fr = lang == "fr"
    title = state.ledger.name
    sep = " : " if fr else ": "
    match event:
        case ev.TurnStarted(actor=actor):
            who = _name(state, actor)
            text = f"c'est au tour {de(who)}" if fr else f"it is {who}'s turn"
            return "turn_started", f"{title}{sep}{text}.", actor
        case ev.ReactionAwaited(attacker=attacker, target=target):
            a, t = _name(state, attacker), _name(state, target)
            text = (
                f"{t} est attaqué par {a} et doit répondre"
                if fr
                else f"{t} is attacked by {a} and must answer"
            )
            return "reaction_awaited", f"{title}{sep}{text}.", target
        case ev.RoundStarted(round=n):
            text = f"le round {n} commence" if fr else f"round {n} begins"
            return "round_started", f"{title}{sep}{text}.", None
        case ev.RollDisputed(seq=seq, by=by, reason=reason):
            by_ = sender(by, Words(state), fr=fr)  # names, never "player:c1"
            text = (
                f"le jet {seq} est contesté par {by_} : {reason}"
                if fr
                else f"roll {seq} is disputed by {by_}: {reason}"
            )
            return "dispute_opened", f"{title}{sep}{text}", None
        case ev.DeadlineReminded(who=who):
            en, fr_ = deadlines.reminded(event, _name(state, who))
            return "deadline", f"{title}{sep}{fr_ if fr else en}.", who
        case ev.DeadlinePassed(who=who):
            en, fr_ = deadlines.passed(event, _name(state, who))
            return "deadline", f"{title}{sep}{fr_ if fr else en}.", who
        case ev.EncounterClosed():
            text = "la rencontre est close" if fr else "the encounter is closed"
            return "encounter_closed", f"{title}{sep}{text}.", None
    return None


def test_text(title: str, lang: str) -> str:
    """The words of a test delivery (sent from the GM console)."""
    if lang == "fr":
        return f"{title} : essai du webhook depuis la console du MJ, il fonctionne."
    return f"{title}: a test of the webhook from the GM console; it works."


def story(lines: Sequence[LogLine], announced: int, lang: str) -> list[str]:
    """What the public log told since the last announcement, in `lang`: the lines a
    spectator reads (no hidden line, the public twin of a veiled step), neither the
    announced event's own line (the announcement says it) nor a step an undo struck;
    the latest `STORY`."""
    told = [
        said(line, lang)
        for line in lines
        if line.shown(False) and line.undone is None and line.version != announced
    ]
    return told[-STORY:]


def units(text: str) -> int:
    """Discord's length of a text: UTF-16 code units (an emoji counts two)."""
    return len(text.encode("utf-16-le")) // 2


def clip(text: str, room: int) -> str:
    """`text` within `room` units, cut with an ellipsis if it was longer."""
    if units(text) <= room:
        return text
    cut = text[: max(room - 1, 0)]
    while cut and units(cut) > room - 1:
        cut = cut[:-1]
    return cut + ELLIPSIS if room > 0 else ""


def content(lines: Sequence[str], text: str, link: str, limit: int = LIMIT) -> str:
    """The story, then the announcement (whose turn it is), then the board link, within
    `limit` units: the link is kept whole, the announcement cut only if it alone is too
    long, each line cut at `LINE`, and the oldest lines left out (an ellipsis says so)."""
    text = clip(text, limit - units(link) - 1)
    room = limit - units(text) - units(link) - 1  # what the lines may take, each with "\n"
    kept: list[str] = []
    for i in range(len(lines) - 1, -1, -1):
        line = clip(lines[i], LINE)
        more = 2 if i > 0 else 0  # an ellipsis line, if older lines are left out
        if units(line) + 1 + more > room:
            break
        kept.append(line)
        room -= units(line) + 1
    kept.reverse()
    if len(kept) < len(lines) and room >= 2:
        kept.insert(0, ELLIPSIS)
    return "\n".join([*kept, text, link])
