"""``sudokustudio-cli estimate grids|minimals``: Monte Carlo counts (seeds 000, 002, 003).

    estimate grids --box 3x3 --method {crude,ridder,rows,fc,smc} (--samples N | --seconds T) --seed S
    estimate minimals [--method {best,singletons,subsets,supersets,path}] [--c C] [--s S]
                      [--min-clues C] [--per-grid K] (--samples N | --seconds T) --seed S
    estimate report --run ID [--store PATH] --csv FILE --md FILE

``grids`` and ``minimals`` take ``--csv``/``--md`` too (the record table of the
fresh run: c, estimate, RE, 95% CI, samples, core-seconds, seed, version, tail
diagnostics, Afmob's and Berthier's figures).  Every estimate carries tail
diagnostics (ESS, largest sample's share, a warning while the RE cannot be
trusted: core.stats.tail_diagnostics).

``--samples`` counts samples (grids: sampled grids; minimals: sampled grids,
each probed ``--per-grid`` times) and is rounded up to whole batches.
"""
from __future__ import annotations

import math
import os
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
    g.add_argument("--box", default="3x3", help="box shape RxC, r, c >= 2, r*c <= 25: 2x2 ... 3x3, 4x4, 4x5, "
                                                "5x5 (default 3x3; rows takes up to 16x16, crude up to 9x9)")
    g.add_argument("--method", default="rows", choices=["crude", "ridder", "rows", "fc", "smc"],
                   help="crude Monte Carlo, Ridder's importance sampling, or ours: "
                        "rows (row-wise exact-row sampler, default), fc (forward checking) or "
                        "smc (particle filter over forward checking; a sample is one run of many particles: "
                        "the method for 25x25)")
    _common(g)
    g.set_defaults(func=run_grids)

    m = s2.add_parser("minimals", help="c-clue minimal puzzles per grid",
                      description="Estimate the number of c-clue minimal puzzles per 9x9 grid for all c "
                                  "(seed 000: singletons, subsets, supersets; seed 002: path).")
    m.add_argument("--method", default=None, choices=["best", "singletons", "subsets", "supersets", "path"],
                   help="best (the default without --s, --c, --min-clues, --per-grid): the best combination, "
                        "a plan of probes made for each range of c (30-clue subsets for c <= 27, 31 searched "
                        "down to 28 for c = 28, both thinned by their removable clues, and supersets of a "
                        "25-clue base up to 31 clues for c = 29..31), its total from one run; "
                        "otherwise subsets")
    m.add_argument("--c", type=limits.whole(0, 81), default=None,
                   help="singletons: the clue count (default 25); supersets: the largest clue count "
                        "enumerated (default s+4)")
    m.add_argument("--min-clues", type=limits.whole_list(0, 81), default=None, metavar="C",
                   help="subsets: count only minimals of at least C clues; the search inside a subset stops "
                        "there, so large subsets become cheap: the tail c >= 29 with --s 34 --min-clues 29.  "
                        "One floor per size makes a plan: --s 30,31,33 --min-clues 0,28,29 --per-grid 48,20,1.5 "
                        "counts each c in every size that searches down to it, each find weighed the same")
    m.add_argument("--s", type=limits.whole_list(1, 81), default=None,
                   help="subsets: size of the random clue set (default 30), or sizes separated by "
                        "commas for a mixture (e.g. 29,31 --per-grid 48,4: every count weighed by the "
                        "mixture's odds of seeing it); supersets: size of the random base set (default 24)")
    m.add_argument("--grid-source", default="weighted", choices=["weighted", "random"],
                   help="weighted: sequential sampler with weights (unbiased, default); "
                        "random: randomized-solver grids (biased, for comparison)")
    m.add_argument("--per-grid", type=limits.number_list(0, 1_000_000, lo_open=True), default=None,
                   help="probes per sampled grid of weight 1, more than 0 and at most 1000000 (a fraction is "
                        "an average: 0.25 probes one grid in four); for a mixture one number per size, "
                        "separated by commas (default for subsets: 48 each on 9x9 grids, 16 on 4x4)")
    m.add_argument("--thin", default="auto", metavar="auto|off|BETA:R0[:BETA2:N2][,...]",
                   help="subsets: go past a subset's first level only with chance min(1, exp(-BETA (r - R0))), "
                        "r its clues that can go alone, each find weighted by the inverse (unbiased); with "
                        "BETA2:N2 also search a set one clue above the floor only with chance "
                        "min(1, exp(BETA2 (k - N2))), k its clues known needed; one entry, "
                        "or one per size.  auto (default): the thinning fitted for 33-clue subsets searched to 30 "
                        "(c = 30: ~2x less variance x CPU) or 29 and 31-clue ones searched to 28, none elsewhere; "
                        "off: none")
    m.add_argument("--shares", default=None, metavar="C:S0:S1[...][,C:...]",
                   help="subsets with several sizes: the estimate of C clues mixes the sizes' own estimates in "
                        "these shares (one a size, summing to 1) instead of weighing every find the same; "
                        "unbiased for any shares (the best combination: 29:0:0.25:0.75)")
    m.add_argument("--box", default="3x3", help="box shape: 3x3 (default) or 2x2 (4x4 Sudoku, exhaustively checkable)")
    _common(m)
    m.set_defaults(func=run_minimals)

    r = s2.add_parser("report", help="the record table of a stored estimate run (CSV and Markdown)",
                      description="Write the table of a stored estimate run: c, estimate, RE, 95% CI, "
                                  "samples, core-seconds, seed, version, tail diagnostics, published figures.")
    r.add_argument("--run", type=int, required=True, help="run id in the run store")
    r.add_argument("--store", default=None, help="run store file (default: the app's)")
    _report_args(r)
    r.set_defaults(func=run_report)


