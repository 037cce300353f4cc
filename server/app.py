"""The composition root of `fracas serve`: the store and its adapters, the hub, the
webhook and deadline workers, opened in the lifespan; the routes of each resource's
http/ module."""

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
from starlette.routing import WebSocketRoute

from domain.errors import Refused
from server.http import ratelimit
from server.http.campaigns import routes as campaign_routes
from server.http.dice import routes as dice_routes
from server.http.encounters import routes as encounter_routes
from server.http.errors import (
    UNAVAILABLE,
    HTTPError,
    on_http_error,
    on_internal,
    on_refused,
    on_starlette_http,
    on_unavailable,
    on_validation,
)
from server.http.headers import SecurityHeaders
from server.http.health import routes as health_routes
from server.http.log import routes as log_routes
from server.http.pages import STATIC  # noqa: F401  # where the pages are (tests, install)
from server.http.pages import routes as page_routes
from server.http.resolver import routes as simulate_routes
from server.http.rules import routes as rules_routes
from server.http.sheet import routes as sheet_routes
from server.http.tokens import Revocations
from server.http.tokens import routes as token_routes
from server.http.webhooks import routes as webhook_routes
from server.live.encounter import ws_encounter
from server.live.hub import Hub
from server.live.war import ws_campaign
from server.services.deadlines import DeadlineWatcher, every_from_env
from server.services.encounters import EncounterService
from server.services.metrics import Metrics
from server.store import db
from server.store.clock import SYSTEM, FileClock
from server.store.postgres import PostgresEventStore
from server.store.settings import DbSettings
from server.webhooks.delivery import Settings as WebhookSettings
from server.webhooks.delivery import Webhooks

log = logging.getLogger(__name__)


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

    # Each resource's routes live in its http/ module; the OpenAPI table describes each
    # (tests/e2e/test_openapi.py fails on a route it does not).
    routes = [
        *encounter_routes,
        *rules_routes,
        *token_routes,
        *webhook_routes,
        *campaign_routes,
        *dice_routes,
        *log_routes,
        *sheet_routes,
        *simulate_routes,
        *health_routes,
        WebSocketRoute("/ws/encounters/{id}", ws_encounter),
        WebSocketRoute("/ws/campaigns/{id}", ws_campaign),
        *page_routes,
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
