"""The board: what a table sees of an encounter, per role ("gm" or "public").

Players and spectators share the public board, so the server encodes it once per role.
The public board shows a GM-only resource as None (its name listed in `hidden`) and
leaves out hidden rolls and their disputes; the hidden seed's commitment stays, being
public from the start. Everything is plain JSON: dicts, lists, str, int, bool, None.
"""

from __future__ import annotations

import bisect
import dataclasses
from collections.abc import Sequence
from typing import Any, Generic, NamedTuple, Protocol, TypeVar

import msgspec

from domain import deadline
from domain.context import Ctx
from domain.dice import FixedRoller
from domain.errors import Refused
from domain.rules import REGISTRY
from domain.state import GM, Combatant, EncounterState, Game
from projections.log import LogLine, pending_text
from projections.log.core import Words
from projections.view import Projection
from projections.words.refusals import said, word_reason

__all__ = ["LOG_LINES", "LogPage", "board", "lines_for", "log_page", "winner"]

# The board carries the last LOG_LINES lines (every update repeats the board, or patches
# it); older lines are paged with `log_page` (GET /api/encounters/{id}/log).
LOG_LINES = 30


def board(proj: Projection, role: str) -> dict[str, Any]:
    """The board for `role`: "gm" sees everything, any other role the public board."""
    gm = role == "gm"
    state = proj.state
    led, game = state.ledger, state.game
    hidden_rolls = set() if gm else led.hidden_rolls
    # Combatants whose numbers are the GM's (projections/filter.py): none for the GM.
    veiled = set() if gm else {c.id for c in game.combatants.values() if c.gm_only}
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
            {
                "id": cid,
                "name": game.combatants[cid].name,
                # A score is a roll plus a sheet's stat: the GM's where the sheet is.
                "score": None if cid in veiled else game.scores.get(cid),
            }
            for cid in game.order
            if cid in game.combatants
        ],
        "reorder": _reorder(state),
        "sides": _sides(game),
        "combatants": [_combatant(c, gm, state) for c in _by_side(game)],
        "pending": _pending(state, veiled),
        "legal": _legal(state, gm),
        "log": [msgspec.to_builtins(line) for line in _tail(proj.lines, gm)],
        "disputes": [
            {
                "roll": d.seq,
                "by": d.by,
                "by_name": _sender(game, d.by),
                "reason": d.reason,
                "status": "open" if d.answer is None else "answered",
                "answer": d.answer,
            }
            for d in led.disputes
            if d.seq not in hidden_rolls
        ],
        "dice": {
            "commitments": dict(led.commitments),
            "revealed": list(led.revealed),
            "rolls": led.rolls - len(hidden_rolls),
        },
        "winner": winner(game),
        # Only one side stands and turns stopped there: the GM closes or continues.
        "decided": _decided(state),
        # Version spans an undo reverted (first, last): the console strikes their lines.
        "undone": [[first, last] for first, last in led.undone],
        # Where "undo last step" goes (the version before the last step in effect), the
        # history bar's step back; None with nothing to undo.
        "step_back": led.head.first - 1 if led.head is not None else None,
        # The current wait's deadline (`deadline.hours`), None without one.
        "deadline": _deadline(proj),
    } | ({"entropy": _entropy(state)} if gm else {})


def _entropy(state: EncounterState) -> dict[str, Any]:
    """Who has mixed entropy into the dice (CONTRACT section 6), for the GM's board only:
    whether the window is still open (no roll yet, not closed), and per player (the
    combatants' controllers, NPCs aside: no controller, or `gm`) yes or no; then anyone
    else who sent some (a player link of an NPC) and whether the GM did. Never a value."""
    led, game = state.ledger, state.game
    senders = set(led.entropy_by)
    sent_by = {
        cid for by in senders if by.startswith("player:") for cid in by[7:].split(",") if cid
    }
    players: dict[str, list[str]] = {}
    for c in game.combatants.values():
        if c.controller and c.controller != "gm":
            players.setdefault(c.controller, []).append(c.id)
    counted = {cid for ids in players.values() for cid in ids}
    others = [
        _sender(game, by)
        for by in dict.fromkeys(led.entropy_by)
        if by.startswith("player:") and not set(by[7:].split(",")) & counted
    ]
    return {
        "open": led.rolls == 0 and not led.closed,
        "count": len(led.entropy_by),
        "gm": "gm" in senders,
        "players": [
            {"name": name, "combatants": ids, "added": bool(sent_by & set(ids))}
            for name, ids in players.items()
        ],
        "others": others,
    }


