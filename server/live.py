"""The live websocket: WS /ws/encounters/{id} (CONTRACT section 7).

A connection joins its encounter's room in the hub, which queues the snapshot (or every
missed update) and then each committed change; a pump sends them. What the client may
send is a ping; anything else gets an error message and the socket stays open.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import msgspec
from starlette.websockets import WebSocket, WebSocketDisconnect

from domain.errors import Refused
from domain.state import SPECTATOR
from server import auth
from server.hub import Hub, Watcher
from server.requests import service, view_role
from server.service import parse_id, stream_of


class WsMessage(msgspec.Struct, tag_field="type", tag="ping", forbid_unknown_fields=True):
    """What a client may send on the websocket: a ping (answered with a pong)."""


class WsSnapshot(msgspec.Struct, tag_field="type", tag="snapshot"):
    """Sent on connect without `after`: the board for the caller's role at `version`."""

    version: int
    board: dict[str, Any]


class WsUpdate(msgspec.Struct, tag_field="type", tag="update"):
    """Each committed change (or, on connect with `after`, every missed one at once):
    the envelopes the role may read, and the board at `version`."""

    version: int
    events: list[dict[str, Any]]
    board: dict[str, Any]


class WsPong(msgspec.Struct, tag_field="type", tag="pong"):
    """The answer to a ping."""


class WsErrorBody(msgspec.Struct):
    """A refused client message: a code and a sentence."""

    code: str
    message: str


class WsError(msgspec.Struct, tag_field="type", tag="error"):
    """A client message the server could not read; the socket stays open."""

    error: WsErrorBody


WsServerMessage = WsSnapshot | WsUpdate | WsPong | WsError


_ws_decoder = msgspec.json.Decoder(WsMessage)


async def ws_encounter(websocket: WebSocket) -> None:
    try:
        eid = parse_id(websocket.path_params["id"])
    except Refused:
        await websocket.close(code=4404)
        return
    svc = service(websocket)
    token = websocket.query_params.get("token")
    who = await svc.principal(eid, token) if token else SPECTATOR
    raw_after = websocket.query_params.get("after")
    if who is None or (raw_after is not None and not raw_after.isdigit()):
        await websocket.close(code=4401 if who is None else 4400)
        return
    try:
        await svc.load(eid)
    except Refused:
        await websocket.close(code=4404)
        return
    await websocket.accept()
    hub: Hub = websocket.app.state.hub
    stream = stream_of(eid)
    watcher = Watcher(websocket, view_role(who))
    await hub.join(stream, watcher, int(raw_after) if raw_after is not None else None)
    revoked = False

    def on_revoke() -> None:  # the GM revoked this socket's token (server/tokens.py)
        nonlocal revoked
        revoked = True
        while not watcher.queue.empty():
            watcher.queue.get_nowait()
        watcher.queue.put_nowait(None)

    token_id = await auth.id_of(svc.pool, eid, token) if token else None
    watch = websocket.app.state.revocations.watch(token_id, on_revoke) if token_id else None

    async def pump() -> None:
        while True:
            text = await watcher.queue.get()
            if text is None:
                code = 4401 if revoked else 1013 if watcher.dropped else 1001
                await websocket.close(code=code)
                return
            await websocket.send_text(text)
            del text  # an idle watcher must not keep its last update alive

    sender = asyncio.create_task(pump())
    try:
        while True:
            incoming = await websocket.receive_text()
            try:
                _ws_decoder.decode(incoming)
                reply: dict[str, Any] = {"type": "pong"}
            except (msgspec.DecodeError, msgspec.ValidationError) as e:
                reply = {"type": "error", "error": {"code": "invalid", "message": str(e)}}
            if not watcher.queue.full():
                watcher.queue.put_nowait(json.dumps(reply))
    except (WebSocketDisconnect, RuntimeError):
        pass
    finally:
        sender.cancel()
        hub.leave(stream, watcher)
        if watch is not None:
            websocket.app.state.revocations.unwatch(watch)
