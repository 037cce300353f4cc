"""`fracas simulate`: the d20-na 1v1 resolver (NA-37..NA-40) on the live engine.

Also serves `POST /api/simulate` (server/resolver_http.py): one report, one way to save.
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
from server.cli.offline import UserError, with_service

SIMULATE_RULESETS = ("d20-na",)  # the rule systems domain.rules.d20_na.resolver can resolve
_LABELS = {
    "en": {
        "title": "{a} vs {b}: {n} fights ({ruleset}, 1v1 resolver, seed {seed})",
        "wins": "{name} wins",
        "draws": "draws",
        "ci": "95% CI",
        "rounds": "rounds: mean {mean:.2f}, sd {sd:.2f}",
        "damage": "damage per hit: mean {mean:.2f}",
        "rounds_hist": "rounds per fight:",
        "damage_hist": "damage per hit:",
        "example": "One fight (encounter {id}):",
        "example_unsaved": "One fight (not saved):",
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
        "rounds_hist": "rounds par combat :",
        "damage_hist": "dégâts par coup porté :",
        "example": "Un combat (rencontre {id}) :",
        "example_unsaved": "Un combat (non enregistré) :",
        "won": "{name} l'emporte après {rounds} round(s).",
        "drawn": "Match nul après {rounds} round(s).",
    },
}
LANGS = sorted(_LABELS)  # the languages a fight is told in


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


def simulation_report(
    summary: Any,
    names: tuple[str, str],
    args: argparse.Namespace,
    seed: str,
    encounter: str | None = None,
) -> str:
    """The statistics and the told fight; `encounter` names where that fight is stored."""
    from projections.log import narrate

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
    for key, counts in (
        ("rounds_hist", summary.rounds_counts),
        ("damage_hist", summary.damage_counts),
    ):
        if counts:
            lines += ["", text[key], *text_histogram(counts)]
    example = summary.example
    told = text["example"].format(id=encounter) if encounter else text["example_unsaved"]
    lines += ["", told]
    lines.append(narrate(example.events, args.lang))
    if example.winner is None:
        lines.append(text["drawn"].format(rounds=example.rounds))
    else:
        winner = names[0] if example.winner == "a" else names[1]
        lines.append(text["won"].format(name=winner, rounds=example.rounds))
    return "\n".join(lines)


_EIGHTHS = " ▏▎▍▌▋▊▉"


def text_histogram(counts: Any, width: int = 30) -> list[str]:
    """One line per bucket: its range, a bar of block characters (in eighths), the count."""
    from domain.rules.d20_na.resolver import buckets

    bars = buckets(counts)
    peak = max(b.count for b in bars) or 1
    label = [f"{b.low}" if b.low == b.high else f"{b.low}-{b.high}" for b in bars]
    pad = max(len(x) for x in label)
    out = []
    for b, name in zip(bars, label, strict=True):
        eighths = round(8 * width * b.count / peak)
        bar = "█" * (eighths // 8) + (_EIGHTHS[eighths % 8] if eighths % 8 else "")
        out.append(f"  {name.rjust(pad)} {bar.ljust(width)} {b.count}")
    return out


async def save_fight(svc: Any, seed: str, events: list[Any], rules: Any) -> dict[str, Any]:
    """Store the example fight as a closed encounter: its events, its (revealed) seed."""
    from domain.events import event_data
    from domain.rules.d20_na.resolver import fight_seed
    from server.services import auth
    from server.services.encounters import stream_of
    from server.store.port import AlreadyStored, ConcurrencyError, NewEvent

    encounter_id, secret = fight_seed(seed, 0)
    stream = stream_of(encounter_id)
    new = [NewEvent(*event_data(e)) for e in events]
    meta = {"rules_version": rules.version, "actor": "gm", "command_id": f"simulate-{seed}"}
    saved = True
    async with svc.store.transaction() as conn:
        version, _ = await svc.store.head(stream)
        if version == 0:
            try:  # a save of the same seed racing this one stores its seed or events first
                await svc.store.add_seeds(encounter_id, {"main": secret}, conn=conn)
                await svc.store.append(stream, 0, new, meta, conn=conn)
            except (AlreadyStored, ConcurrencyError):
                raise UsageError("the fight was saved by someone else meanwhile") from None
            gm = await auth.issue(svc.store, encounter_id, "gm", conn=conn)
        else:  # the same seed was saved before: the same fight, already stored
            saved = False
            gm = None
        spectator = await auth.issue(svc.store, encounter_id, "spectator", conn=conn)
    return {"id": encounter_id, "saved": saved, "gm": gm, "spectator": spectator}


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
    jobs = args.jobs if args.jobs is not None else default_jobs()
    started = time.perf_counter()
    try:
        summary = simulate(a, b, args.fights, seed, settings, names, progress, jobs)
    except Refused as e:
        progress.close()
        rule = f" ({e.rule})" if e.rule else ""
        print(f"fracas simulate: {e.message}{rule}", file=sys.stderr)
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
        print(simulation_report(summary, names, args, seed))
        return 0
    example = summary.example
    assert example is not None  # --fights is at least 1

    async def work(svc: Any) -> int:
        try:
            saved = await save_fight(svc, seed, example.events, rules)
        except UsageError as e:
            print(simulation_report(summary, names, args, seed))
            print(f"fracas simulate: {e}", file=sys.stderr)
            return 1
        eid = saved["id"]
        base = f"http://{args.host}:{args.port}"
        print(simulation_report(summary, names, args, seed, eid))
        print()
        print(f"{'saved as' if saved['saved'] else 'already saved as'} encounter {eid}")
        if saved["gm"]:
            print(f"GM console:  {base}/e/{eid}#token={saved['gm']}")
        print(f"board:       {base}/e/{eid}#token={saved['spectator']}")
        return 0

    try:
        return asyncio.run(with_service(args.database_url, work))
    except UserError:  # the database is out of reach: the statistics still stand
        print(simulation_report(summary, names, args, seed))
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
