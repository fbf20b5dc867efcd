"""cf(n): the controlled-bias correction factors (seed 002 §2.2-2.3).

The controlled-bias generator draws an n-clue minimal puzzle with a bias
known up to a constant: Pr(n+1)/Pr(n) = (n+1)/(81-n).  Weighting its n-clue
puzzles by cf(n), with cf(n+1)/cf(n) = (81-n)/(n+1) and cf(26) = 1, gives
the "real" statistics (uniform over minimal puzzles).  One table for the
generators' statistics and the W-rating distributions.
"""
from __future__ import annotations

import numpy as np


def _table() -> np.ndarray:
    cf = np.ones(82)
    for n in range(26, 81):
        cf[n + 1] = cf[n] * (81 - n) / (n + 1)
    for n in range(25, -1, -1):
        cf[n] = cf[n + 1] * (n + 1) / (81 - n)
    cf.flags.writeable = False
    return cf


#: cf(n) for n = 0..81 (read-only)
CF = _table()


def correction_factor(n_clues) -> np.ndarray:
    """cf(n) of each clue count (an array, or a scalar for a scalar)."""
    return CF[np.asarray(n_clues, dtype=np.int64)]
