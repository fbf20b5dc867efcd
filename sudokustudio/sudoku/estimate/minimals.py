"""Monte Carlo counts of the c-clue minimal puzzles per grid (seed 000, seed
002 §3.1.5): singletons, (c, s)-subsets, (c, s)-supersets and the
controlled-bias path, all c at once.

Each probe of a grid looks at the minimal puzzles inside (or around) a
random clue set and counts them by clue count; the estimate of the number
of c-clue minimals per grid is the mean count times the method's factor
1/Pr(a given c-clue minimal is seen by one probe).  These methods need a
*uniformly* random grid: grids come from the row-wise sampler with their
weight 1/q(grid) (unbiased), or, labelled as biased, from the randomized
solver.  Uniqueness and minimality questions go to the oracle of
``minimal``, one per grid.
"""
from __future__ import annotations

import functools
import math
import time

import numpy as np
from numba import njit

from sudokustudio.core.batch import BatchJob
from sudokustudio.core.cellset import ZERO, add_cell, cell_set
from sudokustudio.core.rng import rand_below, rand_float, seed_state
from sudokustudio.core.stats import Z95, control_variate_mean, sample_variance, tail_diagnostics
from sudokustudio.sudoku.estimate.designs import (BEST_PLAN, as_list, auto_thinning, balance_shares, is_thinned,
                                                  mixture_factor, plan_owners, probes_per_grid, share_rows,
                                                  size_methods, thinning, thinning_rows)
from sudokustudio.sudoku.estimate.grids import grid_reference, parse_box
from sudokustudio.sudoku.estimate.minimal_stats import MinimalStats
from sudokustudio.sudoku.estimate.samplers import draw_grid, grid_workspace
from sudokustudio.sudoku.minimal import all_clues_needed, is_unique, new_oracle
from sudokustudio.sudoku.minimal_sets import THIN_LEN, thinned_minimals_in_subset
from sudokustudio.sudoku.minimal_supersets import minimals_containing
from sudokustudio.sudoku.solver import random_solution_kernel
from sudokustudio.sudoku.tables import geometry


@njit(cache=True, nogil=True)
def _random_subset(rng, N, k, perm, mask):
    """``mask`` := a uniform random k-subset of 0..N-1 (partial Fisher-Yates on ``perm``)."""
    for i in range(N):
        perm[i] = i
        mask[i] = 0
    for i in range(k):
        j = i + rand_below(rng, N - i)
        t = perm[i]
        perm[i] = perm[j]
        perm[j] = t
        mask[perm[i]] = 1


@njit(cache=True, nogil=True)
def _clues_of(o, perm, first, work):
    """work := the grid on the cells perm[first:]; returns their cell set."""
    grid = o[0]
    lo = ZERO
    hi = ZERO
    for i in range(grid.shape[0]):
        x = perm[i]
        if i >= first:
            work[x] = grid[x]
            lo, hi = add_cell(lo, hi, x)
        else:
            work[x] = 0
    return lo, hi


@njit(cache=True, nogil=True)
def _masked(o, mask, work):
    """work := the grid on the cells of ``mask``; returns their cell set."""
    grid = o[0]
    lo = ZERO
    hi = ZERO
    for x in range(grid.shape[0]):
        work[x] = 0
        if mask[x]:
            work[x] = grid[x]
            lo, hi = add_cell(lo, hi, x)
    return lo, hi


@njit(cache=True, nogil=True)
def probes_for_weight(rng, per_grid, w):
    """floor(per_grid * w) plus one with probability its fraction: E = per_grid * w."""
    x = per_grid * w
    k = np.int64(x)
    if rand_float(rng) < x - k:
        k += 1
    return k


