"""``sudokustudio-cli canon FILE``: the minlex form of each puzzle, or one puzzle per isomorphism class."""
from __future__ import annotations

import sys
import time

from sudokustudio.commands.common import add_json_arg, add_threads_arg, print_json, work_started


def register(sub) -> None:
    p = sub.add_parser(
        "canon", help="canonical (minlex) forms; one puzzle per isomorphism class",
        description="Print the minlex form of every puzzle (or solution grid) of FILE: the smallest "
                    "81-character string, empty cells as 0, over the 3,359,232 cell symmetries with the "
                    "digits relabelled in order of first appearance (the usual convention). Isomorphic "
                    "puzzles have the same form. With --dedup, print the first puzzle of each class "
                    "as it is in the file.")
    p.add_argument("file", metavar="FILE", help="puzzle file (.txt, .sdm, .sdk; one puzzle per line)")
    p.add_argument("--dedup", action="store_true", help="print the first puzzle of each isomorphism class")
    add_threads_arg(p)
    add_json_arg(p)
    p.set_defaults(func=run)


def run(args) -> int:
    import numpy as np

    from sudokustudio.sudoku.canon import classes, minlex_many
    from sudokustudio.sudoku.formats import read_collection
    from sudokustudio.sudoku.grid import PuzzleFormatError, format_puzzle

    if args.threads < 1:
        raise ValueError("--threads must be at least 1")
    coll = read_collection(args.file, pencil_marks=False)   # canonical forms are of givens
    if coll.issues:    # every line must be read: a class count over part of a file would mislead
        first = coll.issues[0]
        raise PuzzleFormatError(f"{first.message} ({len(coll.issues)} unreadable line"
                                f"{'s' if len(coll.issues) > 1 else ''})", args.file, first.line)
    minlex_many(np.zeros((1, 81), dtype=np.uint8))   # loads the kernel (start-up, not work)
    t0 = work_started()
    forms, _ = minlex_many(coll.puzzles, args.threads)
    first, _ = classes(forms)
    secs = time.perf_counter() - t0
    if args.json:
        print_json({"puzzles": len(coll), "classes": int(len(first)), "seconds": round(secs, 6)})
        return 0
    out = sys.stdout
    if args.dedup:
        for i in first:
            out.write(format_puzzle(coll.puzzles[i]) + "\n")
    else:
        for f in forms:
            out.write(format_puzzle(f, "0") + "\n")
    print(f"{len(coll)} puzzles, {len(first)} isomorphism classes; {secs:.3f} s", file=sys.stderr)
    return 0
