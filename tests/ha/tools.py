"""Real processes for the operators' tests: throwaway PostgreSQL clusters on their own
ports (never the machine's server), and a TCP proxy that can freeze like a stopped host."""

from __future__ import annotations

import asyncio
import os
import shutil
import socket
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

PG_BIN = Path("/usr/lib/postgresql/15/bin")


def multi_host(url: str, *hosts: str, attrs: str | None = "read-write") -> str:
    """`url` with its host:port replaced by `hosts` (host:port each), and
    target_session_attrs=`attrs` unless None."""
    scheme, _, rest = url.partition("://")
    netloc, _, path = rest.partition("/")
    user = netloc.rpartition("@")[0]
    out = f"{scheme}://{user}@{','.join(hosts)}/{path}"
    if attrs:
        out += ("&" if "?" in path else "?") + f"target_session_attrs={attrs}"
    return out


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def as_postgres(cmd: list[str]) -> list[str]:
    """PostgreSQL refuses to run as root: as root, run it as the `postgres` user."""
    return ["runuser", "-u", "postgres", "--", *cmd] if os.geteuid() == 0 else cmd


def have_postgres_binaries() -> bool:
    return (PG_BIN / "initdb").exists() and (os.geteuid() != 0 or bool(shutil.which("runuser")))


def scratch(prefix: str) -> Path:
    """A folder outside pytest's (which is 0700 root): the postgres user writes in it."""
    path = Path(tempfile.mkdtemp(prefix=prefix))
    path.chmod(0o777)
    if os.geteuid() == 0:
        shutil.chown(path, "postgres", "postgres")
    return path


class Cluster:
    """A throwaway PostgreSQL 15 cluster on 127.0.0.1:`port`, trust auth, no fsync."""

    def __init__(self, root: Path, conf: dict[str, str] | None = None) -> None:
        self.root = root
        self.data = root / "data"
        self.port = free_port()
        self.conf = conf or {}

    @property
    def url(self) -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/postgres"

    def url_of(self, database: str) -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/{database}"

    def sql(self, statement: str, database: str = "postgres") -> str:
        """Run one statement with psql as the superuser; its unaligned output."""
        done = subprocess.run(
            [str(PG_BIN / "psql"), "-X", "-q", "-At", "-v", "ON_ERROR_STOP=1", "-h",
             "127.0.0.1", "-p", str(self.port), "-U", "postgres", "-d", database, "-c",
             statement],
            capture_output=True, text=True, timeout=60,
            env={**os.environ, "PGOPTIONS": "-c default_transaction_read_only=off"},
        )  # fmt: skip
        if done.returncode != 0:
            raise RuntimeError(f"psql failed: {done.stderr.strip()}")
        return done.stdout.strip()

    def init(self) -> Cluster:
        subprocess.run(
            as_postgres([str(PG_BIN / "initdb"), "-D", str(self.data), "-U", "postgres",
                         "--auth=trust", "-E", "UTF8", "--no-instructions"]),
            check=True, capture_output=True, timeout=120,
        )  # fmt: skip
        settings = {
            "port": str(self.port),
            "listen_addresses": "'127.0.0.1'",
            "unix_socket_directories": f"'{self.root}'",
            "fsync": "off",
            "shared_buffers": "'32MB'",
            "max_connections": "60",
            **self.conf,
        }
        with (self.data / "postgresql.conf").open("a") as f:
            f.writelines(f"{k} = {v}\n" for k, v in settings.items())
        return self

    def start(self) -> Cluster:
        subprocess.run(
            as_postgres([str(PG_BIN / "pg_ctl"), "-D", str(self.data), "-l",
                         str(self.root / "log"), "-w", "-t", "60", "start"]),
            check=True, capture_output=True, timeout=90,
        )  # fmt: skip
        return self

    def stop(self) -> None:
        subprocess.run(
            as_postgres([str(PG_BIN / "pg_ctl"), "-D", str(self.data), "-m", "immediate",
                         "-w", "stop"]),
            capture_output=True, timeout=60,
        )  # fmt: skip

    def remove(self) -> None:
        self.stop()
        shutil.rmtree(self.root, ignore_errors=True)


