"""The rule systems' routes: each system with its settings, actions and option labels, the
commands' JSON Schema, a rule's text."""

from __future__ import annotations

import msgspec
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import Route

from domain import commands as cmd
from domain import events as ev
from domain.context import RuleSystem
from domain.encounter import CORE_SETTINGS
from domain.rules import REGISTRY
from domain.rules.common.options import MAX_OPTIONS_BYTES, describe_all
from projections.log.core import NARRATORS
from projections.words.options import OPTION_WORDS
from projections.words.settings import description_fr
from server.http.board_types import GmBoard, PublicBoard
from server.http.errors import (
    HTTPError,
    json_response,
)
from server.live.encounter import WsMessage, WsPatchServerMessage, WsServerMessage
from server.services import ruletext


def option_keys(rules: RuleSystem) -> set[str]:
    """Every option key any act or react of `rules` takes."""
    tables = (rules.options.actions, rules.options.reactions)
    return {key for table in tables for opts in table.values() for key in opts}


async def rulesets(request: Request) -> Response:
    out = []
    for rid, rules in REGISTRY.items():
        out.append(
            {
                "id": rid,
                "name": rules.name,
                "version": rules.version,
                "turn": rules.turn,  # how a turn is declared: single | two_declared (TC-7)
                "name_fr": NARRATORS[rid].name_fr if rid in NARRATORS else rules.name,
                # What the pages call each option of this system's acts and reacts.
                "option_labels": {
                    k: {"label": words[0], "label_fr": words[1]}
                    for k, words in OPTION_WORDS.items()
                    if k in option_keys(rules)
                },
                "settings": {
                    k: {**s.describe(), "description_fr": description_fr(rid, k)}
                    for k, s in {**rules.settings, **CORE_SETTINGS}.items()
                },
                "actions": {
                    k: {
                        "label": a.label,
                        "label_fr": a.label_fr,
                        "free": a.free,
                        "needs_target": a.needs_target,
                        "ranked": a.ranked,
                        "rule": a.rule,
                        "options": describe_all(rules.options.of("action", k)),
                    }
                    for k, a in rules.actions.items()
                },
                "reactions": {
                    k: {
                        "label": a.label,
                        "label_fr": a.label_fr,
                        "rule": a.rule,
                        "options": describe_all(rules.options.of("reaction", k)),
                    }
                    for k, a in rules.reactions.items()
                },
                "options_max_bytes": MAX_OPTIONS_BYTES,
                "presets": {k: dict(v) for k, v in rules.presets.items()},
            }
        )
    return json_response(out)


async def schema(request: Request) -> Response:
    kinds = [cmd.AnyCommand, ev.AnyEvent, WsMessage, WsServerMessage, WsPatchServerMessage]
    (commands, events_, ws, ws_server, ws_patch, gm_board, public_board), components = (
        msgspec.json.schema_components(
            [*kinds, GmBoard, PublicBoard], ref_template="#/$defs/{name}"
        )
    )
    return json_response(
        {
            "commands": commands,
            "events": events_,
            "websocket_client": ws,
            "websocket_server": ws_server,
            "websocket_server_patch": ws_patch,  # with `patch=1`
            "board_gm": gm_board,  # the board: GET /api/encounters/{id}, `board` of a frame
            "board_public": public_board,
            "$defs": components,
        }
    )


async def get_rule(request: Request) -> Response:
    """The text of one rule id, as JSON (`/api/rules/{id}`) or as a page (`/rules/{id}`)."""
    rule_id = request.path_params["rule"]
    found = ruletext.rule_texts().get(rule_id)
    if found is None:
        raise HTTPError(404, "not_found", reason="no_rule_in_digests", params={"rule_id": rule_id})
    system, text = found
    if request.url.path.startswith("/api/"):
        return json_response({"id": rule_id, "system": system, "text": text})
    return HTMLResponse(ruletext.rule_page(rule_id, system, text))


routes: list[Route] = [
    Route("/api/rulesets", rulesets),
    Route("/api/schema", schema),
    Route("/api/rules/{rule}", get_rule),
    Route("/rules/{rule}", get_rule),
]
