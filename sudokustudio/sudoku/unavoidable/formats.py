"""Cell sets and grids as text for the UA workbench: masks of 81 characters,
grids from digits or files."""
from __future__ import annotations

from pathlib import Path

import numpy as np

from sudokustudio.core.cellset import from_cells, to_cells


def mask_to_cells(lo, hi) -> np.ndarray:
    """The cells of a set (``core.cellset`` words), increasing."""
    return to_cells(lo, hi)


def mask_to_string(lo, hi, length: int = 81) -> str:
    s = ["."] * 81
    for c in to_cells(lo, hi):
        s[c] = "1"
    return "".join(s[:length])


def masks_to_strings(lo, hi, length: int = 81) -> list[str]:
    """:func:`mask_to_string` of many sets (uint64 arrays of their words) in a few array
    operations: the loop over a harvest's sets took ~12 ms a 260 on the window's thread."""
    words = np.stack([np.asarray(lo, dtype="<u8"), np.asarray(hi, dtype="<u8")], axis=1)
    bits = np.unpackbits(words.view(np.uint8), axis=1, bitorder="little")[:, :length]
    chars = np.where(bits != 0, ord("1"), ord(".")).astype(np.uint8)
    return [row.tobytes().decode("ascii") for row in chars]


def mask_from_string(text: str) -> tuple[int, int]:
    """An 81-character mask ('1' or any digit/'x' = in the set, '.'/'0' = not);
    shorter masks (e.g. 54 characters for bands 1+2) are padded with '.'."""
    t = text.strip().split()[0] if text.strip() else ""
    if len(t) > 81:
        raise ValueError(f"a cell mask has at most 81 characters, got {len(t)}")
    cells = []
    for i, ch in enumerate(t):
        if ch in ".0-":
            continue
        if ch in "123456789xX#*":
            cells.append(i)
        else:
            raise ValueError(f"bad character {ch!r} in cell mask at position {i + 1}")
    return from_cells(cells)


def as_grid(grid) -> np.ndarray:
    """A complete, valid solution grid as uint8[81] (from an array or an 81-digit string)."""
    from sudokustudio.sudoku.grid import is_valid_grid, parse_puzzle

    if isinstance(grid, str):
        grid = parse_puzzle(grid)
    g = np.ascontiguousarray(grid, dtype=np.uint8).reshape(-1)
    if g.shape != (81,) or (g == 0).any():
        raise ValueError("a solution grid has 81 filled cells")
    if not is_valid_grid(g):
        raise ValueError("not a valid solution grid (a digit repeats in a row, column or box)")
    return g


def read_grid(text_or_path: str) -> np.ndarray:
    """A solution grid from an 81-digit string or from the first line of a file.

    A puzzle (with empty cells) is replaced by its solution if it is unique.
    """
    from sudokustudio.sudoku.formats import read_collection
    from sudokustudio.sudoku.grid import parse_puzzle
    from sudokustudio.sudoku.solver import solve_with_stats

    s = text_or_path.strip()
    if len(s) == 81 and all(ch in "0123456789." for ch in s):
        p = parse_puzzle(s)
    else:
        path = Path(s)
        if not path.exists():
            raise ValueError(f"expected an 81-digit grid or a file name; {s!r} is neither")
        coll = read_collection(path, pencil_marks=False)
        if len(coll) == 0:
            raise ValueError(f"{s}: no puzzle or grid found")
        p = coll.puzzles[0]
    if (p == 0).any():
        n, sol, _ = solve_with_stats(p, 2)
        if n == 0:
            raise ValueError("the puzzle has no solution")
        if n > 1:
            raise ValueError("the puzzle has several solutions; give a full grid")
        p = sol
    return as_grid(p)