@njit(cache=True, nogil=True)
def minimals_batch_kernel(rng, box_r, box_c, peers, units, method_mix, s_mix, c_lo, c_hi, per_grid_mix, floor_mix,
                          thin_mix, owns, n_grids_samples, weighted, inv_count, fac, s1, s2, sw, vmax, tot, found,
                          calls):
    """Per-c sums of V_c / factor_c for ``n_grids_samples`` grids.

    ``method_mix[i]`` the method of size i: 0 singletons (c_lo..c_hi), 1 subsets (s), 2 supersets
    (s, clues <= c_hi), 3 path (singletons and path: one size; a plan may mix subsets and
    supersets).  ``s_mix`` / ``per_grid_mix`` (int64 / float64 arrays, one entry unless a
    mixture): probes of size s_mix[i], per_grid_mix[i] of them per grid on
    average; a subsets probe searches down to floor_mix[i] clues, goes past its first
    level with the chance thin_mix[i, :2] = (beta, r0) gives (beta 0: always), and above its
    floor with the chance thin_mix[i, 2:] = (beta2, n2) gives (:func:`thinned_minimals_in_subset`,
    its finds weighted by 1 / those chances); subsets and supersets count the c with owns[i, c] > 0,
    each find's worth times owns[i, c] (:meth:`MinimalsJob.ownership`).  A grid of weight w (W / number
    of grids, or 1 for the biased source) gets per_grid_mix[i] * w probes of each
    size, rounded at random (:func:`probes_for_weight`), and its value is their
    summed count / per_grid (per_grid = the sum of the mix): unbiased, E = w *
    (mean count per probe of the mixture), without the spread of w multiplying
    the variance.  ``found[c]``
    counts the minimals seen (not their weights), ``calls[0]`` solver calls; the caller
    multiplies s1 by the method's factor_c (and s2 by its square).
    ``vmax[c]`` keeps the largest per-grid value at c (tail diagnostics).  The
    total over c is summed per grid sample, t = sum_c fac[c] v_c (``fac``: the
    factors, 0 outside the clue range), so its error carries the covariance of
    the per-c values: ``tot`` += (t, t^2) and tot[2] = max t.  The grid's weight w is the
    control variate of :meth:`MinimalsJob.per_c` (its mean is 1: the grid count is known):
    tot[3:6] += (w, w^2, t w) and ``sw[c]`` += v_c w, every grid sample (w = 0 for a dead end).
    Long (~115 lines): the four methods' probes are written inline, since a helper asking the
    oracle would compile the solver again (~1 CPU-s each).
    """
    N = peers.shape[0]
    grid = np.zeros(N, dtype=np.uint8)
    perm = np.empty(N, dtype=np.int64)
    mask = np.zeros(N, dtype=np.uint8)
    work = np.zeros(N, dtype=np.uint8)
    cnt = np.zeros(N + 1, dtype=np.int64)      # minimals seen
    value = np.zeros(N + 1)                     # their sum, each weighted (thinned subsets)
    thin = np.zeros(THIN_LEN)
    out = np.zeros((0, N), dtype=np.uint8)
    empty = np.zeros(N, dtype=np.uint8)
    k_mix = np.zeros(s_mix.shape[0], dtype=np.int64)
    probe_cnt = np.zeros(N + 1, dtype=np.int64)
    probe_worth = np.zeros(N + 1)                # their worth (thinned subsets)
    per_grid = per_grid_mix.sum()
    gws = grid_workspace(box_r, box_c)
    for _ in range(n_grids_samples):
        # the grid and its weight relative to uniform: the row-wise sampler's W = 1/q
        # (0.0 on a dead end: a sample of value 0); or, biased, the randomized
        # solver's grid for 9x9, an unweighted row-wise grid for other shapes
        if weighted:
            w = draw_grid(rng, box_r, box_c, gws, grid) * inv_count
            if w == 0.0:
                continue
        elif N == 81:
            random_solution_kernel(empty, rng, grid)
            w = 1.0
        else:
            while draw_grid(rng, box_r, box_c, gws, grid) == 0.0:
                pass
            w = 1.0
        tot[3] += w
        tot[4] += w * w
        # probes in proportion to the grid's weight, each worth 1/per_grid: the variance
        # is nearly all between probes, so equal probes per grid would multiply it by
        # E[w^2] = 1.61 (the row-wise sampler's spread); per_grid * w rounded at random
        # keeps E[probes] = per_grid * w, so the mean count stays w * (count per probe)
        k_total = 0
        for i in range(s_mix.shape[0]):
            k_mix[i] = probes_for_weight(rng, per_grid_mix[i], w)
            k_total += k_mix[i]
        if k_total == 0:
            continue
        o = new_oracle(grid, peers, units)
        cnt[:] = 0
        value[:] = 0.0
        # the probes are written here, not in helpers: a helper asking the oracle
        # would compile the solver again (~1 CPU-s each)
        for i in range(s_mix.shape[0]):   # k_mix[i] probes of size s_mix[i], size by size
            s = s_mix[i]
            method = method_mix[i]
            for _p in range(k_mix[i]):
                if method == 0:    # singletons: one random c-clue set for each c
                    for c in range(c_lo, c_hi + 1):
                        _random_subset(rng, N, c, perm, mask)
                        lo, hi = _masked(o, mask, work)
                        if is_unique(o, work, lo, hi) and all_clues_needed(o, work, lo, hi, ZERO, ZERO):
                            cnt[c] += 1
                elif method == 1:
                    _random_subset(rng, N, s, perm, mask)
                    floor = floor_mix[i]                            # the DFS stops there
                    probe_cnt[floor:s + 1] = 0
                    probe_worth[floor:s + 1] = 0.0
                    thin[0] = thin_mix[i, 0]
                    thin[1] = thin_mix[i, 1]
                    thin[4] = thin_mix[i, 2]
                    thin[5] = thin_mix[i, 3]
                    # drawn only for a thinned size: the probes of the others keep their streams
                    thin[2] = rand_float(rng) if thin[0] != 0.0 else 0.0
                    thinned_minimals_in_subset(o, mask, out, probe_cnt, floor, thin, probe_worth, rng)
                    for c in range(floor, s + 1):
                        if owns[i, c] != 0.0 and probe_cnt[c]:
                            cnt[c] += probe_cnt[c]
                            value[c] += owns[i, c] * probe_worth[c]
                elif method == 2:
                    _random_subset(rng, N, s, perm, mask)
                    probe_cnt[s:c_hi + 1] = 0
                    minimals_containing(o, mask, c_hi, out, probe_cnt)
                    for c in range(s, c_hi + 1):
                        if owns[i, c] != 0.0 and probe_cnt[c]:
                            cnt[c] += probe_cnt[c]
                            value[c] += owns[i, c] * probe_cnt[c]
                else:
                    # path: delete cells in a random order; the last unique set on the path
                    # (bisection) counts when minimal (deleting the next cell breaks uniqueness)
                    _random_subset(rng, N, N, perm, mask)
                    good = 0       # after good deletions: unique
                    bad = N        # after bad deletions: not unique (the empty set)
                    while bad - good > 1:
                        mid = (good + bad) // 2
                        lo, hi = _clues_of(o, perm, mid, work)
                        if is_unique(o, work, lo, hi):
                            good = mid
                        else:
                            bad = mid
                    lo, hi = _clues_of(o, perm, good, work)
                    skip_lo, skip_hi = cell_set(perm[good])
                    if all_clues_needed(o, work, lo, hi, skip_lo, skip_hi):
                        cnt[N - good] += 1
        calls[0] += o[7][0]
        if method_mix[0] == 0 or method_mix[0] == 3:   # singletons, path: one size, counts only
            for c in range(N + 1):
                value[c] = cnt[c]
        _add_grid_sample(cnt, value, per_grid, w, fac, found, s1, s2, sw, vmax, tot)


