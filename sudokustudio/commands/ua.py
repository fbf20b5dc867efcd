"""``sudokustudio-cli ua harvest|search GRID``: unavoidable sets of a grid and
the few-clue puzzle search (seed 004); ``ua census FILE``: that search over a
file of grids, resumable from a run store."""
from __future__ import annotations

import sys
import time

from sudokustudio.commands.common import (add_json_arg, add_run_args, add_store_args, execute, execute_run,
                                          print_json, resume_hint, stored_run, work_started)
from sudokustudio.core import limits

MIN_UA, MAX_UA, MAX_CLUES = limits.UA_MIN_SIZE, limits.UA_MAX_SIZE, limits.UA_MAX_CLUES


def register(sub) -> None:
    p = sub.add_parser("ua", help="unavoidable sets of a solution grid; few-clue puzzle search",
                       description="Unavoidable sets (UAs) of a solution grid: harvest them, or search "
                                   "the grid for every minimal puzzle with at most K clues.")
    sp = p.add_subparsers(dest="ua_command", metavar="ACTION")
    sp.required = True

    h = sp.add_parser("harvest", help="harvest the minimal UAs of a grid",
                      description="Harvest minimal UAs up to --max-size cells; print them as 81-character "
                                  "masks sorted by size, with a disjoint-UA clue lower bound.")
    h.add_argument("grid", metavar="GRID", help="81-digit solution grid, or a file whose first line is "
                                                "a grid (or a uniquely solvable puzzle)")
    h.add_argument("--max-size", type=limits.whole(MIN_UA, MAX_UA), default=12,
                   help=f"largest UA size kept, {MIN_UA}..{MAX_UA} (default 12)")
    h.add_argument("--thorough", action="store_true",
                   help="also empty 6-digit sets on two bands/stacks (slower, a few more large UAs)")
    add_json_arg(h)
    h.set_defaults(func=run_harvest)

    s = sp.add_parser("search", help="every minimal puzzle with at most K clues for a grid",
                      description="Exhaustive hitting-set search over the UAs with dead cells and "
                                  "disjoint-group forward view; each candidate is verified by a solver.")
    s.add_argument("grid", metavar="GRID", help="81-digit solution grid, or a file (first line)")
    s.add_argument("--clues", type=limits.whole(1, MAX_CLUES), required=True, metavar="K",
                   help=f"at most this many clues, 1..{MAX_CLUES}")
    s.add_argument("--force", metavar="MASK", default="",
                   help="81-character mask ('1' or a digit = forced clue, '.' = free): cells that "
                        "must be clues")
    s.add_argument("--max-size", type=limits.whole(MIN_UA, MAX_UA), default=12,
                   help=f"largest harvested UA size, {MIN_UA}..{MAX_UA} (default 12)")
    s.add_argument("--no-forward", action="store_true",
                   help="switch off the disjoint-group forward view (for comparison)")
    s.add_argument("--split-depth", type=limits.whole(0, 3), default=2,
                   help="batches are the search nodes this many clues below the root, 0..3 (default 2)")
    s.add_argument("--seed", type=limits.seed(), default=1,
                   help="run seed, 0..2**64-1 (the search itself is deterministic)")
    add_run_args(s)
    add_json_arg(s)
    s.set_defaults(func=run_search)

    c = sp.add_parser("census", help="the few-clue search over every grid of a file (resumable)",
                      description="Search every grid of FILE for the minimal puzzles with at most K clues, "
                                  "a grid per batch, and report what was found and the CPU seconds per grid. "
                                  "With --store the run is kept, and --resume ID carries on a stopped or "
                                  "crashed one where it left off.")
    c.add_argument("file", metavar="FILE", nargs="?", help="solution grids, one per line (not with --resume)")
    c.add_argument("--clues", type=limits.whole(1, MAX_CLUES), default=16, metavar="K",
                   help=f"at most this many clues, 1..{MAX_CLUES} (default 16)")
    c.add_argument("--max-size", type=limits.whole(MIN_UA, MAX_UA), default=12,
                   help=f"largest harvested UA size, {MIN_UA}..{MAX_UA} (default 12)")
    c.add_argument("--first", type=limits.whole(1, 10**9), default=None, metavar="N",
                   help="only the first N grids of the file")
    add_store_args(c, "its grids and options")
    c.add_argument("--csv", metavar="OUT", default=None, help="write one row per grid searched")
    add_run_args(c)
    add_json_arg(c)
    c.set_defaults(func=run_census)


def _grid_arg(text: str):
    from sudokustudio.sudoku.unavoidable import read_grid

    try:
        return read_grid(text)
    except ValueError as exc:
        raise ValueError(f"GRID: {exc}") from exc


