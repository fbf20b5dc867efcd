"""``sudokustudio-cli solve FILE``: unique / multiple / none per puzzle."""
from __future__ import annotations

import sys
import time

from sudokustudio.commands.common import add_json_arg, add_threads_arg, print_json, work_started
from sudokustudio.core import limits

MAX_LIMIT = 2 ** 31 - 1   # the solver counts in int64; beyond this counting is hopeless anyway


def register(sub) -> None:
    p = sub.add_parser("solve", help="solve every puzzle of a file",
                       description="Solve every puzzle of FILE: unique, multiple or no solution. "
                                   "Unreadable lines are reported with their line numbers and skipped.",
                       epilog="seconds: the solving (wall time, after start-up and reading); solve_seconds: "
                              "CPU time in the solver kernel, summed over the threads (one thread with "
                              "--threads 1).")
    p.add_argument("file", metavar="FILE", help="puzzle file (.txt, .sdm, .sdk; one puzzle per line)")
    p.add_argument("--limit", type=limits.whole(1, MAX_LIMIT), default=2,
                   help=f"stop counting solutions at this number, 1..{MAX_LIMIT} (default 2)")
    add_threads_arg(p)
    add_json_arg(p)
    p.set_defaults(func=run)


def _solve_timed(puzzles, limit: int):
    """solve_batch's result and the CPU time this thread spent in the kernel."""
    from sudokustudio.sudoku.solver import solve_batch

    c0 = time.thread_time()
    out = solve_batch(puzzles, limit)
    return out, time.thread_time() - c0


def _solve_parallel(puzzles, limit: int, threads: int):
    """((solutions, counts, guesses), kernel CPU seconds summed over the threads)."""
    from concurrent.futures import ThreadPoolExecutor

    import numpy as np

    if threads <= 1 or len(puzzles) < 64:
        return _solve_timed(puzzles, limit)
    chunks = np.array_split(np.arange(len(puzzles)), threads * 4)
    with ThreadPoolExecutor(threads) as ex:
        parts = list(ex.map(lambda idx: _solve_timed(puzzles[idx], limit), chunks))
    return tuple(np.concatenate([p[0][k] for p in parts]) for k in range(3)), sum(p[1] for p in parts)


def run(args) -> int:
    from sudokustudio.sudoku.grid import find_duplicate, format_puzzle, read_puzzles
    from sudokustudio.sudoku.solver import solve_batch

    # contradictory givens are readable: the solver reports them as having no solution
    coll = read_puzzles(args.file, check_units=False)
    for issue in coll.issues:
        print(f"{args.file}: {issue}", file=sys.stderr)
    solve_batch(coll.puzzles[:0], args.limit)  # loads the kernel (start-up, not solving time)
    t0 = work_started()
    (sols, counts, _), solve_secs = _solve_parallel(coll.puzzles, args.limit, args.threads)
    secs = time.perf_counter() - t0
    unique = int((counts == 1).sum())
    multiple = int((counts >= 2).sum())
    none = int((counts == 0).sum())
    if args.json:
        print_json({"puzzles": len(coll), "unique": unique, "multiple": multiple, "none": none,
                    "unreadable": len(coll.issues), "seconds": round(secs, 6),
                    "solve_seconds": round(solve_secs, 6)})
        return 0
    for i in range(len(coll)):
        c = int(counts[i])
        if c == 0:
            why = find_duplicate(coll.puzzles[i])
            print(f"line {coll.lines[i]}: none" + (f" ({why})" if why else ""))
        elif c == 1:
            print(f"line {coll.lines[i]}: unique {format_puzzle(sols[i])}")
        else:
            more = "+" if c >= args.limit else ""
            print(f"line {coll.lines[i]}: multiple ({c}{more} solutions) {format_puzzle(sols[i])}")
    print(f"{len(coll)} puzzles: {unique} unique, {multiple} multiple, {none} none; "
          f"{len(coll.issues)} unreadable lines; {secs:.3f} s (solver kernel {solve_secs:.3f} CPU-s)")
    return 0