def _report_args(p) -> None:
    p.add_argument("--csv", metavar="FILE", default=None, help="write the record table as CSV")
    p.add_argument("--md", metavar="FILE", default=None, help="write the record table as Markdown")


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
    _report_args(p)


def _write_report(args, job, total, seed) -> None:
    from sudokustudio.sudoku.estimate.report import report_rows, to_csv, to_markdown

    if not (args.csv or args.md):
        return
    rows = report_rows(job, total, seed)
    for path, text in ((args.csv, to_csv), (args.md, to_markdown)):
        if path:
            with open(path, "w", encoding="utf-8") as f:
                f.write(text(rows))


def _tail_json(t: dict) -> dict:
    return {"ess": t["ess"], "max_share": t["max_share"], "warning": t["warning"]}


def run_report(args) -> int:
    from sudokustudio.jobs.store import RunStore, StoreError

    if not (args.csv or args.md):
        raise ValueError("report: give --csv FILE and/or --md FILE")
    if args.store and not (os.path.isfile(args.store) and os.path.getsize(args.store) > 0):
        # opening would create a store there (sqlite takes an empty file for an empty database)
        raise ValueError(f"no run store at {args.store} (the file is missing or empty)")
    try:
        store = RunStore(args.store) if args.store else RunStore()
        info = store.run(args.run)
        if not info.kind.startswith("estimate."):
            raise ValueError(f"run {args.run} is a {info.kind} run, not an estimate")
        job = store.job_of(args.run)
        total, _, _ = store.load_results(args.run, job)
    except StoreError as exc:
        raise ValueError(str(exc)) from None
    _write_report(args, job, total, info.seed)
    return 0


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


def _fmt_scaled(x: float, log10: float, factor: float = 1.0) -> str:
    """factor * x, where log10 = log10(x): written from log10 when x is past the float range
    (a 25x25 count, ~4e308, is inf as a float)."""
    if math.isfinite(x) or math.isnan(log10) or math.isnan(factor):
        return _fmt(factor * x)
    if factor == 0.0 or log10 == -math.inf:
        return "0"
    if log10 == math.inf:
        return "inf"
    lg = log10 + math.log10(abs(factor))
    e = math.floor(lg)
    return f"{'-' if factor < 0 else ''}{10.0 ** (lg - e):.6g}e+{e}"