def _deadline(proj: Projection) -> dict[str, Any] | None:
    """Who the fight waits on, for what, since which version, and when the reminder and
    the deadline fall (ISO times, UTC; None if the wait's start time is not known)."""
    state = proj.state
    hours = deadline.hours_of(state.ledger.settings)
    wait = deadline.waiting(state) if hours > 0 else None
    if wait is None:
        return None
    start = deadline.parse_time(proj.recorded_at(wait.since) or "")
    remind, due = deadline.due_at(start, hours) if start is not None else (None, None)
    who = state.game.combatants.get(wait.who)
    return {
        "who": wait.who,
        "who_name": who.name if who is not None else wait.who,
        "waiting": wait.waiting,
        "since": wait.since,
        "hours": hours,
        "policy": deadline.policy_of(state.ledger.settings),
        "remind_at": deadline.iso(remind) if remind is not None else None,
        "due": deadline.iso(due) if due is not None else None,
        "reminded": wait.since in state.ledger.reminded,
        "passed": wait.since in state.ledger.passed,
    }


def lines_for(lines: list[LogLine], role: str) -> list[LogLine]:
    """The log lines `role` may read."""
    return [line for line in lines if line.shown(role == "gm")]


def _tail(lines: Sequence[Line], gm: bool, limit: int = LOG_LINES) -> list[Line]:
    """The last `limit` lines the role may read, walking back from the end."""
    out: list[Line] = []
    for line in reversed(lines):
        if len(out) == limit:
            break
        if line.shown(gm):
            out.append(line)
    return out[::-1]


class _Line(Protocol):
    @property
    def version(self) -> int: ...
    @property
    def hidden(self) -> bool: ...
    def shown(self, secrets: bool) -> bool: ...


Line = TypeVar("Line", bound=_Line)


class LogPage(NamedTuple, Generic[Line]):
    """A page of the log: `lines` in order, and whether earlier ones exist for the role."""

    lines: list[Line]
    more: bool


def log_page(lines: Sequence[Line], role: str, before: int, limit: int) -> LogPage[Line]:
    """The last `limit` lines `role` may read among those from versions before `before`,
    with every line of the page's first version (one event's lines are never split, so
    the next page is simply `before` that version).

    `lines` is the log in version order (any log whose lines carry `version` and
    `hidden`); a GM reads every line, any other role none that is hidden.
    """
    gm = role == "gm"
    end = bisect.bisect_left(lines, before, key=_version)
    tail = _tail(lines[:end], gm, limit)
    if not tail:
        return LogPage([], False)
    start = bisect.bisect_left(lines, tail[0].version, key=_version)
    page = [line for line in lines[start:end] if line.shown(gm)]
    return LogPage(page, bool(_tail(lines[:start], gm, 1)))


def _version(line: _Line) -> int:
    return line.version


def winner(game: Game) -> str | None:
    """The one side still in the fight once combat started, else None."""
    if not game.started:
        return None
    sides = {game.combatants[cid].side for cid in game.active()}
    return sides.pop() if len(sides) == 1 else None


def _decided(state: EncounterState) -> bool:
    game, led = state.game, state.ledger
    if led.closed:
        return False
    if game.started and not game.active():
        return True  # nobody is left standing: no turn can be given
    stop = led.settings.get("fight.stop_when_decided", True)
    return bool(stop) and not game.continued and winner(game) is not None


