"""Fights per second of the d20-na 1v1 resolver (Milicien vs Fangeux) on one core.

Every fight goes through `domain.simulate.fight`, i.e. the real decider, one command at
a time, with seeded commit-reveal dice: this measures the engine, not a shortcut.

    PYTHONPATH=. python bench/simulate.py [--fights 3000] [--top 12]
"""

from __future__ import annotations

import argparse
import cProfile
import io
import os
import platform
import pstats
import sys
import time

from domain.simulate import simulate


def _profile(fights: int, top: int) -> str:
    profiler = cProfile.Profile()
    profiler.enable()
    simulate("milicien", "fangeux", fights, seed="profile")
    profiler.disable()
    out = io.StringIO()
    stats = pstats.Stats(profiler, stream=out).strip_dirs()
    stats.sort_stats("tottime").print_stats(top)
    return out.getvalue()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fights", type=int, default=3000)
    parser.add_argument("--seed", default="bench")
    parser.add_argument("--top", type=int, default=12, help="profile rows to show")
    args = parser.parse_args(argv)
    simulate("milicien", "fangeux", 50, seed="warm-up")
    start = time.perf_counter()
    summary = simulate("milicien", "fangeux", args.fights, seed=args.seed)
    elapsed = time.perf_counter() - start
    example = summary.example
    events = len(example.events) if example else 0
    print(f"python {platform.python_version()} on {platform.machine()}, pid {os.getpid()}")
    print(f"{args.fights} fights in {elapsed:.2f} s: {args.fights / elapsed:.0f} fights/s")
    print(
        f"Fangeux wins {summary.rates['b'].rate:.1%} "
        f"[{summary.rates['b'].low:.1%}, {summary.rates['b'].high:.1%}], "
        f"rounds {summary.mean_rounds:.2f} ± {summary.sd_rounds:.2f}, "
        f"damage per hit {summary.mean_damage_per_hit:.1f}, "
        f"events in the first fight {events}"
    )
    print(_profile(min(args.fights, 500), args.top))
    return 0


if __name__ == "__main__":
    sys.exit(main())