def run_harvest(args) -> int:
    from sudokustudio.sudoku.unavoidable import disjoint_groups, harvest, warm_up

    grid = _grid_arg(args.grid)
    warm_up()  # loads the UA kernels (start-up, not harvesting time)
    t0 = work_started()
    uas = harvest(grid, args.max_size, six_digits=args.thorough)
    groups, exact = disjoint_groups(uas)
    secs = time.perf_counter() - t0
    masks = uas.masks()
    if args.json:
        by_size = {str(k): v for k, v in uas.by_size().items()}
        print_json({"grid": "".join(map(str, grid)), "uas": masks, "by_size": by_size,
                    "disjoint_lower_bound": len(groups), "disjoint_exact": exact,
                    "disjoint_group": [masks[i] for i in groups], "seconds": round(secs, 6)})
        return 0
    sizes = uas.sizes()
    for m, s in zip(masks, sizes):
        print(f"{m} {s}")
    by = ", ".join(f"{k}: {v}" for k, v in uas.by_size().items())
    print(f"{len(uas)} minimal UAs of at most {args.max_size} cells ({by}); "
          f"{len(groups)} pairwise disjoint{'' if exact else ' (at least)'} -> at least {len(groups)} clues; "
          f"{secs:.2f} s")
    return 0


def run_search(args) -> int:
    from sudokustudio.sudoku.unavoidable import UASearchJob, mask_from_string, warm_up

    grid = _grid_arg(args.grid)
    if args.force:
        try:
            mask_from_string(args.force)
        except ValueError as exc:
            raise ValueError(f"--force: {exc}") from exc
    warm_up()  # loads the UA kernels (start-up, not search time)
    t0 = work_started()
    job = UASearchJob("".join(map(str, grid)), args.clues, args.force, args.max_size,
                      not args.no_forward, args.split_depth, 1)
    job.prepare()
    n_batches = job.n_batches()

    def progress(snap):
        tot = snap.total
        return f"{len(tot['puzzles'])} found, {int(tot['stats'][0]):,} nodes"

    outcome = execute(job, args.seed, n_batches=n_batches, threads=args.threads,
                      scheduler=args.scheduler, label="ua search", progress=progress)
    for err in outcome.errors:
        print(err, file=sys.stderr)
    out = job.describe(outcome.total)
    out["seconds"] = round(time.perf_counter() - t0, 6)
    out["complete"] = not outcome.cancelled and not outcome.errors and outcome.batches == n_batches
    if args.json:
        print_json(out)
        return 0 if out["complete"] else 1
    for p in out["puzzles"]:
        print(p)
    print(f"{len(out['puzzles'])} minimal puzzles with at most {args.clues} clues; "
          f"{out['nodes']:,} nodes, {out['leaves_checked']:,} hitting sets checked, "
          f"{out['uas_added']:,} UAs found on the way; {out['seconds']:.2f} s"
          + ("" if out["complete"] else " (INCOMPLETE)"))
    return 0 if out["complete"] else 1


def run_census(args) -> int:
    from sudokustudio.commands.common import check_outputs
    from sudokustudio.sudoku.unavoidable import UACensusJob, read_grids, warm_up

    if (args.file is None) == (args.resume is None):
        raise ValueError("give a FILE of grids, or --resume ID of a stored census (not both)")
    check_outputs((args.csv, "--csv"))

    def new_census():
        grids = read_grids(args.file)
        return UACensusJob(grids[:args.first] if args.first else grids, args.clues, args.max_size)

    run = stored_run(args, UACensusJob.kind, new_census, 1, f"census {args.file}")
    job = run.job
    warm_up()  # loads the UA kernels (start-up, not search time)
    t0 = work_started()
    outcome = execute_run(run, threads=args.threads, scheduler=args.scheduler, label="ua census",
                          progress=lambda snap: f"{len(snap.total['found']):,} found")
    out = job.describe(outcome.total)
    out["run_id"] = run.run_id
    out["seconds"] = round(time.perf_counter() - t0, 6)
    out["complete"] = out["grids_done"] == out["grids"] and not outcome.errors
    for err in outcome.errors:
        print(err, file=sys.stderr)
    if args.csv:
        _write_census_csv(args.csv, job, out["rows"])
    if args.json:
        print_json(out)
        return 0 if out["complete"] else 1
    for p in out["puzzles"]:
        print(p)
    cpu = out.get("grid_cpu")
    spread = (f"; CPU-s per grid: median {cpu['median']:.2f}, quartiles {cpu['q1']:.2f}-{cpu['q3']:.2f}, "
              f"max {cpu['max']:.2f}") if cpu else ""
    print(f"{len(out['puzzles'])} minimal puzzles with at most {job.spec['clues']} clues in "
          f"{out['grids_done']} of {out['grids']} grids{spread}; {out['seconds']:.1f} s"
          + (f"; run {run.run_id}" if run.run_id else "")
          + resume_hint(run, out["complete"]))
    return 0 if out["complete"] else 1


def _write_census_csv(path, job, rows) -> None:
    import csv

    from sudokustudio.sudoku.unavoidable.census import COLUMNS

    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(COLUMNS[:1] + ("solution",) + COLUMNS[1:])
        for r in rows:
            w.writerow([r["grid"] + 1, job.spec["grids"][r["grid"]]] + [r[k] for k in COLUMNS[1:]])
