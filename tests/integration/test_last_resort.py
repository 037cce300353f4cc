"""The app's last-resort handler: an unexpected failure is a logged 500 in the CONTRACT's
JSON error shape, with nothing of the failure's internals in the answer."""

from __future__ import annotations

import asyncio
import logging

import httpx
import pytest
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from server.app import create_app


async def boom(request: Request) -> Response:
    raise KeyError("secret-internal-detail")


def test_an_unexpected_failure_is_a_json_500_without_internals(
    caplog: pytest.LogCaptureFixture,
) -> None:
    app = create_app("postgresql://unused")  # the lifespan (and its pool) is never entered
    app.router.routes.append(Route("/boom", boom))
    transport = httpx.ASGITransport(app=app, raise_app_exceptions=False)

    async def get() -> httpx.Response:
        async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
            return await client.get("/boom")

    with caplog.at_level(logging.ERROR, logger="server.http.errors"):
        r = asyncio.run(get())
    assert r.status_code == 500
    assert r.headers["content-type"].startswith("application/json")
    assert r.json()["error"]["code"] == "internal"
    assert "secret-internal-detail" not in r.text and "KeyError" not in r.text
    assert any("secret-internal-detail" in (rec.exc_text or "") for rec in caplog.records)
