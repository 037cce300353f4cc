"""The `fracas` command line (CONTRACT section 2)."""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import secrets
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from domain import commands as cmd
from domain.rules import REGISTRY
from domain.state import GM
from domain.verify import verify, verify_bundle
from projections import audit as auditing
from projections import export as exporting


def _home() -> Path | None:
    raw = os.environ.get("FRACAS_HOME")
    return Path(raw) if raw else None


async def _with_service(url: str | None, work: Callable[[Any], Awaitable[int]]) -> int:
    from server import db
    from server.metrics import Metrics
    from server.service import EncounterService
    from server.store import PostgresEventStore

    resolved, stop = db.resolve_database_url(url, _home())
    try:
        pool = await db.open_app_pool(resolved)
        try:
            svc = EncounterService(pool, PostgresEventStore(pool), Metrics())
            return await work(svc)
        finally:
            await pool.close()
    finally:
        if stop is not None:
            stop()


def serve(args: argparse.Namespace) -> int:
    import uvicorn

    from server.app import create_app

    app = create_app(args.database_url, _home())
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

    return asyncio.run(_with_service(args.database_url, work))


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
            writer = {
                "markdown": exporting.markdown,
                "bbcode": exporting.bbcode,
                "text": exporting.text,
            }[args.format]
            print(writer(envs, "gm"))
        return 0

    return asyncio.run(_with_service(args.database_url, work))


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

    return asyncio.run(_with_service(args.database_url, work))


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

    return asyncio.run(_with_service(args.database_url, work))


# --- simulate: the d20-na 1v1 resolver (NA-37..NA-40) ------------------------------------

SIMULATE_RULESETS = ("d20-na",)  # the rule systems domain.simulate can resolve
_LABELS = {
    "en": {
        "title": "{a} vs {b}: {n} fights ({ruleset}, 1v1 resolver, seed {seed})",
        "wins": "{name} wins",
        "draws": "draws",
        "ci": "95% CI",
        "rounds": "rounds: mean {mean:.2f}, sd {sd:.2f}",
        "damage": "damage per hit: mean {mean:.2f}",
        "example": "One fight (encounter {id}):",
        "won": "{name} wins after {rounds} round(s).",
        "drawn": "A draw after {rounds} round(s).",
    },
    "fr": {
        "title": "{a} contre {b} : {n} combats ({ruleset}, résolution 1v1, graine {seed})",
        "wins": "{name} gagne",
        "draws": "nuls",
        "ci": "IC 95 %",
        "rounds": "rounds : moyenne {mean:.2f}, écart-type {sd:.2f}",
        "damage": "dégâts par coup porté : moyenne {mean:.2f}",
        "example": "Un combat (rencontre {id}) :",
        "won": "{name} l'emporte après {rounds} round(s).",
        "drawn": "Match nul après {rounds} round(s).",
    },
}


class UsageError(Exception):
    """A problem with the command line's arguments: reported, exit code 2."""


def _fighter(raw: str, rules: Any) -> tuple[str | dict[str, Any], str]:
    """A sheet (JSON file) or a preset name, and the fighter's display name.

    The file holds a sheet object; it may also carry `name` (shown in the output) and
    `preset` (a preset its other fields override), or wrap the sheet as `{"sheet": {...}}`.
    """
    path = Path(raw)
    if not path.is_file():
        if raw in rules.presets:
            return raw, raw.capitalize()
        known = ", ".join(sorted(rules.presets))
        raise UsageError(f"{raw}: no such file, and not a preset of {rules.id} ({known})")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise UsageError(f"cannot read {raw}: {e}") from e
    if not isinstance(data, dict):
        raise UsageError(f"{raw}: a sheet must be a JSON object")
    name = data.pop("name", None) or path.stem
    preset = data.pop("preset", None)
    if "sheet" in data:
        extra = set(data) - {"sheet"}
        if extra or not isinstance(data["sheet"], dict):
            raise UsageError(f"{raw}: beside 'sheet' only 'name' and 'preset' are allowed")
        data = data["sheet"]
    if preset is not None:
        if preset not in rules.presets:
            raise UsageError(f"{raw}: unknown preset {preset!r}")
        data = {**rules.presets[preset], **data}
    if not isinstance(name, str):
        raise UsageError(f"{raw}: 'name' must be text")
    return data, name


