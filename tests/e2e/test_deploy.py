"""The deploy files run, checked the way this machine allows (no Docker here).

The image's user, data directory and command are read from deploy/Dockerfile and run
outside Docker: a uid-10001 user (added if root and missing) owning a fresh data
directory in the image's mode starts `fracas serve` with the embedded PostgreSQL (no
DATABASE_URL, the image's default) and answers /healthz. The systemd unit creates its
state directory and scores at most 4.0 in `systemd-analyze security`; compose and nginx
agree on forwarded addresses.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import sysconfig
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import yaml  # type: ignore[import-untyped]

from tests.e2e.conftest import free_port

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"


def _dockerfile() -> dict[str, str]:
    text = (DEPLOY / "Dockerfile").read_text()
    joined = re.sub(r"\\\n\s*", " ", text)  # continuation lines as one instruction
    found: dict[str, str] = {}
    for line in joined.splitlines():
        word, _, rest = line.strip().partition(" ")
        if word in ("USER", "CMD", "ENV", "RUN", "VOLUME"):
            found[word] = (found.get(word, "") + " " + rest).strip()
    return found


def test_the_image_makes_its_data_directory_and_runs_as_uid_10001() -> None:
    image = _dockerfile()
    assert image["USER"] == "10001:10001"
    assert image["ENV"] == "FRACAS_HOME=/var/lib/fracas"
    assert "install -d -o 10001 -g 10001 -m 0700 /var/lib/fracas" in image["RUN"]
    assert "useradd --system --uid 10001" in image["RUN"]
    assert json.loads(image["VOLUME"]) == ["/var/lib/fracas"]


def _user() -> tuple[int, int]:
    """uid and gid 10001, adding a `fracas-deploy-test` user when root and none exists."""
    try:
        import pwd

        entry = pwd.getpwuid(10001)
        return entry.pw_uid, entry.pw_gid
    except KeyError:
        pass
    if os.getuid() != 0:
        pytest.skip("no uid 10001 here and not root to add one")
    subprocess.run(
        ["useradd", "--system", "--uid", "10001", "--user-group", "--no-create-home",
         "--shell", "/usr/sbin/nologin", "fracas-deploy-test"],
        check=True, capture_output=True, timeout=30,
    )  # fmt: skip
    return 10001, 10001


# The `fracas` console script, run by an interpreter the image's user can execute: the
# project's venv links to one that may sit under root's home (mode 0700), so then the
# system's Python of the same version loads the venv's packages (`site.addsitedir`).
_SCRIPT = (
    "import site, sys; site.addsitedir(sys.argv.pop(1)); sys.path.insert(0, sys.argv.pop(1));"
    " sys.argv[0] = 'fracas'; from server.cli.main import main; sys.exit(main())"
)


def _fracas(uid: int) -> list[str]:
    venv_python = Path(sys.executable).resolve()
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    candidates = [venv_python, Path("/usr/bin") / version, Path("/usr/local/bin") / version]
    for python in candidates:
        if python.is_file() and _reachable(python):
            sites = sysconfig.get_paths()["purelib"]
            return [str(python), "-c", _SCRIPT, sites, str(ROOT)]
    pytest.skip(f"no {version} the uid {uid} can run")


def _reachable(path: Path) -> bool:
    """Every folder above `path` lets others through, and others may execute it."""
    return all(p.stat().st_mode & 0o001 for p in [path, *path.parents])


@pytest.fixture
def data_dir() -> Iterator[Path]:
    """The image's /var/lib/fracas, made as its RUN line makes it, in a temporary place."""
    uid, gid = _user()
    parent = Path(tempfile.mkdtemp(prefix="fracas-deploy-"))
    parent.chmod(0o755)  # the uid must reach its directory; nothing else is in here
    home = parent / "var-lib-fracas"
    subprocess.run(["install", "-d", "-o", str(uid), "-g", str(gid), "-m", "0700", str(home)],
                   check=True, timeout=30)  # fmt: skip
    yield home
    shutil.rmtree(parent, ignore_errors=True)


