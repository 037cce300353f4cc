"""The GM's links (CONTRACT section 3): list, issue and revoke tokens; revoked sockets close.

`GET/POST /api/encounters/{id}/tokens`, `DELETE .../tokens/{token_id}`, and the same under
`/api/campaigns/{id}` for a War's GM links. Tokens of an encounter and of a War share one
table, keyed by the uuid they open: each route checks that the uuid is one of its kind, so
a War's GM token manages nothing on `/api/encounters/<War id>`. A revocation is
a row update plus a NOTIFY on `fracas_tokens` with the token's public id; every instance
listens (`Revocations`) and closes the websockets that token opened. A lost
notification is covered by a periodic sweep of the ids of open sockets.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from typing import Annotated, Literal

import msgspec
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from domain.state import Principal
from server.http.errors import HTTPError, json_response
from server.http.requests import bearer, body_of, service
from server.services import auth
from server.services.encounters import parse_id
from server.services.wars import load as load_war
from server.services.wars import parse_campaign
from server.store.port import SideTables

log = logging.getLogger(__name__)


async def require_gm(request: Request, encounter_id: str) -> tuple[Principal, str]:
    """The caller's principal and token, if it is the encounter's GM; else 401/403."""
    token = bearer(request)
    if token is None:
        raise HTTPError(401, "unauthorized", reason="send_bearer_token")
    who = await service(request).principal(encounter_id, token)
    if who is None:
        raise HTTPError(401, "unauthorized", reason="token_no_access_encounter")
    if who.role != "gm":
        raise HTTPError(403, "forbidden", reason="only_gm_manages_links")
    await service(request).load(encounter_id)  # a War's uuid is no encounter: 404
    return who, token


async def require_war_gm(request: Request, campaign_id: str) -> str:
    """The caller's token, if it is the War's GM's; else 401/403 (404: no such War)."""
    token = bearer(request)
    if token is None:
        raise HTTPError(401, "unauthorized", reason="send_bearer_token")
    who = await auth.principal(service(request).store, campaign_id, token)
    if who is None:
        raise HTTPError(401, "unauthorized", reason="token_no_access_war")
    if who.role != "gm":
        raise HTTPError(403, "forbidden", reason="only_war_gm_manages_links")
    await load_war(service(request), campaign_id)  # an encounter's uuid is no War: 404
    return token


