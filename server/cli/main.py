"""The `fracas` command line (CONTRACT section 2)."""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import sys
import uuid
from pathlib import Path
from typing import Any, NoReturn

from domain.rules import REGISTRY
from domain.verify import BUNDLE_FORMATS, verify, verify_bundle
from projections import audit as auditing
from projections import export as exporting
from projections.words.resolver import LANGS
from server.bootstrap import (
    UserError,
    check_reachable,
    configured_url,
    data_location,
    db_settings,
    fracas_home,
    migrate,
    with_service,
)
from server.cli.demo import demo, server_url
from server.cli.resolver import (
    count_fights,
    count_jobs,
    simulate_cmd,
)
from server.services.resolver import SIMULATE_RULESETS


def _database_flags(sp: argparse.ArgumentParser) -> None:
    """`fracas serve`'s database settings (server/store/settings.py; docs/operating.md's table)."""
    g = sp.add_argument_group("database (each flag also as its FRACAS_* variable)")
    count: dict[str, Any] = {"type": int, "metavar": "N"}
    secs: dict[str, Any] = {"type": seconds, "metavar": "SECONDS"}
    g.add_argument("--pool-min", **count, help="pooled connections kept open (default 1)")
    g.add_argument("--pool-max", **count, help="pooled connections at most (default 10)")
    g.add_argument("--pool-idle", **secs, help="close an idle pooled connection after (30)")
    g.add_argument("--statement-cache-size", **count,
                   help="prepared statements kept per connection (default 100; 0 behind"
                   " PgBouncer in transaction mode)")  # fmt: skip
    g.add_argument("--connect-timeout", **secs, help="per host of the URL (default 3)")
    g.add_argument("--command-timeout", **secs, help="per statement, COMMIT included (10)")
    g.add_argument("--acquire-timeout", **secs, help="waiting for a pooled connection (10)")
    g.add_argument("--application-name", metavar="NAME", help="pg_stat_activity's (fracas)")
    g.add_argument("--listen-url", metavar="URL",
                   help="a direct URL for the LISTEN connections (default: the database"
                   " URL; behind a transaction pooler: the database itself)")  # fmt: skip
    g.add_argument("--app-role", metavar="ROLE",
                   help="SET ROLE after connecting (default fracas_app; '' keeps the URL"
                   " user's rights)")  # fmt: skip


def serve(args: argparse.Namespace) -> int:
    import uvicorn

    from server.app import create_app
    from server.cli.logs import log_config
    from server.http.connections import BodyDeadline, http_protocol
    from server.http.headers import SecurityHeaders
    from server.live.encounter import CLIENT_FRAME_LIMIT
    from server.live.transport import protocol

    settings = db_settings(vars(args))
    _announce(args, settings)
    app = create_app(args.database_url, fracas_home(), args.create_rate, settings, args.clock_file)
    # Connection limits (server/http/connections.py): headers and bodies must arrive in
    # time (408), idle keep-alive connections close, and past the cap a new connection is
    # answered 503 at once.
    # Security headers around everything, so that the 500/503 answers starlette's
    # outermost error middleware writes carry them too (create_app adds them inside).
    served = SecurityHeaders(BodyDeadline(app, args.body_timeout))
    # A cold load allocates ~100k short-lived objects per 10,000 events; the default
    # young-generation threshold (700) runs the collector hundreds of times over them.
    # A larger one took a cold 10,000-event fold from ~120 ms to under 100 ms.
    gc.set_threshold(100_000, 20, 100)
    # No permessage-deflate: it would compress the same update once per watcher (~230 us
    # and ~256 KiB of zlib state each), undoing "encode once per role" (bench/RESULTS.md).
    # A client only ever sends a ping: a bigger frame closes 1009 before it is buffered.
    uvicorn.run(
        served,
        host=args.host,
        port=args.port,
        http=http_protocol(args.header_timeout, args.max_connections, args.http),
        loop=args.loop,
        access_log=args.access_log,
        timeout_keep_alive=max(1, round(args.keep_alive_timeout)),  # uvicorn takes whole s
        # the websockets library's Sans-I/O protocol, resetting clients that stop reading
        ws=protocol(args.ws_send_timeout, args.ws_backlog),
        ws_max_size=CLIENT_FRAME_LIMIT,
        ws_per_message_deflate=False,
        log_level="info",
        log_config=log_config(),  # uvicorn's, with tokens redacted (server/cli/logs.py)
    )
    return 0


