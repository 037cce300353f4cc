"""GET /openapi.json (OpenAPI 3.1) and GET /asyncapi.json (AsyncAPI 3): generated, not
written by hand.

Every route is one `Op` below: its request body and answers are msgspec types (the
commands and events of `domain/`, the answers of `server/api_types.py`), turned into JSON
Schema by `msgspec.json.schema_components`. tests/e2e/test_openapi.py lists the app's
routes, so a route added without an `Op` fails there.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from functools import cache
from typing import Any, Literal

import msgspec

from domain import commands as cmd
from domain import events as ev
from domain.rules import REGISTRY
from server.http import api_types as t
from server.http.board_types import BOARDS
from server.http.bounds import MAX_PARAM
from server.http.campaigns import CreateCampaign
from server.http.log import MAX_LIMIT
from server.http.resolver import SimulateBody
from server.http.tokens import IssueToken, IssueWarToken
from server.http.webhooks import WebhookBody
from server.live.encounter import WsMessage, WsPatchServerMessage, WsServerMessage
from server.services.resolver import SIMULATE_RULESETS
from server.services.wars import RULESET, WarCommand

Auth = Literal["none", "optional", "required"]
TEXT = "text/plain"
MARKDOWN = "text/markdown"
HTML = "text/html"
MEDIA = (TEXT, MARKDOWN, HTML)  # answers described by a media type, not a msgspec type
# Refusals every operation that reads the database may answer.
DOWN = (503,)
BODY = (400, 413, 422)
WHY = {
    400: "malformed: not JSON, or a parameter of the wrong form",
    401: "no token, or one that gives no access here",
    403: "the token's role may not do this",
    404: "no such encounter, War, roll or rule",
    405: "another method is served here",
    409: "refused by the state: a turn, a budget, a limit, a concurrent change",
    413: "the body is over 1 MiB",
    422: "a body or value the server does not take (`invalid`), or a rule that refuses"
    " it (`rule_violation`, with the rule id)",
    429: "too many encounters or Wars opened from this address this minute (`rate_limited`;"
    " `Retry-After` says when to try again)",
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
# Links from a new encounter carry its id and, where the operation reads one, its GM
# token (a header parameter in the expression's `{}`), so a chain of requests acts on the
# encounter it made.
_FROM_CREATED = {"path.id": "$response.body#/id"}
_AS_GM = {**_FROM_CREATED, "header.Authorization": "Bearer {$response.body#/gm_token}"}
_LINKS = {
    name: {"operationId": op, "parameters": parameters}
    for name, op, parameters in (
        ("board", "getBoard", _AS_GM),
        ("commands", "postCommand", _AS_GM),
        ("events", "getEvents", _AS_GM),
        ("me", "getMe", _AS_GM),
        ("tokens", "listTokens", _AS_GM),
        ("verify", "getVerify", _FROM_CREATED),
        ("export", "getExport", _AS_GM),
    )
}
_WAR_LINKS = {
    name: {
        "operationId": op,
        "parameters": {
            "path.id": "$response.body#/id",
            "header.Authorization": "Bearer {$response.body#/gm_token}",
        },
    }
    for name, op in (("war", "getWar"), ("commands", "postWarCommand"))
}
EXPORT = (
    ENCOUNTER,
    Param(
        "format",
        "query",
        {"type": "string", "enum": ["json", "markdown", "bbcode", "text"], "default": "json"},
        "`json`: the audit bundle (application/json); `markdown` (text/markdown),"
        " `bbcode` and `text` (text/plain): the log for a forum",
    ),
    Param(
        "lang",
        "query",
        {"type": "string", "enum": ["en", "fr"]},
        "the language of a forum format (default: the encounter's)",
    ),
    Param(
        "scope",
        "query",
        {"type": "string", "enum": ["all", "last_turn"], "default": "all"},
        "a forum format's extent: the whole log or the last turn",
    ),
    Param(
        "include_hidden",
        "query",
        {"type": "string", "enum": ["true", "false", "1", "0"], "default": "false"},
        "the GM's forum export with hidden rolls and GM-only resources (ignored for anyone else)",
    ),
)

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
       errors=(*BODY, 401, 403, 404, 429, *DOWN), links=_LINKS),
    Op("get", "/api/encounters/{id}", "getBoard",
       "The board for the caller's role, now or as it stood at version `at`", "encounters",
       {200: BOARDS}, auth="optional", params=(ENCOUNTER, _count("at", "a past version")),
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
       {200: t.VerifyReport}, auth="optional", params=(ENCOUNTER,),
       errors=(401, 404, *DOWN)),
    Op("get", "/api/encounters/{id}/export", "getExport",
       "The full log: `json` (the audit bundle: the GM's until close) or a forum format"
       " (text first: a generated client then reads every format as the body's text)",
       "encounters", {200: (TEXT, MARKDOWN, t.AuditBundle)}, auth="optional", params=EXPORT,
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
       {201: t.CreatedWar}, body=CreateCampaign, errors=(*BODY, 429, *DOWN),
       links=_WAR_LINKS),
    Op("get", "/api/campaigns/{id}", "getWar",
       "The War: day, characters, encounters carried back", "wars", {200: t.War},
       auth="optional", params=(WAR,), errors=(401, 404, *DOWN)),
    Op("post", "/api/campaigns/{id}/commands", "postWarCommand", "Send a War command (GM)",
       "wars", {200: (t.WarCommandAnswer, t.CarriedBack)}, body=WarCommand,
       auth="required", params=(WAR,), errors=(*BODY, 401, 403, 404, 409, *DOWN)),
    Op("post", "/api/simulate", "simulate", "The d20-na 1v1 resolver (NA-37..NA-40)",
       "simulate", {200: t.Simulation}, body=SimulateBody, errors=(*BODY, 409, 429, *DOWN)),
    Op("get", "/api/encounters/{id}/log", "getLog",
       "Log lines older than version `before`, filtered for the caller (the board carries"
       " the last 30)", "encounters", {200: t.LogPage}, auth="optional",
       params=(ENCOUNTER, _count("before", "a version"), _count("limit", "1 to 200", 1, MAX_LIMIT)),
       errors=(400, 401, 404, *DOWN)),
    Op("get", "/api/encounters/{id}/dice", "getDice",
       "Dice fairness per source and die size, filtered for the caller", "encounters",
       {200: t.DiceFairness}, auth="optional", params=(ENCOUNTER,),
       errors=(401, 404, *DOWN)),
    Op("get", "/api/encounters/{id}/sheet", "getSheets",
       "The caller's own sheets: stats and once-per-session uses left (a player's own"
       " combatants, every one for the GM, none for a spectator)", "encounters",
       {200: t.Sheets}, auth="required", params=(ENCOUNTER,), errors=(401, 404, *DOWN)),
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
    Op("get", "/api/campaigns/{id}/tokens", "listWarTokens",
       "The War's GM links (never their secrets) (War GM)", "links", {200: t.Links},
       auth="required", params=(WAR,), errors=(401, 403, 404, *DOWN)),
    Op("post", "/api/campaigns/{id}/tokens", "issueWarToken", "Issue a new War GM link",
       "links", {201: t.IssuedLink}, body=IssueWarToken, auth="required", params=(WAR,),
       errors=(*BODY, 401, 403, 404, *DOWN)),
    Op("delete", "/api/campaigns/{id}/tokens/{token_id}", "revokeWarToken",
       "Revoke a War link: its holder gets 401 and its War websockets close (War GM)",
       "links", {200: t.RevokedLink}, auth="required",
       params=(WAR, Param("token_id", "path", {"type": "string"}, "the link's id", True)),
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
    Op("get", "/api/encounters/{id}/webhook/deliveries", "getWebhookDeliveries",
       "The webhook's last deliveries and their status, no URL nor secret (GM)", "webhooks",
       {200: t.WebhookDeliveries}, auth="required",
       params=(ENCOUNTER, _count("limit", "1 to 200; none: 20", 1, 200)),
       errors=(400, 401, 403, 404, *DOWN)),  # 404: no such encounter
    Op("post", "/api/encounters/{id}/webhook/test", "testWebhook",
       "Queue one delivery of kind test, after the webhook's others (GM)", "webhooks",
       {202: t.WebhookTestQueued}, auth="required", params=(ENCOUNTER,),
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
    # In the order given: a generated client (openapi-python-client) reads an answer as
    # the first media type it knows.
    kinds = answer if isinstance(answer, tuple) else (answer,)
    content: dict[str, Any] = {}
    schemas = [ref[k] for k in kinds if k not in MEDIA]
    for k in kinds:
        if k in MEDIA:
            content[k] = {"schema": {"type": "string"}}
        elif "application/json" not in content:
            content["application/json"] = {
                "schema": schemas[0] if len(schemas) == 1 else {"anyOf": schemas}
            }
    return content


def _operation(op: Op, ref: dict[Any, dict[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {
        "operationId": op.id,
        "summary": op.summary,
        "description": op.summary + ".",
        "tags": [op.tag],
    }
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
    else:
        out["security"] = []  # public: no token is read
    responses: dict[str, Any] = {}
    for status, answer in op.answers.items():
        responses[str(status)] = {
            "description": "the answer" if status < 300 else WHY.get(status, "refused"),
            "content": _content(answer, ref),
        }
        if status == 201 and op.links:
            responses[str(status)]["links"] = op.links
    if 429 in op.errors:
        retry = {"description": "seconds to wait", "schema": {"type": "integer", "minimum": 1}}
        responses["429"] = {**_refusal(429, ref), "headers": {"Retry-After": retry}}
    if op.id == "postCommand":
        responses["200"]["headers"] = {
            "Idempotent-Replayed": {
                "description": "`true` on an answer given again for an Idempotency-Key",
                "schema": {"type": "string", "enum": ["true"]},
            }
        }
    for status in sorted(set(op.errors) | {405}):
        responses.setdefault(str(status), _refusal(status, ref))
    out["responses"] = dict(sorted(responses.items()))
    return out


def _refusal(status: int, ref: dict[Any, dict[str, Any]]) -> dict[str, Any]:
    return {
        "description": WHY[status],
        "content": {"application/json": {"schema": ref[t.Error]}},
    }


TAGS = {
    "pages": "the web UI's pages",
    "encounters": "encounters: the board, commands, events, the audit",
    "rules": "the rule systems and the schemas",
    "wars": "Wars (ranks-d100 campaigns)",
    "simulate": "the d20-na resolver",
    "links": "an encounter's links (tokens)",
    "webhooks": "an encounter's webhook",
    "operations": "health, metrics and these documents",
}
# What server/http/bounds.py refuses in any string of a body (422 `invalid`).
NO_CONTROL = "^[^\u0000-\u001f\u007f-\u009f\u2028\u2029]*$"


def _walk(node: Any) -> Any:
    """Every dict inside `node`, itself first."""
    if isinstance(node, dict):
        yield node
        for v in node.values():
            yield from _walk(v)
    elif isinstance(node, list):
        for v in node:
            yield from _walk(v)


def _close_bodies(components: dict[str, Any], bodies: list[dict[str, Any]]) -> None:
    """Say in the schema what the server refuses of a body valid by its type alone: control
    characters in any string (bounds.py), a webhook URL that is not http(s), a player link
    naming no combatant."""
    seen: set[str] = set()
    todo = list(bodies)
    while todo:
        for node in _walk(todo.pop()):
            target = node.get("$ref")
            if isinstance(target, str):
                name = target.rsplit("/", 1)[1]
                if name not in seen:
                    seen.add(name)
                    todo.append(components[name])
            if node.get("type") == "string" and not {"enum", "const", "pattern"} & set(node):
                node["pattern"] = NO_CONTROL
            if node.get("type") == "object" and "additionalProperties" in node:
                node.setdefault("propertyNames", {"pattern": NO_CONTROL})
    components["WebhookBody"]["properties"]["url"]["pattern"] = "^https?://[!-~]+$"
    components["IssueToken"]["if"] = {
        "properties": {"role": {"const": "player"}},
        "required": ["role"],
    }
    components["IssueToken"]["then"] = {
        "properties": {"combatants": {"minItems": 1}},
        "required": ["combatants"],
    }


def _with_items(components: dict[str, Any]) -> None:
    """msgspec writes `list[Any]` as `{"type": "array"}` and `dict[str, Any]` as
    `{"type": "object"}`; generators want the array's `items` (openapi-python-client drops
    the schema without them) and the object's `additionalProperties` (openapi-typescript
    types a bare object as `Record<string, never>`)."""
    for node in _walk(components):
        if node.get("type") == "array" and "items" not in node and "prefixItems" not in node:
            node["items"] = {}
        if node.get("type") == "object" and not {"properties", "additionalProperties"} & set(node):
            node["additionalProperties"] = {}


def _kinds() -> list[Any]:
    found: list[Any] = [t.Error]
    for op in OPS:
        if op.body is not None:
            found.append(op.body)
        for answer in op.answers.values():
            for k in answer if isinstance(answer, tuple) else (answer,):
                if k not in MEDIA:
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
        components[name]["properties"]["ruleset"] = {"type": "string", "enum": allowed}
    _close_bodies(components, [ref[op.body] for op in OPS if op.body is not None])
    _with_items(components)
    paths: dict[str, dict[str, Any]] = {}
    for op in OPS:
        paths.setdefault(op.path, {})[op.method] = _operation(op, ref)
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "Fracas",
            "version": "0.1.0",
            "contact": {"name": "Fracas", "url": "https://example.invalid/fracas"},
            "description": "An event-sourced encounter server. Errors are always"
            ' `{"error": {"code", "message", "message_fr", "rule"?}}`. The websocket is in'
            " /asyncapi.json; every command, event and websocket message in /api/schema.",
        },
        "servers": [{"url": "/", "description": "the instance serving this document"}],
        "tags": [{"name": tag, "description": TAGS[tag]} for tag in TAGS],
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


def _async_schema(node: Any) -> Any:
    """msgspec writes OpenAPI's `discriminator` object; AsyncAPI's schema object wants the
    property's name alone (`"discriminator": "type"`), the members found by `oneOf`."""
    if isinstance(node, dict):
        return {
            k: v["propertyName"]
            if k == "discriminator" and isinstance(v, dict)
            else _async_schema(v)
            for k, v in node.items()
        }
    if isinstance(node, list | tuple):
        return type(node)(_async_schema(v) for v in node)
    return node


