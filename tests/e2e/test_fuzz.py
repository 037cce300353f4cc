"""Bad input, generated: every malformed, wrong-typed, unknown-field or oversized payload
gets a 4xx with a code, nothing is appended for it, and the server keeps serving."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from websockets.sync.client import connect

from domain.commands import COMMANDS
from tests.e2e.conftest import Api, Instance
from tests.e2e.test_http import setup_fight, version_of

SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**70), 2**70),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=30),
)
JSON = st.recursive(
    SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=10), inner, max_size=4)
    ),
    max_leaves=12,
)
TYPES = [c.__struct_config__.tag for c in COMMANDS]  # every command tag the server decodes
FIELDS = [
    "actor",
    "action",
    "target",
    "targets",
    "rank",
    "options",
    "dice",
    "reaction",
    "combatant",
    "resource",
    "delta",
    "reason",
    "expr",
    "purpose",
    "hidden",
    "name",
    "side",
    "sheet",
    "preset",
    "value",
    "roll",
    "to_version",
    "zzz",
]


@st.composite
def command_bodies(draw: st.DrawFn) -> Any:
    """Mostly near-valid command objects with wrong types, unknown fields, odd values."""
    if draw(st.integers(0, 4)) == 0:
        return draw(JSON)
    body: dict[str, Any] = {"type": draw(st.sampled_from([*TYPES, "fly", ""]))}
    for field in draw(st.lists(st.sampled_from(FIELDS), max_size=5, unique=True)):
        body[field] = draw(JSON)
    return body


@pytest.fixture
def fight(api: Api) -> dict[str, Any]:
    """A started fight of this test's own (its examples share it: each may change it)."""
    return setup_fight(api)


# The `fight` fixture is made once per test, not per example, on purpose.
SHARED_FIGHT = [HealthCheck.too_slow, HealthCheck.function_scoped_fixture]


@settings(max_examples=200, deadline=None, suppress_health_check=SHARED_FIGHT)
@given(body=command_bodies())
def test_generated_bad_commands_are_refused_with_a_code_and_append_nothing(
    api: Api, fight: dict[str, Any], body: Any
) -> None:
    before = version_of(api, fight["id"])
    r = api.command(fight["id"], fight["alice"], body)
    assert r.status_code < 500, r.text
    if r.status_code != 200:
        assert 400 <= r.status_code < 500
        assert isinstance(r.json()["error"]["code"], str)
        assert version_of(api, fight["id"]) == before


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(body=JSON, path=st.sampled_from(["/api/encounters", "/api/campaigns"]))
def test_generated_bad_creations_answer_4xx(api: Api, body: Any, path: str) -> None:
    r = api.http.post(path, content=json.dumps(body))
    assert r.status_code < 500, r.text
    if r.status_code not in (200, 201):
        assert r.json()["error"]["code"]


@settings(max_examples=60, deadline=None, suppress_health_check=SHARED_FIGHT)
@given(after=st.text(max_size=8), limit=st.text(max_size=8))
def test_generated_query_strings_answer_4xx_or_200(
    api: Api, fight: dict[str, Any], after: str, limit: str
) -> None:
    r = api.http.get(
        f"/api/encounters/{fight['id']}/events",
        params={"after": after, "limit": limit},
        headers={"Authorization": f"Bearer {fight['gm']}"},
    )
    assert r.status_code in (200, 400), r.text


def test_generated_websocket_messages_get_errors_and_the_socket_survives(
    servers: tuple[Instance, Instance], fight: dict[str, Any]
) -> None:
    one, _ = servers
    payloads = [
        "",
        "{",
        "null",
        "[]",
        '{"type": "act"}',
        '{"type": 1}',
        "x" * 4000,  # under the frame limit (CLIENT_FRAME_LIMIT); past it closes 1009
        json.dumps({"type": "ping", "extra": True}),
        "\u00e9\u00e8",
    ]
    with connect(f"{one.ws}/ws/encounters/{fight['id']}?token={fight['spectator']}") as ws:
        json.loads(ws.recv(timeout=5))
        for payload in payloads:
            ws.send(payload)
            reply = json.loads(ws.recv(timeout=5))
            assert reply["type"] == "error" and reply["error"]["code"] == "invalid"
        ws.send('{"type": "ping"}')
        assert json.loads(ws.recv(timeout=5))["type"] == "pong"
