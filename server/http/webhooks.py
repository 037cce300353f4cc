"""Webhooks for play-by-post (CONTRACT section 8): the GM's routes.

The words sent are projections/words/webhooks.py; delivery is server/webhooks/delivery.py.

`PUT /api/encounters/{id}/webhook {url, format, kinds?, lang?}` sets the encounter's one
webhook and answers its signing secret once; `GET` shows the URL, kinds and the last
deliveries; `DELETE` removes it (and its pending deliveries). The configuration lives in
the `webhooks` table, never in an event. `GET .../webhook/deliveries?limit=N` lists the
last N deliveries alone (no URL, no secret: what the console polls), and
`POST .../webhook/test` queues one delivery of kind `test` (202), in the webhook's queue
after what is already there, so the GM sees the receiver answer.

A payload is what the public board shows: a hidden roll's dispute is never sent, and the
link is the public board's (`/e/<id>`), never a token.
"""

from __future__ import annotations

import os
import secrets
import uuid
from typing import Annotated, Literal

import msgspec
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from projections.words.webhooks import KINDS, TEST, Kind, test_text
from server.http.bounds import whole_param
from server.http.errors import HTTPError, json_response
from server.http.requests import body_of, service
from server.http.tokens import require_gm
from server.services.encounters import parse_id, stream_of
from server.store.port import Delivery, NewDelivery, NewWebhook
from server.webhooks.delivery import payload
from server.webhooks.outbound import Unsafe, check_url, vetted

RECENT = 50  # deliveries GET shows
MOST = 200  # the most deliveries GET .../deliveries lists


class WebhookBody(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    """Body of PUT /api/encounters/{id}/webhook. `lang` is the language of the texts."""

    url: Annotated[str, msgspec.Meta(min_length=1, max_length=2000)]
    format: Literal["json", "discord"] = "json"
    kinds: Annotated[list[Kind], msgspec.Meta(min_length=1, max_length=len(KINDS))] | None = None
    lang: Literal["en", "fr"] = "en"


# --- routes ----------------------------------------------------------------------------


def _origin(request: Request) -> str:
    configured = os.environ.get("FRACAS_PUBLIC_URL", "").rstrip("/")
    return configured or f"{request.url.scheme}://{request.url.netloc}"


async def put_webhook(request: Request) -> Response:
    eid = parse_id(request.path_params["id"])
    raw = await body_of(request)
    await require_gm(request, eid)
    body = msgspec.json.decode(raw, type=WebhookBody)
    try:
        parts = check_url(body.url)
        await vetted(parts, request.app.state.webhooks.allow)
    except Unsafe as e:
        raise HTTPError(422, "invalid", reason=e.reason) from e
    svc = service(request)
    head, _ = await svc.store.head(stream_of(eid))
    if head == 0:
        raise HTTPError(404, "not_found", reason="no_encounter", params={"encounter": eid})
    kinds = list(dict.fromkeys(body.kinds or KINDS))
    hook_id, secret = secrets.token_hex(8), secrets.token_hex(32)
    await svc.store.set_webhook(
        NewWebhook(
            hook_id, eid, body.url, body.format, kinds, body.lang, _origin(request), secret,
            head,  # only what happens from now on
        )
    )  # fmt: skip
    request.app.state.webhooks.known(eid)
    return json_response(
        {
            "id": hook_id,
            "url": body.url,
            "format": body.format,
            "kinds": kinds,
            "lang": body.lang,
            "secret": secret,
        }
    )


async def get_webhook(request: Request) -> Response:
    eid = parse_id(request.path_params["id"])
    await require_gm(request, eid)
    store = service(request).store
    hook = await store.webhook_of(eid)
    if hook is None:
        raise HTTPError(404, "not_found", reason="no_webhook")
    rows = await store.recent_deliveries(hook.id, RECENT)
    return json_response(
        {
            "id": hook.id,
            "url": hook.url,
            "format": hook.format,
            "kinds": hook.kinds,
            "lang": hook.lang,
            "created": hook.created_at.isoformat(),
            "deliveries": [_delivery(r) for r in rows],
        }
    )


def _delivery(r: Delivery) -> dict[str, object]:
    return {
        "id": r.id,
        "version": r.version,
        "kind": r.kind,
        "status": r.state,
        "attempts": r.attempts,
        "last_status": r.last_status,
        "last_error": r.last_error,
        "created": r.created_at.isoformat(),
        "delivered": r.delivered_at.isoformat() if r.delivered_at else None,
        "next_attempt": r.next_at.isoformat() if r.state == "pending" else None,
    }


async def get_deliveries(request: Request) -> Response:
    """The last `limit` deliveries (default 20), newest first, and the webhook's id (None
    without a webhook): never the URL or secret."""
    eid = parse_id(request.path_params["id"])
    raw = request.query_params.get("limit")
    limit = 20 if raw is None else whole_param(raw, "limit")
    if not 1 <= limit <= MOST:
        raise HTTPError(400, "invalid", reason="limit_whole_1_to", params={"max": MOST})
    await require_gm(request, eid)
    store = service(request).store
    hook = await store.webhook_of(eid)
    if hook is None:  # not an error: the console asks before any webhook is set
        return json_response({"webhook": None, "deliveries": []})
    rows = await store.recent_deliveries(hook.id, limit)
    return json_response({"webhook": hook.id, "deliveries": [_delivery(r) for r in rows]})


async def post_test(request: Request) -> Response:
    """Queue a `test` delivery at the webhook's checkpoint: after every delivery already
    made from the stream, before the next. Sent again, it starts over (one per version)."""
    eid = parse_id(request.path_params["id"])
    await require_gm(request, eid)
    svc = service(request)
    title = (await svc.load(eid)).state.ledger.name
    delivery_id = uuid.uuid4().hex
    async with svc.store.transaction() as conn:
        hook = await svc.store.hold_webhook(eid, conn=conn)
        if hook is None:
            raise HTTPError(404, "not_found", reason="no_webhook")
        link = f"{hook.base}/e/{hook.encounter}"
        body = payload(hook.format, eid, hook.checkpoint, TEST, None,
                       test_text(title, hook.lang), link)  # fmt: skip
        row = NewDelivery(delivery_id, hook.id, hook.checkpoint, TEST, body.decode())
        await svc.store.enqueue([row], conn=conn, replace=True)
    request.app.state.webhooks.due()
    return json_response(
        {"id": delivery_id, "version": hook.checkpoint, "kind": TEST, "status": "pending"},
        status=202,
    )


async def delete_webhook(request: Request) -> Response:
    eid = parse_id(request.path_params["id"])
    await require_gm(request, eid)
    if not await service(request).store.drop_webhook(eid):
        raise HTTPError(404, "not_found", reason="no_webhook")
    return json_response({"deleted": True})


async def webhook(request: Request) -> Response:
    # One route per path, so a 405's Allow names every method served there.
    handler = {"PUT": put_webhook, "DELETE": delete_webhook}.get(request.method, get_webhook)
    return await handler(request)


routes = [
    Route("/api/encounters/{id}/webhook", webhook, methods=["GET", "PUT", "DELETE"]),
    Route("/api/encounters/{id}/webhook/deliveries", get_deliveries, methods=["GET"]),
    Route("/api/encounters/{id}/webhook/test", post_test, methods=["POST"]),
]