@njit(cache=True, nogil=True)
def _add_grid_sample(cnt, value, per_grid, w, fac, found, s1, s2, sw, vmax, tot):
    """Add one grid's counts (``cnt[c]`` minimals seen over its probes, ``value[c]`` their
    weighted sum; ``w`` the grid's weight) to the per-c and total sums."""
    t = 0.0
    for c in range(cnt.shape[0]):
        if cnt[c]:
            found[c] += cnt[c]
            v = value[c] / per_grid
            s1[c] += v
            s2[c] += v * v
            sw[c] += v * w
            if v > vmax[c]:
                vmax[c] = v
            t += fac[c] * v
    tot[0] += t
    tot[1] += t * t
    tot[5] += t * w
    if t > tot[2]:
        tot[2] = t


MINIMAL_METHODS = ["singletons", "subsets", "supersets", "path"]
_METHOD_CODE = {m: i for i, m in enumerate(MINIMAL_METHODS)}




class MinimalsJob(BatchJob):
    """Estimate the number of c-clue minimal puzzles per grid, all c at once."""

    kind = "estimate.minimals"
    unit = "grids"
    kernel_groups = ("estimators",)

    def __init__(self, method: str = "subsets", box: str = "3x3", s: int | None = None,
                 c_lo: int | None = None, c_hi: int | None = None, grid_source: str = "weighted",
                 per_grid: int | None = None, grids_per_batch: int | None = None,
                 min_clues: list[int] | None = None, thin: list | None = None, shares: list | None = None,
                 methods: list[str] | None = None):
        if method not in MINIMAL_METHODS:
            raise ValueError(f"method {method!r}: choose one of {', '.join(MINIMAL_METHODS)}")
        r, c = parse_box(box)
        if r * c > 9 or grid_reference(box)[0] is None:
            raise ValueError("minimal puzzles: box shapes up to 3x3")
        N = (r * c) ** 2
        if grid_source not in ("weighted", "random"):
            raise ValueError("grid source: 'weighted' (unbiased) or 'random' (biased)")
        if s is None:
            if N == 81:
                # s = 30 with 16 probes per grid has the best worst case over c = 22..27 of the
                # sizes and mixtures measured (2026-11-26, 75 CPU-s each; RE^2 x CPU-s): 29 with
                # 48 probes is 1.2-1.9x better for c = 22..26 but 1.4x worse at 27, and mixtures
                # such as 29+31 (48+4 probes) lose at every c (a 31-probe's lumpy counts weigh
                # as much as a 29-probe's)
                s = {"subsets": 30, "supersets": 24}.get(method, 0)
            else:  # 4x4: minimals have 4..6 clues
                s = {"subsets": 8, "supersets": 3}.get(method, 0)
        s_mix = as_list(s)
        if method not in ("subsets", "supersets"):
            s_mix = s_mix[:1]
        if not s_mix or len(s_mix) > 8 or len(set(s_mix)) != len(s_mix):
            raise ValueError(f"--s {s}: one size or a mixture of up to 8 different sizes")
        for one in s_mix:
            if method in ("subsets", "supersets") and not 1 <= one <= N:
                raise ValueError(f"--s {one}: must be between 1 and {N}")
        s = min(s_mix)
        methods = size_methods(method, methods, s_mix, min_clues, c_hi)
        if method == "singletons":
            c_lo = (25 if N == 81 else 5) if c_lo is None else c_lo
            c_hi = c_lo if c_hi is None else c_hi
        elif method == "supersets":
            c_lo = s if c_lo is None else c_lo
            c_hi = min(N, s + 4 if N == 81 else 6) if c_hi is None else c_hi
            if c_hi < s:
                raise ValueError(f"supersets: clue limit {c_hi} is below s = {s}")
        else:
            c_lo = 0 if c_lo is None else c_lo
            c_hi = N if c_hi is None else c_hi
        if not 0 <= c_lo <= c_hi <= N:
            raise ValueError(f"clue range {c_lo}..{c_hi}: must lie in 0..{N}")
        per_grid_mix = probes_per_grid(per_grid, method, N, len(s_mix))
        if grids_per_batch is None:
            grids_per_batch = {"subsets": 16, "supersets": 4, "path": 8, "singletons": 8}[method]
            if N < 81:
                grids_per_batch *= 50
        # a plan: subsets of each size searched down to their own floor (min_clues, one per
        # size); each c counted by every size that searches down to it (plan_owners).  Without
        # it every size searches down to c_lo.
        if min_clues is None:
            floor_mix = [c_lo] * len(s_mix)
        else:
            floor_mix = as_list(min_clues)
            if method != "subsets" or len(floor_mix) != len(s_mix):
                raise ValueError(f"--min-clues {min_clues}: subsets only, one floor per subset size "
                                 f"({len(s_mix)})")
            for m, s_i, f in zip(methods, s_mix, floor_mix):
                if m == "subsets" and not 0 <= f <= s_i:
                    raise ValueError(f"--min-clues {f} for subsets of {s_i}: must lie in 0..{s_i}")
                if m == "supersets" and not 0 <= f <= c_hi:
                    raise ValueError(f"--min-clues {f} for supersets of {s_i}: must lie in 0..{c_hi}")
            c_lo = max(c_lo, min(floor_mix))
        if method == "subsets":
            floor_mix = [max(f, c_lo) for f in floor_mix]
        thin_mix = thinning(thin, methods, floor_mix)
        # one size is stored as a number (the runs stored before mixtures), several as lists;
        # min_clues only for a plan (the specs stored before plans stay as they were), thin
        # only when some size is thinned
        mixed = len(s_mix) > 1
        plan = {"min_clues": floor_mix} if min_clues is not None else {}
        if is_thinned(thin_mix):
            plan["thin"] = [list(t) for t in thin_mix]
        # fixed shares of some c between the sizes, instead of the balance heuristic's
        share_of = share_rows(shares, len(s_mix))
        if share_of:
            plan["shares"] = [[c, *v] for c, v in sorted(share_of.items())]
        if any(m != method for m in methods):   # a plan that mixes methods (specs of one method stay as they were)
            plan["methods"] = list(methods)
        super().__init__(method=method, box=box, s=s_mix if mixed else s_mix[0], c_lo=int(c_lo), c_hi=int(c_hi),
                         grid_source=grid_source, per_grid=per_grid_mix if mixed else per_grid_mix[0],
                         grids_per_batch=int(grids_per_batch), **plan)
        self.method, self.box, self.c_lo, self.c_hi = method, box, int(c_lo), int(c_hi)
        #: each size's method: the job's, or a plan's own (subsets and supersets mixed)
        self.methods = tuple(methods)
        self.s_mix, self.per_grid_mix, self.floor_mix = tuple(s_mix), tuple(per_grid_mix), tuple(floor_mix)
        self.thin_mix = tuple(thin_mix)
        self.shares = share_of
        #: the subset size, or the sizes of a mixture (a tuple)
        self.s = self.s_mix if mixed else s_mix[0]
        self.grid_source, self.grids_per_batch = grid_source, int(grids_per_batch)
        self.per_grid = sum(per_grid_mix)   # probes per grid of weight 1, all sizes
        self.N = N
        self._check_shares()

    def _check_shares(self) -> None:
        """Fixed shares only for a subsets job's clue range, and only for the sizes that count c."""
        for c, v in self.shares.items():
            if self.method != "subsets" or not self.c_lo <= c <= self.c_hi:
                raise ValueError(f"shares for c = {c}: subsets only, and c within the clue range "
                                 f"{self.c_lo}..{self.c_hi}")
            if any(x > 0 and i not in self.owners(c) for i, x in enumerate(v)):
                raise ValueError(f"shares for c = {c}: only the sizes that count it (indices {self.owners(c)}) "
                                 f"can have a share")

    @classmethod
    def best(cls, grid_source: str = "weighted") -> "MinimalsJob":
        """The best combination for 9x9 grids (:data:`BEST_PLAN`)."""
        return cls("subsets", "3x3", grid_source=grid_source, **BEST_PLAN)

    def auto_thinned(self) -> "MinimalsJob":
        """This job with the thinning of :data:`AUTO_THINNING` for its sizes and floors (itself
        when none applies, or it is thinned already, or not a 9x9 subsets job)."""
        fitted = auto_thinning(self.s_mix, self.floor_mix)
        if self.method != "subsets" or self.N != 81 or "thin" in self.spec or not is_thinned(fitted):
            return self
        return MinimalsJob(**self.spec, thin=fitted)

    @property
    def biased(self) -> bool:
        return self.grid_source != "weighted"

    @property
    def total_is_comparable(self) -> bool:
        """Whether the run's total stands beside a published total of all minimal puzzles: 9x9,
        and its clue range holds the classes that make it up (c = 20..30; a run searched down to
        30 only, say, counts a 240th of them)."""
        return self.box == "3x3" and self.c_lo <= 20 and self.c_hi >= 30

    def run_batch(self, batch_index: int, seed: int) -> MinimalStats:
        r, c = parse_box(self.box)
        _, peers, units = geometry(r, c)
        rng = seed_state(np.uint64(seed))
        N = self.N
        s1 = np.zeros(N + 1)
        s2 = np.zeros(N + 1)
        vmax = np.zeros(N + 1)
        sw = np.zeros(N + 1)
        tot = np.zeros(6)
        found = np.zeros(N + 1, dtype=np.int64)
        calls = np.zeros(1, dtype=np.int64)
        t0 = time.perf_counter()
        minimals_batch_kernel(rng, r, c, peers, units, np.array([_METHOD_CODE[m] for m in self.methods], np.int64),
                              np.array(self.s_mix, np.int64),
                              self.c_lo, self.c_hi, np.array(self.per_grid_mix, np.float64),
                              np.array(self.floor_mix, np.int64),
                              np.array(thinning_rows(self.thin_mix), np.float64).reshape(-1, 4),
                              self.ownership(), self.grids_per_batch,
                              not self.biased, 1.0 / grid_reference(self.box)[0], self.factors(), s1, s2, sw,
                              vmax, tot, found, calls)
        k = self.grids_per_batch
        return MinimalStats(k, s1, s2, found, int(calls[0]), time.perf_counter() - t0, vmax,
                            float(tot[0]), float(tot[1]), float(tot[2]), k, sw, float(tot[3]), float(tot[4]),
                            float(tot[5]), k)

    def factors(self) -> np.ndarray:
        """factor_c for c in the job's clue range (0 elsewhere): the weights of the total."""
        f = np.zeros(self.N + 1)
        for c in range(self.c_lo, self.c_hi + 1):
            f[c] = self.factor(c)
        return f

    def owners(self, c: int) -> tuple[int, ...]:
        """The indices of the sizes whose counts of c this job keeps (:func:`plan_owners`)."""
        if not self.c_lo <= c <= self.c_hi:
            return ()
        if self.method != "subsets":       # the other methods' sizes all count every c
            return tuple(range(len(self.s_mix)))
        return plan_owners(self.s_mix, self.floor_mix, c, self.methods, self.c_hi)

    def ownership(self) -> np.ndarray:
        """owns[i, c]: the weight of size i's finds of c, 0 where its counts are not kept (the
        kernel's view of owners); 1 for the balance heuristic (every find weighs the same), and
        share / balance share where the job fixes the shares of c (``shares``: the estimate of c
        is then the shares' mix of the sizes' own estimates)."""
        owns = np.zeros((len(self.s_mix), self.N + 1))
        for c in range(self.N + 1):
            owners = self.owners(c)
            if c in self.shares:
                balance = balance_shares(self.methods, self.N, c, self.s_mix, self.per_grid_mix, owners)
                for i in owners:
                    owns[i, c] = self.shares[c][i] / balance[i] if balance[i] > 0 else 0.0
            else:
                for i in owners:
                    owns[i, c] = 1.0
        return owns

    def factor(self, c: int) -> float:
        """1 / Pr(a given c-clue minimal is counted by one probe of this job)."""
        if 0 <= c <= self.N:
            return self._factor_table[c]
        return mixture_factor(self.methods, self.N, c, self.s_mix, self.per_grid_mix, self.owners(c))

    @functools.cached_property
    def _factor_table(self) -> tuple[float, ...]:
        # made once: a live run's summary asks for every c's factor at each snapshot, under
        # the run's lock (the Estimator tab took ~80 a redraw)
        return tuple(mixture_factor(self.methods, self.N, c, self.s_mix, self.per_grid_mix, self.owners(c))
                     for c in range(self.N + 1))

    def merge(self, a: MinimalStats, b: MinimalStats) -> MinimalStats:
        return a + b

    def empty(self) -> MinimalStats:
        return MinimalStats()

    def warm_up(self) -> None:
        MinimalsJob(self.method, "2x2", grids_per_batch=1, per_grid=1).run_batch(0, 1)

    @staticmethod
    def _mean_se(total: MinimalStats, y1: float, y2: float, yw: float) -> tuple[float, float, float]:
        """The per-grid mean of a value (sums y1, y2, yw = sum y w), its SE and the plain mean's SE.
        The grid's weight w has mean 1 (W over the known grid count) and a grid's value is w times
        its count a probe, so w is a control variate (:func:`control_variate_mean`) that takes out
        the weights' spread (var w = 0.60 on 9x9).  The plain mean where the run did not track w or
        w does not vary (the biased source)."""
        n = total.n
        mean = y1 / n
        se_plain = math.sqrt(sample_variance(n, y1, y2) / n)
        cv = control_variate_mean(n, y1, y2, yw, total.w1, total.w2) if total.cv_n == n else None
        return (mean, se_plain, se_plain) if cv is None else (cv[0], cv[1], se_plain)

    def per_c(self, total: MinimalStats) -> dict[int, dict]:
        """{c: found, estimate (per grid), se, rel_err, ci95, se_plain (without the control
        variate), tail} for every c with a minimal found."""
        out = {}
        if total.n == 0 or total.s1.size == 0:
            return out
        for c in range(total.s1.size):
            if total.found[c] == 0 or not (self.c_lo <= c <= self.c_hi):
                continue
            f = self.factor(c)
            mean, se, se_plain = self._mean_se(total, total.s1[c], total.s2[c],
                                               total.sw[c] if total.sw.size > c else 0.0)
            est = float(f * mean)
            se = float(f * se)
            out[c] = {"found": int(total.found[c]), "estimate": est, "se": se, "se_plain": float(f * se_plain),
                      "rel_err": se / est if est > 0 else float("nan"),
                      "ci95": [est - Z95 * se, est + Z95 * se],
                      "tail": self._tail(total.s1[c], total.s2[c],
                                         total.vmax[c] if total.vmax.size > c else 0.0, total)}
        return out

    @staticmethod
    def _tail(s1: float, s2: float, vmax: float, total: MinimalStats) -> dict:
        d = tail_diagnostics(s1, s2, vmax)
        if total.tail_n < total.n:       # batches stored before the diagnostics: max unknown
            d["max_share"] = float("nan")
        return d

    def total(self, total: MinimalStats) -> dict | None:
        """The number of minimal puzzles per grid over the job's clue range (and over all
        grids, x the number of grids) as one estimate: the per-c values are summed per grid
        sample, so the RE includes their covariance.  None for runs (partly) stored before
        the total was tracked."""
        n = total.n
        if n == 0 or total.tail_n != n or not total.t1 > 0:
            return None
        mean, se, se_plain = self._mean_se(total, total.t1, total.t2, total.tw)
        count = grid_reference(self.box)[0]
        found = [c for c in range(total.found.size) if total.found[c] and self.c_lo <= c <= self.c_hi]
        return {"estimate": mean, "se": se, "rel_err": se / mean, "ci95": [mean - Z95 * se, mean + Z95 * se],
                "se_plain": se_plain,
                "c_range": [min(found), max(found)] if found else [self.c_lo, self.c_hi],
                "all_grids": mean * count, "all_grids_se": se * count,
                "tail": tail_diagnostics(total.t1, total.t2, total.tmax)}

    def units(self, total: MinimalStats) -> int:
        return total.n

    def focus_c(self, per_c: dict) -> int | None:
        """The clue count whose RE stands for the run: the one with most minimals found."""
        return max(per_c, key=lambda c: per_c[c]["found"]) if per_c else None

    @property
    def is_plan(self) -> bool:
        """Sizes with floors of their own (a plan, made for the total), not one floor for all."""
        return len(set(self.floor_mix)) > 1

    def rel_err(self, total: MinimalStats) -> float | None:
        """The RE that stands for the run (stop rules, ETA): the total's for a plan, else the
        RE at :meth:`focus_c`."""
        if self.is_plan:
            tot = self.total(total)
            if tot is not None:
                return tot["rel_err"]
        per_c = self.per_c(total)
        c = self.focus_c(per_c)
        return None if c is None else per_c[c]["rel_err"]

    def summary(self, total: MinimalStats) -> dict:
        return {"per_c": self.per_c(total), "total": self.total(total)}

    def describe(self, total: MinimalStats) -> dict:
        return {"method": self.method, "methods": list(self.methods), "box": self.box, "s": self.s,
                "min_clues": list(self.floor_mix),
                "thin": [list(t) for t in self.thin_mix], "shares": self.spec.get("shares", []),
                "c_lo": self.c_lo, "c_hi": self.c_hi,
                "grid_source": self.grid_source, "biased": self.biased, "samples": total.n,
                "probes": round(total.n * self.per_grid), "solver_calls": total.solver_calls,
                "cpu_seconds": total.cpu, "core_seconds": total.cpu, "total": self.total(total),
                "per_c": {str(c): v for c, v in self.per_c(total).items()}}


def warm_up() -> None:
    """Compile the minimal-count kernels with the app's types (every shape shares them)."""
    for m in MINIMAL_METHODS:
        MinimalsJob(m, "2x2", grids_per_batch=1, per_grid=1).run_batch(0, 1)
