"""Which envelopes a role may read, and what a non-GM reads of them.

The GM reads everything. Players, spectators and anonymous readers never receive a
GM-only value, a number computed from one, or a hash that lets them test a guess of one
(CONTRACT section 5). Three mechanisms, each independent of what a payload holds:

1. **Dropped**: hidden GM rolls (and their disputes) and the changes of a resource the GM
   keeps secret (`Combatant.gm_only`).
2. **Redacted**: a combatant's arrival loses its sheet and its secret values (a War
   character's arrival its sheet: the War shows sheets to its GM alone).
3. **Veiled**: a command whose events touch a *veiled combatant* (one with any GM-only
   resource: its sheet is secret too), or any of whose events is dropped or redacted, is
   marked `meta.veiled` when it is appended (`veils`). A non-GM reads its events with
   every number nulled except the dice's own facts (`PUBLIC_NUMBERS`: faces, totals,
   roll numbers...) and the values of public resources (the board shows them anyway),
   and every free text that holds a digit nulled. Whatever field a rule system adds to a
   payload later, it is nulled by default: nothing is listed to hide, only to show.
   Older streams, appended before the mark, are veiled by the same test at read time.

Every command's meta carries `blind`, 128 random bits, so a hash covers a secret no
one can guess. A non-GM's copy of a dropped, redacted or veiled envelope never carries
the blind: its hash (and the next envelope's `prev_hash`) cannot confirm a guessed
value. The closed audit bundle holds every envelope whole, blinds included, and verifies
end to end with the standard library; before close, a non-GM can recompute the hash of
an envelope it reads whole, and no other.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Mapping
from typing import Any

from domain.state import EncounterState

__all__ = [
    "PUBLIC_NUMBERS",
    "filter_events",
    "is_veiled",
    "secret_resources",
    "veil",
    "veiled_combatants",
    "veils",
    "visible",
]

# The numbers a veiled event still shows: the dice's own facts, roll and event ordinals.
# None of them is computed from a sheet or a resource.
PUBLIC_NUMBERS = frozenset(
    {
        "seq",
        "roll",
        "faces",
        "sizes",
        "total",
        "round",
        "pending_id",
        "to_version",
        "from_version",
    }
)
# The texts a veiled event still shows whole: ids, codes, dice expressions and seeds.
_PUBLIC_TEXTS = frozenset(
    {
        "actor",
        "target",
        "targets",
        "attacker",
        "combatant_id",
        "expr",
        "seed_id",
        "client_seed",
        "source",
        "type",
        "stat",
        "outcome",
        "action",
        "reaction",
        "by",
        "order",
        "key",
        "scope",
        "resource",
        "name",
        "side",
        "until",
        "phase",
        "rank",
        "rule",
    }
)
_DIGIT = re.compile(r"\d")


def visible(
    envelope: Mapping[str, Any],
    role: str,
    secret: Collection[tuple[str, str]] = (),
    hidden_rolls: Collection[int] = (),
) -> bool:
    """May `role` ("gm", "player", "spectator", "public") read this envelope at all?

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


def veiled_combatants(secret: Iterable[tuple[str, str]]) -> set[str]:
    """The combatants with any GM-only resource: their sheets and numbers are the GM's."""
    return {cid for cid, _ in secret}


def _mentions(value: Any, ids: Collection[str]) -> bool:
    """Does this JSON value name one of `ids` anywhere (as a value or a key)?"""
    if isinstance(value, str):
        return value in ids
    if isinstance(value, Mapping):
        return any(k in ids or _mentions(v, ids) for k, v in value.items())
    if isinstance(value, list | tuple):
        return any(_mentions(v, ids) for v in value)
    return False


def veils(
    events: Iterable[tuple[str, Mapping[str, Any]]],
    secret: Collection[tuple[str, str]],
    hidden_rolls: Collection[int] = (),
) -> bool:
    """Must one command's events, as (type, data), be veiled from non-GM readers?

    Yes when any of them names a veiled combatant (as it stands before the command, or
    arriving in it with GM-only resources), is dropped for them, or is redacted."""
    known = set(secret)
    hidden = set(hidden_rolls)
    batch = list(events)
    for kind, data in batch:
        if _redacts(kind, data):
            return True
        if kind == "combatant_added" and data.get("gm_only"):
            known.update((str(data.get("combatant_id")), str(r)) for r in data["gm_only"])
        if kind == "die_rolled" and data.get("hidden", False):
            hidden.add(int(data.get("seq", 0)))
    ids = veiled_combatants(known)
    for kind, data in batch:
        envelope = {"type": kind, "data": data}
        if not visible(envelope, "public", known, hidden) or _mentions(data, ids):
            return True
    return False


