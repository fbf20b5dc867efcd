"""``sudokustudio-cli estimate grids|minimals``: Monte Carlo counts (seeds 000, 002, 003).

    estimate grids --box 3x3 --method {crude,ridder,rows,fc} (--samples N | --seconds T) --seed S
    estimate minimals --method {singletons,subsets,supersets,path} [--c C] [--s S]
                      (--samples N | --seconds T) --seed S

``--samples`` counts samples (grids: sampled grids; minimals: sampled grids,
each probed ``--per-grid`` times) and is rounded up to whole batches.
"""
from __future__ import annotations

import math
import sys

from sudokustudio.commands.common import add_json_arg, add_run_args, execute, print_json, work_started
from sudokustudio.core import limits

MAX_SAMPLES = 10 ** 12          # about a week of the fastest estimator on one core
MAX_SECONDS = 366 * 86400.0    # a year


def register(sub) -> None:
    p = sub.add_parser("estimate", help="Monte Carlo estimates: number of grids, minimal puzzles per grid",
                       description="Estimate the number of Sudoku grids (any box shape) or the number of "
                                   "c-clue minimal puzzles per 9x9 grid, with relative errors.")
    s2 = p.add_subparsers(dest="what", metavar="WHAT")
    s2.required = True

    g = s2.add_parser("grids", help="number of grids of a box shape",
                      description="Estimate the number of n x n Sudoku grids (seed 003).")
    g.add_argument("--box", default="3x3", help="box shape: 2x2, 2x3, 3x3, 2x4, 3x4 or 4x4 (default 3x3)")
    g.add_argument("--method", default="rows", choices=["crude", "ridder", "rows", "fc"],
                   help="crude Monte Carlo, Ridder's importance sampling, or ours: "
                        "rows (row-wise exact-row sampler, default) or fc (forward checking)")
    _common(g)
    g.set_defaults(func=run_grids)

    m = s2.add_parser("minimals", help="c-clue minimal puzzles per grid",
                      description="Estimate the number of c-clue minimal puzzles per 9x9 grid for all c "
                                  "(seed 000: singletons, subsets, supersets; seed 002: path).")
    m.add_argument("--method", default="subsets", choices=["singletons", "subsets", "supersets", "path"])
    m.add_argument("--c", type=limits.whole(0, 81), default=None,
                   help="singletons: the clue count (default 25); supersets: the largest clue count "
                        "enumerated (default s+4)")
    m.add_argument("--s", type=limits.whole(1, 81), default=None,
                   help="subsets: size of the random clue set (default 30); supersets: size of the "
                        "random base set (default 24)")
    m.add_argument("--grid-source", default="weighted", choices=["weighted", "random"],
                   help="weighted: sequential sampler with weights (unbiased, default); "
                        "random: randomized-solver grids (biased, for comparison)")
    m.add_argument("--per-grid", type=limits.whole(1, 1_000_000), default=None,
                   help="probes per sampled grid, 1..1000000")
    m.add_argument("--box", default="3x3", help="box shape: 3x3 (default) or 2x2 (4x4 Sudoku, exhaustively checkable)")
    _common(m)
    m.set_defaults(func=run_minimals)


def _common(p) -> None:
    amount = p.add_mutually_exclusive_group(required=True)
    amount.add_argument("--samples", type=limits.whole(1, MAX_SAMPLES),
                        help=f"number of samples, 1..{MAX_SAMPLES:.0e} (rounded up to whole batches)")
    amount.add_argument("--seconds", type=limits.number(0, MAX_SECONDS, lo_open=True),
                        help="run for this many seconds (a finite number > 0, at most a year)")
    p.add_argument("--seed", type=limits.seed(), required=True,
                   help="run seed, 0..2**64-1 (same seed, same result)")
    add_run_args(p)
    add_json_arg(p)


def _amount(args, per_batch: int) -> tuple[int | None, float | None]:
    if args.samples is not None:
        if args.samples < 1:
            raise ValueError("--samples must be at least 1")
        return max(1, math.ceil(args.samples / per_batch)), None
    if args.seconds <= 0:
        raise ValueError("--seconds must be positive")
    return None, args.seconds


