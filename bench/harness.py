"""What the benchmarks share: a process harness, a small HTTP client, websocket watchers,
CPU and memory probes, Fracas HTTP helpers and the RESULTS.md section writer.

Imported by bench/live.py, bench/store.py and bench/capacity.py (run them as scripts:
`python bench/live.py`; this folder is then on sys.path). Every process started here is
recorded in STARTED, so a benchmark's `finally` (stop_all_started) ends them all, also on
error or Ctrl-C. Loopback only: servers bind 127.0.0.1 on free ports.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import platform
import re
import resource
import socket
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable, Coroutine, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

TICK = os.sysconf("SC_CLK_TCK")
STARTED: list[subprocess.Popen[bytes]] = []
VERSION_RE = re.compile(rb'"version":(\d+)')

# --- small helpers ---------------------------------------------------------------------


def percentile(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def ms(seconds: float) -> float:
    return round(seconds * 1000, 2)


def summary(samples: list[float]) -> dict[str, Any]:
    if not samples:
        return {"n": 0}
    return {
        "n": len(samples),
        "p50_ms": ms(percentile(samples, 0.50)),
        "p90_ms": ms(percentile(samples, 0.90)),
        "p99_ms": ms(percentile(samples, 0.99)),
        "max_ms": ms(max(samples)),
    }


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise RuntimeError(f"no VmRSS for {pid}")


def cpu_seconds(pid: int) -> float:
    """utime + stime of a process, in seconds (clock-tick resolution)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def machine() -> dict[str, str]:
    model = "unknown"
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    return {
        "nproc": str(os.cpu_count()),
        "cpu": model,
        "python": platform.python_version(),
        "kernel": platform.release(),
    }


def self_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


class CpuLedger:
    """Who used the machine's CPU between start() and stop(), as % of one core.

    Categories: this client, the servers under test (by pid), PostgreSQL (every process
    named postgres, so other users of that PostgreSQL count too), everything else (the
    machine's busy time from /proc/stat minus the three). Shows how noisy a phase was.
    """

    def __init__(self, servers: dict[str, int]) -> None:
        self.servers = servers
        self.t0 = 0.0
        self.busy0 = 0.0
        self.pg0 = 0.0
        self.me0 = 0.0
        self.srv0: dict[str, float] = {}

    @staticmethod
    def _busy() -> float:
        fields = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
        idle = fields[3] + (fields[4] if len(fields) > 4 else 0)
        return (sum(fields[:8]) - idle) / TICK

    @staticmethod
    def _postgres() -> float:
        total = 0.0
        for d in os.listdir("/proc"):
            if d.isdigit():
                with contextlib.suppress(OSError, ValueError, IndexError):
                    if Path(f"/proc/{d}/comm").read_text().strip() == "postgres":
                        total += cpu_seconds(int(d))
        return total

    def start(self) -> None:
        self.t0 = time.monotonic()
        self.busy0, self.pg0, self.me0 = self._busy(), self._postgres(), self_cpu()
        self.srv0 = {k: cpu_seconds(pid) for k, pid in self.servers.items()}

    def stop(self) -> dict[str, float]:
        wall = time.monotonic() - self.t0
        busy = self._busy() - self.busy0
        pg = max(0.0, self._postgres() - self.pg0)  # backends that ended are lost
        me = self_cpu() - self.me0
        srv = sum(cpu_seconds(pid) for pid in self.servers.values()) - sum(self.srv0.values())

        def pct(x: float) -> float:
            return round(100 * x / wall, 1)

        return {
            "client_pct": pct(me),
            "servers_pct": pct(srv),
            "postgres_pct": pct(pg),
            "other_pct": pct(max(0.0, busy - me - srv - pg)),
            "machine_pct": pct(busy),
            "seconds": round(wall, 1),
        }


# --- a small HTTP client ---------------------------------------------------------------


