"""Size and cost of an atlas before running it: Knuth's random-probe estimator on the
atlas's own search tree (issue 16, item 2).

A probe walks from the root to a leaf: a row-sum vector drawn uniformly (of one per
complement pair where the run searches those, ``plan.pair_vectors``), then
at every level of the real search (row sets of the partition, then row
arrangements) all children the search would visit are listed with the same
tests, and one is drawn uniformly.  The product of the numbers of children
met is an unbiased estimate of the number of leaves (trade-free tables, the
``tables`` counter of a run): Knuth (1975).  Dead children (a row set without
a trade-free pairing, an arrangement failing a trade test) are never
counted, which keeps the estimate unbiased and lowers its variance.

Cost: the run's CPU goes mostly to the row arrangements it pops from the candidate bit
sets and tests (for m >= 4, a middle row's pops carry the three-row and three-column trade
tests), so the probe also sums weight × pops along its path, for the middle rows and for the
last row apart: unbiased estimates of the whole search's pops.  Each kind has a cost per pop,
fitted to whole runs measured on the reference machine (``SECONDS_PER_MIDDLE_POP``,
``SECONDS_PER_LAST_POP``), and a short timed search on 4×4 (``machine_factor``) scales them
to this machine.  An earlier model scaled the probes' own CPU per child visited by one
ratio; it read 4×5 at a quarter of its measured cost (its middle rows' failed candidates,
most of the work there, were not counted).  Measure again when the enumeration changes.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass
from functools import cache

import numpy as np
from numba import njit

from sudokustudio.survo.atlas.arrange import _enter_row, _next_candidate, _place, _record_leaf, place_rows_in_order
from sudokustudio.core.bits import popcount64
from sudokustudio.survo.atlas.enumeration import _mask_values, run_vectors
from sudokustudio.survo.atlas.plan import batch_plan, pair_vectors, row_sum_vectors, uses_complements
from sudokustudio.survo.atlas.trades import row_pairings
from sudokustudio.survo.atlas.workspace import make_plan, make_workspace


#: a whole run's CPU per pop on the reference machine (2-core Xeon, where the README's figures
#: were measured): a middle row's candidate, and a last row's.  Refitted (non-negative least squares
#: on relative errors) after the three-row test became twice as fast (2026-11-27: it was 178 and
#: 42 ns), to whole runs on a faster machine with that machine's ``machine_factor`` (0.561): 3×5
#: 1.3, 4×4 22.6, 3×6 74.4 and 4×5 7,424 CPU-s; the fit reads them at 0.62, 0.72, 1.21 and 1.16
#: (small sizes pay more fixed costs).  Measure again when the enumeration changes.
SECONDS_PER_MIDDLE_POP = 99.7e-9
SECONDS_PER_LAST_POP = 53.4e-9
#: how far the cost model (two prices per pop, scaled by ``machine_factor``) can be off: the fit
#: above reads its own four runs at 0.62-1.21 of their CPU, and a fit without one of them predicts
#: that one at 0.54-2.15: cost predictions are shown as a range of this factor
COST_MODEL_SPREAD = 1.7
#: ``machine_factor``'s search: 4×4 batches (of ``batch_plan(4, 4)``) and their CPU seconds on the
#: reference machine
REFERENCE_BATCHES = (352, 704)
REFERENCE_SECONDS = 0.14


@njit(cache=True, nogil=True)
def _probe(m, n, r, plan, rows, grid, trades, u, picks, out):
    """One probe below row-sum vector r; uniforms ``u`` (float64[2m]) choose the children,
    ``picks`` int64[>= number of subsets or n!] is scratch.  out[0] = leaf estimate (product
    of child counts, 0 if the probe dies), out[1] = Σ weight × middle rows' pops, out[2] = the
    same for the last row (the pops: every candidate arrangement the row's bit set offers)."""
    N = m * n
    masks = plan.masks
    start = plan.start
    weight = 1.0
    out[0] = 0.0
    out[1] = 0.0
    out[2] = 0.0
    used = np.int64(0)
    for d in range(m):
        if d == m - 1:
            full = np.int64(0)
            for v in range(1, N + 1):
                full |= np.int64(1) << v
            rows.chosen[d] = full & ~used
            _mask_values(rows.chosen[d], N, rows.vals[d])
            for earlier in range(d):
                c = row_pairings(rows.vals[earlier], rows.vals[d], n, plan, rows, rows.pair_list[earlier, d])
                rows.pair_count[earlier, d] = c
                if c == 0:
                    return
            break
        s = r[d]
        k = 0
        for p in range(start[s], start[s + 1]):
            if (masks[p] & used) != 0:
                continue
            _mask_values(masks[p], N, rows.vals[d])
            alive = True
            for earlier in range(d):
                if row_pairings(rows.vals[earlier], rows.vals[d], n, plan, rows, rows.pair_list[earlier, d]) == 0:
                    alive = False
                    break
            if alive:
                picks[k] = p
                k += 1
        if k == 0:
            return
        weight *= k
        p = picks[min(k - 1, int(u[d] * k))]
        rows.chosen[d] = masks[p]
        used |= masks[p]
        _mask_values(masks[p], N, rows.vals[d])
        for earlier in range(d):
            rows.pair_count[earlier, d] = row_pairings(rows.vals[earlier], rows.vals[d], n, plan, rows,
                                                       rows.pair_list[earlier, d])
    place_rows_in_order(m, n, plan, rows)
    T = grid.T
    for j in range(n):
        T[0, j] = rows.placed_vals[0, j]
    for a in range(n):
        for b in range(a + 1, n):
            grid.colsub[a * n + b, 0] = 0
            grid.colsub[a * n + b, 1] = T[0, a] - T[0, b]
    span = (N - 1) * (n - n // 2)
    span2 = 2 * (N - 1)
    for i in range(1, m):
        if not _enter_row(i, m, n, rows, grid):
            return
        pops = 0
        for w in range(grid.cand.shape[1]):
            pops += popcount64(np.uint64(grid.cand[i, w]))
        out[1 if i < m - 1 else 2] += weight * pops
        k = 0
        while True:
            x = _next_candidate(i, m, n, plan, rows, grid, trades, span, span2)
            if x < 0:
                break
            picks[k] = x
            k += 1
        if k == 0:
            return
        weight *= k
        _place(i, picks[min(k - 1, int(u[m + i] * k))], m, n, plan, rows, grid, trades, span2)
    if _record_leaf(m, n, plan, grid, picks[:0], 0) == 1:
        out[0] = weight


@njit(cache=True, nogil=True)
def probe_kernel(m, n, vectors, which, plan, rows, grid, trades, uniforms, picks, out):
    """Probes below vectors[which[j]] with uniforms[j]; results into out[j, :3]."""
    for j in range(which.shape[0]):
        r = vectors[which[j]]
        for i in range(m):
            grid.r_desc[i] = r[m - 1 - i]
        _probe(m, n, r, plan, rows, grid, trades, uniforms[j], picks, out[j])


@dataclass
class SizeEstimate:
    """Knuth's estimate of an atlas's enumeration and its cost on this machine."""

    m: int
    n: int
    probes: int
    tables: float            # estimated trade-free tables (leaves)
    rel_err: float           # relative standard error of ``tables``
    work: float              # the whole search's pops, in middle-row pops (a last row's weighs less)
    work_rel_err: float
    core_seconds: float      # work × a middle pop's CPU-s on this machine (``machine_factor``)
    seconds: float           # CPU time of the estimate itself

    @property
    def core_hours(self) -> float:
        return self.core_seconds / 3600.0

    @property
    def core_hours_range(self) -> tuple[float, float]:
        """The cost as the cost model can promise it (``COST_MODEL_SPREAD`` either way)."""
        return self.core_hours / COST_MODEL_SPREAD, self.core_hours * COST_MODEL_SPREAD

    def as_dict(self) -> dict:
        def finite(x):   # no probe reached a leaf: unknown, not infinite (JSON has no Infinity)
            return x if math.isfinite(x) else None

        return {"size": f"{self.m}x{self.n}", "probes": self.probes, "predicted_tables": self.tables,
                "predicted_rel_err": finite(self.rel_err), "predicted_work": self.work,
                "predicted_work_rel_err": finite(self.work_rel_err), "predicted_core_hours": self.core_hours,
                "predicted_core_hours_range": list(self.core_hours_range),
                "estimate_cpu_seconds": self.seconds}

    def against(self, tables: int, cpu_seconds: float) -> dict:
        """How good the prediction was, given a run's measured trade-free tables and batch CPU seconds:
        relative difference, the same in relative errors, and predicted / measured core-seconds."""
        diff = (self.tables - tables) / tables if tables else float("nan")
        off = ((self.tables - tables) / (self.rel_err * self.tables)
               if self.rel_err > 0 and math.isfinite(self.rel_err) and self.tables > 0 else float("nan"))
        return {"predicted_tables": self.tables, "measured_tables": int(tables), "relative_difference": diff,
                "relative_errors_off": off, "predicted_core_seconds": self.core_seconds,
                "measured_core_seconds": float(cpu_seconds)}

    def text(self) -> str:
        lo, hi = self.core_hours_range
        return (f"S({self.m},{self.n}): about {self.tables:.3g} trade-free tables (± {100 * self.rel_err:.1f} %), "
                f"about {self.core_hours:.3g} core-hours on this machine ({lo:.2g}-{hi:.2g}: the cost model's "
                f"spread; {self.probes} probes)")


def _probe_workspace(m: int, n: int):
    """(plan, rows, grid, trades, picks): what ``probe_kernel`` needs for an m×n search."""
    plan = make_plan(m, n)
    rows, grid, trades = make_workspace(m, n)
    picks = np.zeros(max(len(plan.masks), int(plan.fact[n])) + 1, np.int64)
    return plan, rows, grid, trades, picks


def _work(res: np.ndarray) -> np.ndarray:
    """A probe's search work in middle-row pops (``probe_kernel``'s out[1], out[2]): a last
    row's pop weighs less."""
    return res[:, 1] + _LAST_POP_IN_MIDDLE_POPS * res[:, 2]


_LAST_POP_IN_MIDDLE_POPS = SECONDS_PER_LAST_POP / SECONDS_PER_MIDDLE_POP


def estimate_size(m: int, n: int, probes: int = 2000, seed: int = 0, chunk: int = 200) -> SizeEstimate:
    """Knuth's estimate from ``probes`` probes (explicit seed: the same figures every time)."""
    t0 = time.thread_time()
    pairs = uses_complements(m, n)   # the run searches one vector per complement pair: so do the probes
    vectors, alone = pair_vectors(m, n) if pairs else (row_sum_vectors(m, n), None)
    plan, rows, grid, trades, picks = _probe_workspace(m, n)
    rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence([seed, m, n])))
    res = np.zeros((probes, 3))
    drawn = np.zeros(probes, np.int64)
    # load (or compile) the kernel before any timing: no probe, same types
    probe_kernel(m, n, vectors, np.zeros(0, np.int64), plan, rows, grid, trades, np.zeros((0, 2 * m)), picks, res[:0])
    for a in range(0, probes, chunk):
        b = min(probes, a + chunk)
        which = rng.integers(len(vectors), size=b - a)
        drawn[a:b] = which
        uniforms = rng.random((b - a, 2 * m))
        probe_kernel(m, n, vectors, which, plan, rows, grid, trades, uniforms, picks, res[a:b])
    V = float(len(vectors))
    # a pair's search also stands for its complement's tables (the run counts both)
    leaves = V * res[:, 0] * (1.0 if alone is None else np.where(alone[drawn], 1.0, 2.0))
    work = V * _work(res)
    mean_l, mean_w = float(leaves.mean()), float(work.mean())
    re_l = float(leaves.std(ddof=1) / (mean_l * math.sqrt(probes))) if mean_l > 0 else float("inf")
    re_w = float(work.std(ddof=1) / (mean_w * math.sqrt(probes))) if mean_w > 0 else float("inf")
    core_seconds = mean_w * SECONDS_PER_MIDDLE_POP * machine_factor()
    return SizeEstimate(m, n, probes, mean_l, re_l, mean_w, re_w, core_seconds, time.thread_time() - t0)


