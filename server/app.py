"""The starlette app: explicit routes, resources opened in the lifespan."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import asyncpg
import msgspec
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, PlainTextResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles

from domain import commands as cmd
from domain import events as ev
from domain.encounter import CORE_SETTINGS
from domain.errors import Refused
from domain.rules import REGISTRY
from domain.rules.common.options import MAX_OPTIONS_BYTES, describe_all
from domain.verify import verify
from projections import audit as auditing
from projections import export as exporting
from projections.board import board
from projections.filter import filter_events, secret_resources
from projections.log import LANGS
from projections.log.core import NARRATORS
from projections.settings_fr import description_fr
from server.http import openapi, ratelimit
from server.http.api_types import CreateEncounter
from server.http.board_types import GmBoard, PublicBoard
from server.http.bounds import whole_param
from server.http.campaigns import open_encounter_in_war
from server.http.campaigns import routes as campaign_routes
from server.http.dice import routes as dice_routes
from server.http.errors import (
    RETRY_AFTER,
    UNAVAILABLE,
    HTTPError,
    json_response,
    on_http_error,
    on_internal,
    on_refused,
    on_starlette_http,
    on_unavailable,
    on_validation,
    unavailable_response,
)
from server.http.headers import SecurityHeaders
from server.http.log import routes as log_routes
from server.http.requests import bearer, body_of, caller, limit_creation, service
from server.http.resolver import routes as simulate_routes
from server.http.sheet import routes as sheet_routes
from server.http.tokens import Revocations
from server.http.tokens import routes as token_routes
from server.http.webhooks import routes as webhook_routes
from server.live.encounter import WsMessage, WsPatchServerMessage, WsServerMessage, ws_encounter
from server.live.hub import Hub
from server.live.war import ws_campaign
from server.services import ruletext
from server.services.auth import view_role
from server.services.deadlines import DeadlineWatcher, every_from_env
from server.services.encounters import CommandKey, EncounterService, Replayed, parse_id
from server.services.metrics import Metrics
from server.services.wars import settling
from server.store import db
from server.store.clock import SYSTEM, FileClock
from server.store.postgres import PostgresEventStore
from server.store.settings import DbSettings
from server.webhooks.delivery import Settings as WebhookSettings
from server.webhooks.delivery import Webhooks

log = logging.getLogger(__name__)
STATIC = Path(__file__).resolve().parent / "static"


def int_param(request: Request, name: str, default: int | None) -> int | None:
    raw = request.query_params.get(name)
    if raw is None:
        return default
    return whole_param(raw, name)


# --- routes --------------------------------------------------------------------------


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


async def rulesets(request: Request) -> Response:
    out = []
    for rid, rules in REGISTRY.items():
        out.append(
            {
                "id": rid,
                "name": rules.name,
                "version": rules.version,
                "turn": rules.turn,  # how a turn is declared: single | two_declared (TC-7)
                "name_fr": NARRATORS[rid].name_fr if rid in NARRATORS else rules.name,
                "settings": {
                    k: {**s.describe(), "description_fr": description_fr(rid, k)}
                    for k, s in {**rules.settings, **CORE_SETTINGS}.items()
                },
                "actions": {
                    k: {
                        "label": a.label,
                        "label_fr": a.label_fr,
                        "free": a.free,
                        "needs_target": a.needs_target,
                        "ranked": a.ranked,
                        "rule": a.rule,
                        "options": describe_all(rules.options.of("action", k)),
                    }
                    for k, a in rules.actions.items()
                },
                "reactions": {
                    k: {
                        "label": a.label,
                        "label_fr": a.label_fr,
                        "rule": a.rule,
                        "options": describe_all(rules.options.of("reaction", k)),
                    }
                    for k, a in rules.reactions.items()
                },
                "options_max_bytes": MAX_OPTIONS_BYTES,
                "presets": {k: dict(v) for k, v in rules.presets.items()},
            }
        )
    return json_response(out)


async def schema(request: Request) -> Response:
    kinds = [cmd.AnyCommand, ev.AnyEvent, WsMessage, WsServerMessage, WsPatchServerMessage]
    (commands, events_, ws, ws_server, ws_patch, gm_board, public_board), components = (
        msgspec.json.schema_components(
            [*kinds, GmBoard, PublicBoard], ref_template="#/$defs/{name}"
        )
    )
    return json_response(
        {
            "commands": commands,
            "events": events_,
            "websocket_client": ws,
            "websocket_server": ws_server,
            "websocket_server_patch": ws_patch,  # with `patch=1`
            "board_gm": gm_board,  # the board: GET /api/encounters/{id}, `board` of a frame
            "board_public": public_board,
            "$defs": components,
        }
    )


async def get_rule(request: Request) -> Response:
    """The text of one rule id, as JSON (`/api/rules/{id}`) or as a page (`/rules/{id}`)."""
    rule_id = request.path_params["rule"]
    found = ruletext.rule_texts().get(rule_id)
    if found is None:
        raise HTTPError(404, "not_found", reason="no_rule_in_digests", params={"rule_id": rule_id})
    system, text = found
    if request.url.path.startswith("/api/"):
        return json_response({"id": rule_id, "system": system, "text": text})
    return HTMLResponse(ruletext.rule_page(rule_id, system, text))


async def healthz(request: Request) -> Response:
    try:
        await service(request).store.ping()
    except Exception as e:  # any database failure means not healthy
        # The driver's message names the database host and port: logged, not shown.
        log.warning("healthz: database unreachable: %r", e)
        return json_response(
            {"status": "down", "database": "unreachable"},
            503,
            {"Retry-After": str(RETRY_AFTER)},
        )
    return json_response({"status": "ok", "database": "ok"})


async def readyz(request: Request) -> Response:
    """For load balancers: 200 only when this instance can commit a write now (not on a
    standby, a read-only server, or a primary whose synchronous standby is gone)."""
    try:
        await service(request).store.writable()
    except Exception as e:  # any failure to commit means not ready
        log.warning("readyz: cannot commit a write: %r", e)
        return unavailable_response()
    return json_response({"status": "ready", "database": "writable"})


async def metrics(request: Request) -> Response:
    return PlainTextResponse(
        request.app.state.metrics.render(), media_type="text/plain; version=0.0.4"
    )


async def index(request: Request) -> Response:
    return FileResponse(STATIC / "index.html")


async def docs(request: Request) -> Response:
    return FileResponse(STATIC / "docs.html")


async def openapi_json(request: Request) -> Response:
    return json_response(openapi.openapi())


async def asyncapi_json(request: Request) -> Response:
    return json_response(openapi.asyncapi())


# --- the app -------------------------------------------------------------------------


def _pool_stats(pool: asyncpg.Pool[Any]) -> tuple[int, int, int, int]:
    """The pool's connections (open, idle, most) and the callers waiting for one: asyncpg
    keeps its waiters in its queue's getters (no public count)."""
    queue = getattr(pool, "_queue", None)
    waiting = len(getattr(queue, "_getters", ()) or ())
    return pool.get_size(), pool.get_idle_size(), pool.get_max_size(), waiting