@dataclass
class Reply:
    status_code: int
    content: bytes

    @property
    def text(self) -> str:
        return self.content.decode("utf-8", "replace")

    def json(self) -> Any:
        return json.loads(self.content)

    def raise_for_status(self) -> None:
        if self.status_code >= 400:
            raise RuntimeError(f"HTTP {self.status_code}: {self.text[:300]}")


class Http:
    """HTTP/1.1 keep-alive over asyncio streams, for JSON calls on loopback.

    Used instead of httpx because httpx costs ~2 ms of client CPU per request, which on
    a 2-core machine is taken from the servers under test. At most `size` connections.
    """

    def __init__(self, base: str, timeout: float = 10, size: int = 256) -> None:
        hostport = base.split("://", 1)[1].rstrip("/")
        self.host, _, port = hostport.partition(":")
        self.port = int(port or 80)
        self.timeout = timeout
        self.idle: list[tuple[asyncio.StreamReader, asyncio.StreamWriter, float]] = []
        self.slots = asyncio.Semaphore(size)
        self.everyone: set[asyncio.StreamWriter] = set()

    async def __aenter__(self) -> Http:
        return self

    async def __aexit__(self, *exc: object) -> None:
        for w in list(self.everyone):
            w.close()
        self.everyone.clear()
        self.idle.clear()

    async def get(
        self, path: str, params: dict[str, Any] | None = None, headers: dict[str, str] | None = None
    ) -> Reply:
        if params:
            path += "?" + "&".join(f"{k}={v}" for k, v in params.items())
        return await self.request("GET", path, None, headers)

    async def post(
        self, path: str, json: Any = None, headers: dict[str, str] | None = None
    ) -> Reply:
        return await self.request("POST", path, json, headers)

    async def request(
        self, method: str, path: str, body: Any, headers: dict[str, str] | None
    ) -> Reply:
        async with self.slots:
            return await asyncio.wait_for(self._exchange(method, path, body, headers), self.timeout)

    async def _connection(self) -> tuple[asyncio.StreamReader, asyncio.StreamWriter, bool]:
        now = time.monotonic()
        while self.idle:
            reader, writer, since = self.idle.pop()
            if now - since < 2.0 and not writer.is_closing():  # uvicorn closes after 5 s
                return reader, writer, True
            writer.close()
            self.everyone.discard(writer)
        reader, writer = await asyncio.open_connection(self.host, self.port)
        self.everyone.add(writer)
        return reader, writer, False

    async def _exchange(
        self, method: str, path: str, body: Any, headers: dict[str, str] | None
    ) -> Reply:
        payload = b"" if body is None else json.dumps(body).encode()
        head = [
            f"{method} {path} HTTP/1.1",
            f"Host: {self.host}:{self.port}",
            f"Content-Length: {len(payload)}",
        ]
        if body is not None:
            head.append("Content-Type: application/json")
        head += [f"{k}: {v}" for k, v in (headers or {}).items()]
        request = ("\r\n".join(head) + "\r\n\r\n").encode() + payload
        for _attempt in range(2):  # a reused connection the server just closed: once more
            reader, writer, reused = await self._connection()
            keep = False
            try:
                writer.write(request)
                try:
                    raw = await reader.readuntil(b"\r\n\r\n")
                except (asyncio.IncompleteReadError, ConnectionError):
                    if reused:
                        continue
                    raise
                lines = raw.decode("latin-1").split("\r\n")
                status = int(lines[0].split(" ", 2)[1])
                fields = {
                    k.strip().lower(): v.strip()
                    for k, _, v in (x.partition(":") for x in lines[1:] if x)
                }
                if "content-length" not in fields:
                    raise RuntimeError(f"no Content-Length in the answer to {method} {path}")
                content = await reader.readexactly(int(fields["content-length"]))
                keep = fields.get("connection", "").lower() != "close"
                return Reply(status, content)
            finally:
                if keep:
                    self.idle.append((reader, writer, time.monotonic()))
                else:
                    writer.close()
                    self.everyone.discard(writer)
        raise RuntimeError(f"{method} {path}: the connection closed twice")


