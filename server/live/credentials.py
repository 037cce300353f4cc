"""A websocket's token, and keeping it under watch while the socket is open.

Where the token comes from (CONTRACT section 7): a browser cannot set `Authorization` on a
websocket, and a token in the URL lands in every access log on its way (the proxy's, the
server's). So a client offers the subprotocols `fracas` and `bearer.<token>` in
`Sec-WebSocket-Protocol`; the server selects `fracas` (never echoing the token back).
`?token=` still works for older clients; the access log redacts it (server/cli/logs.py).

When the token is checked: before the socket joins its room, its token's public id is read
(a revoked token closes 4401 there) and its revocation watch is registered; once joined, the
token is looked up again. A revocation that lands between the first look-up and the watch
(its NOTIFY heard before anyone was listening for this socket) is caught by that second
look-up; one after it reaches the watch. Either way the socket closes 4401.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from types import TracebackType
from typing import Protocol

from starlette.websockets import WebSocket

from server.live.hub import Watcher
from server.services import auth
from server.store.port import SideTables

SUBPROTOCOL = "fracas"
BEARER = "bearer."
_TOKEN_MAX = 200  # a token is 32 characters; anything longer is not one of ours


@dataclass(frozen=True)
class Credentials:
    """What a websocket handshake presents: its token (None: no token), and the
    subprotocol the server selects (None when the client offered none)."""

    token: str | None
    subprotocol: str | None


def credentials(websocket: WebSocket) -> Credentials | None:
    """The handshake's token, from `Sec-WebSocket-Protocol` or else `?token=`; None for a
    malformed offer (two different tokens, an empty or oversized one: close 4400)."""
    offered = [
        p.strip()
        for value in websocket.headers.getlist("sec-websocket-protocol")
        for p in value.split(",")
        if p.strip()
    ]
    tokens = {p[len(BEARER) :] for p in offered if p.startswith(BEARER)}
    query = websocket.query_params.get("token")
    if query is not None:
        tokens.add(query)
    if len(tokens) > 1 or any(not t or len(t) > _TOKEN_MAX for t in tokens):
        return None
    token = next(iter(tokens), None)
    chosen = SUBPROTOCOL if SUBPROTOCOL in offered else None
    if chosen is None and offered and query is None:
        return None  # a browser would fail a handshake that selects none of its offers
    return Credentials(token, chosen)


class Revocations(Protocol):
    """What a socket needs of the app's revocation listener (server/http/tokens.py)."""

    def watch(self, token_id: str, close: Callable[[], None]) -> tuple[str, int]: ...

    def unwatch(self, handle: tuple[str, int]) -> None: ...


class Guard:
    """While entered, `watcher` closes 4401 when `token_id` is revoked (any instance).

    `confirm()`, once the watcher has joined its room, looks the token up again."""

    def __init__(
        self,
        revocations: Revocations,
        store: SideTables,
        scope: str,
        token: str | None,
        token_id: str | None,
        watcher: Watcher,
    ) -> None:
        self._revocations = revocations
        self._store = store
        self._scope = scope
        self._token = token
        self._token_id = token_id
        self._watcher = watcher
        self._handle: tuple[str, int] | None = None

    def _revoked(self) -> None:
        self._watcher.revoked = True
        self._watcher.end(after_queued=False)

    def __enter__(self) -> Guard:
        if self._token_id is not None:
            self._handle = self._revocations.watch(self._token_id, self._revoked)
        return self

    async def confirm(self) -> None:
        """Close 4401 now if the token was revoked since it was first read."""
        if self._token is None or self._watcher.revoked:
            return
        if await auth.id_of(self._store, self._scope, self._token) != self._token_id:
            self._revoked()

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._handle is not None:
            self._revocations.unwatch(self._handle)