class Proxy:
    """A TCP proxy to host:port on 127.0.0.1:`port`, in a thread of its own.

    `freeze()` makes it behave like a host whose PostgreSQL was SIGSTOPped: connections
    are still accepted, and nothing passes either way until `thaw()`.
    """

    def __init__(self, host: str, port: int, *, frozen: bool = False) -> None:
        self.target = (host, port)
        self.port = free_port()
        self._loop = asyncio.new_event_loop()
        self._running = asyncio.Event()
        if not frozen:
            self._running.set()
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._writers: set[asyncio.StreamWriter] = set()
        self._server: asyncio.Server | None = None
        self._thread.start()
        if not self._ready.wait(10):
            raise RuntimeError("the proxy did not start")

    def freeze(self) -> None:
        self._loop.call_soon_threadsafe(self._running.clear)

    def thaw(self) -> None:
        self._loop.call_soon_threadsafe(self._running.set)

    def close(self) -> None:
        async def stop() -> None:
            if self._server is not None:
                self._server.close()
            for w in list(self._writers):
                w.transport.abort()
            tasks = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
            for t in tasks:
                t.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            await asyncio.sleep(0.01)  # let the aborted transports close their sockets
            if self._server is not None:
                await self._server.wait_closed()

        asyncio.run_coroutine_threadsafe(stop(), self._loop).result(10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)
        self._loop.close()

    def _serve(self) -> None:
        asyncio.set_event_loop(self._loop)

        async def start() -> None:
            self._server = await asyncio.start_server(self._client, "127.0.0.1", self.port)
            self._ready.set()

        self._loop.run_until_complete(start())
        self._loop.run_forever()

    async def _client(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        ends = [writer]
        self._writers.add(writer)
        try:
            up_reader, up_writer = await asyncio.open_connection(*self.target)
            ends.append(up_writer)
            self._writers.add(up_writer)
            await asyncio.gather(
                self._pipe(reader, up_writer),
                self._pipe(up_reader, writer),
                return_exceptions=True,
            )
        except (OSError, asyncio.CancelledError):
            pass
        finally:
            for w in ends:
                w.transport.abort()
                self._writers.discard(w)

    async def _pipe(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        while True:
            await self._running.wait()
            data = await reader.read(65536)
            if not data:
                writer.transport.abort()
                return
            await self._running.wait()  # frozen meanwhile: hold what was read
            writer.write(data)
            await writer.drain()


def wait_until(cond: Callable[[], object], what: str, bound: float = 30.0) -> None:
    deadline = time.monotonic() + bound
    while not cond():
        if time.monotonic() > deadline:
            raise AssertionError(f"gave up waiting for {what}")
        time.sleep(0.05)


class Bouncer:
    """A throwaway PgBouncer in transaction mode in front of `cluster`'s `database`."""

    def __init__(
        self,
        root: Path,
        cluster: Cluster,
        database: str,
        pool_size: int = 10,
        users: tuple[str, ...] = ("postgres",),
    ) -> None:
        self.root = root
        self.port = free_port()
        (root / "users.txt").write_text("".join(f'"{u}" ""\n' for u in users))
        (root / "pgbouncer.ini").write_text(
            f"[databases]\n{database} = host=127.0.0.1 port={cluster.port} dbname={database}\n"
            "[pgbouncer]\n"
            f"listen_addr = 127.0.0.1\nlisten_port = {self.port}\nunix_socket_dir =\n"
            f"auth_type = trust\nauth_file = {root / 'users.txt'}\n"
            "pool_mode = transaction\nmax_client_conn = 500\n"
            f"default_pool_size = {pool_size}\n"
            f"logfile = {root / 'pgbouncer.log'}\npidfile = {root / 'pgbouncer.pid'}\n"
        )
        for name in ("users.txt", "pgbouncer.ini"):
            (root / name).chmod(0o644)
        self.database = database
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/{self.database}"

    def start(self) -> Bouncer:
        binary = shutil.which("pgbouncer") or "/usr/sbin/pgbouncer"
        self.proc = subprocess.Popen(
            as_postgres([binary, str(self.root / "pgbouncer.ini")]),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 20
        while True:
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", self.port)) == 0:
                    return self
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"pgbouncer did not start: {self.log()}")
            time.sleep(0.05)

    def log(self) -> str:
        path = self.root / "pgbouncer.log"
        return path.read_text(errors="replace") if path.exists() else ""

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