def create_app(
    database_url: str | None = None,
    home: Path | None = None,
    create_rate: int | None = None,
    db_settings: DbSettings | None = None,
    clock_file: str | None = None,
) -> Starlette:
    """The app; `create_rate` is creations per minute per client address (None: from
    $FRACAS_CREATE_RATE, else 60; 0: no limit); `db_settings`: pool, timeouts, LISTEN URL
    (None: from the environment, server/store/settings.py); `clock_file`: a test's clock,
    the system's time plus the seconds written in that file (server/store/clock.py)."""
    per_minute = ratelimit.configured(create_rate)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        url, stop = db.resolve_database_url(database_url, home)
        settings = db_settings or DbSettings.resolve()
        pool = await db.open_app_pool(url, settings)
        try:
            listen = settings.listen_url or url
            clock = FileClock(clock_file) if clock_file else SYSTEM
            store = PostgresEventStore(pool, notify_dsn=listen, settings=settings, clock=clock)
            app.state.metrics = Metrics()
            app.state.service = EncounterService(store, app.state.metrics)
            app.state.hub = Hub(store, app.state.metrics)
            app.state.hub.start()
            app.state.revocations = Revocations(store)  # revoked tokens' sockets close
            app.state.revocations.start()
            app.state.metrics.pool = lambda: _pool_stats(pool)
            app.state.webhooks = Webhooks(store, WebhookSettings.from_env(), app.state.metrics)
            app.state.webhooks.start()
            app.state.deadlines = DeadlineWatcher(app.state.service, clock, every_from_env())
            app.state.deadlines.start()
            app.state.simulations = asyncio.Semaphore(2)  # POST /api/simulate, CPU-bound
            app.state.creations = ratelimit.RateLimiter(per_minute)
            yield
            await app.state.deadlines.stop()
            await app.state.webhooks.stop()
            await app.state.revocations.stop()
            await app.state.hub.stop()
        finally:
            await pool.close()
            if stop is not None:
                stop()

    routes = [
        Route("/", index),
        Route("/e/{id}", index),
        Route("/w/{id}", index),
        Route("/simulate", index),
        Route("/api/encounters", create, methods=["POST"]),
        Route("/api/encounters/{id}", get_board),
        Route("/api/encounters/{id}/commands", post_command, methods=["POST"]),
        Route("/api/encounters/{id}/events", get_events),
        Route("/api/encounters/{id}/me", get_me),
        Route("/api/encounters/{id}/rolls/{n}", get_roll),
        Route("/api/encounters/{id}/verify", get_verify),
        Route("/api/encounters/{id}/export", get_export),
        Route("/api/rulesets", rulesets),
        Route("/api/schema", schema),
        Route("/api/rules/{rule}", get_rule),
        Route("/rules/{rule}", get_rule),
        *token_routes,
        *webhook_routes,
        *campaign_routes,
        *dice_routes,
        *log_routes,
        *sheet_routes,
        *simulate_routes,
        Route("/openapi.json", openapi_json),
        Route("/asyncapi.json", asyncapi_json),
        Route("/docs", docs),
        Route("/healthz", healthz),
        Route("/readyz", readyz),
        Route("/metrics", metrics),
        WebSocketRoute("/ws/encounters/{id}", ws_encounter),
        WebSocketRoute("/ws/campaigns/{id}", ws_campaign),
        Mount("/static", StaticFiles(directory=STATIC, check_dir=False), name="static"),
    ]
    handlers: dict[Any, Any] = {
        HTTPError: on_http_error,
        Refused: on_refused,
        msgspec.ValidationError: on_validation,
        msgspec.DecodeError: on_validation,
        HTTPException: on_starlette_http,
        # A stored event the code cannot fold (the projection stops there rather than
        # skip it): a logged 500 in the JSON error shape.
        ValueError: on_internal,
        # The database out of reach (down, restarting, refusing connections): 503
        # `unavailable` with Retry-After, in one place (server/errors.py).
        **{cls: on_unavailable for cls in UNAVAILABLE},
        asyncpg.InterfaceError: on_unavailable,
        asyncpg.InternalClientError: on_unavailable,
        # Anything else: still the JSON error shape (on_unavailable tells them apart,
        # e.g. a failure raised from a lost connection).
        Exception: on_unavailable,
    }
    # Security headers on every answer, errors included (server/http/headers.py).
    middleware = [Middleware(SecurityHeaders)]
    return Starlette(
        routes=routes, lifespan=lifespan, exception_handlers=handlers, middleware=middleware
    )


def app_from_env() -> Starlette:
    """For `uvicorn server.app:app_from_env --factory`."""
    return create_app(os.environ.get("DATABASE_URL"))
