"""Creating encounters, Wars and saved fights is limited per client address (429)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.e2e.conftest import Instance, start_server, stop_server


@pytest.fixture
def limited(database_url: str, tmp_path: Path) -> Iterator[Instance]:
    """A server allowing 3 creations per minute per address."""
    instance = start_server(database_url, str(tmp_path / "serve.log"), create_rate=3)
    yield instance
    stop_server(instance)


def test_a_fourth_creation_in_a_minute_is_refused_with_retry_after(limited: Instance) -> None:
    with httpx.Client(base_url=limited.base, timeout=30) as http:
        encounter = {"ruleset": "plain-d100", "name": "Limited"}
        assert http.post("/api/encounters", json=encounter).status_code == 201
        war = {"ruleset": "ranks-d100", "name": "Limited War"}
        assert http.post("/api/campaigns", json=war).status_code == 201
        fight = {"ruleset": "d20-na", "a": "milicien", "b": "fangeux", "fights": 1}
        saved = http.post("/api/simulate", json={**fight, "seed": "limit-1", "save": True})
        assert saved.status_code == 200, saved.text

        for path, body in (
            ("/api/encounters", encounter),
            ("/api/campaigns", war),
            ("/api/simulate", {**fight, "seed": "limit-2", "save": True}),
        ):
            r = http.post(path, json=body)
            assert r.status_code == 429, (path, r.text)
            assert r.json()["error"]["code"] == "rate_limited"
            assert 1 <= int(r.headers["retry-after"]) <= 20

        # A fight that is not saved creates nothing: it is not counted.
        assert http.post("/api/simulate", json=fight).status_code == 200
        # Bad input is refused as such, before the limit.
        bad = http.post("/api/encounters", json={"ruleset": "plain-d100"})
        assert bad.status_code == 422
