"""Webhook edges (issue 20 section 5) against real servers: IPv6 forms that wrap an internal
IPv4 address are refused when the GM sets the URL."""

from __future__ import annotations

import pytest

from tests.e2e.conftest import Api


def gm(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


@pytest.mark.parametrize(
    "host",
    [
        "[::127.0.0.1]",
        "[::ffff:0:7f00:1]",
        "[64:ff9b::7f00:1]",
        "[2002:7f00:1::1]",
        "[64:ff9b:1::a9fe:a9fe]",
        "[2001:0:4136:e378:8000:63bf:80ff:fffe]",
        "[::ffff:127.0.0.1]",
    ],
)
def test_a_webhook_url_on_an_ipv6_form_of_an_internal_ipv4_address_is_refused(
    api: Api, host: str
) -> None:
    made = api.create()
    url = f"http://{host}:8080/hook"
    r = api.http.put(
        f"/api/encounters/{made['id']}/webhook", json={"url": url}, headers=gm(made["gm_token"])
    )
    assert r.status_code == 422, r.text
    assert r.json()["error"]["code"] == "invalid"
    assert "loopback, private or link-local" in r.json()["error"]["message"]
    assert host.strip("[]") not in r.text  # the message never echoes the address
