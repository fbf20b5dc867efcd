"""Puzzles on a chosen clue pattern, and minimal puzzles with a symmetric pattern.

- pattern: a mask of clue cells; each try draws a random grid (the
  randomized solver's, ``grids.random_grid_kernel``), keeps its digits on the
  mask and asks the solver whether that puzzle is unique.  The grids tried
  per puzzle found (the pattern's hit rate) tell a user early whether a
  pattern is hopeless.  The puzzles have their clues exactly on the mask and
  one solution; they need not be minimal.
- symmetry: top-down by orbits.  The cells fall into orbits of a symmetry
  group of the grid's square (central, diagonal, antidiagonal, mirror,
  dihedral); a random grid loses whole orbits in random order while its
  puzzle stays unique, and the result is kept only when it is minimal (each
  clue needed on its own), so every output is minimal with symmetric clue
  positions; the grids tried per puzzle count the ones whose end was not
  minimal.

Both run as ``PatternJob`` batches through the run model, with the target
difficulty bands of ``generate.bands``.
"""
from __future__ import annotations

import time
from pathlib import Path

import numpy as np
from numba import njit

from sudokustudio.core.rng import seed_state, shuffle_inplace
from sudokustudio.sudoku.difficulty import FAST_METRICS, check_metrics, puzzle_difficulty
from sudokustudio.sudoku.generate.bands import check_bands, filter_result
from sudokustudio.sudoku.generate.results import GeneratorBatchJob, GenResult
from sudokustudio.sudoku.grid import PuzzleFormatError
from sudokustudio.sudoku.grids import random_grid_kernel
from sudokustudio.sudoku.minimal import first_not_minimal
from sudokustudio.sudoku.solver import count_solutions_kernel

_TWO = np.int64(2)
SYMMETRIES = ("central", "diagonal", "antidiagonal", "mirror", "dihedral")
CLUE_CHARS = "xX1"
EMPTY_MASK_CHARS = ".0"


# ---------------------------------------------------------------- masks
def parse_mask(text: str, source: str | None = None, line: int | None = None) -> np.ndarray:
    """An 81-character mask (x/X/1 clue, ./0 empty) -> uint8[81] of 0/1; PuzzleFormatError naming
    the line and column of what is wrong."""
    token = text.strip().split()[0] if text.strip() else ""
    if len(token) != 81:
        raise PuzzleFormatError(f"a mask has 81 characters (x or 1 = clue, . or 0 = empty), "
                                f"got {len(token)}", source, line)
    out = np.zeros(81, dtype=np.uint8)
    for i, ch in enumerate(token):
        if ch in CLUE_CHARS:
            out[i] = 1
        elif ch not in EMPTY_MASK_CHARS:
            raise PuzzleFormatError(f"bad mask character {ch!r} at r{i // 9 + 1}c{i % 9 + 1} (column {i + 1}); "
                                    "use x or 1 for a clue, . or 0 for an empty cell", source, line)
    return out


def read_masks(arg: str) -> list[np.ndarray]:
    """Masks from ``--pattern``: one 81-character mask, or a file of them (one a line, '#' comments)."""
    a = arg.strip()
    if len(a) == 81 and not Path(a).exists():
        return [parse_mask(a)]
    p = Path(arg)
    if not p.exists():
        if len(a) < 81 and all(ch in CLUE_CHARS + EMPTY_MASK_CHARS for ch in a):
            return [parse_mask(a)]       # a mask that is too short: say so
        raise PuzzleFormatError("neither an 81-character mask nor a file of masks", arg)
    try:
        text = p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise PuzzleFormatError(f"cannot read mask file: {e}", str(p)) from e
    masks = []
    for n, ln in enumerate(text.splitlines(), 1):
        s = ln.strip()
        if s and not s.startswith("#"):
            masks.append(parse_mask(s, str(p), n))
    if not masks:
        raise PuzzleFormatError("no mask in the file", str(p))
    return masks


def format_mask(mask) -> str:
    return "".join("x" if v else "." for v in np.asarray(mask).reshape(81))


def _images(symmetry: str, r: int, c: int) -> list[tuple[int, int]]:
    if symmetry == "central":
        return [(r, c), (8 - r, 8 - c)]
    if symmetry == "diagonal":
        return [(r, c), (c, r)]
    if symmetry == "antidiagonal":
        return [(r, c), (8 - c, 8 - r)]
    if symmetry == "mirror":
        return [(r, c), (r, 8 - c)]
    if symmetry == "dihedral":   # the 8 symmetries of the square
        return [(r, c), (c, 8 - r), (8 - r, 8 - c), (8 - c, r), (c, r), (8 - r, c), (8 - c, 8 - r), (r, 8 - c)]
    raise ValueError(f"unknown symmetry {symmetry!r}; choose one of {', '.join(SYMMETRIES)}")


