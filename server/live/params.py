"""A websocket's query parameters, read strictly (issue 20 section 5).

`after` is a version: ASCII digits only, at most 10 of them, at most MAX_VERSION (the same
bound as any HTTP integer parameter, server/http/bounds.py MAX_PARAM). `str.isdigit` is not
enough: it accepts `¹` or `٣`, which `int()` then refuses (a 1011 and a traceback), and a
string of 5,000 digits, which `int()` refuses too. Anything else refuses the handshake
(closed 4400 before it is accepted: the client sees 403), never a 1011.
"""

from __future__ import annotations

import re

MAX_VERSION = 1_000_000_000
_DIGITS = re.compile(r"[0-9]{1,10}")


class BadQuery(ValueError):
    """A query parameter the socket cannot take."""


def version_param(raw: str | None) -> int | None:
    """`after` as an int (None when absent), or BadQuery."""
    if raw is None:
        return None
    if not _DIGITS.fullmatch(raw) or int(raw) > MAX_VERSION:
        raise BadQuery(f"after is a whole number from 0 to {MAX_VERSION}")
    return int(raw)


def flag_param(raw: str | None) -> bool:
    """`patch`: absent, 0 or 1; else BadQuery."""
    if raw is None or raw == "0":
        return False
    if raw == "1":
        return True
    raise BadQuery("patch is 0 or 1")
