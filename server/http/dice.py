"""Dice fairness over HTTP: `GET /api/encounters/{id}/dice` and `/api/campaigns/{id}/dice`.

Both answer `{"server": {"d6": {faces, rolls, expected, chi2, df, p_value}, ...},
"manual": {...}}` (projections/dice.py), filtered for the caller: a hidden roll counts
for a player or a spectator only once its encounter has closed; the GM's token sees all.
A War's dice are those of the encounters carried back into it (the War's stream names
them), which are closed, so every caller counts the same dice there.
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from projections import dice
from server.http.errors import HTTPError, json_response
from server.http.requests import bearer, caller, service
from server.services import auth
from server.services.auth import view_role
from server.services.encounters import parse_id
from server.services.wars import load as load_war
from server.services.wars import parse_campaign


async def encounter_dice(request: Request) -> Response:
    svc = service(request)
    eid = parse_id(request.path_params["id"])
    role = view_role(await caller(request, eid, required=False))
    envs = await svc.envelopes(eid)
    if not envs:
        raise HTTPError(404, "not_found", reason="no_encounter", params={"encounter": eid})
    return json_response(dice.fairness(dice.count(envs, role)))


async def campaign_dice(request: Request) -> Response:
    svc = service(request)
    campaign_id = parse_campaign(request.path_params["id"])
    token = bearer(request)
    role = "public"
    if token is not None:
        who = await auth.principal(svc.store, campaign_id, token)
        if who is None:
            raise HTTPError(401, "unauthorized", reason="token_no_access_war")
        role = "gm" if who.role == "gm" else "public"
    loaded = await load_war(svc, campaign_id)
    parts = [dice.count(await svc.envelopes(eid), role) for eid in loaded.carried()]
    answer = dice.fairness(dice.merge(parts))
    return json_response({**answer, "encounters": loaded.carried()})


routes: list[Route] = [
    Route("/api/encounters/{id}/dice", encounter_dice),
    Route("/api/campaigns/{id}/dice", campaign_dice),
]