def _settings(pairs: list[str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise UsageError(f"--setting wants KEY=VALUE, not {pair!r}")
        try:
            out[key] = json.loads(value)
        except ValueError:
            out[key] = value  # a bare word: the setting's text value
    return out


class _Progress:
    """`[#####     ] 4000/10000` on stderr, redrawn in place; stdout stays clean."""

    WIDTH = 30

    def __init__(self, total: int, shown: bool) -> None:
        self.total = total
        self.shown = shown
        self.last = 0.0

    def __call__(self, done: int) -> None:
        if not self.shown:
            return
        now = time.monotonic()
        if now - self.last >= 0.1 or done == self.total:  # at most ten redraws a second
            self.last = now
            filled = self.WIDTH * done // self.total
            bar = "#" * filled + " " * (self.WIDTH - filled)
            sys.stderr.write(f"\r[{bar}] {done}/{self.total}")
            sys.stderr.flush()

    def close(self) -> None:
        if self.shown:
            sys.stderr.write("\n")
            sys.stderr.flush()


def simulation_report(
    summary: Any, names: tuple[str, str], args: argparse.Namespace, seed: str
) -> str:
    from domain.simulate import narrate

    text = _LABELS[args.lang]
    pct = "{:5.1f}%".format
    a, b = names
    lines = [text["title"].format(a=a, b=b, n=summary.fights, ruleset=args.ruleset, seed=seed)]
    width = max(len(text["wins"].format(name=n)) for n in names)
    for side, name in zip(("a", "b"), names, strict=True):
        rate = summary.rates[side]
        label = text["wins"].format(name=name).ljust(width)
        lines.append(
            f"  {label}  {pct(100 * rate.rate)}  ({text['ci']} {pct(100 * rate.low)}"
            f" - {pct(100 * rate.high)})  {summary.wins[side]}"
        )
    if summary.draws:
        lines.append(f"  {text['draws'].ljust(width)}  {pct(100 * summary.draws / summary.fights)}"
                     f"  {summary.draws}")  # fmt: skip
    lines.append(text["rounds"].format(mean=summary.mean_rounds, sd=summary.sd_rounds))
    lines.append(text["damage"].format(mean=summary.mean_damage_per_hit))
    example = summary.example
    lines += ["", text["example"].format(id=_example_id(seed))]
    lines.append(narrate(example.events, args.lang))
    if example.winner is None:
        lines.append(text["drawn"].format(rounds=example.rounds))
    else:
        winner = names[0] if example.winner == "a" else names[1]
        lines.append(text["won"].format(name=winner, rounds=example.rounds))
    return "\n".join(lines)


def _example_id(seed: str) -> str:
    from domain.simulate import fight_seed

    return fight_seed(seed, 0)[0]


async def save_fight(svc: Any, seed: str, events: list[Any], rules: Any) -> dict[str, Any]:
    """Store the example fight as a closed encounter: its events, its (revealed) seed."""
    from domain.events import event_data
    from domain.simulate import fight_seed
    from server import auth
    from server.service import stream_of
    from server.store import ConcurrencyError, NewEvent

    encounter_id, secret = fight_seed(seed, 0)
    stream = stream_of(encounter_id)
    new = [NewEvent(*event_data(e)) for e in events]
    meta = {"rules_version": rules.version, "actor": "gm", "command_id": f"simulate-{seed}"}
    saved = True
    async with svc.pool.acquire() as conn, conn.transaction():
        version, _ = await svc.store.head(stream)
        if version == 0:
            await conn.execute(
                "INSERT INTO dice_seeds (encounter, seed_id, seed, revealed)"
                " VALUES ($1, $2, $3, true)",
                encounter_id,
                "main",
                secret,
            )
            try:
                await svc.store.append(stream, 0, new, meta, conn=conn)
            except ConcurrencyError:
                raise UsageError("the fight was saved by someone else meanwhile") from None
            gm = await auth.issue(conn, encounter_id, "gm")
        else:  # the same seed was saved before: the same fight, already stored
            saved = False
            gm = None
        spectator = await auth.issue(conn, encounter_id, "spectator")
    return {"id": encounter_id, "saved": saved, "gm": gm, "spectator": spectator}


def simulate_cmd(args: argparse.Namespace) -> int:
    """`fracas simulate`: many seeded 1v1 duels, their statistics and one told fight."""
    rules = REGISTRY.get(args.ruleset)
    if rules is None:
        print(f"unknown rule system {args.ruleset!r}; known: {sorted(REGISTRY)}", file=sys.stderr)
        return 2
    if args.ruleset not in SIMULATE_RULESETS:
        print(
            f"the 1v1 resolver does not support {args.ruleset!r}; "
            f"it supports: {', '.join(SIMULATE_RULESETS)}",
            file=sys.stderr,
        )
        return 2
    from domain.errors import Refused
    from domain.simulate import simulate

    try:
        (a, name_a), (b, name_b) = _fighter(args.a, rules), _fighter(args.b, rules)
        settings = _settings(args.setting)
        for who, sheet in ((args.a, a), (args.b, b)):
            try:
                rules.validate_sheet(rules.presets[sheet] if isinstance(sheet, str) else sheet, {})
            except Refused as e:
                rule = f" ({e.rule})" if e.rule else ""
                raise UsageError(f"{who}: invalid sheet: {e.message}{rule}") from e
    except UsageError as e:
        print(f"fracas simulate: {e}", file=sys.stderr)
        return 2
    if name_a == name_b:
        name_a, name_b = f"{name_a} A", f"{name_b} B"
    names = (name_a, name_b)
    seed = args.seed if args.seed is not None else secrets.token_hex(6)
    shown = args.progress == "always" or (args.progress == "auto" and sys.stderr.isatty())
    progress = _Progress(args.fights, shown and args.fights > 1)
    try:
        summary = simulate(a, b, args.fights, seed, settings, names, progress)
    except Refused as e:
        progress.close()
        rule = f" ({e.rule})" if e.rule else ""
        print(f"fracas simulate: {e.message}{rule}", file=sys.stderr)
        return 2
    progress.close()
    print(simulation_report(summary, names, args, seed))
    if not args.save:
        return 0
    base = f"http://{args.host}:{args.port}"
    example = summary.example
    assert example is not None  # --fights is at least 1

    async def work(svc: Any) -> int:
        try:
            saved = await save_fight(svc, seed, example.events, rules)
        except UsageError as e:
            print(f"fracas simulate: {e}", file=sys.stderr)
            return 1
        eid = saved["id"]
        print()
        print(f"{'saved as' if saved['saved'] else 'already saved as'} encounter {eid}")
        if saved["gm"]:
            print(f"GM console:  {base}/e/{eid}#token={saved['gm']}")
        print(f"board:       {base}/e/{eid}#token={saved['spectator']}")
        return 0

    return asyncio.run(_with_service(args.database_url, work))


def _count(raw: str) -> int:
    try:
        n = int(raw)
    except ValueError:
        n = 0
    if not 1 <= n <= 10_000_000:
        raise argparse.ArgumentTypeError(f"{raw!r} is not a number of fights from 1 to 10000000")
    return n


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
    m.add_argument("--fights", type=_count, default=1000)
    m.add_argument("--seed", default=None, help="makes the run reproducible")
    m.add_argument("--lang", choices=sorted(_LABELS), default="en")
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
