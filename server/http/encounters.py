"""An encounter's routes: create it, read its board, send commands, read its events, its
rolls' audits, verify and export it."""

from __future__ import annotations

import msgspec
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import Route

from domain import commands as cmd
from domain.verify import verify
from projections import audit as auditing
from projections import export as exporting
from projections.board import board
from projections.filter import filter_events, secret_resources
from projections.log import LANGS
from server.http.api_types import CreateEncounter
from server.http.bounds import whole_param
from server.http.campaigns import open_encounter_in_war
from server.http.errors import (
    HTTPError,
    json_response,
)
from server.http.requests import bearer, body_of, caller, limit_creation, service
from server.services.auth import view_role
from server.services.encounters import CommandKey, Replayed, parse_id
from server.services.wars import settling


def int_param(request: Request, name: str, default: int | None) -> int | None:
    raw = request.query_params.get(name)
    if raw is None:
        return default
    return whole_param(raw, name)


async def create(request: Request) -> Response:
    body = msgspec.json.decode(await body_of(request), type=CreateEncounter)
    limit_creation(request)
    if body.campaign is not None:  # the War's GM token; its characters join (server/campaigns)
        answer = await open_encounter_in_war(
            service(request), bearer(request), body.ruleset, body.name, body.settings, body.campaign
        )
    else:
        answer = await service(request).create(body.ruleset, body.name, body.settings)
    return json_response(answer, 201)


async def get_board(request: Request) -> Response:
    eid = parse_id(request.path_params["id"])
    who = await caller(request, eid, required=False)
    at = int_param(request, "at", None)
    svc = service(request)
    proj = await svc.at(eid, at) if at is not None else await svc.load(eid)
    return json_response(board(proj, view_role(who)))


async def post_command(request: Request) -> Response:
    eid = parse_id(request.path_params["id"])
    raw = await body_of(request)
    who = await caller(request, eid)
    command = cmd.decode_command(raw)
    raw_key = request.headers.get("idempotency-key")
    key = None
    if raw_key is not None:
        if not 1 <= len(raw_key) <= 200:
            raise HTTPError(400, "invalid", reason="idempotency_key_length")
        token = bearer(request)
        assert token is not None  # caller() required one
        key = CommandKey.of(token, raw_key, command)
    svc = service(request)
    # A War's encounter carries its outcome back in the transaction that closes it.
    then = settling(svc, eid) if isinstance(command, cmd.Close) else None
    answer = await svc.execute(eid, command, who, key, then)
    replayed = isinstance(answer, Replayed)
    response = json_response(answer)
    if replayed:
        response.headers["Idempotent-Replayed"] = "true"
    return response


async def get_me(request: Request) -> Response:
    """What the caller's token gives: its role and, for a player, its combatants."""
    eid = parse_id(request.path_params["id"])
    who = await caller(request, eid)
    return json_response({"role": who.role, "combatants": sorted(who.combatants)})


async def get_events(request: Request) -> Response:
    eid = parse_id(request.path_params["id"])
    who = await caller(request, eid)
    after = int_param(request, "after", 0) or 0
    limit = min(int_param(request, "limit", 1000) or 1000, 10_000)
    svc = service(request)
    proj = await svc.load(eid)
    envs = await svc.envelopes(eid, after=after, upto=after + limit)
    shown = filter_events(
        envs, view_role(who), secret_resources(proj.state), proj.state.ledger.hidden_rolls
    )
    return json_response({"version": proj.version, "events": shown})


async def get_roll(request: Request) -> Response:
    eid = parse_id(request.path_params["id"])
    who = await caller(request, eid, required=False)
    seq = whole_param(request.path_params["n"], "a roll number")
    record = auditing.audit(await service(request).envelopes(eid), seq, view_role(who))
    if record is None:
        raise HTTPError(404, "not_found", reason="no_roll_this_encounter", params={"roll": seq})
    return json_response(record)


async def get_verify(request: Request) -> Response:
    eid = parse_id(request.path_params["id"])
    await caller(request, eid, required=False)  # a revoked token gets 401 here too
    envs = await service(request).envelopes(eid)
    if not envs:
        raise HTTPError(404, "not_found", reason="no_encounter", params={"encounter": eid})
    report = verify(envs, eid)
    return json_response({k: report[k] for k in report})  # type: ignore[literal-required]


async def get_export(request: Request) -> Response:
    eid = parse_id(request.path_params["id"])
    who = await caller(request, eid, required=False)
    fmt = request.query_params.get("format", "json")
    svc = service(request)
    envs = await svc.envelopes(eid)
    if not envs:
        raise HTTPError(404, "not_found", reason="no_encounter", params={"encounter": eid})
    # Every documented parameter is checked, whatever the format reads.
    if fmt != "json" and fmt not in exporting.FORMATS:
        raise HTTPError(400, "invalid", reason="export_format_one_of")
    scope = request.query_params.get("scope", "all")
    if scope not in exporting.SCOPES:
        raise HTTPError(400, "invalid", reason="export_scope_all_or_last_turn")
    lang = request.query_params.get("lang") or None
    if lang is not None and lang not in LANGS:
        raise HTTPError(400, "invalid", reason="lang_en_or_fr")
    hidden = request.query_params.get("include_hidden", "false")
    if hidden not in ("true", "false", "1", "0"):
        raise HTTPError(400, "invalid", reason="include_hidden_true_or_false")
    role = view_role(who)
    if fmt == "json":
        closed = any(e["type"] == "encounter_closed" for e in envs)
        if role != "gm" and not closed:
            raise HTTPError(403, "forbidden", reason="audit_bundle_after_close")
        return json_response(exporting.bundle(eid, envs))
    # Only the GM's export may hold hidden rolls and GM-only resources: for anyone else
    # the flag is ignored, and the GM's is off unless asked.
    include = role == "gm" and hidden in ("true", "1")
    base = str(request.base_url).rstrip("/")
    page = exporting.render(envs, role, fmt, lang=lang, scope=scope, include_hidden=include,
                            base=base)  # fmt: skip
    # Markdown is text/markdown (RFC 7763); BBCode has no media type of its own.
    return PlainTextResponse(str(page), media_type=EXPORT_MEDIA.get(fmt, "text/plain"))


EXPORT_MEDIA = {"markdown": "text/markdown"}


routes: list[Route] = [
    Route("/api/encounters", create, methods=["POST"]),
    Route("/api/encounters/{id}", get_board),
    Route("/api/encounters/{id}/commands", post_command, methods=["POST"]),
    Route("/api/encounters/{id}/events", get_events),
    Route("/api/encounters/{id}/me", get_me),
    Route("/api/encounters/{id}/rolls/{n}", get_roll),
    Route("/api/encounters/{id}/verify", get_verify),
    Route("/api/encounters/{id}/export", get_export),
]