def batch_work(m: int, n: int, pairs: bool, probes_per_batch: int = 16,
               seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """(work, standard error) of each batch in the run's plan (``plan.batch_plan``, over
    complement pairs with ``pairs``): the search work in ``SizeEstimate.work``'s units, Knuth's
    estimate from ``probes_per_batch`` probes below vectors drawn in the batch.  ~3 CPU-s for
    3×7's 152 batches, ~2 s for 4×5's 961."""
    parts, se = _batch_parts(m, n, pairs, probes_per_batch, seed)
    return parts.sum(axis=1), se


def batch_work_parts(m: int, n: int, pairs: bool, probes_per_batch: int = 16, seed: int = 0) -> np.ndarray:
    """float[n_batches, 2]: ``batch_work``'s work of each batch split into its middle-row and
    last-row pops (rows sum to the work).  The run model's time left weighs the batches by
    them (``BatchJob.batch_weights``): the atlas's batches differ up to 100-fold, and what a
    pop of each kind costs differs from size to size (the run fits it from the batches done)."""
    return _batch_parts(m, n, pairs, probes_per_batch, seed)[0]


def _batch_parts(m: int, n: int, pairs: bool, probes_per_batch: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    vectors, bounds = batch_plan(m, n, pairs)
    plan, rows, grid, trades, picks = _probe_workspace(m, n)
    rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence([seed, m, n, 1])))
    parts = np.zeros((len(bounds) - 1, 2))
    se = np.zeros(len(bounds) - 1)
    res = np.zeros((probes_per_batch, 3))
    for b in range(len(parts)):
        size = bounds[b + 1] - bounds[b]
        which = rng.integers(bounds[b], bounds[b + 1], size=probes_per_batch)
        probe_kernel(m, n, vectors, which, plan, rows, grid, trades, rng.random((probes_per_batch, 2 * m)), picks,
                     res)
        parts[b] = size * res[:, 1].mean(), size * _LAST_POP_IN_MIDDLE_POPS * res[:, 2].mean()
        w = size * _work(res)
        se[b] = float(w.std(ddof=1)) / math.sqrt(probes_per_batch) if probes_per_batch > 1 else math.inf
    return parts, se


@cache
def machine_factor() -> float:
    """This machine's CPU time over the reference machine's on the real search (4×4 batches
    ``REFERENCE_BATCHES``, the quickest of three timings: ~0.15 s here, measured once)."""
    vectors, bounds = batch_plan(4, 4)
    parts = [vectors[bounds[b]:bounds[b + 1]] for b in REFERENCE_BATCHES]
    run_vectors(4, 4, parts[0][:1])   # load (or compile) first
    best = math.inf
    for _ in range(3):
        t0 = time.thread_time()
        for part in parts:
            run_vectors(4, 4, part)
        best = min(best, time.thread_time() - t0)
    return best / REFERENCE_SECONDS


def warm_up() -> None:
    """Compile the probe kernel (part of group survo-atlas)."""
    estimate_size(2, 3, probes=4, chunk=4)