def _announce(args: argparse.Namespace, settings: Any) -> None:
    """Say where the server answers and where its data lives; fail early on a bad database."""
    url = configured_url(args.database_url)
    if url is not None:
        asyncio.run(check_reachable(url, settings))
    print(f"Fracas on http://{args.host}:{args.port}/", flush=True)
    print(f"data: {data_location(args.database_url)}", flush=True)
    print(f"loop: {args.loop}, HTTP parser: {args.http}", flush=True)


def migrate_cmd(args: argparse.Namespace) -> int:
    print(asyncio.run(migrate(args.database_url)))
    return 0


def encounter_id(raw: str) -> str:
    """The canonical lower-case uuid of an encounter given on the command line."""
    try:
        return str(uuid.UUID(raw))
    except ValueError:
        raise UserError(f"no encounter {raw!r}: an encounter id is a uuid") from None


async def _envelopes(svc: Any, eid: str) -> list[dict[str, Any]]:
    envs: list[dict[str, Any]] = await svc.envelopes(eid)
    if not envs:
        raise UserError(f"no encounter {eid} in this database")
    return envs


def export(args: argparse.Namespace) -> int:
    eid = encounter_id(args.encounter)

    async def work(svc: Any) -> int:
        envs = await _envelopes(svc, eid)
        if args.format == "json":
            print(json.dumps(exporting.bundle(eid, envs), ensure_ascii=False, indent=1))
        else:
            # The CLI is the GM's, whose export still leaves hidden rolls out unless asked.
            page = exporting.render(
                envs, "gm", args.format, lang=args.lang, scope=args.scope,
                include_hidden=args.include_hidden, base=args.base_url,
            )  # fmt: skip
            print(page, end="")
        return 0

    return asyncio.run(with_service(args.database_url, work))


def _sealed_seeds(events: list[Any]) -> int:
    """How many committed seeds are not revealed yet (an open encounter has some)."""
    sealed: set[Any] = set()
    for e in events:
        data = e.get("data") if isinstance(e, dict) else None
        if not isinstance(data, dict):
            continue
        if e.get("type") == "seed_committed":
            sealed.add(data.get("seed_id"))
        elif e.get("type") == "seed_revealed":
            sealed.discard(data.get("seed_id"))
    return len(sealed)


def _print_report(report: Any, events: list[Any], as_json: bool) -> int:
    """Exit 0: all revealed and all holds; 1: something fails; 3: holds so far, still open."""
    ok = bool(report["chain"]) and bool(report["dice"])
    # Rolls of a sealed seed cannot be recomputed yet, and a sealed seed may still roll.
    still_open = ok and (report["unrevealed"] > 0 or _sealed_seeds(events) > 0)
    code = 0 if ok and not still_open else 3 if ok else 1
    if as_json:
        print(json.dumps({**report, "open": still_open}, indent=1))
        return code
    if not ok:
        problems = report["problems"] or [report["first_problem"]]
        print(f"FAILED: {problems[0]}")
        for problem in problems[1:]:
            print(f"  and: {problem}")
        return code
    checked, manual = report["rolls_checked"], report["manual"]
    if checked:
        dice = f"{_rolls(checked)} recomputed from revealed seeds, all match"
    else:
        dice = "no revealed roll to recompute"
    if manual:
        dice += f"; {_rolls(manual)} entered by hand (not recomputable)"
    print(f"chain: holds ({len(events)} events)")
    print(f"dice: {dice}")
    read = f"bundle {report['format']}, " if "format" in report else ""
    print(f"read: {read}entropy joined by {report['entropy_join']}")
    if still_open:
        print(
            f"open: {_rolls(report['unrevealed'])} not yet revealed"
            " (the encounter's seeds are revealed when it closes: verify again then)"
        )
    else:
        print("verified")
    return code


def _rolls(n: int) -> str:
    return f"{n} roll" if n == 1 else f"{n} rolls"


def _read_bundle(name: str) -> dict[str, Any]:
    try:
        bundle = json.loads(Path(name).read_text(encoding="utf-8"))
    except OSError as e:
        raise UserError(f"cannot read {name}: {e.strerror or e}") from None
    except ValueError as e:
        raise UserError(f"{name} is not JSON: {e}") from None
    if not isinstance(bundle, dict) or bundle.get("format") not in BUNDLE_FORMATS:
        raise UserError(
            f"{name} is not a Fracas audit bundle ({' or '.join(BUNDLE_FORMATS)}):"
            " `fracas export ENCOUNTER --format json` writes one"
        )
    return bundle


