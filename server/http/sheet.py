"""The player's own sheet over HTTP: `GET /api/encounters/{id}/sheet`.

The answer is `{"version": V, "sheets": [...]}` (projections/sheet.py), for the caller
only: a player's token gets the sheets of the combatants it controls, the GM's every
combatant's, a spectator's none. A token is required (401 without one): the shared
public board never carries a sheet.
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from projections.sheet import sheet
from server.http.errors import HTTPError, json_response
from server.http.requests import caller, service
from server.services.encounters import parse_id


async def get_sheet(request: Request) -> Response:
    eid = parse_id(request.path_params["id"])
    who = await caller(request, eid)
    proj = await service(request).load(eid)
    if proj.version == 0:
        raise HTTPError(404, "not_found", reason="no_encounter", params={"encounter": eid})
    game = proj.state.game
    gm = who.role == "gm"
    ids = list(game.combatants) if gm else sorted(who.combatants) if who.role == "player" else []
    sheets = [s for s in (sheet(proj.state, cid, gm=gm) for cid in ids) if s is not None]
    return json_response({"version": proj.version, "sheets": sheets})


routes: list[Route] = [Route("/api/encounters/{id}/sheet", get_sheet)]
