"""``sudokustudio-cli survo ...``: Survo puzzles headless.

    survo solve FILE [--json] [--limit L]
    survo random M N [--givens K] [--seed S] [--json]

Further sub-commands come from the modules listed in SURVO_SUBCOMMANDS,
each with ``register(survo_subparsers)``.
"""
from __future__ import annotations

import importlib
import time

from sudokustudio.commands.common import add_json_arg, print_json, work_started

SURVO_SUBCOMMANDS: list[str] = [
    "sudokustudio.commands.survo_atlas",
]


def register(sub) -> None:
    p = sub.add_parser("survo", help="Survo puzzles: solve a matrix file, make random puzzles",
                       description="Survo puzzles: the product-of-sums setup, W, the exact solver "
                                   "and random uniquely solvable puzzles.")
    survo_sub = p.add_subparsers(dest="survo_command", metavar="SUBCOMMAND")
    survo_sub.required = True

    s = survo_sub.add_parser("solve", help="setup, W, minimum swaps and the solutions of a puzzle file",
                             description="Read a Survo matrix file (or the plain '*' form) and print the "
                                         "product-of-sums setup, its W, the minimum number of swaps from "
                                         "it, the solution and the number of solutions (up to --limit).")
    s.add_argument("file", metavar="FILE", help="Survo matrix file (MAT SAVE AS A ...)")
    s.add_argument("--limit", type=int, default=2, help="count solutions up to this number (default 2)")
    add_json_arg(s)
    s.set_defaults(func=run_solve)

    r = survo_sub.add_parser("random", help="print a random uniquely solvable puzzle in the matrix format",
                             description="A random m×n Survo puzzle with a unique solution, reproducible "
                                         "from --seed; open unless --givens is given.")
    r.add_argument("m", type=int, metavar="M", help="rows (2..8)")
    r.add_argument("n", type=int, metavar="N", help="columns (2..8)")
    r.add_argument("--givens", type=int, default=0, metavar="K", help="number of given numbers (default 0)")
    r.add_argument("--seed", type=int, default=0, metavar="S", help="random seed (default 0)")
    add_json_arg(r)
    r.set_defaults(func=run_random)

    for name in SURVO_SUBCOMMANDS:
        importlib.import_module(name).register(survo_sub)


def _table_lines(t) -> list[str]:
    return [" ".join(f"{int(v):2d}" for v in row) for row in t]


def _load_kernels(puzzle_setup, w_of, solve_survo, min_swaps_any, limit: int) -> None:
    """Run the solve pipeline on a 2x2 puzzle: loads its kernels from numba's cache."""
    from sudokustudio.survo.puzzle import SurvoPuzzle

    p = SurvoPuzzle([3, 7], [4, 6])
    setup = puzzle_setup(p)
    w_of(setup, p.row_sums, p.col_sums)
    res = solve_survo(p, max(limit, 1))
    min_swaps_any(setup, res.solutions)


def run_solve(args) -> int:
    from sudokustudio.survo.board import format_report, w_of
    from sudokustudio.survo.puzzle import read_survo
    from sudokustudio.survo.setup import puzzle_setup
    from sudokustudio.survo.solve import min_swaps_any, solve_survo

    if args.limit < 1:
        raise ValueError(f"--limit must be at least 1, got {args.limit}")
    puzzle = read_survo(args.file)
    _load_kernels(puzzle_setup, w_of, solve_survo, min_swaps_any, args.limit)
    t0 = work_started()
    setup = puzzle_setup(puzzle)
    w = w_of(setup, puzzle.row_sums, puzzle.col_sums)
    res = solve_survo(puzzle, max(args.limit, 1))
    swaps = min_swaps_any(setup, res.solutions)[0] if res.solutions else None
    secs = time.perf_counter() - t0
    if args.json:
        print_json({"file": args.file, "m": puzzle.m, "n": puzzle.n, "givens": puzzle.n_givens,
                    "setup": setup.tolist(), "W": w, "min_swaps": swaps,
                    "solution": res.solution.tolist() if res.solution is not None else None,
                    "solutions": res.count, "complete": res.complete, "seconds": round(secs, 6)})
        return 0 if res.count else 1
    print(f"{puzzle.m}x{puzzle.n} Survo puzzle, {puzzle.n_givens} given numbers")
    print("Setup by products of marginal sums:")
    print(format_report(setup, puzzle.row_sums, puzzle.col_sums))
    if res.count == 0:
        print("No solution.")
        return 1
    print(f"Minimum swaps from the setup: {swaps}")
    print("Solution:")
    print("\n".join(_table_lines(res.solution)))
    more = "" if res.complete else " or more"
    print(f"Solutions: {res.count}{more}" + (" (unique)" if res.unique else ""))
    return 0


def run_random(args) -> int:
    from sudokustudio.survo.generate import random_puzzle

    random_puzzle(2, 2, 0, 1)  # loads the kernels (start-up, not generating time)
    t0 = work_started()
    g = random_puzzle(args.m, args.n, args.givens, args.seed)
    secs = time.perf_counter() - t0
    if args.json:
        print_json({"matrix": g.puzzle.to_matrix_text(), "row_sums": g.puzzle.row_sums,
                    "col_sums": g.puzzle.col_sums, "givens": g.puzzle.givens, "solution": g.solution,
                    "W": g.initial_w, "min_swaps": g.min_swaps, "seed": args.seed,
                    "seconds": round(secs, 6)})
        return 0
    print(g.puzzle.to_matrix_text(), end="")
    return 0
