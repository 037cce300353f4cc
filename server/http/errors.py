"""One place where failures become HTTP answers: {"error": {"code", "message", "rule"?}}."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

import asyncpg
import msgspec
from starlette.requests import HTTPConnection, Request
from starlette.responses import Response
from starlette.websockets import WebSocket

from domain.errors import Refused
from projections.words.refusals import word

log = logging.getLogger(__name__)


class HTTPError(Exception):
    """An error the adapters raise directly (auth, body size, bad JSON), with facts as a
    domain refusal has them: a code, a reason key and the parameters its words need,
    worded in English and French in projections/words/refusals.py (every key used in
    server/ has words there: tests/unit/test_refusal_words.py)."""

    def __init__(
        self,
        status: int,
        code: str,
        *,
        reason: str,
        params: Mapping[str, Any] | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        self.status = status
        self.code = code
        self.reason = reason
        self.params: dict[str, Any] = dict(params or {})
        self.headers = headers
        self.message = word(code, reason, self.params)[0]  # the English words, for logs
        super().__init__(self.message)


def error_body(
    code: str,
    message: str,
    rule: str | None = None,
    reason: str | None = None,
    params: Mapping[str, Any] | None = None,
    names: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """{"error": {code, message, message_fr, reason, params, rule?}}: the words of a
    refusal come from its facts (projections/words/refusals.py), in both languages."""
    facts = dict(params or {})
    en, fr = word(code, reason or code, facts, names, message)
    err: dict[str, Any] = {
        "code": code,
        "message": en,
        "message_fr": fr,
        "reason": reason or code,
        "params": facts,
    }
    if rule:
        err["rule"] = rule
    return {"error": err}


def json_response(body: Any, status: int = 200, headers: dict[str, str] | None = None) -> Response:
    return Response(
        msgspec.json.encode(body), status, headers=headers, media_type="application/json"
    )


def error_response(
    status: int,
    code: str,
    message: str = "",
    rule: str | None = None,
    headers: dict[str, str] | None = None,
    *,
    reason: str | None = None,
    params: Mapping[str, Any] | None = None,
) -> Response:
    """An error answer; with no `message` its words are its reason's (else its code's)."""
    return json_response(error_body(code, message, rule, reason, params), status, headers)


def refusal_body(exc: Refused) -> dict[str, Any]:
    """A domain refusal's error body, worded from its facts."""
    return error_body(exc.code, exc.message, exc.rule, exc.reason, exc.params, exc.names)


# --- the database out of reach ---------------------------------------------------------

RETRY_AFTER = 2  # seconds a client is told to wait while the database is out of reach

# What the driver raises while PostgreSQL is down, starting, stopping or restarting:
# connection failures (SQLSTATE class 08, a connection that vanished mid-query), the
# server refusing connections for now (57P03) or shutting them down (57P01, 57P02), too
# many connections, and the socket errors of a pool that cannot (re)connect (refused, no
# Unix socket file, timeouts: all OSError). A closed connection or pool is an
# InterfaceError whose message says so; other InterfaceErrors are bugs and stay 500s.
UNAVAILABLE: tuple[type[BaseException], ...] = (
    asyncpg.PostgresConnectionError,
    asyncpg.CannotConnectNowError,
    asyncpg.AdminShutdownError,
    asyncpg.CrashShutdownError,
    asyncpg.TooManyConnectionsError,
    OSError,
)


# A connection the server terminated while a query was being prepared on it can surface
# as InternalClientError ("cannot switch to state ...; another operation is in
# progress"), seen here on PostgreSQL's fast shutdown. It can also be a bug in our use of
# a connection, so it is logged with its traceback, but answered 503: a retry with the
# same Idempotency-Key is safe either way.
DRIVER_STATE = asyncpg.InternalClientError


def unavailable(exc: BaseException) -> bool:
    """Whether `exc` (or what it was raised from) means the database is out of reach."""
    seen = 0
    at: BaseException | None = exc
    while at is not None and seen < 8:
        if isinstance(at, UNAVAILABLE):
            return True
        if isinstance(at, asyncpg.InterfaceError) and ("closed" in str(at) or "closing" in str(at)):
            return True
        if isinstance(at, asyncpg.InternalClientError):
            return True  # see DRIVER_STATE below
        at = at.__cause__ or at.__context__
        seen += 1
    return False


def unavailable_response() -> Response:
    return error_response(503, "unavailable", headers={"Retry-After": str(RETRY_AFTER)})


async def on_http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPError)
    return error_response(
        exc.status, exc.code, headers=exc.headers, reason=exc.reason, params=exc.params
    )


async def on_refused(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, Refused)
    return json_response(refusal_body(exc), exc.status)


async def on_validation(request: Request, exc: Exception) -> Response:
    """A body that does not fit its schema (422) or is no JSON (400); msgspec's text says
    where, and is passed along as it is."""
    if isinstance(exc, msgspec.ValidationError):
        return error_response(422, "invalid", reason="body_off_schema", params={"detail": str(exc)})
    return error_response(400, "invalid", reason="malformed_json", params={"detail": str(exc)})


async def on_starlette_http(request: Request, exc: Exception) -> Response:
    """A route or method the app does not serve: its code's words (Starlette's detail is
    the bare HTTP phrase, English only)."""
    status = getattr(exc, "status_code", 500)
    codes = {404: "not_found", 405: "method_not_allowed", 401: "unauthorized", 413: "too_large"}
    response = error_response(status, codes.get(status, "error"))
    response.headers.update(getattr(exc, "headers", None) or {})  # a 405's Allow (RFC 9110)
    return response


async def on_unavailable(conn: HTTPConnection, exc: Exception) -> Response | None:
    """The database is out of reach: 503 `unavailable` with Retry-After (a websocket is
    closed 1013, try again later). Anything else that reaches here is a real 500."""
    if not unavailable(exc):
        return await on_internal(conn, exc)
    # The driver's message names the database host and port: the log has it, the
    # client does not.
    if isinstance(exc, DRIVER_STATE):
        log.error("driver state error on %s", conn.url.path, exc_info=exc)
    else:
        log.warning("database unavailable on %s: %r", conn.url.path, exc)
    if isinstance(conn, WebSocket):
        await conn.close(code=1013)
        return None
    return unavailable_response()


async def on_internal(conn: HTTPConnection, exc: Exception) -> Response | None:
    """An unexpected failure: logged, and a 500 in the JSON error shape, no internals."""
    log.error("request %s failed", conn.url.path, exc_info=exc)
    if isinstance(conn, WebSocket):
        await conn.close(code=1011)
        return None
    return error_response(500, "internal")