def orbits(symmetry: str) -> np.ndarray:
    """The cell orbits of a symmetry: int64[n_orbits, 8], cells then -1."""
    seen = set()
    rows = []
    for cell in range(81):
        if cell in seen:
            continue
        orb = sorted({9 * a + b for a, b in _images(symmetry, cell // 9, cell % 9)})
        seen.update(orb)
        rows.append(orb + [-1] * (8 - len(orb)))
    return np.array(rows, dtype=np.int64)


def is_symmetric(puzzle, symmetry: str) -> bool:
    m = np.asarray(puzzle).reshape(81) != 0
    return all(len({bool(m[c]) for c in orb if c >= 0}) == 1 for orb in orbits(symmetry))


# ---------------------------------------------------------------- kernels
@njit(cache=True, nogil=True)
def pattern_kernel(rng, mask, tries, out, counters):
    """Up to ``tries`` random grids on ``mask``: write each unique puzzle to ``out`` (until it
    is full); counters += [grids tried, solver calls].  Returns the puzzles written."""
    grid = np.zeros(81, dtype=np.uint8)
    puzzle = np.zeros(81, dtype=np.uint8)
    found = 0
    for _ in range(tries):
        if found >= out.shape[0]:
            break
        random_grid_kernel(rng, grid)
        for c in range(81):
            puzzle[c] = grid[c] if mask[c] else 0
        counters[0] += 1
        counters[1] += 1
        if count_solutions_kernel(puzzle, _TWO) == 1:
            out[found] = puzzle
            found += 1
    return found


@njit(cache=True, nogil=True)
def symmetric_kernel(rng, orb, tries, out, counters):
    """Up to ``tries`` random grids, each losing whole orbits (``orbits``) in random order while
    unique; a minimal end is written to ``out``.  counters += [grids, solver calls]."""
    grid = np.zeros(81, dtype=np.uint8)
    puzzle = np.zeros(81, dtype=np.uint8)
    order = np.arange(orb.shape[0], dtype=np.int64)
    found = 0
    for _ in range(tries):
        if found >= out.shape[0]:
            break
        random_grid_kernel(rng, grid)
        counters[0] += 1
        puzzle[:] = grid
        shuffle_inplace(rng, order)
        for k in range(order.shape[0]):
            o = order[k]
            for j in range(8):
                if orb[o, j] >= 0:
                    puzzle[orb[o, j]] = 0
            counters[1] += 1
            if count_solutions_kernel(puzzle, _TWO) != 1:
                for j in range(8):
                    if orb[o, j] >= 0:
                        puzzle[orb[o, j]] = grid[orb[o, j]]
        minimal = True
        for c in range(81):
            if puzzle[c]:
                d = puzzle[c]
                puzzle[c] = 0
                counters[1] += 1
                unique = count_solutions_kernel(puzzle, _TWO) == 1
                puzzle[c] = d
                if unique:
                    minimal = False
                    break
        if minimal:
            out[found] = puzzle
            found += 1
    return found


# ---------------------------------------------------------------- the job
class PatternJob(GeneratorBatchJob):
    """Pattern or symmetry generation as a batch job.  Spec (JSON-able):

    method: pattern | symmetry
    mask: 81 characters x/. (pattern)
    symmetry: one of SYMMETRIES (symmetry)
    per_batch: grids tried per batch (a batch stops early once it holds ``max_found``)
    difficulty: metric names computed per puzzle; bands: [[metric, lo, hi], ...] to keep
    """

    kind = "generate-pattern"
    unit = "puzzles"
    kernel_groups = ("generators",)

    def __init__(self, method: str = "pattern", mask: str | None = None, symmetry: str | None = None,
                 per_batch: int | None = None, max_found: int = 200, difficulty=None, bands=None):
        if method not in ("pattern", "symmetry"):
            raise ValueError(f"unknown method {method!r} (pattern, symmetry)")
        if method == "pattern":
            if mask is None:
                raise ValueError("the pattern method needs a mask (--pattern)")
            mask = format_mask(parse_mask(mask) if isinstance(mask, str) else mask)
        else:
            if symmetry not in SYMMETRIES:
                raise ValueError(f"unknown symmetry {symmetry!r}; choose one of {', '.join(SYMMETRIES)}")
        if per_batch is None:
            per_batch = 2000 if method == "pattern" else 100
        if per_batch < 1 or max_found < 1:
            raise ValueError("per_batch and max_found must be at least 1")
        difficulty = check_metrics(difficulty, FAST_METRICS)
        super().__init__(method=method, mask=mask, symmetry=symmetry, per_batch=int(per_batch),
                         max_found=int(max_found), difficulty=difficulty, bands=check_bands(bands))

    def run_batch(self, batch_index: int, seed: int) -> GenResult:
        s = self.spec
        t0 = time.perf_counter()
        rng = seed_state(np.uint64(seed))
        buf = np.zeros((s["max_found"], 81), dtype=np.uint8)
        counters = np.zeros(2, dtype=np.int64)
        if s["method"] == "pattern":
            n = pattern_kernel(rng, parse_mask(s["mask"]), s["per_batch"], buf, counters)
        else:
            n = symmetric_kernel(rng, orbits(s["symmetry"]), s["per_batch"], buf, counters)
        out = buf[:n].copy()
        if s["method"] == "symmetry" and n and first_not_minimal(out) >= 0:
            raise RuntimeError(f"symmetry produced a puzzle that is not unique and minimal: batch {batch_index}")
        res = GenResult(out, np.ones(n), puzzle_difficulty(out, s["difficulty"]), int(counters[0]),
                        int(counters[1]), time.perf_counter() - t0)
        return filter_result(res, s["bands"])

    def describe(self, total: GenResult) -> dict:
        d = super().describe(total)
        d["grids_per_puzzle"] = total.tries / total.count if total.count else None
        if self.spec["method"] == "pattern":
            d["pattern"] = self.spec["mask"]
            d["pattern_clues"] = self.spec["mask"].count("x")
        else:
            d["symmetry"] = self.spec["symmetry"]
        return d

    def warm_up(self) -> None:
        warm_up()


def warm_up() -> None:
    PatternJob("pattern", mask="x" * 81, per_batch=1, difficulty=[]).run_batch(0, 1)
    PatternJob("symmetry", symmetry="central", per_batch=1, difficulty=[]).run_batch(0, 1)
