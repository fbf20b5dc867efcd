"""``sudokustudio-cli survo atlas M N --out FILE [--json]``: every essentially
different uniquely solvable open M×N Survo puzzle, with its product setup,
initial W, minimum swaps and chi-square (seed 001's statistics for 4×4).

Registered under the ``survo`` command (``SURVO_SUBCOMMANDS`` in
``commands/survo.py``): ``register`` takes the survo sub-parsers.
"""
from __future__ import annotations

import sys
import time

from sudokustudio.commands.common import add_json_arg, add_run_args, add_store_args, check_outputs, execute_run, \
    print_json, resume_hint, stored_run, work_started
from sudokustudio.core import limits


def register(survo_sub) -> None:
    p = survo_sub.add_parser(
        "atlas", help="all uniquely solvable open M×N puzzles and their swap/W statistics",
        description="Enumerate every essentially different uniquely solvable open M×N Survo puzzle "
                    "(rows, columns and, for M = N, transposition factored out); write one puzzle per "
                    "line and print the distributions of the minimum swaps from the product setup, of the "
                    "initial W and the chi-square range (seed 001). M <= N, at most 20 cells; M = 2 runs by a "
                    "dedicated two-row method (2×10 in minutes).")
    p.add_argument("m", type=limits.whole(1, 8), metavar="M", help="rows (the smaller side)")
    p.add_argument("n", type=limits.whole(1, 10), metavar="N", help="columns (up to 8; up to 10 with M = 2)")
    p.add_argument("--out", metavar="FILE", help="write the puzzles here, one per line: row sums | column "
                                                 "sums | solution | setup | W | min swaps | chi-square")
    p.add_argument("--csv", metavar="PREFIX", help="write the tables as PREFIX_swaps.csv, PREFIX_w.csv and "
                                                   "PREFIX_summary.csv")
    p.add_argument("--predict-only", action="store_true",
                   help="only estimate the enumeration (Knuth's random probes): trade-free tables, relative "
                        "error and core-hours on this machine; works for sizes too big to run (e.g. 5 5)")
    p.add_argument("--probes", type=limits.whole(0, 10_000_000), default=1000, metavar="P",
                   help="random probes of the estimate (default 1000; 0: no estimate)")
    add_store_args(p, "its size and method")
    add_run_args(p)
    add_json_arg(p)
    p.set_defaults(func=run_atlas)


def run_atlas(args) -> int:
    from sudokustudio.survo.atlas import SurvoAtlasJob, compare_with_seed, warm_up, write_atlas

    if args.predict_only:
        return _predict_only(args)
    SurvoAtlasJob(args.m, args.n)   # ValueError names a bad size before a store is touched
    # fail before a long run, not after
    check_outputs((args.out, "--out"), *(((f"{args.csv}_{t}.csv", "--csv") for t in ("swaps", "w", "summary"))
                                         if args.csv else ()))
    run = stored_run(args, SurvoAtlasJob.kind, lambda: SurvoAtlasJob(args.m, args.n), 0,
                     f"survo atlas {args.m}x{args.n}")
    job = run.job
    if (job.m, job.n) != (args.m, args.n):
        raise ValueError(f"--resume: run {args.resume} is the {job.m}x{job.n} atlas, not {args.m}x{args.n}")
    warm_up()  # loads the atlas kernels (start-up, not enumeration time)
    job.batch_weights = job.estimate_batch_weights()   # the time left weighs batches by their work
    t0 = work_started()
    estimate = _estimate(args)
    outcome = execute_run(run, threads=args.threads, scheduler=args.scheduler,
                          label=f"survo atlas {args.m}x{args.n}",
                          progress=lambda snap: f"{snap.total.count:,} puzzles")
    seconds = time.perf_counter() - t0
    if outcome.errors:
        raise ValueError("; ".join(outcome.errors))
    complete = outcome.batches == job.n_batches()
    if not complete:  # stopped early (Ctrl-C is a crash: the store says "interrupted")
        raise ValueError(f"{args.m}x{args.n}: {outcome.batches} of {job.n_batches()} batches done"
                         + resume_hint(run, False))
    total = outcome.total
    if args.out:
        write_atlas(args.out, total)
    desc = total.describe(seconds=round(seconds, 3))
    if run.run_id:
        desc["run_id"] = run.run_id
    if estimate is not None:
        desc.update(estimate.as_dict())
        desc.pop("size", None)
    if args.csv:
        from sudokustudio.survo.atlas.tables import atlas_tables, write_tables_csv

        write_tables_csv(args.csv, atlas_tables(total))
    cmp = compare_with_seed(total)
    if args.json:
        desc["known_count"] = cmp["known_count"]
        desc["count_match"] = cmp["count_match"]
        if "all_match" in cmp:
            desc["seed001_match"] = cmp["all_match"]
        print_json(desc)
        return 0
    print(f"{args.m}x{args.n}: {total.count} uniquely solvable open puzzles"
          + (f" (S({args.m},{args.n}) = {cmp['known_count']}: {'match' if cmp['count_match'] else 'MISMATCH'})"
             if cmp["known_count"] is not None else "")
          + f" in {seconds:.2f} s ({total.tables} trade-free tables, {total.candidates} checked exactly; "
            f"{total.cpu_seconds:.1f} CPU-s" + (f" in all, run {run.run_id}" if run.run_id else "") + ")")
    print("swaps from the product setup:")
    hist = desc["swaps_hist"]
    print("  swaps     " + " ".join(f"{k:5d}" for k in range(len(hist))))
    print("  frequency " + " ".join(f"{v:5d}" for v in hist))
    print(f"  mean {desc['swaps_mean']:.3f}  sd {desc['swaps_sd']:.3f}  "
          f"< 6 swaps: {desc['under6_percent']:.1f} %")
    print("initial W:   W     swaps<6  frequency")
    for row in desc["W_table"]:
        print(f"  {row['W']:>8} {row['under6_percent']:7.1f} % {row['count']:8d}")
    if total.count:
        print(f"chi-square of the solutions: {desc['chi2_min']:.4f} .. {desc['chi2_max']:.4f}")
    if "all_match" in cmp:
        print("seed 001 (4x4): swaps " + ("match" if cmp["swaps"]["match"] else "MISMATCH")
              + ", W table " + ("match" if cmp["W_table"]["match"] else "MISMATCH")
              + ", chi-square inside (0.25, 8.25): " + ("yes" if cmp["chi2"]["match"] else "NO"))
    if args.out:
        print(f"wrote {total.count} puzzles to {args.out}", file=sys.stderr)
    return 0


def _estimate(args):
    """Knuth's estimate of the general search (None with --probes 0, and past 8 columns, where the
    general search's n! arrangements do not fit; two rows run by their own method anyway)."""
    if args.probes <= 0 or (args.n > 8 and not args.predict_only):
        return None
    from sudokustudio.survo.atlas.estimate import estimate_size

    return estimate_size(args.m, args.n, probes=args.probes)


def _predict_only(args) -> int:
    from sudokustudio.survo.atlas.plan import check_size

    check_size(args.m, args.n, max_cells=None)
    t0 = work_started()
    e = _estimate(args) if args.probes > 0 else None
    if e is None:
        raise ValueError("--predict-only needs --probes > 0")
    out = e.as_dict()
    out["seconds"] = round(time.perf_counter() - t0, 3)
    if args.json:
        print_json(out)
        return 0
    print(e.text())
    return 0
