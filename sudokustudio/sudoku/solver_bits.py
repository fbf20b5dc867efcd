"""Bitboard primitives of the 9x9 solver kernel (:mod:`sudokustudio.sudoku.solver`): the
state row and work-stack layout, the propagation tables and two bit helpers.  Shared by
the search (solver.py) and the minirow rule (solver_triads.py)."""
from __future__ import annotations

import numpy as np
from numba import njit
from numba.extending import intrinsic

FULL27 = 0x7FFFFFF
_U = 27          # offset of the three unplaced-cell masks in a state row
_ALT = 30        # pending alternative of a branch: digit-band index, cell bit
STATE = 32
COLUMN = 0o1001001         # column 0 of a band
# A pending cell alternative's other arm placed a digit on the current path (<= 81 of them);
# a triad alternative's need not, so _search_triads takes them only above TRIAD_DEPTH.
TRIAD_DEPTH = 40
MAX_DEPTH = 84 + TRIAD_DEPTH
AVOID = MAX_DEPTH + 1   # the stack row holding the avoided grid's words
# _triads' work rows, which no search state reaches (the search with triads has no avoided
# grid, and its states stay at depth <= 40 + 81 + 1): per-word minirow and column masks
_MINIROWS = AVOID
_FOLDS = MAX_DEPTH
_DIGIT_WORDS = MAX_DEPTH - 1   # and each digit's two words from _minirow_words (p at d, m at 9 + d)
_BAND = 27   # in row _FOLDS: band b or stack 3 + t to branch in, set by the last fixpoint


def _build_tables():
    shrink = np.zeros(512, dtype=np.int64)      # 9-bit row segment -> boxes it touches
    row_single = np.zeros(512, dtype=np.int64)  # segment if exactly one bit, else 0
    for v in range(512):
        shrink[v] = (1 if v & 0o7 else 0) | (2 if v & 0o70 else 0) | (4 if v & 0o700 else 0)
        if v and not v & (v - 1):
            row_single[v] = v
    perms = [(0, 1, 2), (0, 2, 1), (1, 0, 2), (1, 2, 0), (2, 0, 1), (2, 1, 0)]
    complex_mask = np.zeros(512, dtype=np.int64)  # (row,box) pattern -> cells on a permutation
    perm9 = np.zeros(512, dtype=np.int64)         # same on a 3x3 pattern, result as 9 bits
    for s in range(512):
        m = 0
        m9 = 0
        for p in perms:
            if all(s >> (3 * r + p[r]) & 1 for r in range(3)):
                for r in range(3):
                    m |= 0o7 << (9 * r + 3 * p[r])
                    m9 |= 1 << (3 * r + p[r])
        complex_mask[s] = m
        perm9[s] = m9
    band_peers = np.zeros(27, dtype=np.int64)  # same row or box inside the band, not the cell
    for i in range(27):
        r, c = divmod(i, 9)
        m = 0o777 << (9 * r)
        for rr in range(3):
            m |= 0o7 << (9 * rr + 3 * (c // 3))
        band_peers[i] = m & ~(1 << i)
    col_of = np.array([i % 9 for i in range(27)], dtype=np.int64)
    return shrink, row_single, complex_mask, band_peers, perm9, col_of


SHRINK, ROW_SINGLE, COMPLEX, BAND_PEERS, PERM9, COL_OF = _build_tables()


@intrinsic
def _popcount(typingctx, x):
    """Number of set bits (LLVM's ctpop: one instruction)."""
    def codegen(context, builder, signature, args):
        return builder.ctpop(args[0])
    return x(x), codegen


@njit(cache=True, nogil=True, inline="always")
def _fold(a):
    """The columns (9 bits) a band mask touches."""
    return (a | (a >> 9) | (a >> 18)) & 0x1FF
