"""The live websocket: WS /ws/encounters/{id} (CONTRACT section 7).

A connection joins its encounter's room in the hub, which sends the snapshot (or every
missed update) and then each committed change: written by the hub itself to the
connection's transport (server/ws_transport.py), or, served by another ASGI server, queued
for a pump task that sends them. What the client may
send is a ping; other text gets an error message and the socket stays open, a binary
frame closes it 1003. A frame over CLIENT_FRAME_LIMIT closes it 1009 and a client that
stops reading is reset: both happen below ASGI, in server/ws_transport.py. With
`patch=1` each update after the first message carries an RFC 6902 `patch` from the
previous board instead of the whole `board` (server/patch.py), compact events and a
`legal` cut to what the connection can act on (server/updates.py).
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any, Literal

import msgspec
from starlette.websockets import WebSocket, WebSocketDisconnect

from domain.errors import Refused
from domain.state import SPECTATOR
from server.live.credentials import Guard, credentials
from server.live.hub import Hub, Watcher
from server.live.params import BadQuery, flag_param, version_param
from server.live.transport import Shared, direct
from server.live.updates import patch_view
from server.services import auth
from server.services.auth import view_role
from server.services.encounters import EncounterService, parse_id, stream_of


class WsMessage(msgspec.Struct, tag_field="type", tag="ping", forbid_unknown_fields=True):
    """What a client may send on the websocket: a ping (answered with a pong)."""


class WsSnapshot(msgspec.Struct, tag_field="type", tag="snapshot"):
    """Sent on connect without `after`: the board for the caller's role at `version`."""

    version: int
    board: dict[str, Any]


class WsPatchOp(msgspec.Struct, omit_defaults=True):
    """One RFC 6902 operation: `op` at the JSON Pointer `path`, with `value` (add,
    replace, test) or `from` (move, copy)."""

    op: Literal["add", "remove", "replace", "move", "copy", "test"]
    path: str
    value: Any = msgspec.UNSET
    from_: str | msgspec.UnsetType = msgspec.field(default=msgspec.UNSET, name="from")


class WsUpdate(msgspec.Struct, tag_field="type", tag="update"):
    """Each committed change (or, on connect with `after`, every missed one at once):
    the envelopes the role may read (as GET /api/encounters/{id}/events gives them; a
    combatant's arrival read by another role than the GM's carries `"redacted": true`)
    and the `board` at `version`. A client that connected with `patch=1` gets
    `WsPatchUpdate` instead."""

    version: int
    events: list[dict[str, Any]]
    board: dict[str, Any]


class WsEvent(msgspec.Struct):
    """An event as a `patch=1` connection gets it: its `version`, `type` and `data`
    (filtered for the role as in any envelope it may read). The audit fields (`stream`,
    `position`, `meta`, `prev_hash`, `hash`) are in GET /api/encounters/{id}/events
    and the audit bundle."""

    version: int
    type: str
    data: dict[str, Any]


class WsPatchUpdate(msgspec.Struct, tag_field="type", tag="update"):
    """An update on a `patch=1` connection: the events the role may read, compact, and
    the `patch` (RFC 6902) that turns the last board this connection received into the
    board at `version`; the first message of a connection carries a whole `board`
    instead (the snapshot, or with `after` the catch-up update). A `patch=1`
    connection's boards are its role's boards except `legal`, which holds only what it
    can act on: every listed combatant for the GM, a player's own combatants, none for
    a spectator."""

    version: int
    events: list[WsEvent]
    board: dict[str, Any] | msgspec.UnsetType = msgspec.UNSET
    patch: list[WsPatchOp] | msgspec.UnsetType = msgspec.UNSET


class WsPong(msgspec.Struct, tag_field="type", tag="pong"):
    """The answer to a ping."""


class WsErrorBody(msgspec.Struct):
    """A refused client message: a code and a sentence."""

    code: str
    message: str


class WsError(msgspec.Struct, tag_field="type", tag="error"):
    """A client message the server could not read; the socket stays open."""

    error: WsErrorBody


class WsReset(msgspec.Struct, tag_field="type", tag="reset"):
    """The store was behind what this connection was sent (a database restored, or an
    asynchronous failover): the board at the store's `version`, from which versions
    increase again; a `patch=1` connection's next patch starts from this board."""

    version: int
    board: dict[str, Any]