# --- processes -------------------------------------------------------------------------


@dataclass
class Proc:
    """A server process this script started."""

    name: str
    proc: subprocess.Popen[bytes]
    port: int
    log: Any

    @property
    def pid(self) -> int:
        return self.proc.pid

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws(self) -> str:
        return f"ws://127.0.0.1:{self.port}"


def spawn(name: str, argv: list[str], logdir: Path) -> Proc:
    port = free_port()
    log = open(logdir / f"{name}.log", "wb")  # noqa: SIM115 - closed in stop()
    env = {**os.environ, "PYTHONUNBUFFERED": "1", "PYTHONPATH": str(ROOT)}
    env.pop("DATABASE_URL", None)
    proc = subprocess.Popen(
        [*argv, "--port", str(port)], cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT
    )
    STARTED.append(proc)
    return Proc(name, proc, port, log)


async def wait_ready(p: Proc, probe: Callable[[], Awaitable[bool]], limit: float = 30) -> None:
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        if p.proc.poll() is not None:
            raise RuntimeError(f"{p.name} exited with {p.proc.returncode} (log {p.log.name})")
        with contextlib.suppress(Exception):
            if await probe():
                return
        await asyncio.sleep(0.1)
    raise RuntimeError(f"{p.name} not ready in {limit} s (log {p.log.name})")


async def start_fracas(url: str, name: str, logdir: Path, options: Sequence[str] = ()) -> Proc:
    """`fracas serve` on a free loopback port, with more command line `options`; ready once
    /healthz answers."""
    argv = [
        sys.executable,
        "-m",
        "server.cli.main",
        "serve",
        "--host",
        "127.0.0.1",
        "--database-url",
        url,
        *os.environ.get("FRACAS_BENCH_SERVE_ARGS", "").split(),  # e.g. "--loop asyncio"
        *options,
    ]
    p = spawn(name, argv, logdir)

    async def healthy() -> bool:
        async with Http(p.base, timeout=1) as c:
            return (await c.get("/healthz")).status_code == 200

    await wait_ready(p, healthy)
    return p


def stop(p: Proc | None) -> None:
    if p is None:
        return
    if p.proc.poll() is None:
        p.proc.terminate()
        try:
            p.proc.wait(10)
        except subprocess.TimeoutExpired:
            p.proc.kill()
            p.proc.wait(5)
    with contextlib.suppress(ValueError):
        STARTED.remove(p.proc)
    p.log.close()


def stop_all_started() -> None:
    for proc in list(STARTED):
        if proc.poll() is None:
            proc.terminate()
    for proc in list(STARTED):
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)
    STARTED.clear()


# --- watchers --------------------------------------------------------------------------


class Tally:
    """How many watchers got message `key`; wait() until all of them did."""

    def __init__(self, expected: int) -> None:
        self.expected = expected
        self.counts: dict[int, int] = {}
        self.events: dict[int, asyncio.Event] = {}

    def hit(self, key: int) -> None:
        n = self.counts.get(key, 0) + 1
        self.counts[key] = n
        if n >= self.expected and key in self.events:
            self.events[key].set()

    async def wait(self, key: int, timeout: float) -> bool:
        if self.counts.get(key, 0) >= self.expected:
            return True
        ev = self.events.setdefault(key, asyncio.Event())
        try:
            await asyncio.wait_for(ev.wait(), timeout)
        except TimeoutError:
            return False
        return True


