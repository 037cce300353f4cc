"""Fights per second of the d20-na 1v1 resolver (Milicien vs Fangeux), on one core and on all.

Every fight goes through `domain.rules.d20_na.resolver.fight`, i.e. the real decider, one command at
a time, with seeded commit-reveal dice: this measures the engine, not a shortcut. The
machine is shared, so the load average is printed beside the speeds, and `--callgrind`
counts the instructions one fight takes on one core (valgrind: noise-free, slow).

    PYTHONPATH=. python bench/simulate.py [--fights 3000] [--jobs 1 2] [--top 12]
    PYTHONPATH=. python bench/simulate.py --callgrind 200
"""

from __future__ import annotations

import argparse
import cProfile
import io
import os
import platform
import pstats
import re
import subprocess
import sys
import tempfile
import time

from domain.rules.d20_na.resolver import default_jobs, simulate


def _profile(fights: int, top: int) -> str:
    profiler = cProfile.Profile()
    profiler.enable()
    simulate("milicien", "fangeux", fights, seed="profile")
    profiler.disable()
    out = io.StringIO()
    stats = pstats.Stats(profiler, stream=out).strip_dirs()
    stats.sort_stats("tottime").print_stats(top)
    return out.getvalue()


def _instructions(fights: int) -> int:
    """Instructions (callgrind's Ir) of this script running `--only fights`."""
    with tempfile.TemporaryDirectory() as tmp:
        done = subprocess.run(
            ["valgrind", "--tool=callgrind", f"--callgrind-out-file={tmp}/out",
             sys.executable, __file__, "--only", str(fights)],
            capture_output=True, text=True, check=True,
        )  # fmt: skip
    found = re.search(r"Collected : (\d+)", done.stderr)
    if found is None:
        raise SystemExit(f"no instruction count from valgrind:\n{done.stderr}")
    return int(found.group(1))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fights", type=int, default=3000)
    parser.add_argument("--seed", default="bench")
    parser.add_argument(
        "--jobs", type=int, nargs="+", default=[1, default_jobs()], help="runs to time"
    )
    parser.add_argument("--top", type=int, default=12, help="profile rows to show (0: none)")
    parser.add_argument("--callgrind", type=int, metavar="N", help="instructions per fight")
    parser.add_argument("--only", type=int, help=argparse.SUPPRESS)  # what valgrind runs
    args = parser.parse_args(argv)
    if args.only is not None:  # warm up (imports, caches), then the fights counted
        simulate("milicien", "fangeux", 5, seed="warm-up")
        if args.only:
            simulate("milicien", "fangeux", args.only, seed=args.seed)
        return 0
    if args.callgrind:
        # The difference of two runs leaves out start-up and imports.
        per_fight = (_instructions(args.callgrind) - _instructions(0)) / args.callgrind
        print(f"callgrind: {per_fight / 1e6:.2f} M instructions per fight (one core)")
        return 0
    simulate("milicien", "fangeux", 50, seed="warm-up")
    print(f"python {platform.python_version()} on {platform.machine()}, pid {os.getpid()}")
    summary = None
    for jobs in args.jobs:
        load = os.getloadavg()[0]
        start = time.perf_counter()
        summary = simulate("milicien", "fangeux", args.fights, seed=args.seed, jobs=jobs)
        elapsed = time.perf_counter() - start
        print(
            f"jobs {jobs}: {args.fights} fights in {elapsed:.2f} s: "
            f"{args.fights / elapsed:.0f} fights/s (load average {load:.2f} before)"
        )
    if summary is not None:
        example = summary.example
        events = len(example.events) if example else 0
        print(
            f"Fangeux wins {summary.rates['b'].rate:.1%} "
            f"[{summary.rates['b'].low:.1%}, {summary.rates['b'].high:.1%}], "
            f"rounds {summary.mean_rounds:.2f} ± {summary.sd_rounds:.2f}, "
            f"damage per hit {summary.mean_damage_per_hit:.1f}, "
            f"events in the first fight {events}"
        )
    if args.top:
        print(_profile(min(args.fights, 500), args.top))
    return 0


if __name__ == "__main__":
    sys.exit(main())
