"""Exports of an encounter: the audit bundle (JSON) and the log as Markdown, BBCode or text.

Each text export folds a `Projection` and renders its log lines for a role: a header
with the encounter's name, rule system and round, the lines, and where the fight stands.
BBCode is for phpBB-style forums: [b], [color], [list], [quote].
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from domain.rules import REGISTRY
from projections.board import lines_for
from projections.log import LogLine
from projections.view import Projection, fold

__all__ = ["FORMAT", "FORMATS", "bbcode", "bundle", "last_turn", "markdown", "render", "text"]

FORMAT = "fracas-audit/1"

_GOOD = ("success", "critical_success", "dodged")
_BAD = ("failure", "critical_failure", "hit", "no_defense")
# What makes a turn worth copying: something was done in it.
_DEEDS = frozenset(
    {
        "action_declared",
        "action_resolved",
        "reaction_declared",
        "reaction_resolved",
        "die_rolled",
        "resource_changed",
        "combatant_defeated",
    }
)


def bundle(encounter_id: str, envelopes: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """The audit bundle (CONTRACT section 6): every envelope, unfiltered, by version."""
    events = sorted((dict(e) for e in envelopes), key=lambda e: int(e.get("version", 0)))
    return {"format": FORMAT, "encounter": encounter_id, "events": events}


def markdown(envelopes: Iterable[Mapping[str, Any]], role: str) -> str:
    """The log as Markdown: a title, one bullet per line, rounds as headings."""
    proj = fold(envelopes)
    return _markdown(proj, lines_for(proj.lines, role), role)


def bbcode(envelopes: Iterable[Mapping[str, Any]], role: str) -> str:
    """The log as a forum post: bold header, a [list] of lines, standings in a [quote]."""
    proj = fold(envelopes)
    return _bbcode(proj, lines_for(proj.lines, role), role)


def text(envelopes: Iterable[Mapping[str, Any]], role: str) -> str:
    """The log as plain text, one line per event."""
    proj = fold(envelopes)
    return _text(proj, lines_for(proj.lines, role), role)


def last_turn(envelopes: Iterable[Mapping[str, Any]], role: str, fmt: str) -> str:
    """Only the last turn, in `fmt` ("bbcode", "markdown" or "text").

    That is every line from the last `turn_started` after which something was done (an
    action, a reaction, a roll, a change): ending a turn starts the next one at once, and
    the turn worth copying is the one just played, with what followed it.
    """
    render_ = FORMATS.get(fmt)
    if render_ is None:
        raise ValueError(f"unknown format {fmt!r}; known: {sorted(FORMATS)}")
    proj = fold(envelopes)
    lines = lines_for(proj.lines, role)
    return render_(proj, lines[_turn_start(lines) :], role)


def render(envelopes: Sequence[Mapping[str, Any]], role: str, fmt: str) -> str | dict[str, Any]:
    """Any export by name: "json" is the bundle, the others the log in that format."""
    if fmt == "json":
        proj = fold(envelopes)
        return bundle(proj.state.ledger.encounter_id, envelopes)
    render_ = FORMATS.get(fmt)
    if render_ is None:
        raise ValueError(f"unknown format {fmt!r}; known: json, {', '.join(sorted(FORMATS))}")
    proj = fold(envelopes)
    return render_(proj, lines_for(proj.lines, role), role)


def _turn_start(lines: Sequence[LogLine]) -> int:
    starts = [i for i, line in enumerate(lines) if line.kind == "turn_started"]
    for start in reversed(starts):
        if any(line.kind in _DEEDS for line in lines[start:]):
            return start
    return starts[-1] if starts else 0


# --- headers and standings ------------------------------------------------------------


def _title(proj: Projection) -> tuple[str, str]:
    led, game = proj.state.ledger, proj.state.game
    rules = REGISTRY.get(led.ruleset)
    system = rules.name if rules is not None else led.ruleset
    where = f"round {game.round}" if game.round else "before the fight"
    if led.closed:
        where += ", closed"
    return led.name or "Encounter", f"{system}, {where}"


def _standings(proj: Projection, role: str) -> list[str]:
    """One line per combatant: name, side, resources (secret ones left out), out."""
    out: list[str] = []
    for c in proj.state.game.combatants.values():
        shown = {k: v for k, v in c.resources.items() if role == "gm" or k not in c.gm_only}
        res = ", ".join(
            f"{k} {v}" + (f"/{c.maxima[k]}" if k in c.maxima else "") for k, v in shown.items()
        )
        state = f", out ({c.out})" if c.out else ""
        out.append(f"{c.name} ({c.side}): {res}{state}" if res else f"{c.name} ({c.side}){state}")
    return out


# --- renderers ------------------------------------------------------------------------

Renderer = Callable[[Projection, Sequence[LogLine], str], str]

_MD_SPECIAL = re.compile(r"([\\`*_\[\]<>#|])")
# Line breaks and other control characters: what a name or reason could use to forge an
# extra line of the log (events stored before the server refused them still hold some).
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")


def _line(value: str) -> str:
    """`value` on one line: every control character becomes a space."""
    return _CONTROL.sub(" ", value)


def _md(value: str) -> str:
    return _MD_SPECIAL.sub(r"\\\1", _line(value))


def _markdown(proj: Projection, lines: Sequence[LogLine], role: str) -> str:
    name, sub = _title(proj)
    out = [f"# {_md(name)}", "", f"*{_md(sub)}*", ""]
    for line in lines:
        if line.kind == "round_started":
            out += ["", f"## {_md(line.text)}", ""]
        else:
            mark = " *(hidden)*" if line.hidden and line.roll is None else ""
            out.append(f"- {_md(line.text)}{mark}")
    standings = _standings(proj, role)
    if standings:
        out += ["", *(f"> {_md(s)}  " for s in standings)]
    return "\n".join(out).replace("\n\n\n", "\n\n") + "\n"


def _bb(value: str) -> str:
    # BBCode has no escape: keep names and reasons from opening or closing a tag.
    return _line(value).replace("[", "(").replace("]", ")")


def _bbcode(proj: Projection, lines: Sequence[LogLine], role: str) -> str:
    name, sub = _title(proj)
    out = [f"[b]{_bb(name)}[/b] — {_bb(sub)}", "[list]"]
    for line in lines:
        said = _bb(line.text)
        if line.kind == "round_started":
            said = f"[b]{said}[/b]"
        elif line.outcome in _GOOD:
            said = f"[color=green]{said}[/color]"
        elif line.outcome in _BAD:
            said = f"[color=red]{said}[/color]"
        out.append(f"[*]{said}")
    out.append("[/list]")
    standings = _standings(proj, role)
    if standings:
        out += ["[quote]", *map(_bb, standings), "[/quote]"]
    return "\n".join(out) + "\n"


def _text(proj: Projection, lines: Sequence[LogLine], role: str) -> str:
    name, sub = _title(proj)
    out = [f"{_line(name)} — {_line(sub)}", ""]
    out += [f"{line.version:>5}  {_line(line.text)}" for line in lines]
    standings = _standings(proj, role)
    if standings:
        out += ["", *map(_line, standings)]
    return "\n".join(out) + "\n"


FORMATS: dict[str, Renderer] = {"markdown": _markdown, "bbcode": _bbcode, "text": _text}
