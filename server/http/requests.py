"""Request helpers shared by the routes: bounded bodies, bearer tokens, the service."""

from __future__ import annotations

from starlette.requests import Request
from starlette.websockets import WebSocket

from domain.state import SPECTATOR, Principal
from server.http.bounds import check_json
from server.http.errors import HTTPError
from server.http.ratelimit import RateLimiter
from server.services.encounters import EncounterService

MAX_BODY = 1 << 20


async def body_of(request: Request) -> bytes:
    """The request body, refused with 413 past 1 MiB (declared or streamed), and with 4xx
    when its JSON breaks the bounds of server/bounds.py (depth, fractions, control
    characters); integral floats come back as ints."""
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > MAX_BODY:
        raise HTTPError(413, "too_large", reason="body_over_limit", params={"max": MAX_BODY})
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > MAX_BODY:
            raise HTTPError(413, "too_large", reason="body_over_limit", params={"max": MAX_BODY})
        chunks.append(chunk)
    return check_json(b"".join(chunks))


def bearer(request: Request) -> str | None:
    """The token of `Authorization: Bearer <token>`, if any."""
    header = request.headers.get("authorization", "")
    if header.lower().startswith("bearer "):
        return header[7:].strip()
    return None


def service(request: Request | WebSocket) -> EncounterService:
    svc: EncounterService = request.app.state.service
    return svc


def limit_creation(request: Request) -> None:
    """Count one creation against the caller's address (server/ratelimit.py), or 429."""
    limiter: RateLimiter = request.app.state.creations
    address = request.client.host if request.client else "unknown"
    wait = limiter.take(address)
    if wait > 0:
        seconds = limiter.retry_after(wait)
        raise HTTPError(
            429,
            "rate_limited",
            reason="creations_rate_limited",
            params={"per_minute": limiter.per_minute, "seconds": seconds},
            headers={"Retry-After": str(seconds)},
        )


async def caller(request: Request, encounter_id: str, required: bool = True) -> Principal:
    """Who the bearer token makes the caller (a spectator with no token unless one is
    `required`); 401 for a token that gives no access to this encounter."""
    token = bearer(request)
    if token is None:
        if required:
            raise HTTPError(401, "unauthorized", reason="send_bearer_token")
        return SPECTATOR
    who = await service(request).principal(encounter_id, token)
    if who is None:
        raise HTTPError(401, "unauthorized", reason="token_no_access_encounter")
    return who
