"""The time left of a run of a fixed number of batches (``Run.snapshot().eta``): by the batches'
count, by their expected costs (``BatchJob.batch_weights``), or by costs in parts whose prices
are fitted to the batches done."""
from __future__ import annotations

import numpy as np


def fixed_length_eta(n_batches: int, done: set[int], done_before: frozenset[int], session: float,
                     weights: np.ndarray | None = None,
                     batch_seconds: dict[int, float] | None = None) -> float | None:
    """Seconds left for a job of ``n_batches`` batches, at the rate of this session (``session``
    seconds, in which the batches ``done`` less ``done_before`` finished): by their count, or
    by their ``weights`` (each batch's expected cost, see ``BatchJob``) when the job has them.

    Weights in parts (float[n_batches, k]) are costs of k kinds whose prices differ from job to
    job: once ``MIN_FITTED_BATCHES`` batches holding ``FIT_FROM_WEIGHT_SHARE`` of the summed
    weight have their ``batch_seconds``, each part's price is fitted to them (non-negative least
    squares) and the seconds left are the fitted cost of the batches left, at this session's
    batch seconds per second; before that the parts are summed (fits to a few small batches
    were off 2-3× either way)."""
    if session <= 0:
        return None
    new = done - done_before
    if weights is not None and len(weights) >= n_batches:   # a run may stop short of the job's end
        weights = np.asarray(weights[:n_batches], dtype=float)
    else:
        weights = None
    if weights is None:
        rate = len(new) / session
        return (n_batches - len(done)) / rate if rate > 0 else None
    if weights.ndim == 2:
        left = sorted(set(range(n_batches)) - done)
        eta = _fitted_eta(weights, batch_seconds or {}, left, new, session)
        if eta is not None:
            return eta
        weights = weights.sum(axis=1)
    rate = float(weights[list(new)].sum()) / session if new else 0.0
    left = float(weights.sum()) - (float(weights[list(done)].sum()) if done else 0.0)
    return max(0.0, left) / rate if rate > 0 else None


#: batches with their seconds, and their share of the summed weight, before parts' prices are
#: fitted (``fixed_length_eta``).  On the 3×6 atlas's 85 batches the fitted time left read
#: 1.3× the true one from 40 % of the work on, the summed parts 0.5× falling to 0.3×
MIN_FITTED_BATCHES = 8
FIT_FROM_WEIGHT_SHARE = 0.2


def _fitted_eta(parts: np.ndarray, batch_seconds: dict[int, float], left: list[int], new: set[int],
                session: float) -> float | None:
    timed = [b for b in batch_seconds if b < len(parts)]
    session_seconds = sum(batch_seconds.get(b, 0.0) for b in new)
    summed = parts.sum(axis=1)
    if (len(timed) < MIN_FITTED_BATCHES or session_seconds <= 0
            or summed[timed].sum() < FIT_FROM_WEIGHT_SHARE * summed.sum()):
        return None
    price = nonnegative_least_squares(parts[timed], np.array([batch_seconds[b] for b in timed]))
    if not (price > 0).any():
        return None
    return float(parts[left].sum(axis=0) @ price) / (session_seconds / session)


def nonnegative_least_squares(a: np.ndarray, y: np.ndarray) -> np.ndarray:
    """argmin ||a x - y|| over x >= 0, for a few columns (every set of free columns is tried:
    2^k small solves)."""
    k = a.shape[1]
    best, best_err = np.zeros(k), float(y @ y)
    for mask in range(1, 1 << k):
        cols = [j for j in range(k) if mask >> j & 1]
        x, *_ = np.linalg.lstsq(a[:, cols], y, rcond=None)
        if (x < 0).any():
            continue
        err = float(np.sum((a[:, cols] @ x - y) ** 2))
        if err < best_err:
            best, best_err = np.zeros(k), err
            best[cols] = x
    return best
