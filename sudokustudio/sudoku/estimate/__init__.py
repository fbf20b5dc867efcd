"""Monte Carlo estimators: the number of Sudoku grids (any box shape) and the
number of c-clue minimal puzzles per grid (seed 000, seed 002 §3.1.5, seed 003).

- ``samplers``: the sequential grid samplers (crude, Ridder, row-wise, fc);
- ``smc``: the particle filter over forward checking (grid counts up to 25x25);
- ``grids``: grid-count estimates and their batch job;
- ``minimals``: minimal-puzzle counts and their batch job;
- ``designs``: their methods' odds, mixtures, plans, the best combination and thinning;
- ``published``: the published minimal counts ours stand beside;
- ``report``: the record table (CSV / Markdown) of a run.

Every estimator is a numba kernel that runs a batch of samples and returns
sufficient statistics (counts and power sums), wrapped in a BatchJob whose
results merge by addition.  The names below are the package's public API.
"""
from sudokustudio.sudoku.estimate.grids import (BOX_SHAPES, GRID_COUNT_EXACT, GRID_COUNTS, GRID_METHOD_LABELS,
                                                GRID_METHODS, GridCountJob, GridStats, canonical_box,
                                                default_grid_batch, grid_reference, grid_summary, omega_size,
                                                parse_box, weight_scale)
from sudokustudio.sudoku.estimate.designs import TAIL_DESIGN, method_factor
from sudokustudio.sudoku.estimate.minimal_stats import MinimalStats
from sudokustudio.sudoku.estimate.minimals import MINIMAL_METHODS, MinimalsJob
from sudokustudio.sudoku.estimate.published import PUBLISHED_MINIMALS, PUBLISHED_TOTALS
from sudokustudio.sudoku.estimate.samplers import rows_grid_g, sequential_grid_kernel


def warm_up() -> None:
    """Compile the estimator kernels (grids and minimals) with the app's types."""
    from sudokustudio.sudoku.estimate import grids, minimals

    grids.warm_up()
    minimals.warm_up()


__all__ = ["BOX_SHAPES", "GRID_COUNTS", "GRID_COUNT_EXACT", "GRID_METHODS", "GRID_METHOD_LABELS", "GridCountJob",
           "GridStats", "MINIMAL_METHODS", "MinimalStats", "MinimalsJob", "PUBLISHED_MINIMALS", "PUBLISHED_TOTALS",
           "TAIL_DESIGN", "canonical_box", "default_grid_batch", "grid_reference", "grid_summary", "method_factor",
           "omega_size", "parse_box", "rows_grid_g", "sequential_grid_kernel", "weight_scale", "warm_up"]