def run_grids(args) -> int:
    from sudokustudio.core.batch import finite_or_none
    from sudokustudio.core.stats import Z95
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
    _write_report(args, job, out.total, args.seed)
    rate = d["samples"] / out.seconds if out.seconds > 0 else float("nan")
    if args.json:
        # a count past the float range (25x25) is null in "estimate" and "ci95": read log10_estimate
        print_json({"estimate": finite_or_none(d["estimate"]), "log10_estimate": d["log10_estimate"],
                    "rel_err": d["rel_err"], "samples": d["samples"], "seconds": round(out.seconds, 6),
                    "core_seconds": d["core_seconds"], "ci95": [finite_or_none(x) for x in d["ci95"]],
                    "rat": d["rat"], "eff": finite_or_none(grid_eff(job, out)), "samples_per_second": rate,
                    "box": args.box, "method": args.method, "exact": finite_or_none(d["exact"]),
                    "reference_exact": d["reference_exact"], "z": finite_or_none(d["z"]),
                    "tail": _tail_json(d["tail"]),
                    "seed": args.seed})
        return 1 if out.errors else 0
    print(f"{args.box} grids by {args.method}: {d['samples']} samples in {out.seconds:.2f} s "
          f"({rate:,.0f}/s), {d['hits']} non-zero")
    est, lg, rel = d["estimate"], d["log10_estimate"], d["rel_err"]
    print(f"  estimate {_fmt_scaled(est, lg)}  RE {100 * rel:.4g}%  "
          f"95% CI [{_fmt_scaled(est, lg, 1 - Z95 * rel)}, {_fmt_scaled(est, lg, 1 + Z95 * rel)}]")
    ref = (f"{'exact' if d['exact_is_exact'] else 'published'} {_fmt(d['exact'])} (z {d['z']:+.2f})"
           if math.isfinite(d["exact"]) else "no published count")
    print(f"  RAT {d['rat']:.4f}  EFF {grid_eff(job, out):.4g}   {ref}   log10 {d['log10_estimate']:.5f}")
    _print_tail("  ", d["tail"])
    return 1 if out.errors else 0


def _print_tail(indent: str, t: dict) -> None:
    flag = "  WARNING: heavy tail, the RE cannot be trusted yet" if t["warning"] else ""
    print(f"{indent}tail: ESS {t['ess']:.4g}, largest sample {100 * t['max_share']:.3g}% of the sum{flag}")


def grid_eff(job, out) -> float:
    return job.summarize(out.total, seconds=out.seconds)["eff"]


def run_minimals(args) -> int:
    from sudokustudio.sudoku.estimate import MinimalsJob

    method = args.method
    tuned = [f"--{k.replace('_', '-')}" for k in ("s", "c", "min_clues", "per_grid", "shares")
             if getattr(args, k) is not None]
    if method is None:
        method = "best" if not tuned and args.box == "3x3" else "subsets"
    if method == "best":
        if tuned or args.box != "3x3":
            raise ValueError(f"--method best is a fixed plan for 3x3 boxes: not with {', '.join(tuned) or '--box'}"
                             " (a plan of your own: --method subsets --s ... --min-clues ... --per-grid ...)")
        return _run_minimals(args, MinimalsJob.best(args.grid_source), method)
    kw = dict(method=method, box=args.box, s=args.s, grid_source=args.grid_source, per_grid=args.per_grid)
    if args.c is not None:
        if method == "singletons":
            kw.update(c_lo=args.c, c_hi=args.c)
        elif method == "supersets":
            kw.update(c_hi=args.c)
        else:
            kw.update(c_lo=args.c, c_hi=args.c)
    if args.min_clues is not None:
        if method != "subsets" or args.c is not None:
            raise ValueError("--min-clues: for --method subsets, without --c")
        if isinstance(args.min_clues, list):
            kw.update(min_clues=args.min_clues)
        else:
            kw.update(c_lo=args.min_clues)
    if args.shares is not None:
        kw.update(shares=_share_entries(args.shares))
    job = MinimalsJob(**kw)
    if args.thin == "auto":
        job = job.auto_thinned()
    elif args.thin != "off":
        job = MinimalsJob(**kw, thin=_thinning_entries(args.thin))
    return _run_minimals(args, job, method)


def _thinning_text(s: int, entry) -> str:
    text = f"s={s}: beta {entry[0]:g}, r0 {entry[1]:g}"
    return text + (f", beta2 {entry[2]:g}, n2 {entry[3]:g}" if len(entry) == 4 else "")


