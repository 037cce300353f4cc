"""Older log lines: `GET /api/encounters/{id}/log?before=V&limit=N` (CONTRACT section 3).

The board carries the last LOG_LINES lines (projections/board.py); a client pages back
from its oldest line's version. The answer is `{"lines": [...], "more": bool}`: the last
`limit` lines the caller's role may read among those of versions before `before` (a
spectator's and a player's pages never hold a hidden roll's line). Like the board, it
needs no token (the public view); a token that gives no access is 401.

The cached projection keeps the last KEEP_LINES lines. A page that reaches past them is
folded fresh from the stream up to `before` with every line worded: scrolling far back
in a long fight is rare, and costs one read, never a wrong page.
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from projections.board import LOG_LINES, log_page
from projections.view import Projection
from server.http.bounds import MAX_PARAM, whole_param
from server.http.errors import HTTPError, json_response
from server.http.requests import caller, service
from server.services.auth import view_role
from server.services.encounters import parse_id, stream_of

MAX_LIMIT = 200


async def get_log(request: Request) -> Response:
    svc = service(request)
    eid = parse_id(request.path_params["id"])
    role = view_role(await caller(request, eid, required=False))
    before = _param(request, "before", MAX_PARAM)
    limit = _param(request, "limit", LOG_LINES)
    if not 1 <= limit <= MAX_LIMIT:
        raise HTTPError(400, "invalid", reason="limit_whole_1_to", params={"max": MAX_LIMIT})
    proj = await svc.load(eid)
    page = log_page(proj.lines, role, before, limit)
    if not page.more and not _complete(proj):
        full = Projection()
        upto = min(before - 1, proj.version)
        if upto >= 1:
            full.extend(await svc.store.read_facts(stream_of(eid), upto=upto))
        page = log_page(full.lines, role, before, limit)
    return json_response({"lines": page.lines, "more": page.more})


def _param(request: Request, name: str, default: int) -> int:
    raw = request.query_params.get(name)
    return default if raw is None else whole_param(raw, name)


def _complete(proj: Projection) -> bool:
    """Whether the cached projection still holds every line of its stream: it worded
    every event (never more than `keep` at once) and dropped none."""
    keep = proj.keep
    return keep is None or (proj.version <= keep and len(proj.lines) < keep)


routes: list[Route] = [Route("/api/encounters/{id}/log", get_log)]
