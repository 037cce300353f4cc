"""One place where failures become HTTP answers: {"error": {"code", "message", "rule"?}}."""

from __future__ import annotations

import logging
from typing import Any

import msgspec
from starlette.requests import Request
from starlette.responses import Response

from domain.errors import Refused
from projections.reasons_fr import reason_fr

log = logging.getLogger(__name__)


class HTTPError(Exception):
    """An error the adapters raise directly (auth, body size, bad JSON)."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message


def error_body(code: str, message: str, rule: str | None = None) -> dict[str, Any]:
    # message_fr: what a French page shows (a known sentence translated, else a French
    # "not possible now" with the rule), so a player never reads English there.
    err: dict[str, Any] = {"code": code, "message": message, "message_fr": reason_fr(message, rule)}
    if rule:
        err["rule"] = rule
    return {"error": err}


def json_response(body: Any, status: int = 200) -> Response:
    return Response(msgspec.json.encode(body), status, media_type="application/json")


def error_response(status: int, code: str, message: str, rule: str | None = None) -> Response:
    return json_response(error_body(code, message, rule), status)


async def on_http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPError)
    return error_response(exc.status, exc.code, exc.message)


async def on_refused(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, Refused)
    return error_response(exc.status, exc.code, exc.message, exc.rule)


async def on_validation(request: Request, exc: Exception) -> Response:
    return error_response(
        422 if isinstance(exc, msgspec.ValidationError) else 400, "invalid", str(exc)
    )


async def on_starlette_http(request: Request, exc: Exception) -> Response:
    status = getattr(exc, "status_code", 500)
    codes = {404: "not_found", 405: "method_not_allowed", 401: "unauthorized", 413: "too_large"}
    return error_response(status, codes.get(status, "error"), str(getattr(exc, "detail", "")))


async def on_internal(request: Request, exc: Exception) -> Response:
    """An unexpected failure: logged, and a 500 in the JSON error shape, no internals."""
    log.error("request %s %s failed", request.method, request.url.path, exc_info=exc)
    return error_response(500, "internal", "the server failed on this request; it was logged")
