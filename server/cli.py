"""The `fracas` command line (CONTRACT section 2)."""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import sys
from pathlib import Path
from typing import Any

from domain import commands as cmd
from domain.rules import REGISTRY
from domain.state import GM
from domain.verify import verify, verify_bundle
from projections import audit as auditing
from projections import export as exporting
from server.offline import fracas_home, with_service
from server.simulation import LANGS, count_fights, simulate_cmd


def serve(args: argparse.Namespace) -> int:
    import uvicorn

    from server.app import create_app

    app = create_app(args.database_url, fracas_home())
    # A cold load allocates ~100k short-lived objects per 10,000 events; the default
    # young-generation threshold (700) runs the collector hundreds of times over them.
    # A larger one took a cold 10,000-event fold from ~120 ms to under 100 ms.
    gc.set_threshold(100_000, 20, 100)
    # No permessage-deflate: it would compress the same update once per watcher (~230 us
    # and ~256 KiB of zlib state each), undoing "encode once per role" (bench/RESULTS.md).
    uvicorn.run(
        app,
        host=args.host,
        port=args.port,
        ws="websockets-sansio",  # the websockets library's Sans-I/O protocol
        ws_per_message_deflate=False,
        log_level="info",
    )
    return 0


DEMO_SIDES = ("heroes", "foes")


def demo(args: argparse.Namespace) -> int:
    rules = REGISTRY.get(args.ruleset)
    if rules is None:
        print(f"unknown rule system {args.ruleset!r}; known: {sorted(REGISTRY)}", file=sys.stderr)
        return 2
    base = f"http://{args.host}:{args.port}"

    async def work(svc: Any) -> int:
        made = await svc.create(args.ruleset, f"Demo ({args.ruleset})", {})
        eid = made["id"]
        print(f"encounter {eid}")
        print(f"GM console:  {base}{made['links']['gm']}")
        print(f"board:       {base}{made['links']['board']}")
        for i, preset in enumerate(list(rules.presets)[:2]):
            added = await svc.execute(
                eid,
                cmd.AddCombatant(name=preset, side=DEMO_SIDES[i % 2], preset=preset),
                GM,
            )
            link = f"{base}/e/{eid}#token={added['player_token']}&as={added['combatant_id']}"
            print(f"player ({preset}): {link}")
        return 0

    return asyncio.run(with_service(args.database_url, work))


def export(args: argparse.Namespace) -> int:
    async def work(svc: Any) -> int:
        from server.service import parse_id

        eid = parse_id(args.encounter)
        envs = await svc.envelopes(eid)
        if not envs:
            print(f"no encounter {eid}", file=sys.stderr)
            return 1
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


def _print_report(report: Any) -> int:
    print(json.dumps(dict(report), indent=1))
    ok = bool(report["chain"]) and bool(report["dice"])
    print("verified" if ok else f"FAILED: {report['first_problem']}")
    return 0 if ok else 1


def verify_cmd(args: argparse.Namespace) -> int:
    if args.file:
        try:
            bundle = json.loads(Path(args.file).read_text(encoding="utf-8"))
        except (OSError, ValueError) as e:
            print(f"cannot read {args.file}: {e}", file=sys.stderr)
            return 2
        return _print_report(verify_bundle(bundle))
    if not args.encounter:
        print("give an ENCOUNTER or --file BUNDLE.json", file=sys.stderr)
        return 2

    async def work(svc: Any) -> int:
        from server.service import parse_id

        eid = parse_id(args.encounter)
        return _print_report(verify(await svc.envelopes(eid), eid))

    return asyncio.run(with_service(args.database_url, work))


def audit(args: argparse.Namespace) -> int:
    async def work(svc: Any) -> int:
        from server.service import parse_id

        eid = parse_id(args.encounter)
        record = auditing.audit(await svc.envelopes(eid), args.roll, "gm")
        if record is None:
            print(f"no roll {args.roll} in encounter {eid}", file=sys.stderr)
            return 1
        print(auditing.audit_text(record))
        return 0

    return asyncio.run(with_service(args.database_url, work))


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="fracas", description="Fracas encounter server")
    sub = p.add_subparsers(dest="command", required=True)

    def with_db(sp: argparse.ArgumentParser) -> argparse.ArgumentParser:
        sp.add_argument("--database-url", default=None)
        return sp

    s = with_db(sub.add_parser("serve", help="serve the API, websockets and web UI"))
    s.add_argument("--host", default="127.0.0.1")
    s.add_argument("--port", type=int, default=8000)
    s.set_defaults(run=serve)
    d = with_db(sub.add_parser("demo", help="create a ready encounter and print its links"))
    d.add_argument("--ruleset", default="plain-d100")
    d.add_argument("--host", default="127.0.0.1")
    d.add_argument("--port", type=int, default=8000)
    d.set_defaults(run=demo)
    e = with_db(sub.add_parser("export", help="an encounter's full log"))
    e.add_argument("encounter")
    e.add_argument("--format", choices=["json", "markdown", "bbcode", "text"], default="json")
    e.add_argument("--scope", choices=["all", "last_turn"], default="all")
    e.add_argument("--lang", choices=["en", "fr"], default=None,
                   help="the log's language (default: the encounter's, else English)")
    e.add_argument("--include-hidden", action="store_true",
                   help="keep hidden rolls and GM-only resources in a text export")
    e.add_argument("--base-url", default="", help="where the roll links point (https://...)")
    e.set_defaults(run=export)
    v = with_db(sub.add_parser("verify", help="check the hash chain and every revealed roll"))
    v.add_argument("encounter", nargs="?")
    v.add_argument("--file", default=None)
    v.set_defaults(run=verify_cmd)
    a = with_db(sub.add_parser("audit", help="one roll's provenance in words"))
    a.add_argument("encounter")
    a.add_argument("roll", type=int)
    a.set_defaults(run=audit)
    m = with_db(sub.add_parser("simulate", help="auto-resolve many 1v1 fights (d20-na)"))
    m.add_argument("--ruleset", default="d20-na")
    m.add_argument("a", metavar="A.json", help="a sheet file, or a preset name (milicien)")
    m.add_argument("b", metavar="B.json", help="a sheet file, or a preset name (fangeux)")
    m.add_argument("--fights", type=count_fights, default=1000)
    m.add_argument("--seed", default=None, help="makes the run reproducible")
    m.add_argument("--lang", choices=LANGS, default="en")
    m.add_argument("--setting", action="append", default=[], metavar="KEY=VALUE")
    m.add_argument("--progress", choices=["auto", "always", "never"], default="auto")
    m.add_argument("--save", action="store_true", help="store the told fight as an encounter")
    m.add_argument("--host", default="127.0.0.1", help="for the printed links")
    m.add_argument("--port", type=int, default=8000, help="for the printed links")
    m.set_defaults(run=simulate_cmd)
    return p


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    code: int = args.run(args)
    return code


if __name__ == "__main__":
    raise SystemExit(main())