@dataclass(eq=False)
class Watcher:
    """One client websocket: every receipt as (perf_counter, key); connected once the
    first message (the snapshot) is in."""

    uri: str
    keyed_by_version: bool  # Fracas: key = message version; bare: key = message index
    compression: str | None
    keep_last: bool = False
    got: list[tuple[float, int]] = field(default_factory=list)
    last: bytes = b""
    ws: Any = None
    connected: asyncio.Event = field(default_factory=asyncio.Event)
    failed: BaseException | None = None

    async def run(self, tally: Tally) -> None:
        from websockets.asyncio.client import connect

        try:
            self.ws = await connect(
                self.uri,
                open_timeout=30,
                ping_interval=None,
                close_timeout=2,
                compression=self.compression,
                max_size=2**24,
            )
        except Exception as e:  # counted, reported
            self.failed = e
            self.connected.set()
            return
        index = -1  # bare server: message 0 is the one sent on connect, then trigger 0, ...
        with contextlib.suppress(Exception):
            while True:
                raw = await self.ws.recv(decode=False)
                t = time.perf_counter()
                if self.keyed_by_version:
                    m = VERSION_RE.search(raw, 0, 64)
                    key = int(m.group(1)) if m else -1
                else:
                    key = index
                    index += 1
                self.connected.set()  # the snapshot (or first message) arrived
                self.got.append((t, key))
                if self.keep_last:
                    self.last = raw
                tally.hit(key)

    async def close(self) -> None:
        if self.ws is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.ws.close(), 5)


async def open_watchers(
    watchers: list[Watcher], tally: Tally, tasks: list[asyncio.Task[None]], batch: int = 100
) -> float:
    """Connect in batches (each waits for its snapshot); returns seconds taken."""
    started = time.perf_counter()
    for i in range(0, len(watchers), batch):
        group = watchers[i : i + batch]
        tasks.extend(asyncio.create_task(w.run(tally)) for w in group)
        await asyncio.wait_for(asyncio.gather(*(w.connected.wait() for w in group)), 60)
    failed = [w.failed for w in watchers if w.failed is not None]
    if failed:
        raise RuntimeError(f"{len(failed)} watchers failed to connect, e.g. {failed[0]!r}")
    return time.perf_counter() - started


async def close_watchers(watchers: list[Watcher], tasks: list[asyncio.Task[None]]) -> None:
    with contextlib.suppress(Exception):
        await asyncio.wait_for(asyncio.gather(*(w.close() for w in watchers)), 30)
    for t in tasks:
        t.cancel()
    with contextlib.suppress(Exception):
        await asyncio.wait_for(asyncio.gather(*tasks, return_exceptions=True), 10)
    tasks.clear()


# --- Fracas HTTP helpers ---------------------------------------------------------------

PRESETS = (("milicien", "watch"), ("fangeux", "wild"), ("milicien", "watch"), ("fangeux", "wild"))


async def new_encounter(http: Any, rolls: int = 0) -> dict[str, Any]:
    """A d20-na encounter with four combatants and `rolls` free rolls (log content)."""
    r = await http.post("/api/encounters", json={"ruleset": "d20-na", "name": "Live bench"})
    r.raise_for_status()
    made: dict[str, Any] = r.json()
    gm = made["gm_token"]
    for i, (preset, side) in enumerate(PRESETS):
        body = {"type": "add_combatant", "name": f"{preset}-{i}", "side": side, "preset": preset}
        await command(http, made["id"], gm, body)
    for i in range(rolls):
        await command(http, made["id"], gm, {"type": "roll", "expr": "1d20", "purpose": f"s{i}"})
    return made


async def command(http: Any, eid: str, token: str, body: dict[str, Any]) -> dict[str, Any]:
    r = await http.post(
        f"/api/encounters/{eid}/commands",
        json=body,
        headers={"Authorization": f"Bearer {token}"},
    )
    if r.status_code != 200:
        raise RuntimeError(f"command {body} refused: {r.status_code} {r.text[:300]}")
    answer: dict[str, Any] = r.json()
    return answer