def verify_cmd(args: argparse.Namespace) -> int:
    if args.file and args.encounter:
        raise UserError("give an ENCOUNTER or --file BUNDLE.json, not both")
    if args.file:
        bundle = _read_bundle(args.file)
        events = bundle.get("events")
        return _print_report(
            verify_bundle(bundle), events if isinstance(events, list) else [], args.json
        )
    if not args.encounter:
        raise UserError("give an ENCOUNTER or --file BUNDLE.json")
    eid = encounter_id(args.encounter)

    async def work(svc: Any) -> int:
        envs = await _envelopes(svc, eid)
        return _print_report(verify(envs, eid), envs, args.json)

    return asyncio.run(with_service(args.database_url, work))


def audit(args: argparse.Namespace) -> int:
    eid = encounter_id(args.encounter)

    async def work(svc: Any) -> int:
        envs = await _envelopes(svc, eid)
        record = auditing.audit(envs, args.roll, "gm")
        if record is None:
            rolls = sum(1 for e in envs if e["type"] == "die_rolled")
            has = f"its rolls are 1 to {rolls}" if rolls else "it has no roll yet"
            raise UserError(f"no roll {args.roll} in encounter {eid}: {has}")
        print(auditing.audit_text(record))
        return 0

    return asyncio.run(with_service(args.database_url, work))


def seconds(raw: str) -> float:
    try:
        value = float(raw)
    except ValueError:
        value = 0.0
    if not 0 < value <= 3600:
        raise argparse.ArgumentTypeError(f"expected seconds between 0 and 3600, got {raw!r}")
    return value


def backlog(raw: str) -> int:
    if not (raw.isdigit() and 1 <= int(raw) <= 65536):
        raise argparse.ArgumentTypeError(f"expected a count between 1 and 65536, got {raw!r}")
    return int(raw)


