"""The atlas as a batch job (core.batch protocol): batch b covers a fixed group of row-sum
vectors, so every table with given row sums is met inside one batch (for 3 <= m < n, one
vector per complement pair: ``plan.pair_vectors``); two-row sizes (``two_rows``) group
column-sum vectors by their first sums instead."""
from __future__ import annotations

import numpy as np

from sudokustudio.core.batch import BatchJob
from sudokustudio.survo.atlas.enumeration import run_vectors
from sudokustudio.survo.atlas.plan import (batch_plan, check_size, complement_vectors, lex_less, row_sum_vectors,
                                           uses_complements, uses_two_rows)
from sudokustudio.survo.atlas.result import AtlasResult, empty_result, merge_results
from sudokustudio.survo.atlas.two_rows import run_prefixes, two_row_plan


class SurvoAtlasJob(BatchJob):
    """Every essentially different uniquely solvable open m×n Survo puzzle, in batches.

    Batch b covers a fixed group of row-sum vectors (``batch_plan``; with
    method "pairs", of complement pairs of them, each met by enumerating one),
    or for two rows (n >= 3) of column-sum prefixes (``two_rows.two_row_plan``);
    the run seed is unused (the enumeration is exact).  ``n_batches()``
    batches make the whole atlas.
    """

    kind = "survo_atlas"
    kernel_groups = ("survo-atlas",)
    # merging is cheap only onto the newest total (its records grow in place): a live total
    # waits for gaps to close rather than fold early batches in and copy on the next merge
    live_total_in_order = True

    def __init__(self, m: int, n: int, method: str | None = None):
        """``method``: "rows" (row-sum batches, every size), "pairs" (row-sum batches over
        complement pairs, 3 <= m < n: half the search) or "two-rows" (2×n, n >= 3); None takes
        the fastest for the size.  It is part of the stored spec: the methods number their
        batches differently (a run stored with "rows" resumes with "rows")."""
        m, n = int(m), int(n)
        check_size(m, n)
        if method is None:
            method = "two-rows" if uses_two_rows(m, n) else "pairs" if uses_complements(m, n) else "rows"
        if (method not in ("rows", "pairs", "two-rows") or (method == "two-rows" and not uses_two_rows(m, n))
                or (method == "pairs" and not uses_complements(m, n))):
            raise ValueError(f"atlas method {method!r} for {m}×{n}: 'rows', 'pairs' for 3 <= m < n, "
                             f"or 'two-rows' for 2×n with n >= 3")
        super().__init__(m=m, n=n, method=method)
        self.m, self.n = m, n
        self.method = method
        self.two_rows = method == "two-rows"
        self.pairs = method == "pairs"
        # the run model's optional protocol: what a batch's units are
        self.unit = ("column-sum prefixes" if self.two_rows else
                     "row-sum vector pairs" if self.pairs else "row-sum vectors")

    @classmethod
    def from_spec(cls, spec: dict) -> "SurvoAtlasJob":
        # a run stored before the two-row method has no "method": it was batched by row sums
        return cls(**{"method": "rows", **spec})

    def plan(self) -> tuple[np.ndarray, np.ndarray]:
        """(units, bounds): batch b covers units[bounds[b]:bounds[b+1]] (row-sum vectors, or
        column-sum prefixes for two rows); depends only on the size."""
        return two_row_plan(self.n) if self.two_rows else batch_plan(self.m, self.n, self.pairs)

    def n_batches(self) -> int:
        return len(self.plan()[1]) - 1

    def run_batch(self, batch_index: int, seed: int) -> AtlasResult:
        if not 0 <= batch_index < self.n_batches():
            return self.empty()
        part = self.batch_vectors(batch_index)
        if self.two_rows:
            return run_prefixes(self.n, part)
        return run_vectors(self.m, self.n, part, pairs=self.pairs)

    def batch_of(self, result: AtlasResult) -> np.ndarray:
        """The batch each puzzle of ``result`` belongs to (int64[count]), from its margins."""
        units, bounds = self.plan()
        k = units.shape[1]
        keys = np.asarray(result.col_sums()[:, :k] if self.two_rows else result.row_sums(), np.int64)
        if self.pairs:   # a complement's puzzles belong to the pair's vector, the smaller one
            comp = complement_vectors(self.m, self.n, keys)
            keys = np.where(lex_less(comp, keys)[:, None], comp, keys)
        # each margin vector as one integer (its entries as digits), looked up among the units' codes:
        # vectorised, so a window reading a big atlas in a worker thread keeps the GIL for ms, not 1 s
        base = int(max(units.max(initial=0), keys.max(initial=0))) + 1
        if base ** k >= 2 ** 62:
            raise ValueError(f"{self.m}x{self.n}: margin vectors too long to encode")
        weights = base ** np.arange(k, dtype=np.int64)
        unit_codes, codes = units.astype(np.int64) @ weights, keys @ weights
        order = np.argsort(unit_codes, kind="stable")
        at = np.minimum(np.searchsorted(unit_codes[order], codes), len(order) - 1)
        unit_of = order[at]
        if not np.array_equal(unit_codes[unit_of], codes):
            raise ValueError(f"{self.m}x{self.n}: a puzzle's margins are not among this size's row-sum vectors")
        return np.searchsorted(bounds, unit_of, side="right") - 1

    def merge(self, a: AtlasResult, b: AtlasResult) -> AtlasResult:
        return merge_results(a, b)

    def empty(self) -> AtlasResult:
        return empty_result(self.m, self.n)

    def warm_up(self) -> None:
        warm_up()

    def describe(self, total: AtlasResult) -> dict:
        return total.describe()

    def units(self, total: AtlasResult) -> int:
        """Units done: row-sum vectors ("partitions" of the total into m row sums), or column-sum
        prefixes for two rows."""
        return int(total.vectors_done)

    def estimate_batch_weights(self) -> np.ndarray | None:
        """Each batch's expected cost in two parts (``estimate.batch_work_parts``, a few CPU-s:
        call it from a worker), for the run model's time left; None for two rows (their batches
        are even)."""
        if self.two_rows:
            return None
        from sudokustudio.survo.atlas.estimate import batch_work_parts

        return batch_work_parts(self.m, self.n, self.pairs)

    def batch_vectors(self, batch_index: int):
        """The units batch ``batch_index`` covers (int64[k, m] row-sum vectors, or int64[k, p]
        column-sum prefixes for two rows)."""
        units, bounds = self.plan()
        return units[bounds[batch_index]:bounds[batch_index + 1]]

    def summary(self, total: AtlasResult) -> dict:
        """Plain data for a live view: progress over the units and the tables so far."""
        from sudokustudio.survo.atlas.tables import atlas_tables

        return {"vectors_done": int(total.vectors_done), "vectors_total": len(self.plan()[0]),
                "puzzles": total.count, "trade_free_tables": int(total.tables),
                "cpu_seconds": float(total.cpu_seconds), "tables": atlas_tables(total).as_dict()}


def warm_up() -> None:
    """Compile the atlas kernels on the 2×2 atlas, the two-row ones on part of 2×5, and the size
    estimate's probes (group survo-atlas)."""
    from sudokustudio.survo.atlas.estimate import warm_up as estimate_warm_up
    from sudokustudio.survo.atlas.two_rows import warm_up as two_rows_warm_up

    run_vectors(2, 2, row_sum_vectors(2, 2))
    two_rows_warm_up()
    estimate_warm_up()