def _fmt(x: float) -> str:
    return f"{x:.6g}" if math.isfinite(x) else str(x)


def run_grids(args) -> int:
    from sudokustudio.sudoku.estimate import GridCountJob

    job = GridCountJob(args.box, args.method)
    n_batches, seconds = _amount(args, job.samples_per_batch)
    job.warm_up()
    work_started()

    def progress(snap):
        return f"RE {100 * snap.rel_err:.3g}%" if snap.rel_err is not None else ""

    out = execute(job, args.seed, n_batches=n_batches, seconds=seconds, threads=args.threads,
                  scheduler=args.scheduler, label=f"grids {args.box} {args.method}", progress=progress)
    for e in out.errors:
        print(e, file=sys.stderr)
    d = job.describe(out.total)
    rate = d["samples"] / out.seconds if out.seconds > 0 else float("nan")
    if args.json:
        print_json({"estimate": d["estimate"], "rel_err": d["rel_err"], "samples": d["samples"],
                    "seconds": round(out.seconds, 6), "ci95": d["ci95"], "rat": d["rat"],
                    "eff": grid_eff(job, out), "samples_per_second": rate, "box": args.box,
                    "method": args.method, "exact": d["exact"], "seed": args.seed})
        return 1 if out.errors else 0
    print(f"{args.box} grids by {args.method}: {d['samples']} samples in {out.seconds:.2f} s "
          f"({rate:,.0f}/s), {d['hits']} non-zero")
    print(f"  estimate {_fmt(d['estimate'])}  RE {100 * d['rel_err']:.4g}%  "
          f"95% CI [{_fmt(d['ci95'][0])}, {_fmt(d['ci95'][1])}]")
    print(f"  RAT {d['rat']:.4f}  EFF {grid_eff(job, out):.4g}   "
          f"{'exact' if d['exact_is_exact'] else 'published'} {_fmt(d['exact'])}")
    return 1 if out.errors else 0


def grid_eff(job, out) -> float:
    from sudokustudio.sudoku.estimate import grid_summary

    return grid_summary(job.box, out.total, seconds=out.seconds)["eff"]


def run_minimals(args) -> int:
    from sudokustudio.sudoku.estimate import MinimalsJob

    method = args.method
    kw = dict(method=method, box=args.box, s=args.s, grid_source=args.grid_source, per_grid=args.per_grid)
    if args.c is not None:
        if method == "singletons":
            kw.update(c_lo=args.c, c_hi=args.c)
        elif method == "supersets":
            kw.update(c_hi=args.c)
        else:
            kw.update(c_lo=args.c, c_hi=args.c)
    job = MinimalsJob(**kw)
    n_batches, seconds = _amount(args, job.grids_per_batch)
    job.warm_up()
    work_started()

    def progress(snap):
        return f"{snap.units} grids"

    out = execute(job, args.seed, n_batches=n_batches, seconds=seconds, threads=args.threads,
                  scheduler=args.scheduler, label=f"minimals {method}", progress=progress)
    for e in out.errors:
        print(e, file=sys.stderr)
    d = job.describe(out.total)
    if args.json:
        print_json({"per_c": {c: {"found": v["found"], "estimate": v["estimate"], "rel_err": v["rel_err"]}
                              for c, v in d["per_c"].items()},
                    "samples": d["samples"], "seconds": round(out.seconds, 6), "probes": d["probes"],
                    "method": method, "s": job.s, "grid_source": job.grid_source, "biased": job.biased,
                    "seed": args.seed})
        return 1 if out.errors else 0
    label = " (BIASED grid source)" if job.biased else ""
    print(f"minimal puzzles per grid by {method}{label}: {d['samples']} grids, {d['probes']} probes, "
          f"{out.seconds:.2f} s")
    print(f"{'c':>3} {'found':>9} {'per grid':>12} {'RE':>8}")
    for c, v in sorted(d["per_c"].items(), key=lambda kv: int(kv[0])):
        print(f"{c:>3} {v['found']:>9} {v['estimate']:>12.4e} {100 * v['rel_err']:>7.2f}%")
    return 1 if out.errors else 0
