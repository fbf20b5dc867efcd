"""``sudokustudio-cli rate FILE``: Berthier's W-rating (whips) of every puzzle."""
from __future__ import annotations

import csv
import sys
import time

from sudokustudio.commands.common import add_json_arg, add_run_args, check_outputs, execute, print_json, \
    work_started
from sudokustudio.core import limits

DEFAULT_CAP, MAX_CAP = 12, 40   # sudoku.rating's (tests check they agree); the parser stays light


def register(sub) -> None:
    p = sub.add_parser(
        "rate", help="W-rating (Berthier's whips) of every puzzle of a file",
        description="Rate every puzzle of FILE with Berthier's W-rating: the least n such that "
                    "BRT (constraint propagation + singles) and whips of length <= n solve it. "
                    "0 = BRT alone; CAP+1 ('> CAP') = not solved with whips of length <= CAP; "
                    "-1 = no solution or several. Also counts the candidates left after BRT.")
    p.add_argument("file", metavar="FILE",
                   help="puzzle file (.txt, .sdm, .sdk; one puzzle per line: 81 characters, or 729 for "
                        "pencil marks, rated from those candidates; gzipped or not)")
    p.add_argument("--cap", type=limits.whole(1, MAX_CAP), default=DEFAULT_CAP,
                   help=f"longest whip tried, 1..{MAX_CAP} (default %(default)s)")
    p.add_argument("--csv", metavar="OUT", default=None,
                   help="also write line, puzzle, W, candidates after BRT to this CSV file")
    p.add_argument("--explain", action="store_true",
                   help="also print each puzzle's resolution path: the whip of every elimination, "
                        "in Berthier's notation (shortest whips first; BRT between steps)")
    add_run_args(p)
    add_json_arg(p)
    p.set_defaults(func=run)


def _explain(coll, i: int, cap: int) -> list[str]:
    """The whips behind row i's rating, from its candidates when the line gave pencil marks."""
    from sudokustudio.sudoku.rating import w_rating_path
    from sudokustudio.sudoku.rating.paths import w_rating_path_from_candidates

    path = w_rating_path_from_candidates(coll.cands[i], cap) if coll.marked[i] else w_rating_path(coll.puzzles[i], cap)
    return [str(step) for step in path.steps]


def run(args) -> int:
    from sudokustudio.sudoku.formats import read_collection
    from sudokustudio.sudoku.rating import RatingJob, rating_label, w_histogram

    check_outputs((args.csv, "--csv"))
    coll = read_collection(args.file, check_units=False)
    for issue in coll.issues:
        print(f"{args.file}: {issue}", file=sys.stderr)
    # a pencil-mark line goes to the job as its 729 characters: rated from its candidates
    job = RatingJob(puzzles=[coll.line_text(i) for i in range(len(coll))], cap=args.cap)
    job.warm_up()
    t0 = work_started()
    n_batches = job.n_batches()
    out = execute(job, 0, n_batches=n_batches, threads=args.threads, scheduler=args.scheduler,
                  label=f"rating {len(coll)} puzzles")
    secs = time.perf_counter() - t0
    ratings, cands = job.arrays(out.total)
    if out.errors:
        raise ValueError("; ".join(out.errors))
    hist_arr = w_histogram(ratings, args.cap)
    hist = {rating_label(w, args.cap): int(n) for w, n in enumerate(hist_arr) if n}
    n_invalid = int((ratings == -1).sum())
    if n_invalid:
        hist["invalid"] = n_invalid
    if args.csv:
        with open(args.csv, "w", newline="", encoding="utf-8") as f:
            w = csv.writer(f)
            w.writerow(["line", "puzzle", "W", "cands_after_BRT"])
            for i in range(len(coll)):
                w.writerow([coll.lines[i], coll.line_text(i), int(ratings[i]), int(cands[i])])
    paths = [_explain(coll, i, args.cap) for i in range(len(coll))] if args.explain else None
    if args.json:
        out = {"puzzles": len(coll), "cap": args.cap, "ratings": ratings.tolist(),
               "cands_after_brt": cands.tolist(), "hist": hist,
               "unreadable": len(coll.issues), "seconds": round(secs, 6)}
        if paths is not None:
            out["paths"] = paths
        print_json(out)
        return 0
    for i in range(len(coll)):
        print(f"line {coll.lines[i]}: {rating_label(ratings[i], args.cap)}"
              f"  ({int(cands[i])} candidates after BRT)")
        for step in paths[i] if paths is not None else ():
            print(f"    {step}")
    rate = len(coll) / secs if secs > 0 else float("inf")
    print(f"{len(coll)} puzzles in {secs:.2f} s ({rate:.0f}/s): "
          + ", ".join(f"{k}: {v}" for k, v in hist.items()))
    return 0
