"""Commands racing on one encounter through two instances: nothing lost, nothing twice."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import httpx

from tests.e2e.conftest import Api, Instance
from tests.e2e.test_http import setup_fight


def test_racing_commands_through_both_instances_all_land_with_gapless_versions_and_rolls(
    servers: tuple[Instance, Instance], api: Api
) -> None:
    f = setup_fight(api)
    start = api.http.get(f"/api/encounters/{f['id']}").json()["version"]
    bases = [servers[0].base, servers[1].base]

    def send(i: int) -> int:
        with httpx.Client(base_url=bases[i % 2], timeout=20) as http:
            r = http.post(
                f"/api/encounters/{f['id']}/commands",
                json={"type": "roll", "expr": "1d20", "purpose": f"race{i}"},
                headers={"Authorization": f"Bearer {f['gm']}"},
            )
            return r.status_code

    with ThreadPoolExecutor(8) as pool:
        statuses = list(pool.map(send, range(24)))
    assert statuses == [200] * 24
    events = api.events(f["id"], f["gm"], after=start)
    assert [e["version"] for e in events] == list(range(start + 1, start + 25))
    rolls = [e["data"] for e in events if e["type"] == "die_rolled"]
    assert sorted(r["purpose"] for r in rolls) == sorted(f"race{i}" for i in range(24))
    numbers = [r["roll"] for r in rolls]
    assert numbers == list(range(numbers[0], numbers[0] + 24))  # no roll number twice
    report = api.http.get(f"/api/encounters/{f['id']}/verify").json()
    assert report["chain"] is True
