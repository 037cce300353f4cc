"""The board: what a table sees of an encounter, per role ("gm" or "public").

Players and spectators share the public board, so the server encodes it once per role.
The public board shows a GM-only resource as None (its name listed in `hidden`) and
leaves out hidden rolls and their disputes; the hidden seed's commitment stays, being
public from the start. Everything is plain JSON: dicts, lists, str, int, bool, None.
"""

from __future__ import annotations

from typing import Any

import msgspec

from domain.rules import REGISTRY
from domain.state import Combatant, EncounterState, Game
from projections.log import LogLine, pending_text
from projections.log.core import Words
from projections.reasons_fr import reason_fr
from projections.view import Projection

__all__ = ["LOG_LINES", "board", "lines_for", "winner"]

LOG_LINES = 100


def board(proj: Projection, role: str) -> dict[str, Any]:
    """The board for `role`: "gm" sees everything, any other role the public board."""
    gm = role == "gm"
    state = proj.state
    led, game = state.ledger, state.game
    hidden_rolls = set() if gm else led.hidden_rolls
    return {
        "encounter": {
            "id": led.encounter_id,
            "name": led.name,
            "ruleset": led.ruleset,
            "settings": dict(led.settings),
            "closed": led.closed,
            "campaign": led.campaign,
        },
        "version": proj.version,
        "round": game.round,
        "round_label": Words(state).narrator.round_word[0],  # Round, or the seeds' Tour
        "round_label_fr": Words(state).narrator.round_word[1],
        "phase": game.phase,
        "phase_text": Words(state).narrator.phase(game.phase)[0] if game.phase else "",
        "phase_text_fr": Words(state).narrator.phase(game.phase)[1] if game.phase else "",
        "actor": game.actor,
        "started": game.started,
        "order": [
            {"id": cid, "name": game.combatants[cid].name, "score": game.scores.get(cid)}
            for cid in game.order
            if cid in game.combatants
        ],
        "sides": _sides(game),
        "combatants": [_combatant(c, gm, state) for c in _by_side(game)],
        "pending": _pending(state),
        "legal": _legal(state),
        "log": [msgspec.to_builtins(line) for line in _tail(proj.lines, gm)],
        "disputes": [
            {"roll": seq, "by": by, "reason": reason}
            for seq, by, reason in led.disputes
            if seq not in hidden_rolls
        ],
        "dice": {
            "commitments": dict(led.commitments),
            "revealed": list(led.revealed),
            "rolls": led.rolls - len(hidden_rolls),
        },
        "winner": winner(game),
    }


def lines_for(lines: list[LogLine], role: str) -> list[LogLine]:
    """The log lines `role` may read."""
    return list(lines) if role == "gm" else [line for line in lines if not line.hidden]


def _tail(lines: list[LogLine], gm: bool) -> list[LogLine]:
    """The last LOG_LINES lines the role may read, walking back from the end."""
    out: list[LogLine] = []
    for line in reversed(lines):
        if len(out) == LOG_LINES:
            break
        if gm or not line.hidden:
            out.append(line)
    return out[::-1]


def winner(game: Game) -> str | None:
    """The one side still in the fight once combat started, else None."""
    if not game.started:
        return None
    sides = {game.combatants[cid].side for cid in game.active()}
    return sides.pop() if len(sides) == 1 else None


def _sides(game: Game) -> list[str]:
    return list(dict.fromkeys(c.side for c in game.combatants.values()))


def _by_side(game: Game) -> list[Combatant]:
    rank = {side: i for i, side in enumerate(_sides(game))}
    return sorted(game.combatants.values(), key=lambda c: rank[c.side])


