"""What a webhook announces (CONTRACT section 8), English and French from the events'
facts: which events are announced, of which kind, about whom, in which words.

A text is what the public board shows: a hidden roll's dispute is never announced (the
delivery filters events for the public view before they reach `message`).
"""

from __future__ import annotations

from domain import events as ev
from domain.state import EncounterState
from projections.log import principal
from projections.words import deadlines
from projections.words.french import de

KINDS = (
    "turn_started",
    "reaction_awaited",
    "round_started",
    "dispute_opened",
    "encounter_closed",
    "deadline",
)


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
            by_ = principal(by)
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
