"""The server's log configuration: uvicorn's, with every bearer token taken out.

A token in a URL (`?token=` from an older websocket client, or a link pasted into a
request) would be written in clear by uvicorn's access log and its websocket handshake
lines. `RedactTokens` rewrites the value of every `token=` parameter to `[redacted]` in a
record's arguments (uvicorn's access formatter reads the request line from them), on
every handler, before anything is formatted.
"""

from __future__ import annotations

import copy
import logging
import re
from typing import Any

from uvicorn.config import LOGGING_CONFIG

_TOKEN = re.compile(r"(?i)(token=|bearer[. ])[^&\s#\"',;]+")
REDACTED = "[redacted]"


def redact(text: str) -> str:
    """`text` with the value of every `token=` (and `bearer <token>`) replaced."""
    return _TOKEN.sub(lambda m: m.group(1) + REDACTED, text)


class RedactTokens(logging.Filter):
    """Takes tokens out of a record's message and string arguments (never drops it)."""

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.msg, str):
            record.msg = redact(record.msg)
        if isinstance(record.args, tuple):
            record.args = tuple(redact(a) if isinstance(a, str) else a for a in record.args)
        elif isinstance(record.args, dict):
            args = record.args.items()
            record.args = {k: redact(v) if isinstance(v, str) else v for k, v in args}
        return True


def log_config() -> dict[str, Any]:
    """uvicorn's default logging, with `RedactTokens` on each of its handlers."""
    config = copy.deepcopy(LOGGING_CONFIG)
    config.setdefault("filters", {})["redact_tokens"] = {"()": RedactTokens}
    for handler in config["handlers"].values():
        handler.setdefault("filters", []).append("redact_tokens")
    return config