# The statuses a table wants to see, in words; the others (tie-breaks, counters) are
# bookkeeping. A value that names combatants is shown by their names.
_CHIPS: dict[str, tuple[str, str]] = {
    "budget": ("half-actions left", "demi-actions restantes"),  # NA-2
    "engaged": ("engaged with", "engagé avec"),
    "charging": ("charging", "charge"),
    "unloaded": ("to reload", "à recharger"),
    "prone": ("prone", "à terre"),
    "fleeing": ("fleeing", "en fuite"),
    "flee_declared": ("flight declared", "fuite annoncée"),
    "preparing": ("preparing", "prépare"),
    "focus": ("focused", "concentré"),
    "disengaged": ("disengaged", "désengagé"),
    "luck": ("Luck on the next roll", "Chance au prochain jet"),
    "survival": ("Tours left", "Tours restants"),
    "away": ("pursuing", "poursuit"),
    "weapon": ("in hand", "en main"),
    "let_go": ("lets flee", "laisse fuir"),
}


def _chips(c: Combatant, state: EncounterState) -> list[dict[str, Any]]:
    """The combatant's statuses worth showing, with their labels and values in words."""
    names = state.game.combatants
    out: list[dict[str, Any]] = []
    for key, (label, label_fr) in _CHIPS.items():
        value = c.status.get(key)
        if value is None or value is False or value == [] or (value == 0 and key != "budget"):
            continue
        if isinstance(value, dict):
            value = value.get("spell") or value.get("bonus")
        if isinstance(value, list):
            value = ", ".join(names[v].name if v in names else str(v) for v in value)
        elif isinstance(value, str) and value in names:
            value = names[value].name
        elif key == "luck" and isinstance(value, int):
            value = f"{value:+d}"
        out.append({"key": key, "label": label, "label_fr": label_fr,
                    "value": None if value is True else str(value)})  # fmt: skip
    return out


def _combatant(c: Combatant, gm: bool, state: EncounterState) -> dict[str, Any]:
    secret = [] if gm else [r for r in c.gm_only if r in c.resources or r in c.maxima]
    words = Words(state)
    return {
        "id": c.id,
        "name": c.name,
        "side": c.side,
        "controller": c.controller,
        "resources": {k: None if k in secret else v for k, v in c.resources.items()},
        "maxima": {k: None if k in secret else v for k, v in c.maxima.items()},
        "out": c.out,
        "out_text": words.reason(c.out) if c.out else None,
        "out_text_fr": words.reason(c.out, fr=True) if c.out else None,
        "status": dict(c.status),
        "chips": _chips(c, state),
        "labels": {k: words.res(k) for k in c.resources},
        "labels_fr": {k: words.res(k, fr=True) for k in c.resources},
        "hidden": secret,
    }


def _pending(state: EncounterState) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    names = state.game.combatants
    for p in state.game.pending:
        text, text_fr = pending_text(state, p)
        out.append(
            {
                "id": p.id,
                "attacker": p.attacker,
                "attacker_name": names[p.attacker].name if p.attacker in names else p.attacker,
                "target": p.target,
                "target_name": names[p.target].name if p.target in names else p.target,
                "action": p.action,
                "rank": p.rank,
                "damage": p.damage,
                "options": list(p.options),
                "text": text,
                "text_fr": text_fr,
            }
        )
    return out


def _legal(state: EncounterState) -> dict[str, list[dict[str, Any]]]:
    """What the current actor and every pending target may do now."""
    rules = REGISTRY.get(state.ledger.ruleset)
    legal = getattr(rules, "legal", None)
    if legal is None:
        return {}
    game = state.game
    who = [game.actor] if game.actor is not None else []
    who += [p.target for p in game.pending]
    defaults = {k: s.default for k, s in getattr(rules, "settings", {}).items()}
    settings = defaults | state.ledger.settings
    return {
        cid: [_with_fr(entry) for entry in legal(game, cid, settings)]
        for cid in dict.fromkeys(who)
    }


def _with_fr(entry: dict[str, Any]) -> dict[str, Any]:
    """A legal entry with its reason in French too (`reason_fr`)."""
    return {**entry, "reason_fr": reason_fr(str(entry.get("reason") or ""), entry.get("rule"))}
