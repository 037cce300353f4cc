"""The pages (the web UI's HTML and its scripts) and the API documents."""

from __future__ import annotations

from pathlib import Path

from starlette.requests import Request
from starlette.responses import FileResponse, Response
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles

from server.http import openapi
from server.http.errors import (
    json_response,
)

STATIC = Path(__file__).resolve().parents[1] / "static"


async def index(request: Request) -> Response:
    return FileResponse(STATIC / "index.html")


async def docs(request: Request) -> Response:
    return FileResponse(STATIC / "docs.html")


async def openapi_json(request: Request) -> Response:
    return json_response(openapi.openapi())


async def asyncapi_json(request: Request) -> Response:
    return json_response(openapi.asyncapi())


routes: list[BaseRoute] = [
    Route("/", index),
    Route("/e/{id}", index),
    Route("/w/{id}", index),
    Route("/simulate", index),
    Route("/openapi.json", openapi_json),
    Route("/asyncapi.json", asyncapi_json),
    Route("/docs", docs),
    Mount("/static", StaticFiles(directory=STATIC, check_dir=False), name="static"),
]
