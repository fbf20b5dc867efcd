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
    p.add_argument("file", metavar="FILE",
                   help="puzzle file (.txt, .sdm, .sdk; one puzzle per line: 81 characters, or 729 for "
                        "pencil marks; gzipped or not)")
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


def _solve_marked(coll, limit: int):
    """Solutions and counts of the pencil-mark rows of ``coll`` (the candidate solver),
    and its CPU time; None when the file has none."""
    if not coll.has_marks:
        return None
    from sudokustudio.sudoku.candidates import solve_candidates_batch

    c0 = time.thread_time()
    sols, counts = solve_candidates_batch(coll.cands[coll.marked], limit)
    return sols, counts, time.thread_time() - c0


def _in_file_order(marked, plain_parts, marked_parts):
    """Arrays of the plain rows and of the pencil-mark rows merged back into one, row by row."""
    import numpy as np

    out = []
    for a, b in zip(plain_parts, marked_parts):
        merged = np.zeros((len(marked),) + a.shape[1:], dtype=a.dtype)
        merged[~marked] = a
        merged[marked] = b
        out.append(merged)
    return out


def run(args) -> int:
    from sudokustudio.sudoku.formats import read_collection
    from sudokustudio.sudoku.grid import find_duplicate, format_puzzle
    from sudokustudio.sudoku.solver import solve_batch

    # contradictory givens are readable: the solver reports them as having no solution
    coll = read_collection(args.file, check_units=False)
    for issue in coll.issues:
        print(f"{args.file}: {issue}", file=sys.stderr)
    solve_batch(coll.puzzles[:0], args.limit)  # loads the kernel (start-up, not solving time)
    if coll.has_marks:
        from sudokustudio.sudoku.candidates import solve_candidates_batch

        solve_candidates_batch(coll.cands[:1] | 0x1FF, 1)   # the same for the candidate solver
    t0 = work_started()
    plain = coll.puzzles[~coll.marked] if coll.has_marks else coll.puzzles
    (sols, counts, _), solve_secs = _solve_parallel(plain, args.limit, args.threads)
    marked = _solve_marked(coll, args.limit)
    if marked is not None:   # pencil-mark lines: the candidate solver, results back in file order
        sols, counts = _in_file_order(coll.marked, (sols, counts), marked[:2])
        solve_secs += marked[2]
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