def _colon_rows(text: str) -> list[list[float]]:
    """'a:b,c:d' -> [[a, b], [c, d]] as floats; [] if any is not a number (the caller says what it wanted)."""
    try:
        return [[float(x) for x in row.split(":")] for row in text.split(",")]
    except ValueError:
        return []


def _thinning_entries(text: str) -> list[list[float]]:
    """'0.3:16.5,0:0' -> [[0.3, 16.5], [0.0, 0.0]]; '0.25:15.5:0.25:22' a second stage too (the
    job checks the numbers)."""
    entries = _colon_rows(text)
    if not entries or any(len(e) not in (2, 4) for e in entries):
        raise ValueError(f"--thin {text}: auto, off, or BETA:R0 pairs (or BETA:R0:BETA2:N2) separated by commas")
    return entries


def _share_entries(text: str) -> list[list[float]]:
    """'29:0.004:0.257:0.739' -> [[29, 0.004, 0.257, 0.739]]; rows separated by commas (the job
    checks the numbers)."""
    rows = _colon_rows(text)
    if not rows or any(len(r) < 2 or not math.isfinite(r[0]) or r[0] != int(r[0]) for r in rows):
        raise ValueError(f"--shares {text}: C:S0:S1... rows (a clue count, then one share a size) separated by commas")
    return [[int(r[0]), *r[1:]] for r in rows]


def _run_minimals(args, job, method: str) -> int:
    from sudokustudio.sudoku.estimate.designs import is_thinned

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
    _write_report(args, job, out.total, args.seed)
    tot = d["total"]
    if args.json:
        # rel_err_plain: without the grid weight as control variate (MinimalsJob._mean_se)
        print_json({"per_c": {c: {"found": v["found"], "estimate": v["estimate"], "rel_err": v["rel_err"],
                                  "rel_err_plain": v["se_plain"] / v["estimate"] if v["estimate"] > 0 else None,
                                  "ci95": v["ci95"], "tail": _tail_json(v["tail"])}
                              for c, v in d["per_c"].items()},
                    "total": None if tot is None else
                    {"estimate": tot["estimate"], "rel_err": tot["rel_err"],
                     "rel_err_plain": tot["se_plain"] / tot["estimate"], "ci95": tot["ci95"],
                     "c_range": tot["c_range"], "all_grids": tot["all_grids"], "tail": _tail_json(tot["tail"])},
                    "samples": d["samples"], "seconds": round(out.seconds, 6), "core_seconds": d["core_seconds"],
                    "probes": d["probes"], "method": method, "methods": d["methods"], "s": job.s,
                    "min_clues": d["min_clues"],
                    "thin": d["thin"], "shares": d["shares"],
                    "per_grid": job.spec["per_grid"], "grid_source": job.grid_source,
                    "biased": job.biased, "seed": args.seed})
        return 1 if out.errors else 0
    label = " (BIASED grid source)" if job.biased else ""
    by = "the best combination" if method == "best" else method
    thinned = "; thinned " + ", ".join(_thinning_text(a, e) for a, e in zip(job.s_mix, job.thin_mix)
                                       if is_thinned([e])) if "thin" in job.spec else ""
    shared = "; shares " + ", ".join(f"c = {r[0]}: " + " / ".join(f"{v:g}" for v in r[1:]) for r in d["shares"]) \
        if d["shares"] else ""
    print(f"minimal puzzles per grid by {by}{label}: {d['samples']} grids, {d['probes']} probes, "
          f"{out.seconds:.2f} s{thinned}{shared}")
    print(f"{'c':>3} {'found':>9} {'per grid':>12} {'RE':>8} {'ESS':>9} {'max':>7}")
    for c, v in sorted(d["per_c"].items(), key=lambda kv: int(kv[0])):
        t = v["tail"]
        print(f"{c:>3} {v['found']:>9} {v['estimate']:>12.4e} {100 * v['rel_err']:>7.2f}% {t['ess']:>9.4g} "
              f"{100 * t['max_share']:>6.2g}%{'  TAIL WARNING' if t['warning'] else ''}")
    if tot is not None:
        lo, hi = tot["c_range"]
        print(f"total c={lo}..{hi}: {tot['estimate']:.5e} per grid ± {100 * tot['rel_err']:.3g}%, "
              f"{tot['all_grids']:.5e} in all")
        _print_tail("  ", tot["tail"])
    return 1 if out.errors else 0
