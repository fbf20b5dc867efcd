"""``sudokustudio-cli generate``: minimal puzzles from one of the seed 002 generators."""
from __future__ import annotations

import sys
import time

from sudokustudio.commands.common import add_json_arg, add_run_args, check_outputs, execute, print_json, \
    work_started
from sudokustudio.core import limits

METHODS = ("top-down", "bottom-up", "controlled-bias", "weighted-subsets", "pattern", "symmetry")
SYMMETRIES = ("central", "diagonal", "antidiagonal", "mirror", "dihedral")
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
                        "top-down, pool for controlled-bias; all biased) and weighted-subsets (sequential, the "
                        "default: weighted grids, unbiased over all grids; or pool: biased, a finite pool)")
    p.add_argument("--blind", type=limits.whole(0, 64), default=46,
                   help="controlled-bias: clues deleted before the first uniqueness test (default 46)")
    p.add_argument("--subset-size", type=limits.whole(17, 40), default=None,
                   help="weighted-subsets: subset size s, 17..40 (default 32, weighted.DEFAULT_SUBSET_SIZE)")
    p.add_argument("--tail-per-grid", type=limits.whole(0, 1000), default=None,
                   help="weighted-subsets: subsets per grid of the tail stratum, which counts the minimals "
                        "of 30 clues or more in 33-clue subsets (default 12; 0: none, every class from the "
                        "s-subsets as before)")
    p.add_argument("--tail-deep", type=limits.whole(0, 1000), default=None,
                   help="weighted-subsets: of the tail's subsets per grid, those searched one clue deeper, "
                        "whose 29-clue finds are pooled with the s-subsets' (default 2, at most "
                        "--tail-per-grid)")
    p.add_argument("--difficulty", metavar="NAMES", default=None,
                   help="comma-separated difficulty metrics per puzzle (guesses, brt, W; default: all for "
                        "controlled-bias, guesses,brt for the others, whose puzzles come too fast for W's "
                        "~10 ms each; 'none' for none)")
    p.add_argument("--pattern", metavar="MASK",
                   help="pattern: 81 characters (x or 1 = clue, . or 0 = empty), or a file of masks (one a "
                        "line; -n puzzles per mask); the puzzles are unique with clues exactly on the mask")
    p.add_argument("--symmetry", choices=SYMMETRIES, default=None,
                   help="minimal puzzles whose clue positions have this symmetry (implies --method symmetry)")
    p.add_argument("--max-grids", type=int, default=1_000_000, metavar="G",
                   help="pattern / symmetry: stop after G grids tried (per mask) even short of -n "
                        "(default 1,000,000)")
    p.add_argument("--rating", action="append", metavar="NAME:LO-HI", default=None,
                   help="target difficulty: keep only puzzles with the metric in the band, e.g. W:3-5, "
                        "guesses:0-2, brt:0 (repeat for several; every method)")
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
    if args.n < 1:
        raise ValueError("-n must be at least 1")
    if args.symmetry and args.method == "top-down":
        args.method = "symmetry"
    if args.method == "pattern" and not args.pattern:
        raise ValueError("--method pattern needs --pattern MASK (81 characters x/. or a file of masks)")
    if args.method == "symmetry" and not args.symmetry:
        raise ValueError(f"--method symmetry needs --symmetry ({', '.join(SYMMETRIES)})")
    if args.pattern and args.method != "pattern":
        args.method = "pattern"
    if args.max_grids < 1:
        raise ValueError("--max-grids must be at least 1")
    if args.out:
        from sudokustudio.jobs.collections import check_export_path

        check_export_path(args.out)
        check_outputs((args.out, "--out"))
    from sudokustudio.sudoku.generate.bands import check_bands

    bands = check_bands(args.rating)
    if args.method == "pattern":
        from sudokustudio.sudoku.generate.pattern import format_mask, read_masks

        masks = [format_mask(m) for m in read_masks(args.pattern)]
        results = [_run_one(args, bands, mask=m) for m in masks]
        return _report(args, results)
    return _report(args, [_run_one(args, bands)])


def _run_one(args, bands, mask=None):
    """(job, outcome, seconds, total) of one run."""
    from sudokustudio.models.generators import build_job

    job, n_batches = build_job(args.method, args.n, grid_source=args.grid_source, blind=args.blind,
                               subset_size=args.subset_size, difficulty=parse_metrics(args.difficulty),
                               bands=bands, mask=mask, symmetry=args.symmetry, max_grids=args.max_grids,
                               tail_per_grid=args.tail_per_grid, tail_deep=args.tail_deep)
    open_ended = n_batches is None or args.method in ("pattern", "symmetry")
    job.warm_up()
    t0 = work_started()
    outcome = execute(job, args.seed, n_batches=n_batches, units=args.n if open_ended else None,
                      threads=args.threads, scheduler=args.scheduler, label=args.method,
                      progress=lambda snap: f"{snap.total.count:,} puzzles")
    secs = time.perf_counter() - t0
    for err in outcome.errors:
        print(f"sudokustudio-cli: {err}", file=sys.stderr)
    total = outcome.total
    if args.method != "weighted-subsets" and total.count > args.n:
        from sudokustudio.sudoku.generate import GenResult

        total = GenResult(total.puzzles[:args.n], total.weights[:args.n],
                          {k: v[:args.n] for k, v in total.metrics.items()}, total.tries,
                          total.solver_calls, total.seconds, rated=total.rated, rejected=total.rejected)
    return job, outcome, secs, total


