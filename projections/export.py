"""Exports of an encounter: the audit bundle (JSON) and the log as a forum post (BBCode,
Markdown) or chat text, in English or French.

A post has a title, the log grouped under round and turn headings, each absorbed roll as
a link to its audit page (`{base}/e/{id}?roll=N`, where the board opens that roll's
audit), and the final state of every combatant. Undone steps are struck through with the
undo's reason. Hidden rolls and GM-hidden resources are left out of every text export,
the GM's too, unless the GM asks (`include_hidden`); for anyone else the flag is ignored.
The JSON bundle is the audit record and is never filtered here (the server gates it).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from domain.rules import REGISTRY
from projections.log import LogLine, said
from projections.log.core import NARRATORS, Narrator
from projections.view import Projection, fold

__all__ = [
    "FORMAT",
    "FORMATS",
    "SCOPES",
    "Post",
    "bbcode",
    "bundle",
    "language",
    "last_turn",
    "markdown",
    "render",
    "text",
]

FORMAT = "fracas-audit/2"  # domain/verify.py reads /1 too
SCOPES = ("all", "last_turn")

_GOOD = ("success", "critical_success", "dodged", "stopped", "resisted", "countered", "blocked")
_BAD = ("failure", "critical_failure", "hit", "no_defense", "miss", "parried", "reduced")
_HEADINGS = ("round_started", "turn_started")
_WORDS = {
    "en": {
        "before": "before the fight",
        "round": "round",
        "closed": "closed",
        "out": "out",
        "undone": "undone",
        "roll": "roll",
        "standing": "Where the fight stands",
        "colon": ":",
        "encounter": "Encounter",
        "side": "side",
    },
    "fr": {
        "before": "avant le combat",
        "round": "round",
        "closed": "close",
        "out": "hors de combat",
        "undone": "annulé",
        "roll": "jet",
        "standing": "Où en est le combat",
        "colon": " :",
        "encounter": "Rencontre",
        "side": "camp",
    },
}


@dataclass(frozen=True)
class Post:
    """Who reads an export and how: role, language, hidden lines or not, link base."""

    role: str
    lang: str = "en"
    include_hidden: bool = False
    base: str = ""

    @property
    def secrets(self) -> bool:
        """Whether this post may show hidden rolls and GM-only resources."""
        return self.role == "gm" and self.include_hidden


def bundle(encounter_id: str, envelopes: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """The audit bundle (CONTRACT section 6): every envelope, unfiltered, by version."""
    events = sorted((dict(e) for e in envelopes), key=lambda e: int(e.get("version", 0)))
    return {"format": FORMAT, "encounter": encounter_id, "events": events}


def language(proj: Projection, lang: str | None) -> str:
    """The export's language: the one asked for, else the encounter's setting, else en."""
    chosen = lang or str(proj.state.ledger.settings.get("lang") or "en")
    if chosen not in _WORDS:
        raise ValueError(f"unknown language {chosen!r}; known: {sorted(_WORDS)}")
    return chosen


def markdown(
    envelopes: Iterable[Mapping[str, Any]],
    role: str,
    lang: str | None = None,
    include_hidden: bool = False,
) -> str:
    """The log as Markdown: a title, rounds and turns as headings, lines as bullets."""
    return _export(envelopes, role, "markdown", lang, include_hidden, "all", "")


def bbcode(
    envelopes: Iterable[Mapping[str, Any]],
    role: str,
    lang: str | None = None,
    include_hidden: bool = False,
) -> str:
    """The log as a forum post: [b] title and headings, a [list] of lines, standings."""
    return _export(envelopes, role, "bbcode", lang, include_hidden, "all", "")


def text(
    envelopes: Iterable[Mapping[str, Any]],
    role: str,
    lang: str | None = None,
    include_hidden: bool = False,
) -> str:
    """The log as plain text for a chat, one line per step under its headings."""
    return _export(envelopes, role, "text", lang, include_hidden, "all", "")


def last_turn(
    envelopes: Iterable[Mapping[str, Any]],
    role: str,
    fmt: str,
    lang: str | None = None,
    include_hidden: bool = False,
    base: str = "",
) -> str:
    """The post a GM pastes after each turn: the last turn in which something was done,
    with what followed it (ending a turn starts the next one at once)."""
    return _export(envelopes, role, fmt, lang, include_hidden, "last_turn", base)


def render(
    envelopes: Sequence[Mapping[str, Any]],
    role: str,
    fmt: str,
    *,
    lang: str | None = None,
    scope: str = "all",
    include_hidden: bool = False,
    base: str = "",
) -> str | dict[str, Any]:
    """Any export by name: "json" is the bundle, the others the log in that format."""
    if fmt == "json":
        proj = fold(envelopes)
        return bundle(proj.state.ledger.encounter_id, envelopes)
    return _export(envelopes, role, fmt, lang, include_hidden, scope, base)


def _export(
    envelopes: Iterable[Mapping[str, Any]],
    role: str,
    fmt: str,
    lang: str | None,
    include_hidden: bool,
    scope: str,
    base: str,
) -> str:
    render_ = FORMATS.get(fmt)
    if render_ is None:
        raise ValueError(f"unknown format {fmt!r}; known: json, {', '.join(sorted(FORMATS))}")
    if scope not in SCOPES:
        raise ValueError(f"unknown scope {scope!r}; known: {', '.join(SCOPES)}")
    proj = fold(envelopes)
    post = Post(role, language(proj, lang), include_hidden, base)
    lines = [line for line in proj.lines if line.shown(post.secrets)]
    if scope == "last_turn":
        lines = lines[_turn_start(lines) :]
    return render_(proj, _grouped(lines), post)


def _turn_start(lines: Sequence[LogLine]) -> int:
    """Where the last turn in which something was done starts (its round heading too)."""
    starts = [i for i, line in enumerate(lines) if line.kind == "turn_started"]
    found = starts[-1] if starts else 0
    for start in reversed(starts):
        if any(line.kind not in _HEADINGS for line in lines[start:]):
            found = start
            break
    if found and lines[found - 1].kind == "round_started":
        found -= 1  # the turn opened the round: the post says which round
    return found


def _grouped(lines: Sequence[LogLine]) -> list[LogLine]:
    """The lines without the headings of empty turns and rounds (a turn ended without a
    step, a round with none), walking back from the end; the last heading stays: it is
    where the fight stands now."""
    out: list[LogLine] = []
    nxt: LogLine | None = None  # the next line kept
    for line in reversed(lines):
        empty = nxt is not None and (
            nxt.kind == "round_started" or nxt.kind == line.kind == "turn_started"
        )
        if line.kind in _HEADINGS and empty:
            continue
        out.append(line)
        nxt = line
    return out[::-1]


# --- headers and standings ------------------------------------------------------------


def _narrator(proj: Projection) -> Narrator:
    return NARRATORS.get(proj.state.ledger.ruleset, Narrator())


def _title(proj: Projection, post: Post) -> tuple[str, str]:
    led, game = proj.state.ledger, proj.state.game
    words = _WORDS[post.lang]
    rules = REGISTRY.get(led.ruleset)
    system = rules.name if rules is not None else led.ruleset
    if post.lang == "fr":
        system = _narrator(proj).name_fr or system
    where = f"{words['round']} {game.round}" if game.round else words["before"]
    if led.closed:
        where += f", {words['closed']}"
    return led.name or words["encounter"], f"{system}, {where}"


def _standings(proj: Projection, post: Post) -> list[str]:
    """One line per combatant: name, side, resources (GM-only ones left out), out."""
    narrator, words = _narrator(proj), _WORDS[post.lang]
    fr = post.lang == "fr"
    out: list[str] = []
    for c in proj.state.game.combatants.values():
        shown = {k: v for k, v in c.resources.items() if post.secrets or k not in c.gm_only}
        res = ", ".join(
            f"{_res(narrator, k, fr)} {v}" + (f"/{c.maxima[k]}" if k in c.maxima else "")
            for k, v in shown.items()
        )
        out_ = ""
        if c.out:
            why = narrator.reasons.get(c.out) or _REASONS.get(c.out)
            out_ = f", {words['out']} ({why[1 if fr else 0] if why else c.out.replace('_', ' ')})"
        head = f"{c.name} ({words['side']} {c.side})"
        colon = " : " if fr else ": "
        out.append(f"{head}{colon}{res}{out_}" if res else f"{head}{out_}")
    return out


_REASONS = {
    "dead": ("dead", "mort"),
    "fled": ("fled", "en fuite"),
    "down": ("down", "à terre"),
    "out of combat": ("out of combat", "hors de combat"),
}


def _res(narrator: Narrator, resource: str, fr: bool) -> str:
    words = narrator.resources.get(resource) or {"hp": ("HP", "PV")}.get(resource)
    return (words[1] if fr else words[0]) if words else resource.replace("_", " ")


# --- renderers ------------------------------------------------------------------------

Renderer = Callable[[Projection, Sequence[LogLine], Post], str]

_MD_SPECIAL = re.compile(r"([\\`*_\[\]<#|~])")  # ">" only quotes at a line's start
# Line breaks and other control characters: what a name or reason could use to forge an
# extra line of the log (events stored before the server refused them still hold some).
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")


def _line(value: str) -> str:
    """`value` on one line: every control character becomes a space."""
    return _CONTROL.sub(" ", value)


def _md(value: str) -> str:
    return _MD_SPECIAL.sub(r"\\\1", _line(value))


def _bb(value: str) -> str:
    # BBCode has no escape: keep names and reasons from opening or closing a tag.
    return _line(value).replace("[", "(").replace("]", ")")


def _link(proj: Projection, post: Post, n: int) -> str:
    return f"{post.base}/e/{proj.state.ledger.encounter_id}?roll={n}"


def _undone(line: LogLine, post: Post) -> str:
    return f" ({_WORDS[post.lang]['undone']}: {line.undone})" if line.undone is not None else ""


def _tag(line: LogLine) -> str:
    return f" [{line.rule}]" if line.rule else ""


def _markdown(proj: Projection, lines: Sequence[LogLine], post: Post) -> str:
    name, sub = _title(proj, post)
    out = [f"# {_md(name)}", "", f"*{_md(sub)}*", ""]
    for line in lines:
        words = _md(said(line, post.lang))
        if line.kind == "round_started":
            out += ["", f"## {words}", ""]
            continue
        if line.kind == "turn_started":
            out += ["", f"### {words}", ""]
            continue
        links = "".join(f" [#{n}]({_link(proj, post, n)})" for n in _rolls(line))
        tag = f" `{line.rule}`" if line.rule else ""
        said_ = f"{words}{tag}{links}"
        if line.undone is not None:
            said_ = f"~~{said_}~~{_md(_undone(line, post))}"
        out.append(f"- {said_}")
    standings = _standings(proj, post)
    if standings:
        out += [
            "",
            f"**{_md(_WORDS[post.lang]['standing'])}**",
            "",
            *(f"- {_md(s)}" for s in standings),
        ]
    page = "\n".join(out)
    while "\n\n\n" in page:
        page = page.replace("\n\n\n", "\n\n")
    return page + "\n"


def _rolls(line: LogLine) -> list[int]:
    return [line.roll] if line.roll is not None else list(line.rolls)


def _bbcode(proj: Projection, lines: Sequence[LogLine], post: Post) -> str:
    name, sub = _title(proj, post)
    out = [f"[size=150][b]{_bb(name)}[/b][/size]", f"[i]{_bb(sub)}[/i]", ""]
    opened = False
    for line in lines:
        words = _bb(said(line, post.lang))
        if line.kind in _HEADINGS:
            if opened:
                out.append("[/list]")
                opened = False
            size = "[size=120]" if line.kind == "round_started" else ""
            out.append(f"{size}[b]{words}[/b]{'[/size]' if size else ''}")
            continue
        if not opened:
            out.append("[list]")
            opened = True
        links = "".join(f" [url={_link(proj, post, n)}]#{n}[/url]" for n in _rolls(line))
        tag = f" [i]{line.rule}[/i]" if line.rule else ""
        said_ = f"{words}{tag}{links}"
        if line.outcome in _GOOD or (line.kind == "action_resolved" and line.outcome == "hit"):
            said_ = f"[color=green]{said_}[/color]"
        elif line.outcome in _BAD:
            said_ = f"[color=red]{said_}[/color]"
        if line.undone is not None:
            said_ = f"[s]{said_}[/s]{_bb(_undone(line, post))}"
        out.append(f"[*]{said_}")
    if opened:
        out.append("[/list]")
    standings = _standings(proj, post)
    if standings:
        out += [
            "",
            f"[b]{_WORDS[post.lang]['standing']}[/b]",
            "[list]",
            *(f"[*]{_bb(s)}" for s in standings),
            "[/list]",
        ]
    return "\n".join(out) + "\n"


def _text(proj: Projection, lines: Sequence[LogLine], post: Post) -> str:
    name, sub = _title(proj, post)
    out = [f"{_line(name)} — {_line(sub)}"]
    roll = _WORDS[post.lang]["roll"]
    for line in lines:
        words = _line(said(line, post.lang))
        if line.kind == "round_started":
            out += ["", f"== {words} =="]
            continue
        if line.kind == "turn_started":
            out += ["", f"-- {words} --"]
            continue
        links = f" ({roll} {', '.join(f'#{n}' for n in _rolls(line))})" if _rolls(line) else ""
        said_ = f"{words}{_tag(line)}{links}"
        if line.undone is not None:
            said_ = f"~{said_}~{_line(_undone(line, post))}"
        out.append(f"  {said_}")
    standings = _standings(proj, post)
    if standings:
        out += [
            "",
            f"{_WORDS[post.lang]['standing']}{_WORDS[post.lang]['colon']}",
            *(f"  {_line(s)}" for s in standings),
        ]
    return "\n".join(out) + "\n"


FORMATS: dict[str, Renderer] = {"markdown": _markdown, "bbcode": _bbcode, "text": _text}
