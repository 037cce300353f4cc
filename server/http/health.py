"""Health, readiness and metrics, for load balancers and operators."""

from __future__ import annotations

import logging

from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import Route

from server.http.errors import (
    RETRY_AFTER,
    json_response,
    unavailable_response,
)
from server.http.requests import service

log = logging.getLogger(__name__)


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


routes: list[Route] = [
    Route("/healthz", healthz),
    Route("/readyz", readyz),
    Route("/metrics", metrics),
]
