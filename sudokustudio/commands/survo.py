"""``sudokustudio-cli survo ...``: Survo puzzles headless.

    survo solve FILE [--json] [--limit L]
    survo random M N [--givens K|auto] [--difficulty LEVEL] [--number N] [--seed S] [--json]
    survo difficulty FILE [--json]

Further sub-commands come from the modules listed in SURVO_SUBCOMMANDS,
each with ``register(survo_subparsers)``.
"""
from __future__ import annotations

import importlib
import time

from sudokustudio.commands.common import add_json_arg, print_json, work_started
from sudokustudio.core import limits

MIN_SIDE, MAX_SIDE = 2, 8          # survo.puzzle MIN_SIZE, MAX_SIZE (the parser stays light)
#: solutions are kept: up to 8 x 8 int16 each
MAX_LIMIT = min(2 ** 31 - 1, limits.memory_limit(2 * MAX_SIDE * MAX_SIDE))

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
    s.add_argument("--limit", type=limits.whole(1, MAX_LIMIT), default=2,
                   help=f"count solutions up to this number, 1..{MAX_LIMIT} (default 2)")
    add_json_arg(s)
    s.set_defaults(func=run_solve)

    r = survo_sub.add_parser("random", help="print a uniquely solvable puzzle of a chosen difficulty",
                             description="Puzzle number N of size M×N and a difficulty (easy ≤ 3 swaps from the "
                                         "setup, medium 4-5, hard 6-7 or a sacrifice needed, expert ≥ 8): the "
                                         "same size, difficulty, number and givens always give the same puzzle. "
                                         "Givens are added as the puzzle needs them (auto) or at least K.")
    r.add_argument("m", type=limits.whole(MIN_SIDE, MAX_SIDE), metavar="M", help="rows (2..8)")
    r.add_argument("n", type=limits.whole(MIN_SIDE, MAX_SIDE), metavar="N", help="columns (2..8)")
    r.add_argument("--givens", type=_givens_arg, default="auto", metavar="K|auto",
                   help="'auto' (default: as few as needed, open when possible) or a minimum number of givens")
    r.add_argument("--difficulty", choices=["easy", "medium", "hard", "expert"], default=None,
                   help="difficulty band (default: any)")
    r.add_argument("--number", type=limits.seed(), default=None, metavar="N",
                   help="puzzle number (default: the --seed value)")
    r.add_argument("--seed", type=limits.seed(), default=0, metavar="S",
                   help="random seed, 0..2**64-1 (default 0; --number wins)")
    add_json_arg(r)
    r.set_defaults(func=run_random)

    d = survo_sub.add_parser("difficulty", help="the swap difficulty of a puzzle file",
                             description="Fewest swaps from the setup, the fewest sacrifices (W-raising swaps) "
                                         "over all shortest swap sequences, the number of shortest sequences, "
                                         "the setup's W and the grade (easy/medium/hard/expert).")
    d.add_argument("file", metavar="FILE", help="Survo matrix file (MAT SAVE AS A ...)")
    add_json_arg(d)
    d.set_defaults(func=run_difficulty)

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


def _givens_arg(text: str) -> int | str:
    import argparse

    if str(text).strip().lower() == "auto":
        return "auto"
    try:
        return limits.check_whole(text, "--givens", 0, MAX_SIDE * MAX_SIDE)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'auto' or a whole number 0..{MAX_SIDE * MAX_SIDE}, got {text!r}") \
            from None


def run_random(args) -> int:
    from sudokustudio.survo.generate import graded_puzzle
    from sudokustudio.survo.solve import warm_up

    warm_up()  # loads the solver kernel (start-up, not generating time)
    number = args.seed if args.number is None else args.number
    t0 = work_started()
    if args.givens != "auto" and args.givens > args.m * args.n:
        raise ValueError(f"--givens {args.givens}: a {args.m}x{args.n} puzzle has {args.m * args.n} cells")
    g = graded_puzzle(args.m, args.n, args.difficulty, number, args.givens)
    secs = time.perf_counter() - t0
    if args.json:
        out = g.as_dict()
        out["seed"] = args.seed
        out["seconds"] = round(secs, 6)
        print_json(out)
        return 0
    print(g.puzzle.to_matrix_text(), end="")
    return 0


def run_difficulty(args) -> int:
    from sudokustudio.survo.difficulty import puzzle_difficulty
    from sudokustudio.survo.puzzle import read_survo

    from sudokustudio.survo.solve import warm_up

    warm_up()  # loads the solver kernel (start-up)
    puzzle = read_survo(args.file)
    t0 = work_started()
    d = puzzle_difficulty(puzzle)
    secs = time.perf_counter() - t0
    if args.json:
        print_json({"file": args.file, "m": puzzle.m, "n": puzzle.n, "givens": puzzle.n_givens, **d.as_dict(),
                    "seconds": round(secs, 6)})
        return 0
    sac = ("not computed (too many shortest sequences)" if d.sacrifices is None else
           f"{d.sacrifices} (every shortest sequence raises W)" if d.sacrifices else "0")
    print(f"{puzzle.m}x{puzzle.n} Survo puzzle, {puzzle.n_givens} given numbers: {d.level}")
    print(f"  fewest swaps from the setup: {d.min_swaps}")
    print(f"  fewest sacrifices in a shortest sequence: {sac}")
    print(f"  shortest swap sequences: {d.shortest_sequences}")
    print(f"  setup W: {d.setup_w}")
    return 0
