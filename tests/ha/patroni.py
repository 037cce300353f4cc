"""etcd and two PostgreSQL nodes under Patroni, on this machine, from deploy/patroni/."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import string
import subprocess
import time
import urllib.request
from pathlib import Path

from tests.ha.tools import PG_BIN, as_postgres, free_port

RECIPE = Path(__file__).resolve().parents[2] / "deploy" / "patroni" / "patroni.yml"


def have_patroni() -> str | None:
    """None if Patroni, etcd and PostgreSQL are here, else what is missing."""
    missing = [b for b in ("patroni", "etcd") if shutil.which(b) is None]
    if not (PG_BIN / "postgres").exists():
        missing.append("PostgreSQL 15 server binaries")
    return ", ".join(missing) or None


def get_json(url: str, timeout: float = 2.0) -> object:
    with urllib.request.urlopen(url, timeout=timeout) as r:
        return json.loads(r.read())


def status_of(url: str) -> int:
    try:
        with urllib.request.urlopen(url, timeout=2) as r:
            return int(r.status)
    except urllib.error.HTTPError as e:
        return int(e.code)
    except OSError:
        return 0


def descendants(pid: int) -> list[int]:
    """`pid` and every process below it (from /proc)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        ppid = int(stat.rpartition(")")[2].split()[1])
        children.setdefault(ppid, []).append(int(entry.name))
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        todo.extend(children.get(p, []))
    return out


class Etcd:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.client = free_port()
        self.peer = free_port()
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def hosts(self) -> str:
        return f"127.0.0.1:{self.client}"

    def start(self) -> Etcd:
        peer = f"http://127.0.0.1:{self.peer}"
        client = f"http://127.0.0.1:{self.client}"
        self._log = open(self.root / "etcd.log", "ab")  # noqa: SIM115 - closed in stop
        self.proc = subprocess.Popen(
            ["etcd", "--name", "e1", "--data-dir", str(self.root / "etcd"),
             "--listen-client-urls", client, "--advertise-client-urls", client,
             "--listen-peer-urls", peer, "--initial-advertise-peer-urls", peer,
             "--initial-cluster", f"e1={peer}", "--initial-cluster-state", "new"],
            stdout=self._log, stderr=subprocess.STDOUT,
        )  # fmt: skip
        deadline = time.monotonic() + 30
        while status_of(f"{client}/health") != 200:
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("etcd did not start")
            time.sleep(0.1)
        return self

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        self._log.close()


class Node:
    """One Patroni node (and the PostgreSQL it runs) from the recipe."""

    def __init__(self, root: Path, name: str, etcd: Etcd) -> None:
        self.root = root
        self.name = name
        self.pg_port = free_port()
        self.rest_port = free_port()
        self.data = root / f"{name}-data"
        config = string.Template(RECIPE.read_text()).substitute(
            name=name,
            host="127.0.0.1",
            restapi_port=self.rest_port,
            etcd=etcd.hosts,
            pg_port=self.pg_port,
            data_dir=self.data,
            bin_dir=PG_BIN,
            socket_dir=root,
        )
        self.config = root / f"{name}.yml"
        self.config.write_text(config)
        self.config.chmod(0o644)
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def rest(self) -> str:
        return f"http://127.0.0.1:{self.rest_port}"

    def start(self) -> Node:
        self._log = open(self.root / f"{self.name}.log", "ab")  # noqa: SIM115 - closed in kill
        self.proc = subprocess.Popen(
            as_postgres(["patroni", str(self.config)]),
            stdout=self._log,
            stderr=subprocess.STDOUT,
            cwd=self.root,
        )
        return self

    def processes(self) -> list[int]:
        """Patroni's processes and its PostgreSQL's (postmaster and every backend)."""
        pids = descendants(self.proc.pid) if self.proc is not None else []
        pidfile = self.data / "postmaster.pid"
        if pidfile.exists():
            postmaster = int(pidfile.read_text().split()[0])
            pids += [p for p in descendants(postmaster) if p not in pids]
        return pids

    def signal(self, sig: signal.Signals) -> None:
        for pid in self.processes():
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, sig)

    def role(self) -> str:
        """'primary', 'replica' or '' (from Patroni's REST API; 3.0 says 'master')."""
        try:
            state = get_json(f"{self.rest}/patroni")
        except (OSError, ValueError):
            return ""
        role = str(state.get("role", "")) if isinstance(state, dict) else ""
        return "primary" if role == "master" else role

    def kill(self) -> None:
        """SIGKILL every process of the node (a SIGSTOPped one too)."""
        self.signal(signal.SIGKILL)
        if self.proc is not None:
            self.proc.wait(10)
            self._log.close()

    def sql(self, statement: str, database: str = "postgres") -> str:
        done = subprocess.run(
            [str(PG_BIN / "psql"), "-X", "-q", "-At", "-v", "ON_ERROR_STOP=1", "-h",
             "127.0.0.1", "-p", str(self.pg_port), "-U", "postgres", "-d", database, "-c",
             statement],
            capture_output=True, text=True, timeout=30,
        )  # fmt: skip
        if done.returncode != 0:
            raise RuntimeError(f"psql failed: {done.stderr.strip()}")
        return done.stdout.strip()


def sync_standby_of(leader: Node) -> str | None:
    """The member Patroni made the synchronous standby, if any."""
    try:
        cluster = get_json(f"{leader.rest}/cluster")
    except (OSError, ValueError):
        return None
    members = cluster.get("members", []) if isinstance(cluster, dict) else []
    for m in members:
        if m.get("role") == "sync_standby" and m.get("state") in ("running", "streaming"):
            return str(m["name"])
    return None
