"""The atlas as a batch job (core.batch protocol): batch b covers a fixed group of row-sum
vectors, so every table with given row sums is met inside one batch."""
from __future__ import annotations

from sudokustudio.core.batch import BatchJob
from sudokustudio.survo.atlas.enumeration import run_vectors
from sudokustudio.survo.atlas.plan import batch_plan, check_size, row_sum_vectors
from sudokustudio.survo.atlas.result import AtlasResult, empty_result, merge_results


class SurvoAtlasJob(BatchJob):
    """Every essentially different uniquely solvable open m×n Survo puzzle, in batches.

    Batch b covers a fixed group of row-sum vectors (``batch_plan``); the run
    seed is unused (the enumeration is exact).  ``n_batches()`` batches make
    the whole atlas.
    """

    kind = "survo_atlas"
    kernel_groups = ("survo-atlas",)

    def __init__(self, m: int, n: int):
        check_size(int(m), int(n))
        super().__init__(m=int(m), n=int(n))
        self.m, self.n = int(m), int(n)

    def n_batches(self) -> int:
        return len(batch_plan(self.m, self.n)[1]) - 1

    def run_batch(self, batch_index: int, seed: int) -> AtlasResult:
        vectors, bounds = batch_plan(self.m, self.n)
        if not 0 <= batch_index < len(bounds) - 1:
            return self.empty()
        return run_vectors(self.m, self.n, vectors[bounds[batch_index]:bounds[batch_index + 1]])

    def merge(self, a: AtlasResult, b: AtlasResult) -> AtlasResult:
        return merge_results(a, b)

    def empty(self) -> AtlasResult:
        return empty_result(self.m, self.n)

    def warm_up(self) -> None:
        warm_up()

    def describe(self, total: AtlasResult) -> dict:
        return total.describe()

    # -- the run model's optional protocol (units, summary) and what the Atlas view shows live
    unit = "row-sum vectors"

    def units(self, total: AtlasResult) -> int:
        """Row-sum vectors ("partitions" of the total into m row sums) done."""
        return int(total.vectors_done)

    def batch_vectors(self, batch_index: int):
        """The row-sum vectors batch ``batch_index`` covers (int64[k, m])."""
        vectors, bounds = batch_plan(self.m, self.n)
        return vectors[bounds[batch_index]:bounds[batch_index + 1]]

    def summary(self, total: AtlasResult) -> dict:
        """Plain data for a live view: progress over the row-sum vectors and the tables so far."""
        from sudokustudio.survo.atlas.tables import atlas_tables

        return {"vectors_done": int(total.vectors_done), "vectors_total": len(batch_plan(self.m, self.n)[0]),
                "puzzles": total.count, "trade_free_tables": int(total.tables),
                "cpu_seconds": float(total.cpu_seconds), "tables": atlas_tables(total).as_dict()}


def warm_up() -> None:
    """Compile the atlas kernels on the 2×2 atlas, and the size estimate's probes (group survo-atlas)."""
    from sudokustudio.survo.atlas.estimate import warm_up as estimate_warm_up

    run_vectors(2, 2, row_sum_vectors(2, 2))
    estimate_warm_up()