def _typed_boards(
    components: dict[str, Any], prefix: str, board: dict[str, Any], patched: bool = False
) -> dict[str, Any]:
    """The server messages of one channel with their `board` typed: copies of WsSnapshot
    and WsUpdate (or WsPatchUpdate) named for the channel (`EncounterSnapshot`, ...), as
    the messages themselves are shared by both sockets."""
    members: list[dict[str, Any]] = []
    for name in ("WsSnapshot", "WsPatchUpdate" if patched else "WsUpdate", "WsPong", "WsError"):
        if name in ("WsPong", "WsError"):
            members.append({"$ref": f"#/components/schemas/{name}"})
            continue
        typed = prefix + name.removeprefix("Ws")
        schema = copy.deepcopy(components[name])
        schema["properties"]["board"] = board
        components[typed] = schema
        members.append({"$ref": f"#/components/schemas/{typed}"})
    return {"oneOf": members, "discriminator": "type"}


@cache
def asyncapi() -> dict[str, Any]:
    """The AsyncAPI 3 document of WS /ws/encounters/{id} (CONTRACT section 7) and of
    WS /ws/campaigns/{id} (a War's live page)."""
    (client, server, patched, events, *_), components = _async_schema(
        msgspec.json.schema_components(
            [WsMessage, WsServerMessage, WsPatchServerMessage, ev.AnyEvent, *BOARDS, t.War],
            ref_template="#/components/schemas/{name}",
        )
    )
    _with_items(components)
    boards = {"anyOf": [{"$ref": f"#/components/schemas/{b.__name__}"} for b in BOARDS]}
    war_server = _typed_boards(components, "War", {"$ref": "#/components/schemas/War"})
    server = _typed_boards(components, "Encounter", boards)
    patched = _typed_boards(components, "Encounter", boards, patched=True)
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
                war_server,
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
