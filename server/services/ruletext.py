"""The text of a rule id (RK-12, NA-AMB-4, TC-20), read from the shipped digests."""

from __future__ import annotations

import functools
import html
import re
from pathlib import Path

FOLDER = Path(__file__).resolve().parents[1] / "ruletexts"
_START = re.compile(r"^\*\*(?P<id>[A-Z]{2}-(?:AMB-)?\d+)\b")
_STOP = re.compile(r"^(\*\*[A-Z]{2}-(?:AMB-)?\d+\b|#)")


@functools.cache
def rule_texts() -> dict[str, tuple[str, str]]:
    """rule id -> (digest file stem, the rule's markdown text)."""
    found: dict[str, tuple[str, str]] = {}
    for path in sorted(FOLDER.glob("*.md")):
        current: str | None = None
        lines: list[str] = []
        for line in [*path.read_text(encoding="utf-8").splitlines(), "#"]:
            if current is not None and _STOP.match(line):
                found.setdefault(current, (path.stem, "\n".join(lines).strip()))
                current = None
            start = _START.match(line)
            if start:
                current, lines = start.group("id"), [line]
            elif current is not None:
                lines.append(line)
    return found


def rule_page(rule_id: str, system: str, text: str) -> str:
    """A small readable page for one rule (markdown shown as text, bold kept)."""
    body = html.escape(text)
    body = re.sub(r"\*\*(.+?)\*\*", r"<strong>\1</strong>", body)
    return (
        "<!doctype html><html lang=en><meta charset=utf-8>"
        "<meta name=viewport content='width=device-width,initial-scale=1'>"
        f"<title>{html.escape(rule_id)} · Fracas</title>"
        "<link rel=stylesheet href=/static/style.css>"
        f"<main class=rule-page><p class=muted>{html.escape(system)}</p>"
        f"<pre style='white-space:pre-wrap;font:inherit'>{body}</pre></main></html>"
    )