def _redacts(kind: Any, data: Mapping[str, Any]) -> bool:
    """Is this a combatant's arrival whose sheet only the GM reads: one with GM-only
    resources, or a War's character (the War keeps its sheets for its GM)?"""
    return kind == "combatant_added" and bool(data.get("gm_only") or data.get("character"))


def _null_numbers(value: Any, key: str | None = None) -> Any:
    """`value` with every number and digit-bearing text nulled, but the public ones."""
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, int):
        return value if key in PUBLIC_NUMBERS else None
    if isinstance(value, str):
        return value if key in _PUBLIC_TEXTS or not _DIGIT.search(value) else None
    if isinstance(value, Mapping):
        return {k: _null_numbers(v, k) for k, v in value.items()}
    if isinstance(value, list | tuple):
        if key in PUBLIC_NUMBERS or key in _PUBLIC_TEXTS:
            return [_null_numbers(v, key) for v in value]
        return [_null_numbers(v) for v in value]
    return None


def _no_blind(envelope: Mapping[str, Any]) -> dict[str, Any]:
    meta = {k: v for k, v in (envelope.get("meta") or {}).items() if k != "blind"}
    return {**envelope, "meta": meta}


def veil(envelope: Mapping[str, Any]) -> dict[str, Any]:
    """A non-GM's copy of a veiled envelope: numbers and texts with digits nulled but the
    public ones, no blind, and `"veiled": true` (it no longer matches its hash)."""
    data = envelope.get("data") or {}
    if envelope.get("type") == "resource_changed":
        # A public resource's value is on the board for everyone; only its words go.
        shown = {
            **data,
            "reason": None if _DIGIT.search(str(data.get("reason", ""))) else data.get("reason"),
        }
    else:
        shown = _null_numbers(data)
    return {**_no_blind(envelope), "data": shown, "veiled": True}


def redacted(envelope: Mapping[str, Any]) -> dict[str, Any]:
    """A combatant's arrival without the values the GM keeps secret (nor its sheet).

    The copy no longer matches its hash: it says so with `"redacted": true`, and carries
    no blind. Only the GM's view (and the audit bundle, public once the encounter
    closes) verifies.
    """
    data = dict(envelope["data"])
    hidden = set(data.get("gm_only", ()))
    for field in ("resources", "maxima"):
        data[field] = {k: (None if k in hidden else v) for k, v in data.get(field, {}).items()}
    data["sheet"] = {}
    return {**_no_blind(envelope), "data": data, "redacted": True}


def is_veiled(envelope: Mapping[str, Any], secret: Collection[tuple[str, str]] = ()) -> bool:
    """Was this envelope's command veiled (marked at append, or, for older streams,
    naming a veiled combatant)?"""
    meta = envelope.get("meta") or {}
    if meta.get("veiled", False):
        return True
    return _mentions(envelope.get("data") or {}, veiled_combatants(secret))


def filter_events(
    envelopes: Iterable[Mapping[str, Any]],
    role: str,
    secret: Collection[tuple[str, str]] = (),
    hidden_rolls: Collection[int] = (),
) -> list[Mapping[str, Any]]:
    """What `role` reads of these envelopes, in the order given."""
    if role == "gm":
        return list(envelopes)
    known, hidden = set(secret), set(hidden_rolls)
    out: list[Mapping[str, Any]] = []
    for envelope in envelopes:
        data = envelope.get("data") or {}
        if _redacts(envelope.get("type"), data):
            cid = str(data.get("combatant_id"))
            known.update((cid, str(r)) for r in data.get("gm_only", ()))
            out.append(redacted(envelope))
            continue
        elif envelope.get("type") == "die_rolled" and data.get("hidden", False):
            hidden.add(int(data.get("seq", 0)))
        if not visible(envelope, role, known, hidden):
            continue
        out.append(veil(envelope) if is_veiled(envelope, known) else envelope)
    return out