def test_the_image_command_starts_as_its_user_with_the_embedded_default(data_dir: Path) -> None:
    uid, gid = _user()
    if os.getuid() not in (0, uid):
        pytest.skip("running as another user needs root")
    command = json.loads(_dockerfile()["CMD"])
    assert command[:2] == ["fracas", "serve"] and command[-4:] == [
        "--host",
        "0.0.0.0",
        "--port",
        "8000",
    ]
    port = free_port()
    argv = [*_fracas(uid), *command[1:-4], "--host", "127.0.0.1", "--port", str(port)]
    # A container's own /tmp (the embedded PostgreSQL keeps a lock file there); no
    # DATABASE_URL: the image's embedded default.
    tmp = data_dir.parent / "tmp"
    subprocess.run(["install", "-d", "-o", str(uid), "-g", str(gid), "-m", "0700", str(tmp)],
                   check=True, timeout=30)  # fmt: skip
    env = {"PATH": "/usr/bin:/bin", "FRACAS_HOME": str(data_dir), "HOME": str(data_dir),
           "TMPDIR": str(tmp), "PYTHONUNBUFFERED": "1"}  # fmt: skip
    log = data_dir.parent / "server.log"
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            argv, env=env, user=uid, group=gid, extra_groups=[], stdout=out,
            stderr=subprocess.STDOUT, start_new_session=True,
        )  # fmt: skip
    try:
        deadline = time.monotonic() + 90
        status = None
        while time.monotonic() < deadline and proc.poll() is None:
            try:
                status = httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=2).status_code
            except httpx.HTTPError:
                status = None
            if status == 200:
                break
            time.sleep(0.5)
        assert status == 200, log.read_text()[-3000:]
        made = httpx.post(f"http://127.0.0.1:{port}/api/encounters",
                          json={"ruleset": "plain-d100", "name": "Image"}, timeout=10)  # fmt: skip
        assert made.status_code == 201, made.text
        owners = {p.stat().st_uid for p in data_dir.rglob("*")}
        assert owners == {uid}, owners  # everything the server wrote is the image user's
        assert (data_dir / "pgdata").is_dir()
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(timeout=10)


def test_the_systemd_unit_makes_its_state_directory_and_is_hardened(tmp_path: Path) -> None:
    unit = (DEPLOY / "fracas@.service").read_text()
    settings = dict(
        line.split("=", 1) for line in unit.splitlines() if "=" in line and not line.startswith("#")
    )
    assert (
        settings["StateDirectory"] == "fracas"
        and settings["Environment"] == "FRACAS_HOME=/var/lib/fracas"
    )
    assert "ReadWritePaths" not in settings  # the state directory is the one writable path
    if shutil.which("systemd-analyze") is None:
        pytest.skip("systemd-analyze is not installed")
    (tmp_path / "fracas@8001.service").write_text(unit)
    run = subprocess.run(
        ["systemd-analyze", "security", "--offline=true", "--threshold=40", "--no-pager",
         str(tmp_path / "fracas@8001.service")],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    score = re.search(r"Overall exposure level for \S+: (\d+\.\d) (\w+)", run.stdout)
    assert score, run.stdout[-2000:] + run.stderr
    assert float(score[1]) <= 4.0 and score[2] == "OK", score[0]
    assert run.returncode == 0


def test_compose_trusts_the_forwarded_address_of_its_proxy_alone() -> None:
    compose = yaml.safe_load((DEPLOY / "compose.yaml").read_text())
    services = compose["services"]
    proxy = services["proxy"]["networks"]["fracas"]["ipv4_address"]
    instances = [s for name, s in services.items() if name.startswith("fracas")]
    assert len(instances) == 3
    for service in instances:
        assert service["environment"]["FORWARDED_ALLOW_IPS"] == proxy
        assert "ports" not in service  # reached through the proxy only
    nginx = (DEPLOY / "nginx.conf").read_text()
    assert "proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;" in nginx
    readme = (ROOT / "docs" / "operating.md").read_text()  # the README points there
    assert "does not set it" not in readme
    assert "FORWARDED_ALLOW_IPS" in readme and "deploy/compose.yaml" in readme
