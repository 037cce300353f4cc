"""What a `patch=1` websocket connection receives (CONTRACT section 7), besides patches.

A connection that asks for patches follows the table; it does not audit it. So each of
its updates is `{"type": "update", "version", "events", "patch"}` (or `board` in the
first message of a connection) where:

- `events` are compact: `{"version", "type", "data"}` per event the role may read, with
  `data` filtered as for any client of that role (a hidden resource of a combatant's
  arrival is null, its sheet empty). What only an audit needs (`stream`, `position`,
  `meta`, `prev_hash`, `hash`, the `redacted` mark) stays in the events and audit
  endpoints, where the hash chain can be checked whole.
- the board's `legal` holds only what the connection can act on: every combatant's
  actions for the GM (as on every GM board), a player's own combatants' for a player,
  none for a spectator. The rest of the board is the role's board as any client gets it.

A board view is named by a key: "gm" and "public" are the whole boards (server/hub.py
builds them), "spectator" and "player:<ids>" a `patch=1` connection's, derived from the
public board without building another.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from domain.state import Principal
from server.live.patch import diff

__all__ = ["compact", "patch_update", "patch_view", "scoped", "whole_view"]

SPECTATOR_VIEW = "spectator"
PLAYER_VIEW = "player:"


def patch_view(who: Principal) -> str:
    """The board view a `patch=1` connection of `who` follows."""
    if who.role == "gm":
        return "gm"
    if who.role == "player":
        return PLAYER_VIEW + ",".join(sorted(who.combatants))
    return SPECTATOR_VIEW


def whole_view(view: str) -> str:
    """The whole board a view is cut from ("gm" or "public")."""
    return "gm" if view == "gm" else "public"


def scoped(view: str, whole: Callable[[str], dict[str, Any]]) -> dict[str, Any]:
    """The board of `view`: `whole(name)` gives a whole board ("gm" or "public") as plain
    JSON; a spectator's or a player's shares every value with it but `legal`."""
    board = whole(whole_view(view))
    if view in ("gm", "public"):
        return board
    mine = set(view.removeprefix(PLAYER_VIEW).split(",")) if view.startswith(PLAYER_VIEW) else set()
    legal: Mapping[str, Any] = board.get("legal") or {}
    return {**board, "legal": {cid: entries for cid, entries in legal.items() if cid in mine}}


def compact(events: list[Any]) -> list[dict[str, Any]]:
    """Role-filtered envelopes as a `patch=1` connection gets them: version, type, data."""
    return [{"version": e["version"], "type": e["type"], "data": e["data"]} for e in events]


def patch_update(
    version: int, events: list[Any], old: dict[str, Any] | None, new: dict[str, Any]
) -> dict[str, Any]:
    """A `patch=1` connection's update: a patch from the board it last received (`old`),
    or the whole board when it has none yet."""
    body: dict[str, Any] = {"type": "update", "version": version, "events": compact(events)}
    if old is None:
        body["board"] = new
    else:
        body["patch"] = diff(old, new)
    return body