def _sender(game: Game, by: str) -> str:
    """Who sent a dispute, by name: "GM", or a player's combatants ("player:c1" -> "Ayla")."""
    if by == "gm":
        return "GM"
    if by.startswith("player:"):
        ids = [i for i in by.removeprefix("player:").split(",") if i in game.combatants]
        return ", ".join(game.combatants[i].name for i in ids) if ids else "a player"
    return by


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
        "conditions": [
            {
                "name": k.name,
                "until": k.until,
                "rounds": k.rounds,
                "left": k.left,
                "note": k.note,
                "modifier": k.modifier,
                "rule": k.rule,
            }
            for k in c.conditions.values()
        ],
        "chips": _chips(c, state),
        "labels": {k: words.res(k) for k in c.resources},
        "labels_fr": {k: words.res(k, fr=True) for k in c.resources},
        "kinds": {k: words.kind(k) for k in c.resources},
        "hidden": secret,
    } | ({"sheet": dict(c.sheet), "gm_only": list(c.gm_only)} if gm else {})


def _pending(state: EncounterState, veiled: set[str]) -> list[dict[str, Any]]:
    """The attacks waiting for an answer; the damage of one between combatants whose
    numbers are the GM's is the GM's too."""
    out: list[dict[str, Any]] = []
    names = state.game.combatants
    for p in state.game.pending:
        secret = p.attacker in veiled or p.target in veiled
        if secret:
            p = dataclasses.replace(p, damage=0)
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
                "damage": None if secret else p.damage,
                "options": list(p.options),
                "text": text,
                "text_fr": text_fr,
            }
        )
    return out


def _reorder(state: EncounterState) -> dict[str, Any]:
    """Whether the GM may set the initiative order by hand now, as `set_initiative` would
    answer (the rule system's own check: d100-tcs rolls it again every round, TC-4), so
    the console's arrows offer only what the server accepts."""
    rules = REGISTRY.get(state.ledger.ruleset)
    if rules is None or not state.game.order or state.ledger.closed:
        return {"enabled": False}
    try:  # reads only: no clone, no dice, nothing emitted
        rules.check_reorder(Ctx(state, FixedRoller([]), GM, rules, clone=False))
    except Refused as why:
        en, fr = said(why)
        reason = {"reason": en, "reason_fr": fr}
        return {"enabled": False, **reason, "rule": why.rule}
    return {"enabled": True}


def _legal(state: EncounterState, gm: bool) -> dict[str, list[dict[str, Any]]]:
    """What the current actor and every pending target may do now, with each cost and its
    odds. The public board leaves out what a cost would leave of a GM-only resource, and
    the odds computed from one (`reads`)."""
    rules = REGISTRY.get(state.ledger.ruleset)
    if rules is None or state.ledger.closed:  # after close nothing is offered
        return {}
    game = state.game
    who = [game.actor] if game.actor is not None else []
    who += [p.target for p in game.pending]
    defaults = {k: s.default for k, s in rules.settings.items()}
    settings = defaults | state.ledger.settings
    out: dict[str, list[dict[str, Any]]] = {}
    for cid in dict.fromkeys(who):
        entries: list[dict[str, Any]] = msgspec.to_builtins(rules.legal(game, cid, settings))
        secret = set() if gm or cid not in game.combatants else set(game.combatants[cid].gm_only)
        for entry in entries:
            for cost in entry.get("cost", []):
                if cost["unit"] in secret:
                    cost.pop("left", None)
            # The odds come from the actor's sheet and the first target's: hidden when
            # either is the GM's (a combatant with GM-only resources keeps its sheet).
            first = entry.get("targets", [])[:1]
            veiled = not gm and any(
                c in game.combatants and game.combatants[c].gm_only for c in [cid, *first]
            )
            if secret & set(entry.pop("reads", [])) or veiled:
                entry.pop("chance", None)
                entry.pop("threshold", None)
        out[cid] = [_worded(entry, state) for entry in entries]
    return out


def _worded(entry: dict[str, Any], state: EncounterState) -> dict[str, Any]:
    """A legal entry with its reason worded from its facts: `reason` (English) and
    `reason_fr`, the stable key kept as `reason_key`; a combatant is said by name."""
    key = str(entry.get("reason") or "")
    if not key:
        return {**entry, "reason": "", "reason_fr": ""}
    params = entry.get("params") or {}
    people = state.game.combatants
    names = {k: people[v].name for k, v in params.items() if isinstance(v, str) and v in people}
    en, fr = word_reason(key, params, names) or (key, key)
    return {**entry, "reason": en, "reason_fr": fr, "reason_key": key}
