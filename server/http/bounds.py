"""Bounds on what a client may send, checked at the edge before any decoding into commands.

Every JSON body (commands, sheets, settings, options, campaign and simulate bodies):
- nests at most MAX_DEPTH objects/arrays (the body itself is level 1): deeper input is
  refused before anything walks it recursively;
- holds no fractions: events carry whole numbers only (CONTRACT section 5). An integral
  float (`3.0`, which JSON Schema counts as an integer) is read as the integer;
- holds no control characters (U+0000..U+001F, U+007F..U+009F, U+2028, U+2029) in any
  string or key: PostgreSQL's jsonb refuses NUL, and a newline in a name would forge
  lines in the forum exports. Every text field of this product is a single line;
- holds no Unicode format characters (category Cf: the bidi overrides and isolates
  U+202A..U+202E and U+2066..U+2069, zero-width spaces and joiners, the BOM, soft
  hyphens...) in any string or key: a name with U+202E reverses the rest of a log line
  as it is shown, and invisible ones make two names look the same.
Every integer query or path parameter is a whole number from 0 to MAX_PARAM.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any

import msgspec

from server.http.errors import HTTPError

MAX_DEPTH = 8
MAX_PARAM = 1_000_000_000  # versions, roll numbers, limits: far above any real stream
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")


def check_json(raw: bytes) -> bytes:
    """Refuse a body nested too deep (400 invalid), or holding a fraction or a control
    character (422 invalid, like any other well-formed value that does not fit). Answers
    the body to decode: `raw` itself, or re-encoded with its integral floats as ints."""
    if not raw.strip():
        return raw  # an empty body is the typed decoder's to refuse
    try:
        doc = msgspec.json.decode(raw)
    except RecursionError as e:
        raise HTTPError(
            400, "invalid", reason="json_nests_too_deep", params={"max": MAX_DEPTH}
        ) from e
    except msgspec.DecodeError as e:
        raise HTTPError(400, "invalid", reason="malformed_json", params={"detail": str(e)}) from e
    # (value, depth, its container's path, its key or index): a path is only spelled out
    # for the error, so a body of 100,000 numbers is walked without building strings.
    stack: list[tuple[Any, int, str, Any]] = [(doc, 1, "$", None)]
    integral = False
    while stack:
        value, depth, parent, key = stack.pop()
        if isinstance(value, dict | list):
            where = _path(parent, key)
            if depth > MAX_DEPTH:
                raise HTTPError(
                    400,
                    "invalid",
                    reason="json_nests_too_deep_at",
                    params={"max": MAX_DEPTH, "where": where},
                )
            if isinstance(value, dict):
                for k, item in value.items():
                    _text(k, parent, key)
                    stack.append((item, depth + 1, where, k))
            else:  # numbers, the bulk of a big list, are checked here without a push
                for i, item in enumerate(value):
                    if type(item) is not int:
                        stack.append((item, depth + 1, where, i))
        elif type(value) is float:
            if value.is_integer() and abs(value) < 2**63:
                integral = True
                continue
            where = _path(parent, key)
            raise HTTPError(422, "invalid", reason="whole_numbers_only", params={"where": where})
        elif type(value) is str:
            _text(value, parent, key)
    return msgspec.json.encode(_whole(doc)) if integral else raw


def _whole(value: Any) -> Any:
    if type(value) is float:
        return int(value)
    if isinstance(value, list):
        return [_whole(v) for v in value]
    if isinstance(value, dict):
        return {k: _whole(v) for k, v in value.items()}
    return value


def _path(parent: str, key: Any) -> str:
    if key is None:
        return parent
    return f"{parent}[{key}]" if type(key) is int else f"{parent}.{key}"


def _text(value: str, parent: str, key: Any) -> None:
    if _CONTROL.search(value):
        where = _path(parent, key)
        raise HTTPError(422, "invalid", reason="no_control_characters", params={"where": where})
    if not value.isascii():  # ASCII holds no format character: the common case stays cheap
        found = next((c for c in value if unicodedata.category(c) == "Cf"), None)
        if found is not None:
            where = _path(parent, key)
            raise HTTPError(
                422,
                "invalid",
                reason="no_format_characters",
                params={"where": where, "char": f"U+{ord(found):04X}"},
            )


def whole_param(raw: str, name: str) -> int:
    """A query or path parameter as a whole number from 0 to MAX_PARAM, else 400 invalid."""
    if not raw.isascii() or not raw.isdigit() or len(raw) > 10 or int(raw) > MAX_PARAM:
        raise HTTPError(
            400, "invalid", reason="param_whole_0_to", params={"param": name, "max": MAX_PARAM}
        )
    return int(raw)
