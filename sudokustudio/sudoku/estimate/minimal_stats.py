"""The power sums a minimal-count run keeps per batch and merges (``MinimalsJob``'s batch result;
stored runs load it by its name)."""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from sudokustudio.core.plain import plain_dataclass


@plain_dataclass("MinimalStats")
@dataclass
class MinimalStats:
    """Per-c power sums of the per-grid estimator (before the method's factor).

    ``vmax`` (per c, before the factor) and ``t1, t2, tmax`` (the total over the job's clue
    range, factors applied, summed per grid sample) cover the ``tail_n`` samples run since
    the tail diagnostics exist; runs stored before them load with tail_n = 0.  ``sw`` (per c,
    sum v_c w), ``w1, w2, tw`` (sums of w, w^2 and t w; w the grid's weight) cover the ``cv_n``
    samples since the grid weight is a control variate (:meth:`MinimalsJob.per_c`)."""

    n: int = 0                      # grids sampled (incl. dead ends, value 0)
    s1: np.ndarray = field(default_factory=lambda: np.zeros(0))
    s2: np.ndarray = field(default_factory=lambda: np.zeros(0))
    found: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    solver_calls: int = 0
    cpu: float = 0.0
    vmax: np.ndarray = field(default_factory=lambda: np.zeros(0))
    t1: float = 0.0
    t2: float = 0.0
    tmax: float = 0.0
    tail_n: int = 0
    sw: np.ndarray = field(default_factory=lambda: np.zeros(0))
    w1: float = 0.0
    w2: float = 0.0
    tw: float = 0.0
    cv_n: int = 0

    def __add__(self, o: "MinimalStats") -> "MinimalStats":
        def add(a, b):
            return b.copy() if a.size == 0 else a.copy() if b.size == 0 else a + b

        vmax = o.vmax.copy() if self.vmax.size == 0 else self.vmax.copy() if o.vmax.size == 0 else \
            np.maximum(self.vmax, o.vmax)
        return MinimalStats(self.n + o.n, add(self.s1, o.s1), add(self.s2, o.s2), add(self.found, o.found),
                            self.solver_calls + o.solver_calls, self.cpu + o.cpu, vmax,
                            self.t1 + o.t1, self.t2 + o.t2, max(self.tmax, o.tmax), self.tail_n + o.tail_n,
                            add(self.sw, o.sw), self.w1 + o.w1, self.w2 + o.w2, self.tw + o.tw,
                            self.cv_n + o.cv_n)