class _Parser(argparse.ArgumentParser):
    """argparse with its usage errors on one line."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: {message} (see `{self.prog} --help`)\n")


def parser() -> argparse.ArgumentParser:
    p = _Parser(prog="fracas", description="Fracas encounter server")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")
    rulesets = sorted(REGISTRY)

    def with_db(sp: argparse.ArgumentParser) -> argparse.ArgumentParser:
        sp.add_argument(
            "--database-url",
            default=None,
            metavar="URL",
            help="postgresql://user@host:port/database; default $DATABASE_URL, else the"
            " embedded PostgreSQL under $FRACAS_HOME",
        )
        return sp

    def encounter(sp: argparse.ArgumentParser, **extra: Any) -> None:
        sp.add_argument(
            "encounter", metavar="ENCOUNTER", help="the encounter's id (a uuid)", **extra
        )

    s = with_db(sub.add_parser("serve", help="serve the API, websockets and web UI"))
    s.add_argument("--host", default="127.0.0.1", help="address to listen on (default %(default)s)")
    s.add_argument("--port", type=int, default=8000, help="port to listen on (default %(default)s)")
    s.add_argument(
        "--ws-send-timeout",
        type=seconds,
        default=5.0,
        metavar="SECONDS",
        help="reset a websocket whose client leaves its updates unread this long (default 5)",
    )
    s.add_argument(
        "--ws-backlog",
        type=backlog,
        default=256,  # server/ws_transport.py BACKLOG (not imported: it loads uvicorn)
        metavar="N",
        help="close 1013 a websocket whose client is this many updates behind (default"
        " %(default)s; it resumes with `after`)",
    )
    s.add_argument(
        "--loop",
        choices=("uvloop", "asyncio"),
        default="uvloop",
        help="the event loop: uvloop (default, made for servers) or the standard asyncio one",
    )
    s.add_argument(
        "--http",
        choices=("httptools", "h11"),
        default="httptools",
        help="the HTTP/1.1 parser: httptools (default, C) or h11 (pure Python)",
    )
    s.add_argument(
        "--access-log",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="log one line per request, tokens redacted (default on; --no-access-log for"
        " a busy instance behind a proxy that logs them)",
    )
    s.add_argument(
        "--header-timeout",
        type=seconds,
        default=10.0,
        metavar="SECONDS",
        help="408 and close a connection whose request headers take longer (default 10)",
    )
    s.add_argument(
        "--body-timeout",
        type=seconds,
        default=30.0,
        metavar="SECONDS",
        help="408 a request whose body takes longer to arrive (default 30)",
    )
    s.add_argument(
        "--keep-alive-timeout",
        type=seconds,
        default=5.0,
        metavar="SECONDS",
        help="close an idle keep-alive connection after this long (default 5)",
    )
    s.add_argument(
        "--max-connections",
        type=backlog,
        default=10_000,
        metavar="N",
        help="answer 503 to a new connection past this many open ones, websockets"
        " included (default %(default)s)",
    )
    s.add_argument(
        "--create-rate",
        type=int,
        default=None,
        metavar="N",
        help="encounters/Wars created per minute per client address (default"
        " $FRACAS_CREATE_RATE, else 60; 0: no limit; behind a proxy: the proxy's address)",
    )
    s.add_argument(
        "--clock-file",
        default=None,
        metavar="PATH",
        help="for tests: the server's clock is the system's plus the seconds written in"
        " PATH (turn deadlines, event times); never set it in production",
    )
    _database_flags(s)
    s.set_defaults(run=serve)
    g = with_db(sub.add_parser("migrate", help="apply schema.sql to the database if needed"))
    g.set_defaults(run=migrate_cmd)
    d = sub.add_parser("demo", help="create a ready encounter on a running server, print its links")
    d.add_argument(
        "--ruleset",
        choices=rulesets,
        default="plain-d100",
        help="the rule system (default %(default)s)",
    )
    d.add_argument(
        "--url",
        type=server_url,
        default="http://127.0.0.1:8000",
        help="the running `fracas serve` to create it on (default %(default)s)",
    )
    d.set_defaults(run=demo)
    e = with_db(sub.add_parser("export", help="an encounter's full log"))
    encounter(e)
    e.add_argument(
        "--format",
        choices=["json", "markdown", "bbcode", "text"],
        default="json",
        help="json is the audit bundle `verify --file` reads (default %(default)s)",
    )
    e.add_argument(
        "--scope",
        choices=["all", "last_turn"],
        default="all",
        help="the whole log, or the last turn as a post (default %(default)s)",
    )
    e.add_argument(
        "--lang",
        choices=["en", "fr"],
        default=None,
        help="the log's language (default: the encounter's, else English)",
    )
    e.add_argument(
        "--include-hidden",
        action="store_true",
        help="keep hidden rolls and GM-only resources in a text export",
    )
    e.add_argument("--base-url", default="", help="where the roll links point (https://...)")
    e.set_defaults(run=export)
    v = with_db(
        sub.add_parser(
            "verify",
            help="check the hash chain and every revealed roll",
            description="Exit 0: every roll is revealed and all holds; 1: something fails;"
            " 2: a usage error; 3: all holds so far but the encounter is open (its seeds"
            " are not revealed yet).",
        )
    )
    encounter(v, nargs="?")
    v.add_argument(
        "--file",
        default=None,
        metavar="BUNDLE.json",
        help="an audit bundle (`export --format json`), checked with no database",
    )
    v.add_argument("--json", action="store_true", help="print the report as JSON")
    v.set_defaults(run=verify_cmd)
    a = with_db(sub.add_parser("audit", help="one roll's provenance in words"))
    encounter(a)
    a.add_argument(
        "roll", type=int, metavar="ROLL", help="the roll's number in the encounter (1, 2, ...)"
    )
    a.set_defaults(run=audit)
    m = with_db(sub.add_parser("simulate", help="auto-resolve many 1v1 fights (d20-na)"))
    m.add_argument(
        "--ruleset",
        choices=SIMULATE_RULESETS,
        default="d20-na",
        help="a rule system with a 1v1 resolver (default %(default)s)",
    )
    m.add_argument("a", metavar="A.json", help="a sheet file, or a preset name (milicien)")
    m.add_argument("b", metavar="B.json", help="a sheet file, or a preset name (fangeux)")
    m.add_argument(
        "--fights",
        type=count_fights,
        default=1000,
        help="how many fights, 1 to 10000000 (default %(default)s)",
    )
    m.add_argument("--seed", default=None, help="makes the run reproducible")
    m.add_argument(
        "--jobs",
        type=count_jobs,
        default=None,
        help="worker processes (default: all cores); the numbers do not depend on it",
    )
    m.add_argument("--lang", choices=LANGS, default="en", help="language of the report")
    m.add_argument(
        "--setting",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a rule setting (repeatable), e.g. --setting round.allow_pass=false",
    )
    m.add_argument(
        "--progress",
        choices=["auto", "always", "never"],
        default="auto",
        help="a progress bar on stderr (auto: when stderr is a terminal)",
    )
    m.add_argument(
        "--save",
        action="store_true",
        help="store the told fight as a closed encounter in the database",
    )
    m.add_argument("--host", default="127.0.0.1", help="server host for the printed links")
    m.add_argument("--port", type=int, default=8000, help="server port for the printed links")
    m.set_defaults(run=simulate_cmd)
    return p


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        code: int = args.run(args)
    except UserError as e:
        print(f"fracas {args.command}: {e}", file=sys.stderr)
        return e.code
    except BrokenPipeError:  # `fracas export ... | head`: the reader left, nothing to say
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1
    return code


if __name__ == "__main__":
    raise SystemExit(main())