class IssueToken(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    """Body of POST /api/encounters/{id}/tokens."""

    role: Literal["gm", "player", "spectator"]
    combatants: Annotated[
        list[Annotated[str, msgspec.Meta(max_length=40)]], msgspec.Meta(max_length=50)
    ] = []


async def list_tokens(request: Request) -> Response:
    eid = parse_id(request.path_params["id"])
    await require_gm(request, eid)
    return json_response({"tokens": await auth.tokens_of(service(request).store, eid)})


async def issue_token(request: Request) -> Response:
    eid = parse_id(request.path_params["id"])
    raw = await body_of(request)
    await require_gm(request, eid)
    body = msgspec.json.decode(raw, type=IssueToken)
    wanted = list(dict.fromkeys(body.combatants))
    if body.role == "player":
        if not wanted:
            raise HTTPError(422, "invalid", reason="player_link_names_combatants")
        known = (await service(request).load(eid)).state.game.combatants
        missing = [c for c in wanted if c not in known]
        if missing:
            raise HTTPError(
                422,
                "invalid",
                reason="no_combatant_this_encounter",
                params={"combatant_id": missing[0]},
            )
    elif wanted:
        reason = (
            "gm_link_names_no_combatant"
            if body.role == "gm"
            else "spectator_link_names_no_combatant"
        )
        raise HTTPError(422, "invalid", reason=reason)
    token_id, token = await auth.issue_with_id(service(request).store, eid, body.role, wanted)
    return json_response({"id": token_id, "token": token, "link": f"/e/{eid}#token={token}"}, 201)


async def revoke_token(request: Request) -> Response:
    eid = parse_id(request.path_params["id"])
    _, token = await require_gm(request, eid)
    token_id = request.path_params["token_id"]
    store = service(request).store
    if await auth.id_of(store, eid, token) == token_id:
        raise HTTPError(422, "invalid", reason="link_cannot_revoke_itself")
    if not await auth.revoke(store, eid, token_id):
        raise HTTPError(
            404, "not_found", reason="no_live_link_encounter", params={"token_id": token_id}
        )
    return json_response({"id": token_id, "revoked": True})


async def tokens(request: Request) -> Response:
    # One route per path, so a 405's Allow names every method served there (two routes on
    # one path would answer the first one's methods alone).
    return await (issue_token if request.method == "POST" else list_tokens)(request)


class IssueWarToken(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    """Body of POST /api/campaigns/{id}/tokens: a War has one role with a token, its GM's."""

    role: Literal["gm"]


async def list_war_tokens(request: Request) -> Response:
    campaign_id = parse_campaign(request.path_params["id"])
    await require_war_gm(request, campaign_id)
    tokens = await auth.tokens_of(service(request).store, campaign_id)
    return json_response({"tokens": tokens})


async def issue_war_token(request: Request) -> Response:
    campaign_id = parse_campaign(request.path_params["id"])
    raw = await body_of(request)
    await require_war_gm(request, campaign_id)
    msgspec.json.decode(raw, type=IssueWarToken)
    token_id, token = await auth.issue_with_id(service(request).store, campaign_id, "gm")
    link = f"/w/{campaign_id}#token={token}"
    return json_response({"id": token_id, "token": token, "link": link}, 201)


async def revoke_war_token(request: Request) -> Response:
    campaign_id = parse_campaign(request.path_params["id"])
    token = await require_war_gm(request, campaign_id)
    token_id = request.path_params["token_id"]
    store = service(request).store
    if await auth.id_of(store, campaign_id, token) == token_id:
        raise HTTPError(422, "invalid", reason="link_cannot_revoke_itself")
    if not await auth.revoke(store, campaign_id, token_id):
        raise HTTPError(404, "not_found", reason="no_live_link_war", params={"token_id": token_id})
    return json_response({"id": token_id, "revoked": True})


async def war_tokens(request: Request) -> Response:
    return await (issue_war_token if request.method == "POST" else list_war_tokens)(request)


routes = [
    Route("/api/encounters/{id}/tokens", tokens, methods=["GET", "POST"]),
    Route("/api/encounters/{id}/tokens/{token_id}", revoke_token, methods=["DELETE"]),
    Route("/api/campaigns/{id}/tokens", war_tokens, methods=["GET", "POST"]),
    Route("/api/campaigns/{id}/tokens/{token_id}", revoke_war_token, methods=["DELETE"]),
]


class Revocations:
    """Closes the websockets of revoked tokens, on this instance, for every instance's revokes.

    `watch(token_id, close)` registers an open socket's close callback and answers a
    handle for `unwatch`. The store's listener (LISTEN on a dedicated connection) hears
    every instance's revocations; every `sweep` seconds (and after a reconnect) one
    query re-checks the ids of open sockets, so a lost notification delays a close,
    never loses it.
    """

    def __init__(self, store: SideTables, sweep: float = 5.0) -> None:
        self._store = store
        self._sweep = sweep
        self._open: dict[str, dict[int, Callable[[], None]]] = {}
        self._next = 0
        self._task: asyncio.Task[None] | None = None

    def watch(self, token_id: str, close: Callable[[], None]) -> tuple[str, int]:
        self._next += 1
        self._open.setdefault(token_id, {})[self._next] = close
        return token_id, self._next

    def unwatch(self, handle: tuple[str, int]) -> None:
        token_id, n = handle
        found = self._open.get(token_id)
        if found is not None:
            found.pop(n, None)
            if not found:
                del self._open[token_id]

    def start(self) -> None:
        self._task = asyncio.create_task(self._run())

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task

    def _close(self, token_id: str) -> None:
        for close in list(self._open.pop(token_id, {}).values()):
            close()

    async def _run(self) -> None:
        while True:
            try:
                async with self._store.listen_revoked(self._close) as alive:
                    while True:
                        await self.check()
                        await asyncio.sleep(self._sweep)
                        await alive()
            except asyncio.CancelledError:
                raise
            except Exception as e:  # the database away: retry, sockets stay as they are
                log.warning("revocation listener failed (%s); retrying in 1 s", type(e).__name__)
                await asyncio.sleep(1.0)

    async def check(self) -> None:
        """Close the sockets of any watched token that was revoked meanwhile."""
        if not self._open:
            return
        for token_id in await self._store.revoked_among(list(self._open)):
            self._close(token_id)