def bench_command(i: int, tag: str, adjust_every: int) -> dict[str, Any]:
    key = f"{tag}{i}"
    if adjust_every and i % adjust_every == adjust_every - 1:
        delta = -1 if (i // adjust_every) % 2 == 0 else 1  # -1, +1, ...: hp stays in range
        return {
            "type": "adjust",
            "combatant": "c1",
            "resource": "hp",
            "delta": delta,
            "reason": key,
        }
    return {"type": "roll", "expr": "1d20", "purpose": key}


async def spectator_socket(ws_base: str, made: dict[str, Any]) -> Any:
    """A spectator websocket on `ws_base` to the encounter `made` (new_encounter's answer),
    its snapshot already read."""
    from websockets.asyncio.client import connect

    ws = await connect(
        f"{ws_base}/ws/encounters/{made['id']}?token={made['spectator_token']}",
        open_timeout=10,
        ping_interval=None,
        close_timeout=2,
    )
    await asyncio.wait_for(ws.recv(), 10)  # snapshot
    return ws


async def fire_paced(
    rate: float,
    seconds: float,
    send: Callable[[dict[str, Any], str], Coroutine[Any, Any, None]],
    cpu: CpuLedger,
) -> tuple[int, float]:
    """`send(bench_command(i), key)` open-loop at `rate`/s: one second of warm-up (keys
    w<i>, not counted), then `seconds` measured (m<i>), `cpu` started where they begin.
    Waits for every send; returns (commands fired, the firing span in seconds)."""
    warm = int(rate)
    total = warm + int(rate * seconds)
    tasks: list[asyncio.Task[None]] = []
    loop = asyncio.get_running_loop()
    t0 = loop.time() + 0.05
    for i in range(total):
        if i == warm:
            cpu.start()
        delay = t0 + i / rate - loop.time()
        if delay > 0:
            await asyncio.sleep(delay)
        tag = "w" if i < warm else "m"
        tasks.append(asyncio.create_task(send(bench_command(i, tag, 4), f"{tag}{i}")))
    span = loop.time() - t0
    await asyncio.wait_for(asyncio.gather(*tasks), 60)
    return total, span


# --- report ----------------------------------------------------------------------------


async def postgres_version(url: str) -> str:
    import asyncpg

    conn = await asyncpg.connect(url)
    try:
        return str(await conn.fetchval("SHOW server_version"))
    finally:
        await conn.close()


async def ensure_database(url: str) -> None:
    import asyncpg

    from server.store.db import url_with_database

    name = url.rsplit("/", 1)[1].split("?")[0]
    conn = await asyncpg.connect(url_with_database(url, "postgres"))
    try:
        if not await conn.fetchval("SELECT 1 FROM pg_database WHERE datname = $1", name):
            await conn.execute(f'CREATE DATABASE "{name}"')
    finally:
        await conn.close()


def verdict(ok: bool) -> str:
    return "**met**" if ok else "**missed**"


def shares(c: dict[str, Any]) -> str:
    return (
        f"client {c['client_pct']} %, server(s) {c['servers_pct']} %, PostgreSQL "
        f"{c['postgres_pct']} %, other processes {c['other_pct']} % of one core "
        f"(machine {c['machine_pct']} % of one core, 200 % = both; {c['seconds']} s)"
    )


def row(name: str, s: dict[str, Any]) -> str:
    return (
        f"| {name} | {s.get('p50_ms')} ms | {s.get('p90_ms')} ms | {s.get('p99_ms')} ms "
        f"| {s.get('max_ms')} ms |"
    )


def write_section(path: Path, text: str, section: str, end_mark: str) -> None:
    """Append our section; if an earlier run left one, replace only its generated part.

    The generated part runs from the section's heading to END_MARK; notes written by hand
    after the mark (and every other section of the file) are kept as they are.
    """
    old = path.read_text(encoding="utf-8") if path.exists() else ""
    text = text.rstrip("\n") + "\n\n" + end_mark + "\n"
    start = old.find(section + "\n")
    end = old.find(end_mark, start) if start >= 0 else -1
    if start < 0 or end < 0:
        sep = "\n" if old.endswith("\n") else ("\n\n" if old else "")
        sep = "" if not old or old.endswith("\n\n") else sep
        path.write_text(old + sep + text, encoding="utf-8")
        return
    path.write_text(old[:start] + text + old[end + len(end_mark) + 1 :], encoding="utf-8")
