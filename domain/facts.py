"""A result event's facts (issue 22 finding 5): one codec for every rule system.

An `action_resolved` or `reaction_resolved` carries its rule system's typed facts (the
Structs in each package's `payloads.py`) as the plain dict stored in `detail`. `encode`
turns the Struct into that dict; `decode` reads it back into the Struct a reader asks
for (unknown keys ignored, missing ones defaulted). Old stored shapes are `upcast.py`'s
business, never a reader's. `Ctx.resolved` and `Ctx.answered` (domain/context.py) are the
one way a rule system builds a result event.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

import msgspec

__all__ = ["decode", "encode"]

S = TypeVar("S", bound=msgspec.Struct)


def encode(payload: msgspec.Struct) -> dict[str, Any]:
    """The payload as the dict stored in `detail`."""
    out: dict[str, Any] = msgspec.to_builtins(payload)
    return out


def decode(detail: Mapping[str, Any], kind: type[S]) -> S:
    """The payload of type `kind` a stored `detail` holds."""
    return msgspec.convert(dict(detail), kind)
