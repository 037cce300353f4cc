"""The War over HTTP (the War itself is server/services/wars.py).

- `POST /api/campaigns {name, ruleset: "ranks-d100", settings?}` -> `201 {id, version,
  gm_token, links}`. The GM token is stored like an encounter's, under the War's uuid.
- `POST /api/campaigns/{id}/commands` (the War's GM token) -> `200 {version, events}`:
  the War's commands (`enroll`, `new_day`, `transfer_mana`, `settle_character`), decoded
  strictly, plus `carry_back {encounter}` to carry a closed encounter's outcome again
  (idempotent: a no-op once done).
- `GET /api/campaigns/{id}` -> the War: day, characters with pools, Luck uses left,
  half-ranks used today, and the encounters already carried back.
- `open_encounter_in_war`: `POST /api/encounters` with `campaign`, the War's GM token
  required.
"""

from __future__ import annotations

import uuid
from typing import Annotated, Any

import msgspec
from msgspec import Meta
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from domain import campaign as war
from domain import commands as cmd
from domain.encounter import check_settings
from domain.errors import Forbidden, Invalid, Refused, RuleViolation
from domain.rules import REGISTRY
from domain.rules.ranks.settings import SETTINGS
from server.http.errors import HTTPError, json_response
from server.http.requests import bearer, body_of, limit_creation, service
from server.services import auth
from server.services.encounters import EncounterService, parse_id
from server.services.wars import (
    RULESET,
    CarryBack,
    WarCommand,
    _append,
    _command_decoder,
    carry_back,
    execute,
    load,
    open_in_war,
    parse_campaign,
    view,
)


class CreateCampaign(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    """Body of POST /api/campaigns."""

    name: Annotated[str, Meta(min_length=1, max_length=80)]
    ruleset: str
    settings: Annotated[dict[str, Any], Meta(max_length=64)] = {}


async def require_gm(svc: EncounterService, campaign_id: str, token: str | None) -> None:
    """401 without a token that gives access to this War, 403 for a non-GM one."""
    if token is None:
        raise HTTPError(401, "unauthorized", reason="send_war_gm_token")
    who = await auth.principal(svc.store, campaign_id, token)
    if who is None:
        raise HTTPError(401, "unauthorized", reason="token_no_access_war")
    if who.role != "gm":
        raise Forbidden(reason="only_war_gm_may")


async def open_encounter_in_war(
    svc: EncounterService,
    token: str | None,
    ruleset: str,
    name: str,
    settings: dict[str, Any],
    campaign: str,
) -> dict[str, Any]:
    """Open an encounter in a War: the War's GM token required (401/403), then
    `server.services.wars.open_in_war`."""
    await require_gm(svc, parse_campaign(campaign), token)
    return await open_in_war(svc, ruleset, name, settings, campaign)


async def create_campaign(request: Request) -> Response:
    body = msgspec.json.decode(await body_of(request), type=CreateCampaign)
    if body.ruleset != RULESET:
        raise RuleViolation(
            rule="RK-AMB-9",
            reason="war_played_under",
            params={"ruleset": body.ruleset, "required": RULESET},
        )
    check_settings(REGISTRY[RULESET], {k: v for k, v in body.settings.items() if k in SETTINGS})
    limit_creation(request)
    svc = service(request)
    campaign_id = str(uuid.uuid4())
    events = war.open_war(campaign_id, body.name, dict(body.settings))
    async with svc.store.transaction() as conn:
        gm = await auth.issue(svc.store, campaign_id, "gm", conn=conn)
        recorded = await _append(
            svc, campaign_id, 0, events, {"actor": "gm", "command_id": "create"}, conn
        )
    return json_response(
        {
            "id": campaign_id,
            "version": recorded[-1].version,
            "gm_token": gm,
            "links": {"war": f"/api/campaigns/{campaign_id}"},
        },
        201,
    )


async def post_campaign_command(request: Request) -> Response:
    svc = service(request)
    campaign_id = parse_campaign(request.path_params["id"])
    raw = await body_of(request)
    await require_gm(svc, campaign_id, bearer(request))
    command = cmd.decode_strict(raw, _command_decoder, WarCommand)
    if isinstance(command, CarryBack):
        eid = parse_id(str(command.encounter))
        proj = await svc.load(eid)
        if proj.state.ledger.campaign != campaign_id:
            raise Invalid(reason="encounter_not_in_this_war", params={"encounter": eid})
        if not proj.state.ledger.closed:
            raise Refused("rule_violation", reason="close_before_carry_back")
        carried = await carry_back(svc, eid)
        return json_response(carried)
    return json_response(await execute(svc, campaign_id, command))


async def get_campaign(request: Request) -> Response:
    svc = service(request)
    campaign_id = parse_campaign(request.path_params["id"])
    token = bearer(request)
    who = None if token is None else await auth.principal(svc.store, campaign_id, token)
    if token is not None and who is None:
        raise HTTPError(401, "unauthorized", reason="token_no_access_war")
    gm = who is not None and who.role == "gm"
    return json_response(view(await load(svc, campaign_id), gm))


routes: list[Route] = [
    Route("/api/campaigns", create_campaign, methods=["POST"]),
    Route("/api/campaigns/{id}", get_campaign),
    Route("/api/campaigns/{id}/commands", post_campaign_command, methods=["POST"]),
]
