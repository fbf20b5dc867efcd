"""``sudokustudio-cli generate``: minimal puzzles from one of the seed 002 generators."""
from __future__ import annotations

import sys
import time

from sudokustudio.commands.common import add_json_arg, add_run_args, check_outputs, execute, print_json, \
    work_started
from sudokustudio.core import limits

METHODS = ("top-down", "bottom-up", "controlled-bias", "weighted-subsets")
#: puzzles kept in memory: 81 bytes, a weight and a few metrics each (~200 bytes)
MAX_N = min(100_000_000, limits.memory_limit(200))


def register(sub) -> None:
    p = sub.add_parser(
        "generate", help="generate minimal puzzles and their clue statistics",
        description="Generate minimal puzzles with a seed 002 generator (top-down, bottom-up, "
                    "controlled-bias) or the weighted-subsets sampler (seed 000), and print clue-count "
                    "statistics: count, rate, histogram, mean, sd, skewness, kurtosis and, where it applies, "
                    "the corrected (controlled-bias) or weighted (weighted-subsets) mean and sd.")
    p.add_argument("--method", choices=METHODS, default="top-down", help="generator (default: top-down)")
    p.add_argument("-n", type=limits.whole(1, MAX_N), default=100, metavar="N",
                   help=f"puzzles to generate (weighted-subsets: subset samples), 1..{MAX_N} (default 100)")
    p.add_argument("--seed", type=limits.seed(), default=1,
                   help="run seed, 0..2**64-1 (default 1); same seed, same collection")
    p.add_argument("--grid-source", choices=("solver", "pairswap", "pool", "sequential"), default=None,
                   help="grids for top-down / controlled-bias (solver, pairswap, pool; default: solver for "
                        "top-down, pool for controlled-bias; all biased) and weighted-subsets (pool, or "
                        "sequential: weighted grids, unbiased over all grids)")
    p.add_argument("--blind", type=limits.whole(0, 64), default=46,
                   help="controlled-bias: clues deleted before the first uniqueness test (default 46)")
    p.add_argument("--subset-size", type=limits.whole(17, 40), default=None,
                   help="weighted-subsets: subset size s, 17..40 (default 32, weighted.DEFAULT_SUBSET_SIZE)")
    p.add_argument("--difficulty", metavar="NAMES", default=None,
                   help="comma-separated difficulty metrics per puzzle (guesses, brt, W; default: guesses,brt "
                        "for top-down/bottom-up, all for the slow generators; 'none' for none)")
    p.add_argument("--out", metavar="FILE", default=None,
                   help="write the puzzles: .txt/.sdm (one per line) or .csv (with clues, weight, difficulty)")
    add_run_args(p)
    add_json_arg(p)
    p.set_defaults(func=run)


def parse_metrics(text: str | None):
    if text is None:
        return None
    if text.strip().lower() == "none":
        return []
    return [t.strip() for t in text.split(",") if t.strip()]


def run(args) -> int:
    if args.out:
        from sudokustudio.jobs.collections import check_export_path

        check_export_path(args.out)
        check_outputs((args.out, "--out"))
    from sudokustudio.models.generators import build_job

    job, n_batches = build_job(args.method, args.n, grid_source=args.grid_source, blind=args.blind,
                               subset_size=args.subset_size, difficulty=parse_metrics(args.difficulty))
    job.warm_up()
    t0 = work_started()
    outcome = execute(job, args.seed, n_batches=n_batches, units=args.n if n_batches is None else None,
                      threads=args.threads, scheduler=args.scheduler, label=args.method,
                      progress=lambda snap: f"{snap.total.count} puzzles")
    secs = time.perf_counter() - t0
    for err in outcome.errors:
        print(f"sudokustudio-cli: {err}", file=sys.stderr)
    total = outcome.total
    if args.method in ("top-down", "bottom-up", "controlled-bias") and total.count > args.n:
        from sudokustudio.sudoku.generate import GenResult

        total = GenResult(total.puzzles[:args.n], total.weights[:args.n],
                          {k: v[:args.n] for k, v in total.metrics.items()}, total.tries,
                          total.solver_calls, total.seconds)
    d = job.describe(total)
    d["seconds"] = round(secs, 4)
    d["rate"] = total.count / secs if secs > 0 else float("nan")
    d["seed"] = args.seed
    d["batches"] = outcome.batches
    if args.out:
        from sudokustudio.jobs.collections import export_puzzles

        export_puzzles(args.out, total, generator=args.method, seed=args.seed)
        d["out"] = args.out
    if args.json:
        print_json(d)
    else:
        _print_text(d)
    return 1 if outcome.errors else 0


def _print_text(d: dict) -> None:
    print(f"{d['method']}: {d['count']} minimal puzzles in {d['seconds']:.2f} s ({d['rate']:.1f}/s)")
    print(f"  clues: mean {d['mean']:.3f} ± {d.get('mean_se', float('nan')):.3f}  sd {d['sd']:.3f}  "
          f"skew {d['skew']:.3f}  kurt {d['kurt']:.3f}")
    if "corrected_mean" in d:
        label = "weighted" if d["method"] == "weighted-subsets" else "corrected"
        print(f"  {label}: mean {d['corrected_mean']:.3f}  sd {d['corrected_sd']:.3f}")
    if d["method"] == "weighted-subsets":
        print(f"  subset samples: {d.get('samples', 0)}, minimal puzzles found: {d.get('found', 0)} "
              f"(kept: {d['count']}); weighted mean ± {d.get('weighted_mean_se', float('nan')):.3f}")
    elif d.get("tries_per_puzzle"):
        print(f"  grids per puzzle: {d['tries_per_puzzle']:.0f}")
    hist = d["clues_hist"]
    if hist:
        print("  histogram: " + "  ".join(f"{k}:{v}" for k, v in hist.items()))
    for name, m in d.get("difficulty", {}).items():
        print(f"  {name}: mean {m['mean']:.3f}" + (f" (corrected {m['corrected_mean']:.3f})"
                                                   if "corrected_mean" in m else ""))