def _report(args, results) -> int:
    from sudokustudio.sudoku.generate.bands import band_text

    ds = []
    all_errors = False
    for job, outcome, secs, total in results:
        ds.append(_describe(args, job, outcome, secs, total))
        if job.spec.get("bands"):
            ds[-1]["rating_bands"] = band_text(job.spec["bands"])
        all_errors = all_errors or bool(outcome.errors)
    if args.out:
        from sudokustudio.jobs.collections import export_puzzles
        from sudokustudio.sudoku.generate import merge_results

        total = results[0][3]
        for r in results[1:]:
            total = merge_results(total, r[3])
        export_puzzles(args.out, total, generator=args.method, seed=args.seed)
        for d in ds:
            d["out"] = args.out
    if args.json:
        print_json(ds[0] if len(ds) == 1 else {"method": args.method, "patterns": ds,
                                                "count": sum(d["count"] for d in ds)})
    else:
        for d in ds:
            _print_text(d)
    return 1 if all_errors else 0


def _describe(args, job, outcome, secs, total) -> dict:
    d = job.describe(total)
    d["seconds"] = round(secs, 4)
    d["rate"] = total.count / secs if secs > 0 else float("nan")
    d["seed"] = args.seed
    d["batches"] = outcome.batches
    return d


def _print_text(d: dict) -> None:
    kind = "unique puzzles" if d["method"] == "pattern" else "minimal puzzles"
    print(f"{d['method']}: {d['count']} {kind} in {d['seconds']:.2f} s ({d['rate']:.1f}/s)")
    print(f"  clues: mean {d['mean']:.3f} ± {d.get('mean_se', float('nan')):.3f}  sd {d['sd']:.3f}  "
          f"skew {d['skew']:.3f}  kurt {d['kurt']:.3f}")
    if "corrected_mean" in d:
        label = "weighted" if d["method"] == "weighted-subsets" else "corrected"
        print(f"  {label}: mean {d['corrected_mean']:.3f}  sd {d['corrected_sd']:.3f}")
    if d["method"] == "weighted-subsets":
        print(f"  subset samples: {d.get('samples', 0)}, minimal puzzles found: {d.get('found', 0)} "
              f"(kept: {d['count']}); weighted mean ± {d.get('weighted_mean_se', float('nan')):.3f}")
        z = d.get("seed002_z") or {}
        few = d.get("seed002_untested") or []
        if z:
            worst = max(z, key=lambda c: abs(z[c]))
            print(f"  clue shares against seed 002's real distribution: c = {', '.join(map(str, sorted(z)))}, "
                  f"largest |z| {abs(z[worst]):.2f} at c = {worst}")
        if few:
            from sudokustudio.sudoku.generate.weighted import MIN_ESS_FOR_Z

            print(f"  not tested (found in fewer than {MIN_ESS_FOR_Z:.0f} effective samples): "
                  f"c = {', '.join(map(str, few))}")
    elif d.get("tries_per_puzzle"):
        print(f"  grids per puzzle: {d['tries_per_puzzle']:.0f}")
    if d.get("tail"):   # the weighted or corrected statistics' tail (core.stats.class_tail_diagnostics)
        t = d["tail"]
        samples = f" of {d['samples']:,} samples" if "samples" in d else f" of {d['count']:,} puzzles"
        print(f"  tail: ESS {t['ess']:,.4g}{samples}, largest {100 * t['max_share']:.2g}% of the weight")
        if t["warning"]:
            from sudokustudio.sudoku.generate.results import tail_warning

            print("  WARNING: " + tail_warning(d))
    if "pattern" in d:
        print(f"  pattern {d['pattern']} ({d['pattern_clues']} clues): {d.get('tries', 0):,} grids tried, "
              + (f"{d['grids_per_puzzle']:.1f} per puzzle" if d.get("grids_per_puzzle") else "no puzzle found"))
    if "symmetry" in d:
        print(f"  {d['symmetry']} symmetry: {d.get('tries', 0):,} grids tried, "
              + (f"{d['grids_per_puzzle']:.1f} per minimal puzzle" if d.get("grids_per_puzzle")
                 else "no puzzle found"))
    if "rated" in d:
        print(f"  rating {d.get('rating_bands', '')}: {d['rated']:,} rated, {d['rejected']:,} rejected, "
              f"{d['rated'] - d['rejected']:,} kept")
    hist = d["clues_hist"]
    if hist:
        print("  histogram: " + "  ".join(f"{k}:{v}" for k, v in hist.items()))
    for name, m in d.get("difficulty", {}).items():
        print(f"  {name}: mean {m['mean']:.3f}" + (f" (corrected {m['corrected_mean']:.3f})"
                                                   if "corrected_mean" in m else ""))
