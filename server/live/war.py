"""A War's live feed: WS /ws/campaigns/{id}?after=V (token as in server/live/credentials.py).

Like an encounter's (CONTRACT section 7, server/live.py): on connect a `snapshot` of the
War as `GET /api/campaigns/{id}` shows it (or, with `after`, one `update` with every
missed event), then an `update {version, events, board}` for each change committed to
the War's stream, so a GM watching the War sees HP, mana and Luck change as its
encounters close and are carried back. The hub's own rooms, checkpoints, NOTIFY wake-ups
and slow-client drops serve it: a `WarRoom` only folds War events instead of an
encounter's. Only the War's GM token sees sheets (in the board and in the events).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from starlette.websockets import WebSocket

from domain import campaign as war
from domain.errors import NotFound
from server.live.credentials import Guard, credentials
from server.live.encounter import serve_watcher
from server.live.hub import Hub, Room, Watcher
from server.live.params import BadQuery, version_param
from server.live.transport import direct
from server.services import auth
from server.services.encounters import EncounterService
from server.services.wars import War, load, parse_campaign, stream_of, view


class WarFold:
    """A War folded from its envelopes, with the encounters carried back into it."""

    def __init__(self, campaign_id: str) -> None:
        self.id = campaign_id
        self.state = war.CampaignState()
        self.version = 0
        self.carried: list[str] = []

    def extend(self, envelopes: list[dict[str, Any]]) -> None:
        for env in envelopes:
            war.evolve(self.state, war.event_from(str(env["type"]), env["data"]))
            encounter = str((env.get("meta") or {}).get("encounter", ""))
            if encounter and encounter not in self.carried:
                self.carried.append(encounter)
            self.version = int(env["version"])


class WarRoom(Room):
    """The hub's room of one War stream: its board is the War's view for the role."""

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self.proj = WarFold(stream.partition("-")[2])  # type: ignore[assignment]

    @property
    def fold(self) -> WarFold:
        fold: WarFold = self.proj  # type: ignore[assignment]
        return fold

    def board(self, role: str) -> dict[str, Any]:
        f = self.fold
        shown = view(War(f.id, f.state, f.version, []), gm=role == "gm")
        return {**shown, "encounters": list(f.carried)}

    def visible(self, envs: list[dict[str, Any]], role: str) -> list[Any]:
        return envs if role == "gm" else [_without_sheet(e) for e in envs]


def _without_sheet(env: Mapping[str, Any]) -> dict[str, Any]:
    data = env.get("data") or {}
    if "sheet" not in data:
        return dict(env)
    return {**env, "data": {**data, "sheet": {}}, "redacted": True}


async def ws_campaign(websocket: WebSocket) -> None:
    svc: EncounterService = websocket.app.state.service
    try:
        campaign_id = parse_campaign(websocket.path_params["id"])
        await load(svc, campaign_id)
    except NotFound:
        await websocket.close(code=4404)
        return
    creds = credentials(websocket)
    try:
        after = version_param(websocket.query_params.get("after"))
    except BadQuery:
        creds = None
    if creds is None:
        await websocket.close(code=4400)
        return
    token = creds.token
    who = await auth.principal(svc.store, campaign_id, token) if token else None
    token_id = await auth.id_of(svc.store, campaign_id, token) if token and who else None
    if token and token_id is None:
        await websocket.close(code=4401)
        return
    await websocket.accept(subprotocol=creds.subprotocol)
    hub: Hub = websocket.app.state.hub
    stream = stream_of(campaign_id)
    role = "gm" if who is not None and who.role == "gm" else "public"
    watcher = Watcher(websocket, role, direct=direct(websocket.scope),
                      kind="gm" if role == "gm" else "spectator")  # fmt: skip
    revocations = websocket.app.state.revocations
    with Guard(revocations, svc.store, campaign_id, token, token_id, watcher) as guard:
        await hub.join(stream, watcher, after, make_room=WarRoom)
        await guard.confirm()
        await serve_watcher(websocket, hub, stream, watcher)
