"""Turn deadlines in words (`deadline_reminded`, `deadline_passed`), English and French
from the events' facts: the log's lines and the webhooks' `deadline` texts say the same."""

from __future__ import annotations

from domain import events as ev
from projections.words.french import de

__all__ = ["effect", "passed", "reminded"]


def _when(due: str) -> tuple[str, str]:
    if not due:
        return "", ""
    shown = due.replace("T", " ").removesuffix("Z") + " UTC"
    return f" (due {shown})", f" (échéance {shown})"


def _what(e: ev.DeadlineReminded | ev.DeadlinePassed, who: str) -> tuple[str, str]:
    if e.waiting == "defence":
        return f"{who}'s defence", f"la défense {de(who)}"
    return f"{who}'s turn", f"le tour {de(who)}"


def effect(e: ev.DeadlinePassed) -> str:
    """What the passing did: `alert`, `no_defense` or `pass` (a turn under `no_defense`
    only alerts: there is no defence to answer)."""
    if e.policy == "alert" or (e.policy == "no_defense" and e.waiting == "turn"):
        return "alert"
    return "no_defense" if e.waiting == "defence" else "pass"


def reminded(e: ev.DeadlineReminded, who: str) -> tuple[str, str]:
    en, fr = _what(e, who)
    due_en, due_fr = _when(e.due)
    return (
        f"Reminder: {en} has waited half of its {e.hours} h deadline{due_en}",
        f"Rappel : {fr} attend depuis la moitié de son délai de {e.hours} h{due_fr}",
    )


def passed(e: ev.DeadlinePassed, who: str) -> tuple[str, str]:
    en, fr = _what(e, who)
    done = effect(e)
    if done == "alert":
        then_en, then_fr = "the GM is alerted", "le MJ est alerté"
    elif done == "no_defense":
        then_en, then_fr = f"{who} takes it undefended", f"{who} la subit sans défense"
    else:
        then_en, then_fr = "the turn passes", "le tour passe"
    return (
        f"Deadline passed: {en} waited {e.hours} h; {then_en}",
        f"Délai dépassé : {fr} a attendu {e.hours} h ; {then_fr}",
    )