WsServerMessage = WsSnapshot | WsUpdate | WsReset | WsPong | WsError
# What a connection that asked for `patch=1` receives (WS /ws/encounters/{id} only).
WsPatchServerMessage = WsSnapshot | WsPatchUpdate | WsReset | WsPong | WsError


_ws_decoder = msgspec.json.Decoder(WsMessage)
_encode = msgspec.json.Encoder().encode

# The largest frame a client may send (uvicorn's ws_max_size): a ping is 15 bytes.
CLIENT_FRAME_LIMIT = 4 * 1024


async def ws_encounter(websocket: WebSocket) -> None:
    try:
        eid = parse_id(websocket.path_params["id"])
    except Refused:
        await websocket.close(code=4404)
        return
    svc: EncounterService = websocket.app.state.service
    creds = credentials(websocket)
    try:
        after = version_param(websocket.query_params.get("after"))
        patch = flag_param(websocket.query_params.get("patch"))
    except BadQuery:
        creds = None
    if creds is None:
        await websocket.close(code=4400)
        return
    token = creds.token
    who = await svc.principal(eid, token) if token else SPECTATOR
    token_id = await auth.id_of(svc.store, eid, token) if token and who else None
    if who is None or (token and token_id is None):
        await websocket.close(code=4401)
        return
    try:
        await svc.load(eid)
    except Refused:
        await websocket.close(code=4404)
        return
    await websocket.accept(subprotocol=creds.subprotocol)
    hub: Hub = websocket.app.state.hub
    stream = stream_of(eid)
    watcher = Watcher(
        websocket,
        patch_view(who) if patch else view_role(who),
        patch=patch,
        direct=direct(websocket.scope),
        kind=who.role,
    )
    revocations = websocket.app.state.revocations
    with Guard(revocations, svc.store, eid, token, token_id, watcher) as guard:
        await hub.join(stream, watcher, after)
        await guard.confirm()
        await serve_watcher(websocket, hub, stream, watcher)


async def serve_watcher(websocket: WebSocket, hub: Hub, stream: str, watcher: Watcher) -> None:
    """Answer a joined watcher's pings until either side ends (the hub sends its updates);
    a binary frame closes 1003, a revoked token 4401. Shared by every live stream
    (encounters, Wars). Without a `Direct` sender, a pump task sends the mailbox.
    """
    sender = asyncio.create_task(pump(websocket, watcher)) if watcher.direct is None else None
    try:
        while True:
            incoming = await websocket.receive()
            if incoming["type"] == "websocket.disconnect":
                return
            text = incoming.get("text")
            if text is None:
                await close_binary(websocket, watcher, sender)
                return
            try:
                _ws_decoder.decode(text)
                reply: WsServerMessage = WsPong()
            except (msgspec.DecodeError, msgspec.ValidationError) as e:
                reply = WsError(WsErrorBody("invalid", str(e)))
            watcher.deliver(Shared(_encode(reply)))  # dropped if the client is far behind
    except (WebSocketDisconnect, RuntimeError):
        pass
    finally:
        if sender is not None:
            sender.cancel()
        hub.leave(stream, watcher)


async def pump(websocket: WebSocket, watcher: Watcher) -> None:
    """Send a watcher's mailbox through ASGI, then close with the code its flags say."""
    try:
        while True:
            text = await watcher.queue.get()
            if text is None:
                code = 4401 if watcher.revoked else 1013 if watcher.dropped else 1001
                await websocket.close(code=code)
                return
            await websocket.send_text(text)
            del text  # an idle watcher must not keep its last update alive
    except WebSocketDisconnect:
        pass  # the transport is gone (a client that stopped reading is reset under us)


async def close_binary(
    websocket: WebSocket, watcher: Watcher, sender: asyncio.Task[None] | None
) -> None:
    if watcher.direct is not None:
        watcher.direct.end(1003, "text frames only", after_backlog=False)
        return
    if sender is not None:
        sender.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await sender
    with contextlib.suppress(WebSocketDisconnect):
        await websocket.close(code=1003, reason="text frames only")
