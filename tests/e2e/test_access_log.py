"""No token in the server's log (issue 20 section 4): a `?token=` an older client sends in
a URL, on HTTP or on a websocket handshake, is written `token=[redacted]`."""

from __future__ import annotations

import json
import time
from pathlib import Path

import httpx
from websockets.sync.client import connect

from tests.e2e.conftest import start_server, stop_server


def test_a_served_request_and_websocket_with_a_token_in_the_url_log_no_token(
    database_url: str, tmp_path: Path
) -> None:
    log = tmp_path / "serve.log"
    inst = start_server(database_url, str(log))
    try:
        made = httpx.post(f"{inst.base}/api/encounters", json={"ruleset": "plain-d100",
                                                              "name": "Logged"}).json()  # fmt: skip
        eid, gm = made["id"], made["gm_token"]
        r = httpx.get(f"{inst.base}/api/encounters/{eid}?token={gm}")
        assert r.status_code == 200
        with connect(f"{inst.ws}/ws/encounters/{eid}?token={gm}", open_timeout=5) as ws:
            assert json.loads(ws.recv(timeout=5))["type"] == "snapshot"
        time.sleep(0.3)  # let the log lines reach the file
    finally:
        stop_server(inst)
    text = log.read_text()
    assert f"/api/encounters/{eid}?token=[redacted]" in text  # the request was logged...
    assert f"/ws/encounters/{eid}?token=[redacted]" in text
    assert gm not in text  # ...without its token
