"""GET /openapi.json (OpenAPI 3.1) and GET /asyncapi.json (AsyncAPI 3): generated, not
written by hand.

Every route is one `Op` below: its request body and answers are msgspec types (the
commands and events of `domain/`, the answers of `server/api_types.py`), turned into JSON
Schema by `msgspec.json.schema_components`. tests/e2e/test_openapi.py lists the app's
routes, so a route added without an `Op` fails there.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache
from typing import Any, Literal

import msgspec

from domain import commands as cmd
from domain import events as ev
from domain.rules import REGISTRY
from server.http import api_types as t
from server.http.bounds import MAX_PARAM
from server.http.campaigns import CreateCampaign
from server.http.log import MAX_LIMIT
from server.http.resolver import SimulateBody
from server.http.tokens import IssueToken
from server.http.webhooks import WebhookBody
from server.live.encounter import WsMessage, WsPatchServerMessage, WsServerMessage
from server.services.resolver import SIMULATE_RULESETS
from server.services.wars import RULESET, WarCommand

Auth = Literal["none", "optional", "required"]
TEXT = "text/plain"
HTML = "text/html"
# Refusals every operation that reads the database may answer.
DOWN = (503,)
BODY = (400, 413, 422)
WHY = {
    400: "malformed: not JSON, or a parameter of the wrong form",
    401: "no token, or one that gives no access here",
    403: "the token's role may not do this",
    404: "no such encounter, War, roll or rule",
    405: "another method is served here",
    409: "refused by the state: a rule, a turn, a budget, a concurrent change",
    413: "the body is over 1 MiB",
    422: "a body or value the server does not take (`invalid`), or a rule that refuses"
    " it (`rule_violation`, with the rule id)",
    503: "the database is unreachable",
}


@dataclass(frozen=True)
class Param:
    """A query or path parameter."""

    name: str
    where: Literal["query", "path"]
    schema: dict[str, Any]
    description: str
    required: bool = False


@dataclass(frozen=True)
class Op:
    """One operation: a method on a path, its body, its answers and its refusals."""

    method: str
    path: str
    id: str
    summary: str
    tag: str
    answers: dict[int, Any]  # status -> a msgspec type, TEXT or HTML
    body: Any = None
    auth: Auth = "none"
    params: tuple[Param, ...] = ()
    errors: tuple[int, ...] = ()
    links: dict[str, dict[str, Any]] = field(default_factory=dict)


def _id(what: str) -> Param:
    return Param("id", "path", {"type": "string"}, f"the {what}'s uuid", True)


def _count(name: str, description: str, least: int = 0, most: int = MAX_PARAM) -> Param:
    return Param(name, "query", {"type": "integer", "minimum": least, "maximum": most}, description)


ENCOUNTER = _id("encounter")
WAR = _id("War")
RULE = Param("rule", "path", {"type": "string"}, "a rule id such as `RK-60`", True)
PAGE = (Param("id", "path", {"type": "string"}, "the encounter's or War's uuid", True),)
_FROM_CREATED = {"id": "$response.body#/id"}
_LINKS = {
    name: {"operationId": op, "parameters": _FROM_CREATED}
    for name, op in (
        ("board", "getBoard"),
        ("commands", "postCommand"),
        ("events", "getEvents"),
        ("verify", "getVerify"),
        ("export", "getExport"),
    )
}

OPS: tuple[Op, ...] = (
    Op("get", "/", "index", "The web UI: create an encounter or a War", "pages", {200: HTML}),
    Op("get", "/e/{id}", "encounterPage", "An encounter's page (the token in the fragment)",
       "pages", {200: HTML}, params=PAGE),
    Op("get", "/w/{id}", "warPage", "A War's page", "pages", {200: HTML}, params=PAGE),
    Op("get", "/simulate", "simulatePage", "The d20-na 1v1 resolver page", "pages", {200: HTML}),
    Op("get", "/docs", "docs", "This API, rendered from /openapi.json", "pages", {200: HTML}),
    Op("post", "/api/encounters", "createEncounter",
       "Open an encounter (with `campaign`, in a War: its GM token is then required)",
       "encounters", {201: t.CreatedEncounter}, body=t.CreateEncounter, auth="optional",
       errors=(*BODY, 401, 403, 404, *DOWN), links=_LINKS),
    Op("get", "/api/encounters/{id}", "getBoard",
       "The board for the caller's role, now or as it stood at version `at`", "encounters",
       {200: t.Board}, auth="optional", params=(ENCOUNTER, _count("at", "a past version")),
       errors=(400, 401, 404, *DOWN)),
    Op("post", "/api/encounters/{id}/commands", "postCommand",
       "Send a command (see `Idempotency-Key`)", "encounters", {200: t.CommandAnswer},
       body=cmd.AnyCommand, auth="required",
       params=(ENCOUNTER,), errors=(*BODY, 401, 403, 404, 409, *DOWN)),
    Op("get", "/api/encounters/{id}/events", "getEvents",
       "Events after version `after`, at most `limit`, filtered for the caller's role",
       "encounters", {200: t.Events}, auth="required",
       params=(ENCOUNTER, _count("after", "a version"),
               _count("limit", "at most 10000 are answered; 0 or none: 1000")),
       errors=(400, 401, 404, *DOWN)),
    Op("get", "/api/encounters/{id}/me", "getMe", "The role and combatants a token gives",
       "encounters", {200: t.Me}, auth="required", params=(ENCOUNTER,),
       errors=(401, 404, *DOWN)),
    Op("get", "/api/encounters/{id}/rolls/{n}", "getRoll", "The audit record of roll `n`",
       "encounters", {200: t.RollAudit}, auth="optional",
       params=(ENCOUNTER, Param("n", "path", {"type": "integer", "minimum": 0,
                                              "maximum": MAX_PARAM}, "the roll's seq", True)),
       errors=(400, 401, 404, *DOWN)),
    Op("get", "/api/encounters/{id}/verify", "getVerify",
       "The hash chain and every revealed roll, recomputed", "encounters",
       {200: t.VerifyReport}, params=(ENCOUNTER,), errors=(404, *DOWN)),
    Op("get", "/api/encounters/{id}/export", "getExport",
       "The full log: `json` (the audit bundle: the GM's until close) or a forum format",
       "encounters", {200: (t.AuditBundle, TEXT)}, auth="optional",
       params=(
           ENCOUNTER,
           Param("format", "query", {"enum": ["json", "markdown", "bbcode", "text"]}, "json"),
       ),
       errors=(400, 401, 403, 404, *DOWN)),
    Op("get", "/api/rulesets", "getRulesets", "Each rule system with its settings and defaults",
       "rules", {200: list[t.Ruleset]}),
    Op("get", "/api/schema", "getSchema",
       "JSON Schema of every command, event and websocket message", "rules",
       {200: dict[str, Any]}),
    Op("get", "/api/rules/{rule}", "getRule", "A rule's text from the digests", "rules",
       {200: t.RuleText}, params=(RULE,), errors=(404,)),
    Op("get", "/rules/{rule}", "rulePage", "A rule's text as a page", "pages", {200: HTML},
       params=(RULE,), errors=(404,)),
    Op("post", "/api/campaigns", "createWar", "Open a War (ranks-d100)", "wars",
       {201: t.CreatedWar}, body=CreateCampaign, errors=(*BODY, *DOWN)),
    Op("get", "/api/campaigns/{id}", "getWar",
       "The War: day, characters, encounters carried back", "wars", {200: t.War},
       auth="optional", params=(WAR,), errors=(401, 404, *DOWN)),
    Op("post", "/api/campaigns/{id}/commands", "postWarCommand", "Send a War command (GM)",
       "wars", {200: (t.WarCommandAnswer, t.CarriedBack)}, body=WarCommand,
       auth="required", params=(WAR,), errors=(*BODY, 401, 403, 404, 409, *DOWN)),
    Op("post", "/api/simulate", "simulate", "The d20-na 1v1 resolver (NA-37..NA-40)",
       "simulate", {200: t.Simulation}, body=SimulateBody, errors=(*BODY, 409, *DOWN)),
    Op("get", "/api/encounters/{id}/log", "getLog",
       "Log lines older than version `before`, filtered for the caller (the board carries"
       " the last 30)", "encounters", {200: t.LogPage}, auth="optional",
       params=(ENCOUNTER, _count("before", "a version"), _count("limit", "1 to 200", 1, MAX_LIMIT)),
       errors=(400, 401, 404, *DOWN)),
    Op("get", "/api/encounters/{id}/dice", "getDice",
       "Dice fairness per source and die size, filtered for the caller", "encounters",
       {200: t.DiceFairness}, auth="optional", params=(ENCOUNTER,),
       errors=(401, 404, *DOWN)),
    Op("get", "/api/campaigns/{id}/dice", "getWarDice",
       "Dice fairness across the War's encounters carried back", "wars",
       {200: t.WarDiceFairness}, auth="optional", params=(WAR,), errors=(401, 404, *DOWN)),
    Op("get", "/api/encounters/{id}/tokens", "listTokens",
       "The encounter's links (never their secrets) (GM)", "links", {200: t.Links},
       auth="required", params=(ENCOUNTER,), errors=(401, 403, 404, *DOWN)),
    Op("post", "/api/encounters/{id}/tokens", "issueToken", "Issue a new link (GM)", "links",
       {201: t.IssuedLink}, body=IssueToken, auth="required", params=(ENCOUNTER,),
       errors=(*BODY, 401, 403, 404, *DOWN)),
    Op("delete", "/api/encounters/{id}/tokens/{token_id}", "revokeToken",
       "Revoke a link: its holder gets 401 and its websockets close (GM)", "links",
       {200: t.RevokedLink}, auth="required",
       params=(ENCOUNTER, Param("token_id", "path", {"type": "string"}, "the link's id", True)),
       errors=(401, 403, 404, 422, *DOWN)),
    Op("put", "/api/encounters/{id}/webhook", "putWebhook",
       "Set the encounter's webhook; answers its signing secret once (GM)", "webhooks",
       {200: t.WebhookSet}, body=WebhookBody, auth="required", params=(ENCOUNTER,),
       errors=(*BODY, 401, 403, 404, *DOWN)),
    Op("get", "/api/encounters/{id}/webhook", "getWebhook",
       "The webhook's URL, kinds and recent deliveries (GM)", "webhooks",
       {200: t.Webhook}, auth="required", params=(ENCOUNTER,),
       errors=(401, 403, 404, *DOWN)),
    Op("delete", "/api/encounters/{id}/webhook", "deleteWebhook", "Remove the webhook (GM)",
       "webhooks", {200: t.WebhookDeleted}, auth="required", params=(ENCOUNTER,),
       errors=(401, 403, 404, *DOWN)),
    Op("get", "/healthz", "healthz", "Liveness with a database check", "operations",
       {200: t.Health, 503: t.Health}),
    Op("get", "/readyz", "readyz", "Ready to commit a write now (for load balancers)",
       "operations", {200: t.Readiness}, errors=DOWN),
    Op("get", "/metrics", "metrics", "Prometheus text", "operations", {200: TEXT}),
    Op("get", "/openapi.json", "openapi", "This document", "operations", {200: dict[str, Any]}),
    Op("get", "/asyncapi.json", "asyncapi", "The websocket as AsyncAPI 3", "operations",
       {200: dict[str, Any]}),
)  # fmt: skip


def _content(answer: Any, ref: dict[Any, dict[str, Any]]) -> dict[str, Any]:
    kinds = answer if isinstance(answer, tuple) else (answer,)
    content: dict[str, Any] = {}
    schemas = [ref[k] for k in kinds if k not in (TEXT, HTML)]
    if schemas:
        content["application/json"] = {
            "schema": schemas[0] if len(schemas) == 1 else {"anyOf": schemas}
        }
    for k in kinds:
        if k in (TEXT, HTML):
            content[k] = {"schema": {"type": "string"}}
    return content


def _operation(op: Op, ref: dict[Any, dict[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {"operationId": op.id, "summary": op.summary, "tags": [op.tag]}
    params = [
        {
            "name": p.name,
            "in": p.where,
            "required": p.required,
            "description": p.description,
            "schema": p.schema,
        }
        for p in op.params
    ]
    if op.id == "postCommand":
        params.append(
            {
                "name": "Idempotency-Key",
                "in": "header",
                "required": False,
                "description": "the caller's own key: the same key and body again get the"
                " first outcome and append nothing",
                "schema": {"type": "string", "minLength": 1, "maxLength": 200},
            }
        )
    if params:
        out["parameters"] = params
    if op.body is not None:
        out["requestBody"] = {
            "required": True,
            "content": {"application/json": {"schema": ref[op.body]}},
        }
    if op.auth == "required":
        out["security"] = [{"bearer": []}]
    elif op.auth == "optional":
        out["security"] = [{}, {"bearer": []}]
    responses: dict[str, Any] = {}
    for status, answer in op.answers.items():
        responses[str(status)] = {
            "description": "the answer" if status < 300 else WHY.get(status, "refused"),
            "content": _content(answer, ref),
        }
        if status == 201 and op.links:
            responses[str(status)]["links"] = op.links
    if op.id == "postCommand":
        responses["200"]["headers"] = {
            "Idempotent-Replayed": {
                "description": "`true` on an answer given again for an Idempotency-Key",
                "schema": {"type": "string", "enum": ["true"]},
            }
        }
    for status in sorted(set(op.errors) | {405}):
        responses[str(status)] = {
            "description": WHY[status],
            "content": {"application/json": {"schema": ref[t.Error]}},
        }
    out["responses"] = responses
    return out


def _kinds() -> list[Any]:
    found: list[Any] = [t.Error]
    for op in OPS:
        if op.body is not None:
            found.append(op.body)
        for answer in op.answers.values():
            for k in answer if isinstance(answer, tuple) else (answer,):
                if k not in (TEXT, HTML):
                    found.append(k)
    return list(dict.fromkeys(found))


@cache
def openapi() -> dict[str, Any]:
    """The OpenAPI 3.1 document of every HTTP route."""
    kinds = _kinds()
    schemas, components = msgspec.json.schema_components(
        kinds, ref_template="#/components/schemas/{name}"
    )
    ref = dict(zip(kinds, schemas, strict=True))
    # What the types leave open but the registries close: the rule systems a body may name.
    for name, allowed in (
        ("CreateEncounter", sorted(REGISTRY)),
        ("CreateCampaign", [RULESET]),
        ("SimulateBody", list(SIMULATE_RULESETS)),
    ):
        components[name]["properties"]["ruleset"] = {"enum": allowed}
    paths: dict[str, dict[str, Any]] = {}
    for op in OPS:
        paths.setdefault(op.path, {})[op.method] = _operation(op, ref)
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "Fracas",
            "version": "0.1.0",
            "description": "An event-sourced encounter server. Errors are always"
            ' `{"error": {"code", "message", "rule"?}}`. The websocket is in'
            " /asyncapi.json; every command, event and websocket message in /api/schema.",
        },
        "paths": paths,
        "components": {
            "schemas": components,
            "securitySchemes": {
                "bearer": {
                    "type": "http",
                    "scheme": "bearer",
                    "description": "an encounter's or War's token: gm, player or spectator",
                }
            },
        },
    }


def _channel(
    address: str,
    what: str,
    client: Any,
    server: Any,
    description: str = "",
    patched: Any = None,
) -> dict[str, Any]:
    """One websocket channel: its `token`/`after` query and its message kinds (with
    `patched`, also the `patch` query and what a `patch=1` connection receives)."""
    channel: dict[str, Any] = {
        "address": address,
        "parameters": {"id": {"description": what}},
        "bindings": {
            "ws": {
                "query": {
                    "type": "object",
                    "properties": {
                        "token": {"type": "string"},
                        "after": {"type": "string", "pattern": "^[0-9]+$"},
                    },
                }
            }
        },
        "messages": {
            "client": {"payload": client, "summary": "a ping"},
            "server": {"payload": server, "summary": "snapshot, update, reset, pong or error"},
        },
    }
    if patched is not None:
        channel["bindings"]["ws"]["query"]["properties"]["patch"] = {
            "type": "string",
            "enum": ["0", "1"],
            "description": "1: updates carry an RFC 6902 `patch` (serverPatch messages)",
        }
        channel["messages"]["serverPatch"] = {
            "payload": patched,
            "summary": "with patch=1: snapshot, update (compact events, a patch), pong or error",
        }
    if description:
        channel["description"] = description
    return channel


@cache
def asyncapi() -> dict[str, Any]:
    """The AsyncAPI 3 document of WS /ws/encounters/{id} (CONTRACT section 7) and of
    WS /ws/campaigns/{id} (a War's live page)."""
    (client, server, patched, events), components = msgspec.json.schema_components(
        [WsMessage, WsServerMessage, WsPatchServerMessage, ev.AnyEvent],
        ref_template="#/components/schemas/{name}",
    )
    return {
        "asyncapi": "3.0.0",
        "info": {
            "title": "Fracas live board",
            "version": "0.1.0",
            "description": "A snapshot on connect (or, with `after`, every missed update"
            " first), then an update per committed change, filtered for the token's role;"
            " versions strictly increase, except after a `reset` (the database was behind"
            " what was sent: restored or failed over), which carries the board at the"
            " database's version. A slow client is closed 1013; an oversized frame"
            " 1009, a binary one"
            " 1003; a bad token 4401, a bad `after` 4400, an unknown encounter 4404."
            " `events[].data` is one of the `events` schemas (`x-events`). With `patch=1`"
            " (encounters only) the frames are `serverPatch`: updates carry compact events"
            " (version, type, data) and an RFC 6902 `patch`, and `legal` only what the"
            " connection can act on.",
        },
        "servers": {"local": {"host": "127.0.0.1:8000", "protocol": "ws"}},
        "channels": {
            "encounter": _channel(
                "/ws/encounters/{id}", "the encounter's uuid", client, server, patched=patched
            ),
            "war": _channel(
                "/ws/campaigns/{id}",
                "the War's uuid",
                client,
                server,
                "The same frames for a War's stream: the War's board (day, characters and"
                " their pools) in `board`; sheets only for the War's GM.",
            ),
        },
        "operations": {
            "receiveBoard": {
                "action": "receive",
                "channel": {"$ref": "#/channels/encounter"},
                "messages": [
                    {"$ref": "#/channels/encounter/messages/server"},
                    {"$ref": "#/channels/encounter/messages/serverPatch"},
                ],
            },
            "sendPing": {
                "action": "send",
                "channel": {"$ref": "#/channels/encounter"},
                "messages": [{"$ref": "#/channels/encounter/messages/client"}],
            },
            "receiveWar": {
                "action": "receive",
                "channel": {"$ref": "#/channels/war"},
                "messages": [{"$ref": "#/channels/war/messages/server"}],
            },
            "sendWarPing": {
                "action": "send",
                "channel": {"$ref": "#/channels/war"},
                "messages": [{"$ref": "#/channels/war/messages/client"}],
            },
        },
        "components": {"schemas": components},
        "x-events": events,
    }
