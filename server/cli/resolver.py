"""`fracas simulate`: the d20-na 1v1 resolver (NA-37..NA-40) on the live engine.

The report is worded by projections/words/resolver.py and the fight saved by
server/services/resolver.py, as `POST /api/simulate` (server/http/resolver.py) does.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import secrets
import sys
import time
from pathlib import Path
from typing import Any

from domain.rules import REGISTRY
from domain.rules.common.sheetcheck import with_preset
from projections.words.refusals import said
from projections.words.resolver import simulation_report
from server.bootstrap import UserError, with_service
from server.services.resolver import SaveConflict, save_fight


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
        merged = with_preset(rules.presets, preset, data)
        if merged is None:
            raise UsageError(f"{raw}: unknown preset {preset!r}")
        data = merged
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


def simulate_cmd(args: argparse.Namespace) -> int:
    """`fracas simulate`: many seeded 1v1 duels, their statistics and one told fight."""
    rules = REGISTRY[args.ruleset]  # argparse offers SIMULATE_RULESETS only
    from domain.errors import Refused
    from domain.rules.d20_na.resolver import default_jobs, simulate

    try:
        (a, name_a), (b, name_b) = _fighter(args.a, rules), _fighter(args.b, rules)
        settings = _settings(args.setting)
        for who, sheet in ((args.a, a), (args.b, b)):
            try:
                rules.validate_sheet(rules.presets[sheet] if isinstance(sheet, str) else sheet, {})
            except Refused as e:
                rule = f" ({e.rule})" if e.rule else ""
                raise UsageError(f"{who}: invalid sheet: {said(e)[0]}{rule}") from e
    except UsageError as e:
        print(f"fracas simulate: {e}", file=sys.stderr)
        return 2
    if name_a == name_b:
        name_a, name_b = f"{name_a} A", f"{name_b} B"
    names = (name_a, name_b)
    seed = args.seed if args.seed is not None else secrets.token_hex(6)
    shown = args.progress == "always" or (args.progress == "auto" and sys.stderr.isatty())
    progress = _Progress(args.fights, shown and args.fights > 1)
    jobs = args.jobs if args.jobs is not None else default_jobs()
    started = time.perf_counter()
    try:
        summary = simulate(a, b, args.fights, seed, settings, names, progress, jobs)
    except Refused as e:
        progress.close()
        rule = f" ({e.rule})" if e.rule else ""
        print(f"fracas simulate: {said(e)[0]}{rule}", file=sys.stderr)
        return 2
    progress.close()
    elapsed = max(time.perf_counter() - started, 1e-9)
    # On stderr, like the progress bar: stdout stays the same for the same seed.
    print(
        f"{args.fights} fights in {elapsed:.2f} s: {args.fights / elapsed:.0f} fights/s"
        f" ({jobs} job{'s' if jobs != 1 else ''})",
        file=sys.stderr,
    )
    if not args.save:
        print(simulation_report(summary, names, args.lang, args.ruleset, seed))
        return 0
    example = summary.example
    assert example is not None  # --fights is at least 1

    async def work(svc: Any) -> int:
        try:
            saved = await save_fight(svc, seed, example.events, rules)
        except SaveConflict as e:
            print(simulation_report(summary, names, args.lang, args.ruleset, seed))
            print(f"fracas simulate: {e}", file=sys.stderr)
            return 1
        eid = saved["id"]
        base = f"http://{args.host}:{args.port}"
        print(simulation_report(summary, names, args.lang, args.ruleset, seed, eid))
        print()
        print(f"{'saved as' if saved['saved'] else 'already saved as'} encounter {eid}")
        if saved["gm"]:
            print(f"GM console:  {base}/e/{eid}#token={saved['gm']}")
        print(f"board:       {base}/e/{eid}#token={saved['spectator']}")
        return 0

    try:
        return asyncio.run(with_service(args.database_url, work))
    except UserError:  # the database is out of reach: the statistics still stand
        print(simulation_report(summary, names, args.lang, args.ruleset, seed))
        raise


def count_jobs(raw: str) -> int:
    try:
        n = int(raw)
    except ValueError:
        n = 0
    if not 1 <= n <= 256:
        raise argparse.ArgumentTypeError(f"{raw!r} is not a number of jobs from 1 to 256")
    return n


def count_fights(raw: str) -> int:
    try:
        n = int(raw)
    except ValueError:
        n = 0
    if not 1 <= n <= 10_000_000:
        raise argparse.ArgumentTypeError(f"{raw!r} is not a number of fights from 1 to 10000000")
    return n
