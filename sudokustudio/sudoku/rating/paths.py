"""Resolution paths behind a W-rating, in Berthier's notation: every whip
elimination in order (``w_rating_path``), and names of candidates, CSP
variables and rating codes."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from sudokustudio.sudoku.candidates import as_candidates, count_candidates_kernel
from sudokustudio.sudoku.rating.kernels import (DEFAULT_CAP, TRACE_WIDTH, W_INVALID, as_batch, brt_candidates_kernel,
                                                check_cap, w_path_candidates_kernel, w_path_kernel)
from sudokustudio.sudoku.solver import count_solutions_kernel

def candidate_name(x: int) -> str:
    """Candidate ``x = cell * 9 + digit - 1`` as Berthier writes it, e.g. ``n2r3c9``."""
    cell, d = divmod(int(x), 9)
    return f"n{d + 1}r{cell // 9 + 1}c{cell % 9 + 1}"


def variable_name(v: int) -> str:
    """CSP variable as Berthier writes it: ``r3c9``, ``r2n2``, ``c7n2``, ``b1n9``.

    Numbering: rc = cell (0..80); rn, cn, bn = 81, 162, 243 + index * 9 + digit - 1.
    """
    kind, i = divmod(int(v), 81)
    if kind == 0:
        return f"r{i // 9 + 1}c{i % 9 + 1}"
    a, d = divmod(i, 9)
    return f"{'rcb'[kind - 1]}{a + 1}n{d + 1}"


def _in_variable(v: int, x: int) -> str:
    """What tells candidate x apart inside variable v (``n7``, ``c3``, ``r5``, ``r2c3``)."""
    cell, d = divmod(int(x), 9)
    r, c = divmod(cell, 9)
    return (f"n{d + 1}", f"c{c + 1}", f"r{r + 1}", f"r{r + 1}c{c + 1}")[int(v) // 81]


@dataclass(frozen=True)
class WhipStep:
    """One elimination: a whip of ``length`` on ``target``; ``llcs``, ``variables``
    and ``rlcs`` are L1..Ln, V1..Vn and R1..R(n-1) (candidates as ``cell*9+digit-1``)."""

    target: int
    llcs: tuple[int, ...]
    variables: tuple[int, ...]
    rlcs: tuple[int, ...]

    @property
    def length(self) -> int:
        return len(self.llcs)

    def __str__(self) -> str:
        """Berthier's notation, e.g. ``whip[2]: c7n2{r1 r5} - r5c7{n2 .} ==> r3c9≠2``."""
        parts = []
        for k, (llc, v) in enumerate(zip(self.llcs, self.variables)):
            right = _in_variable(v, self.rlcs[k]) if k < len(self.rlcs) else "."
            parts.append(f"{variable_name(v)}{{{_in_variable(v, llc)} {right}}}")
        cell, d = divmod(self.target, 9)
        return (f"whip[{self.length}]: " + " - ".join(parts)
                + f" ==> r{cell // 9 + 1}c{cell % 9 + 1}≠{d + 1}")


@dataclass(frozen=True)
class WPath:
    """The shortest-first resolution path behind a W-rating."""

    rating: int
    steps: tuple[WhipStep, ...]


def w_rating_path(puzzle, cap: int = DEFAULT_CAP, max_steps: int = 729) -> WPath:
    """The W-rating of one puzzle with the whip of every elimination, in order
    (BRT runs after each; it is not listed).  Each step can be checked by hand
    against the definition in the module docstring."""
    p = as_batch(puzzle)[0]
    cap = check_cap(cap)
    if count_solutions_kernel(p, 2) != 1:
        return WPath(W_INVALID, ())
    trace = np.zeros((max_steps, TRACE_WIDTH), dtype=np.int32)
    rating, _, n = w_path_kernel(p, cap, trace)
    return _path(rating, trace[:min(n, max_steps)])


def w_rating_path_from_candidates(cands, cap: int = DEFAULT_CAP, max_steps: int = 729) -> WPath:
    """``w_rating_path`` of a grid given by its candidates (uint16[81], pencil marks)."""
    c = as_candidates(cands).reshape(81)
    cap = check_cap(cap)
    if count_candidates_kernel(c, 2) != 1:
        return WPath(W_INVALID, ())
    trace = np.zeros((max_steps, TRACE_WIDTH), dtype=np.int32)
    rating, _, n = w_path_candidates_kernel(c, cap, trace)
    return _path(rating, trace[:min(n, max_steps)])


def _path(rating, rows) -> WPath:
    steps = []
    for row in rows:
        length = int(row[0])
        llcs = tuple(int(row[3 * k - 1]) for k in range(1, length + 1))
        variables = tuple(int(row[3 * k]) for k in range(1, length + 1))
        rlcs = tuple(int(row[3 * k + 1]) for k in range(1, length))
        steps.append(WhipStep(int(row[1]), llcs, variables, rlcs))
    return WPath(int(rating), tuple(steps))


def rating_label(w: int, cap: int) -> str:
    """'W3', 'W0 (BRT)', '> 12', 'invalid'."""
    w = int(w)
    if w == W_INVALID:
        return "invalid"
    if w > cap:
        return f"> {cap}"
    return "W0 (BRT)" if w == 0 else f"W{w}"


@dataclass(frozen=True)
class PathFrame:
    """The candidate state before one step of a W path (``step`` None: the end).

    ``cand[c]``: 9-bit candidate mask of cell c (bit d-1 for digit d);
    ``value[c]``: its digit once decided, else 0."""

    cand: np.ndarray
    value: np.ndarray
    step: WhipStep | None

    def candidates(self, cell: int) -> list[int]:
        m = int(self.cand[cell])
        return [d + 1 for d in range(9) if m >> d & 1]

    @property
    def solved(self) -> bool:
        return bool(np.all(self.value > 0))


def replay_path(puzzle, path: WPath) -> list[PathFrame]:
    """The states a W path goes through: BRT on the givens, then for each whip
    its elimination followed by BRT; one frame per step plus the end frame.
    (``w_rating_path`` records only the whips; the singles between them are
    BRT, replayed here with the rating's own kernel.)"""
    p = as_batch(puzzle)[0]
    cands = np.full(81, 0x1FF, dtype=np.uint16)
    given = p > 0
    cands[given] = 1 << (p[given].astype(np.uint16) - 1)
    after = np.zeros(81, dtype=np.uint16)
    if brt_candidates_kernel(cands, after)[1] < 0:
        raise ValueError("the givens contradict each other (BRT finds a cell or unit without candidate)")
    frames = []
    for step in path.steps:
        frames.append(_frame(after, step))
        cell, d = divmod(step.target, 9)
        if not after[cell] >> d & 1:
            raise ValueError(f"step {len(frames)} eliminates r{cell // 9 + 1}c{cell % 9 + 1}≠{d + 1}, "
                             f"which is no longer a candidate")
        cands = after.copy()
        cands[cell] &= ~np.uint16(1 << d)
        if brt_candidates_kernel(cands, after)[1] < 0:
            raise ValueError(f"step {len(frames)} leads to a contradiction")
    frames.append(_frame(after, None))
    return frames


def _frame(cands: np.ndarray, step) -> PathFrame:
    """After BRT a cell with one candidate left is decided: its digit is its value."""
    cand = cands.astype(np.int32)
    single = (cand & (cand - 1)) == 0
    value = np.where(single, np.log2(np.maximum(cand, 1)).astype(np.int32) + 1, 0).astype(np.int32)
    return PathFrame(cand, value, step)
