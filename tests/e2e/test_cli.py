"""The command line: serve on the embedded default, demo, export, audit, verify."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx

from tests.e2e.conftest import free_port


def fracas(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "server.cli", *args],
        capture_output=True, text=True, timeout=120, env=env,
    )


def test_serve_with_no_database_configured_starts_embedded_and_keeps_its_data(
    tmp_path: Path,
) -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "TEST_DATABASE_URL")}
    env["FRACAS_HOME"] = str(tmp_path / "home")
    port = free_port()
    base = f"http://127.0.0.1:{port}"

    def serve() -> subprocess.Popen[bytes]:
        proc = subprocess.Popen(
            [sys.executable, "-m", "server.cli", "serve", "--port", str(port)],
            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
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
        made = httpx.post(base + "/api/encounters",
                          json={"ruleset": "plain-d100", "name": "Kept"}).json()
    finally:
        stop(first)
    second = serve()
    try:
        board = httpx.get(f"{base}/api/encounters/{made['id']}").json()
        assert board["encounter"]["name"] == "Kept"
    finally:
        stop(second)


def test_demo_export_audit_and_verify_from_the_command_line(
    database_url: str, tmp_path: Path
) -> None:
    env = {**os.environ, "DATABASE_URL": database_url}
    demo = fracas("demo", env=env)
    assert demo.returncode == 0, demo.stderr
    eid = re.search(r"encounter ([0-9a-f-]{36})", demo.stdout)
    assert eid is not None and demo.stdout.count("player (") == 2
    encounter = eid.group(1)
    gm = re.search(r"GM console:\s+\S+#token=(\S+)", demo.stdout)
    assert gm is not None
    exported = fracas("export", encounter, "--format", "markdown", env=env)
    assert exported.returncode == 0 and "guard" in exported.stdout.lower()
    bbcode = fracas("export", encounter, "--format", "bbcode", env=env)
    assert "[b]" in bbcode.stdout
    french = fracas("export", encounter, "--format", "text", "--scope", "last_turn",
                    "--lang", "fr", env=env)  # fmt: skip
    assert french.returncode == 0 and "Où en est le combat :" in french.stdout, french.stderr
    assert fracas("audit", encounter, "1", env=env).returncode == 1  # no roll yet
    bundle = fracas("export", encounter, "--format", "json", env=env)
    path = tmp_path / "b.json"
    path.write_text(bundle.stdout)
    assert json.loads(bundle.stdout)["format"] == "fracas-audit/1"
    checked = fracas("verify", "--file", str(path), env={"PATH": "/usr/bin:/bin"})
    assert checked.returncode == 0, checked.stdout
    assert fracas("verify", encounter, env=env).returncode == 0
