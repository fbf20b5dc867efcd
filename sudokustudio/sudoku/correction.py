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


def corrected_mean_variance(counts: dict[int, float]) -> tuple[float, dict[int, float]]:
    """The variance a puzzle of controlled-bias's cf-corrected mean clue count, and the shares
    p_cb(c) of its clue counts, from the real number of minimals of each clue count c
    (``counts``, e.g. Berthier's per grid).  Controlled-bias draws a c-clue minimal with
    probability p_cb(c) ∝ p(c) / cf(c) and the correction weighs it by cf(c), so the ratio
    estimator's (delta-method) variance is (Σ p/cf)·(Σ p·cf·(c - μ)²) a puzzle: n puzzles give
    the corrected mean a standard error of √(variance / n)."""
    cs = np.array(sorted(counts), dtype=np.int64)
    p = np.array([counts[c] for c in cs], dtype=float)
    p /= p.sum()
    cf = CF[cs]
    mu = float((p * cs).sum())
    var = float((p / cf).sum() * (p * cf * (cs - mu) ** 2).sum())
    p_cb = p / cf / (p / cf).sum()
    return var, {int(c): float(x) for c, x in zip(cs, p_cb)}
