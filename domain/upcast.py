"""The one place where old shapes of stored events would be handled (domain/events.py,
rule 3).

Every stored event is decoded through `upcast` before its Struct is built: an
encounter's in `domain.events.event_from`, a War's in `domain.campaign.event_from`
(their tags are distinct, so one table serves both). A change that renames or retypes a
stored field registers here one function for its tag, turning the stored data into the
new shape at decode time; the rows themselves are never rewritten (the hash chain covers
them), and no other module reads an old shape.

None is registered: no Fracas database is deployed yet, so the shapes that came before
facts-only events (the `summary` sentences of `action_resolved` and `reaction_resolved`)
were deleted with their readers rather than kept (docs/operating.md, "Upgrading"). A
stored field that no event has any more is ignored when decoded, not refused.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["UPCASTERS", "upcast"]

# tag -> the function that turns an older stored `data` of that tag into today's shape.
UPCASTERS: dict[str, Callable[[dict[str, Any]], dict[str, Any]]] = {}


def upcast(tag: str, data: Mapping[str, Any]) -> Mapping[str, Any]:
    """The stored `data` of an event tagged `tag`, in today's shape (as it is, today)."""
    step = UPCASTERS.get(tag)
    return data if step is None else step(dict(data))
