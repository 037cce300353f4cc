"""Which envelopes a role may read.

The GM reads everything. Players and spectators do not see hidden GM rolls (nor the
disputes of one), nor the changes of a resource the GM keeps secret
(`Combatant.gm_only`). Deciding the last two needs what came before: `filter_events`
learns it from the events it is given, and a caller filtering a slice of the stream
passes what it already knows (`secret_resources(state)`, `state.ledger.hidden_rolls`).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from typing import Any

from domain.state import EncounterState

__all__ = ["filter_events", "secret_resources", "visible"]


def visible(
    envelope: Mapping[str, Any],
    role: str,
    secret: Collection[tuple[str, str]] = (),
    hidden_rolls: Collection[int] = (),
) -> bool:
    """May `role` ("gm", "player", "spectator", "public") read this envelope?

    `secret` holds the (combatant id, resource) pairs only the GM sees, `hidden_rolls`
    the seqs of hidden rolls; without them only the envelope itself is judged.
    """
    if role == "gm":
        return True
    data = envelope.get("data") or {}
    match envelope.get("type"):
        case "die_rolled":
            return not data.get("hidden", False)
        case "roll_disputed" | "dispute_answered":
            return data.get("seq") not in hidden_rolls
        case "resource_changed":
            return (data.get("combatant_id"), data.get("resource")) not in secret
        case _:
            return True


def secret_resources(state: EncounterState) -> set[tuple[str, str]]:
    """Every (combatant id, resource) the GM keeps secret in this state."""
    return {(c.id, r) for c in state.game.combatants.values() for r in c.gm_only}


def redacted(envelope: Mapping[str, Any]) -> dict[str, Any]:
    """A combatant's arrival without the values the GM keeps secret (nor its sheet).

    The copy no longer matches its hash: it says so with `"redacted": true`. Only the
    GM's view (and the audit bundle, public once the encounter closes) verifies.
    """
    data = dict(envelope["data"])
    hidden = set(data.get("gm_only", ()))
    for field in ("resources", "maxima"):
        data[field] = {k: (None if k in hidden else v) for k, v in data.get(field, {}).items()}
    data["sheet"] = {}
    return {**envelope, "data": data, "redacted": True}


def filter_events(
    envelopes: Iterable[Mapping[str, Any]],
    role: str,
    secret: Collection[tuple[str, str]] = (),
    hidden_rolls: Collection[int] = (),
) -> list[Mapping[str, Any]]:
    """The envelopes `role` may read, in the order given."""
    if role == "gm":
        return list(envelopes)
    known, hidden = set(secret), set(hidden_rolls)
    out: list[Mapping[str, Any]] = []
    for envelope in envelopes:
        data = envelope.get("data") or {}
        if envelope.get("type") == "combatant_added" and data.get("gm_only"):
            cid = str(data.get("combatant_id"))
            known.update((cid, str(r)) for r in data["gm_only"])
            out.append(redacted(envelope))
            continue
        elif envelope.get("type") == "die_rolled" and data.get("hidden", False):
            hidden.add(int(data.get("seq", 0)))
        if visible(envelope, role, known, hidden):
            out.append(envelope)
    return out
