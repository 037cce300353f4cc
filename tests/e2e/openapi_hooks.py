"""Schemathesis hooks for tests/e2e/test_openapi.py (loaded through SCHEMATHESIS_HOOKS).

One check of our own, `schema_valid_bodies_are_read`: a body that GET /openapi.json
accepts must get past the server's decoder. Rule systems still refuse what the schema
cannot describe (a sheet, an action name, a setting: each system's own, listed by
GET /api/rulesets) with 422 `invalid` or `rule_violation`, so the stock
`positive_data_acceptance` check is run with 422 allowed; this one catches what it then
misses: a schema-valid body refused as malformed (`dice: [3.0]`, `roll: 1.0`).

Two auth providers, `EncounterGm` and `WarGm`, give schemathesis the fixture's GM tokens
(from the environment the test sets) for the encounter and the War routes: credentials
it knows are credentials, so it can drop them itself to test a missing or wrong
Authorization (a fixed header would make those cases look accepted).
"""

from __future__ import annotations

import os
from typing import Any

import msgspec
import schemathesis

from domain import commands as cmd
from server.http.api_types import CreateEncounter
from server.http.campaigns import CreateCampaign
from server.http.resolver import SimulateBody
from server.http.tokens import IssueToken
from server.http.webhooks import WebhookBody
from server.services.wars import WarCommand

_DECODERS: dict[str, Any] = {
    "POST /api/encounters": lambda raw: msgspec.json.decode(raw, type=CreateEncounter),
    "POST /api/encounters/{id}/commands": cmd.decode_command,
    "POST /api/campaigns": lambda raw: msgspec.json.decode(raw, type=CreateCampaign),
    "POST /api/campaigns/{id}/commands": lambda raw: cmd.decode_strict(
        raw, msgspec.json.Decoder(WarCommand), WarCommand
    ),
    "POST /api/simulate": lambda raw: cmd.decode_strict(
        raw, msgspec.json.Decoder(SimulateBody), SimulateBody
    ),
    "POST /api/encounters/{id}/tokens": lambda raw: msgspec.json.decode(raw, type=IssueToken),
    "PUT /api/encounters/{id}/webhook": lambda raw: msgspec.json.decode(raw, type=WebhookBody),
}


class _Bearer:
    """A fixed bearer token read from the environment variable `variable`."""

    variable = ""

    def get(self, case: Any, ctx: Any) -> str:
        return os.environ[self.variable]

    def set(self, case: Any, data: str, ctx: Any) -> None:
        case.headers = case.headers or {}
        # A link from a creation already carries the new encounter's or War's token.
        case.headers.setdefault("Authorization", f"Bearer {data}")


@schemathesis.auth(refresh_interval=None, retry_on=[]).apply_to(path_regex="^/api/encounters/")
class EncounterGm(_Bearer):
    """The fixture encounter's GM token."""

    variable = "FRACAS_FUZZ_ENCOUNTER_TOKEN"


@schemathesis.auth(refresh_interval=None, retry_on=[]).apply_to(path_regex="^/api/campaigns/")
class WarGm(_Bearer):
    """The fixture War's GM token."""

    variable = "FRACAS_FUZZ_WAR_TOKEN"


@schemathesis.check
def schema_valid_bodies_are_read(ctx: Any, response: Any, case: Any) -> bool | None:
    meta = case.meta
    if meta is None or not meta.generation.mode.is_positive:
        return None
    decode = _DECODERS.get(f"{case.method.upper()} {case.path}")
    if decode is None or case.body is None or not isinstance(case.body, dict):
        return None
    raw = msgspec.json.encode(case.body)
    try:
        decode(raw)
    except (msgspec.ValidationError, msgspec.DecodeError) as e:
        raise AssertionError(
            f"the schema accepts a body the server's decoder refuses ({e}): {raw!r}"
        ) from e
    if response.status_code == 400:
        raise AssertionError(f"a schema-valid body was refused as malformed: {response.text}")
    return None
