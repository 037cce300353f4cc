"""The command line as a user meets it: real `fracas` processes, one-line errors, exit codes.

Exit codes: 0 all is well; 1 something checked fails; 2 a user's mistake (bad id, unknown
encounter, unreachable database or server, bad file, unknown choice); 3 `verify` on an
encounter still open.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest

from server.cli.main import parser
from tests.e2e.conftest import Api, Instance, free_port, start_server, stop_server

FRACAS = str(Path(sys.executable).with_name("fracas"))  # the console script in .venv/bin
UUID = r"[0-9a-f-]{36}"


def fracas(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [FRACAS, *args], capture_output=True, text=True, timeout=120, env=env or no_database()
    )


def no_database(**extra: str) -> dict[str, str]:
    """The environment without any database configured (and a FRACAS_HOME nobody uses)."""
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "TEST_DATABASE_URL")}
    return {**env, "FRACAS_HOME": "/nonexistent/fracas-home", **extra}


def on(database_url: str) -> dict[str, str]:
    return no_database(DATABASE_URL=database_url)


def one_line_error(done: subprocess.CompletedProcess[str], code: int = 2) -> str:
    """The process failed with `code`, printing one line on stderr and nothing on stdout."""
    assert done.returncode == code, (done.returncode, done.stdout, done.stderr)
    assert done.stdout == "", done.stdout
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and "Traceback" not in done.stderr, done.stderr
    return lines[0]


def closed_port_url(password: str = "hunter2") -> str:
    return f"postgresql://fracas:{password}@127.0.0.1:{free_port()}/fracas"


def test_serve_with_no_database_configured_starts_embedded_and_keeps_its_data(
    scratch_dir: Path,
) -> None:
    # scratch_dir, not tmp_path: as root the embedded server runs as `pgserver`, and any
    # other pytest session on the machine may chmod /tmp/pytest-of-root to 0700 meanwhile.
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "TEST_DATABASE_URL")}
    env["FRACAS_HOME"] = str(scratch_dir / "home")
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    out = scratch_dir / "serve.out"

    def serve() -> subprocess.Popen[bytes]:
        with out.open("wb") as log:
            proc = subprocess.Popen(
                [FRACAS, "serve", "--port", str(port)],
                env=env,
                stdout=log,
                stderr=subprocess.DEVNULL,
            )
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            assert proc.poll() is None, "fracas serve exited"
            try:
                if httpx.get(base + "/healthz", timeout=1).status_code == 200:
                    return proc
            except httpx.HTTPError:
                time.sleep(0.2)
        proc.kill()
        raise AssertionError("not healthy in 60 s")

    def stop(proc: subprocess.Popen[bytes]) -> None:
        proc.terminate()
        # uvicorn shuts down gracefully, then re-raises the SIGTERM it caught.
        assert proc.wait(30) in (0, -signal.SIGTERM)

    first = serve()
    try:
        made = httpx.post(
            base + "/api/encounters", json={"ruleset": "plain-d100", "name": "Kept"}
        ).json()
    finally:
        stop(first)
    said = out.read_text().splitlines()
    home = (scratch_dir / "home").resolve()
    assert said[:2] == [f"Fracas on {base}/", f"data: embedded PostgreSQL in {home}/pgdata"]
    second = serve()
    try:
        board = httpx.get(f"{base}/api/encounters/{made['id']}").json()
        assert board["encounter"]["name"] == "Kept"
    finally:
        stop(second)


def test_serve_names_its_database_without_the_password(database_url: str, tmp_path: Path) -> None:
    with_password = database_url.replace("postgresql://postgres@", "postgresql://postgres:s3cr3t@")
    assert "s3cr3t" in with_password  # (the test server trusts local connections)
    log = tmp_path / "serve.log"
    server = start_server(with_password, str(log))
    try:
        said = log.read_text()
    finally:
        stop_server(server)
    parts = urlsplit(database_url)
    name = parts.path.lstrip("/")
    # The tests' database is the machine's (TCP) or an embedded one (a unix socket).
    host = parts.hostname or parse_qs(parts.query).get("host", [""])[0]
    place = f"{host} (socket)" if host.startswith("/") else f"{host}:{parts.port or 5432}"
    assert f"Fracas on {server.base}/\n" in said
    assert f"data: PostgreSQL at {place}/{name}\n" in said
    assert "s3cr3t" not in said


def test_serve_on_an_unreachable_database_says_so_in_one_line() -> None:
    url = closed_port_url()
    done = subprocess.run(
        [FRACAS, "serve", "--port", str(free_port()), "--database-url", url],
        capture_output=True,
        text=True,
        timeout=60,
        env=no_database(),
    )
    port = url.rsplit(":", 1)[1].split("/")[0]
    line = one_line_error(done)
    assert line.startswith(f"fracas serve: cannot reach PostgreSQL at 127.0.0.1:{port}")
    assert "hunter2" not in line


@pytest.mark.parametrize(
    "args", [("export", "not-a-uuid"), ("audit", "not-a-uuid", "1"), ("verify", "not-a-uuid")]
)
def test_a_malformed_encounter_id_is_one_line_and_exit_2(args: tuple[str, ...]) -> None:
    line = one_line_error(fracas(*args))
    assert line == f"fracas {args[0]}: no encounter 'not-a-uuid': an encounter id is a uuid"


@pytest.mark.parametrize("command", [("export",), ("verify",), ("audit", "1")])
def test_an_unknown_encounter_is_one_line_and_exit_2(
    database_url: str, command: tuple[str, ...]
) -> None:
    nobody = str(uuid.uuid4())
    line = one_line_error(fracas(command[0], nobody, *command[1:], env=on(database_url)))
    assert line == f"fracas {command[0]}: no encounter {nobody} in this database"


@pytest.mark.parametrize("command", ["export", "verify", "audit"])
def test_an_unreachable_database_is_named_without_its_password(command: str) -> None:
    url = closed_port_url()
    port = url.rsplit(":", 1)[1].split("/")[0]
    args = [command, str(uuid.uuid4()), *(["1"] if command == "audit" else [])]
    line = one_line_error(fracas(*args, "--database-url", url))
    reach = f"cannot reach PostgreSQL at 127.0.0.1:{port}: connection refused"
    assert line == f"fracas {command}: {reach}"
    assert "hunter2" not in line
    from_env = one_line_error(fracas(*args, env=no_database(DATABASE_URL=url)))
    assert from_env == line


def test_a_database_that_refuses_the_user_says_why_without_the_password(
    database_url: str,
) -> None:
    url = database_url.replace("postgresql://postgres@", "postgresql://nobody_here:hunter2@")
    line = one_line_error(fracas("verify", str(uuid.uuid4()), "--database-url", url))
    assert "refused the connection" in line and 'role "nobody_here" does not exist' in line
    assert "hunter2" not in line
    garbled = one_line_error(fracas("verify", str(uuid.uuid4()), "--database-url", "hunter2"))
    assert "is not a PostgreSQL URL" in garbled and "hunter2" not in garbled


def demo_links(out: str) -> dict[str, Any]:
    """From demo's lines: the encounter id, the server, the GM's and the board's tokens, and
    the players as (preset, token, combatant id)."""
    eid = re.search(rf"^encounter ({UUID})$", out, re.M)
    assert eid, out
    gm = re.search(rf"^GM console:  (http://\S+)/e/{eid[1]}#token=(\S+)$", out, re.M)
    board = re.search(rf"^board:       (http://\S+)/e/{eid[1]}#token=(\S+)$", out, re.M)
    assert gm and board, out
    players = re.findall(
        rf"^player \((\w+)\): http://\S+/e/{eid[1]}#token=(\S+)&as=(\S+)$", out, re.M
    )
    return {"id": eid[1], "base": gm[1], "gm": gm[2], "board": board[2], "players": players}


def test_demo_makes_its_encounter_on_the_running_server_and_its_links_open(
    servers: tuple[Instance, Instance],
) -> None:
    base = servers[0].base
    done = fracas("demo", "--url", base, "--ruleset", "d20-na")  # no database in its env
    assert done.returncode == 0, done.stderr
    links = demo_links(done.stdout)
    assert links["base"] == base and len(links["players"]) == 2
    with httpx.Client(base_url=base, timeout=10) as http:
        gm = http.get(
            f"/api/encounters/{links['id']}/me", headers={"Authorization": f"Bearer {links['gm']}"}
        )
        assert gm.status_code == 200 and gm.json()["role"] == "gm"
        board = http.get(
            f"/api/encounters/{links['id']}", headers={"Authorization": f"Bearer {links['board']}"}
        )
        assert board.status_code == 200 and board.json()["encounter"]["ruleset"] == "d20-na"
        for _preset, token, combatant in links["players"]:
            me = http.get(
                f"/api/encounters/{links['id']}/me", headers={"Authorization": f"Bearer {token}"}
            ).json()
            assert me["role"] == "player" and me["combatants"] == [combatant]
        page = http.get(f"/e/{links['id']}")
        assert page.status_code == 200


def test_demo_with_no_server_answering_tells_how_to_start_one() -> None:
    url = f"http://127.0.0.1:{free_port()}"
    line = one_line_error(fracas("demo", "--url", url))
    assert line.startswith(
        f"fracas demo: no Fracas server answers at {url}: start one with `fracas serve`"
    )


def test_demo_refuses_an_unknown_rule_system_and_lists_the_known_ones() -> None:
    line = one_line_error(fracas("demo", "--ruleset", "chess"))
    assert "invalid choice: 'chess'" in line and "'ranks-d100'" in line


def test_verify_tells_an_open_encounter_from_a_verified_one(
    api: Api, database_url: str, tmp_path: Path
) -> None:
    made = api.create()
    eid, gm = made["id"], made["gm_token"]
    fresh = fracas("verify", eid, env=on(database_url))
    assert fresh.returncode == 3, fresh.stdout + fresh.stderr
    assert "open: 0 rolls not yet revealed" in fresh.stdout and "verified" not in fresh.stdout
    api.ok(eid, gm, {"type": "roll", "expr": "1d6"})
    rolled = fracas("verify", eid, env=on(database_url))
    assert rolled.returncode == 3 and "open: 1 roll not yet revealed" in rolled.stdout
    as_json = fracas("verify", eid, "--json", env=on(database_url))
    assert as_json.returncode == 3
    report = json.loads(as_json.stdout)
    assert report["open"] is True and report["unrevealed"] == 1 and report["chain"]

    api.ok(eid, gm, {"type": "close"})
    closed = fracas("verify", eid, env=on(database_url))
    assert closed.returncode == 0, closed.stdout
    assert closed.stdout.splitlines()[-1] == "verified"
    assert "dice: 1 roll recomputed from revealed seeds, all match" in closed.stdout
    assert json.loads(fracas("verify", eid, "--json", env=on(database_url)).stdout)["open"] is False

    bundle = json.loads(fracas("export", eid, env=on(database_url)).stdout)
    path = tmp_path / "bundle.json"
    path.write_text(json.dumps(bundle))
    assert fracas("verify", "--file", str(path), env={"PATH": "/usr/bin:/bin"}).returncode == 0
    roll = next(e for e in bundle["events"] if e["type"] == "die_rolled")
    roll["data"]["faces"] = [roll["data"]["faces"][0] % 6 + 1]
    roll["data"]["total"] = roll["data"]["faces"][0]
    path.write_text(json.dumps(bundle))
    tampered = fracas("verify", "--file", str(path))
    assert tampered.returncode == 1 and tampered.stdout.startswith("FAILED: ")


def test_verify_file_mistakes_are_one_line_and_exit_2(tmp_path: Path) -> None:
    missing = tmp_path / "missing.json"
    assert one_line_error(fracas("verify", "--file", str(missing))) == (
        f"fracas verify: cannot read {missing}: No such file or directory"
    )
    garbled = tmp_path / "garbled.json"
    garbled.write_text("{")
    assert f"{garbled} is not JSON" in one_line_error(fracas("verify", "--file", str(garbled)))
    other = tmp_path / "other.json"
    other.write_text(json.dumps([{"format": "fracas-audit/1"}]))
    assert "is not a Fracas audit bundle (fracas-audit/1 or fracas-audit/2)" in one_line_error(
        fracas("verify", "--file", str(other))
    )
    both = one_line_error(fracas("verify", str(uuid.uuid4()), "--file", str(other)))
    assert "not both" in both
    assert "give an ENCOUNTER or --file" in one_line_error(fracas("verify"))


def test_demo_export_audit_and_verify_from_the_command_line(
    servers: tuple[Instance, Instance], database_url: str, tmp_path: Path
) -> None:
    demo = fracas("demo", "--url", servers[0].base)
    assert demo.returncode == 0, demo.stderr
    encounter = demo_links(demo.stdout)["id"]
    env = on(database_url)  # the servers' database
    exported = fracas("export", encounter, "--format", "markdown", env=env)
    assert exported.returncode == 0 and "guard" in exported.stdout.lower()
    bbcode = fracas("export", encounter, "--format", "bbcode", env=env)
    assert "[b]" in bbcode.stdout
    no_roll = one_line_error(fracas("audit", encounter, "1", env=env))
    assert no_roll == f"fracas audit: no roll 1 in encounter {encounter}: it has no roll yet"
    french = fracas("export", encounter, "--format", "text", "--scope", "last_turn",
                    "--lang", "fr", env=env)  # fmt: skip
    assert french.returncode == 0 and "Où en est le combat :" in french.stdout, french.stderr
    bundle = fracas("export", encounter, "--format", "json", env=env)
    path = tmp_path / "b.json"
    path.write_text(bundle.stdout)
    assert json.loads(bundle.stdout)["format"] == "fracas-audit/2"
    checked = fracas("verify", "--file", str(path), env={"PATH": "/usr/bin:/bin"})
    assert checked.returncode == 3 and "open: 0 rolls" in checked.stdout  # not closed yet
    assert fracas("verify", encounter, env=env).returncode == 3
    assert one_line_error(fracas("export", encounter, "--format", "pdf")).startswith(
        "fracas export: argument --format: invalid choice: 'pdf'"
    )


def _options(p: argparse.ArgumentParser) -> list[tuple[str, argparse.Action]]:
    found = []
    for action in p._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                found += [(f"{name} {n}", a) for n, a in _options(sub)]
        else:
            found.append((action.dest, action))
    return found


def test_every_option_has_a_description_and_choices_are_listed() -> None:
    undescribed = [name for name, action in _options(parser()) if not action.help]
    assert undescribed == []
    demo = fracas("demo", "--help")
    assert "--ruleset {d100-tcs,d20-na,plain-d100,ranks-d100}" in demo.stdout
    export = fracas("export", "--help")
    assert "--format {json,markdown,bbcode,text}" in export.stdout
    assert "exit" in fracas("verify", "--help").stdout.lower()


def test_serve_runs_on_uvloop_and_httptools_and_says_so(database_url: str, tmp_path: Path) -> None:
    """Issue 26: the event loop and HTTP parser made for servers are the default; the
    standard ones stay a flag away (the suite runs on the defaults)."""
    log = tmp_path / "serve.log"
    inst = start_server(database_url, str(log))
    try:
        assert httpx.get(inst.base + "/healthz", timeout=10).status_code == 200
    finally:
        stop_server(inst)
    assert "loop: uvloop, HTTP parser: httptools\n" in log.read_text()
    other = tmp_path / "other.log"
    inst = start_server(database_url, str(other), options=["--loop", "asyncio", "--http", "h11"])
    try:
        assert httpx.get(inst.base + "/healthz", timeout=10).status_code == 200
    finally:
        stop_server(inst)
    assert "loop: asyncio, HTTP parser: h11\n" in other.read_text()
