"""Minimal-puzzle generators (seed 002) and their statistics.

- ``kernels``: top-down, bottom-up and controlled-bias as numba kernels;
- ``jobs``: those generators as batch jobs, and the pools of grids;
- ``weighted``: the weighted-subsets sampler (seed 000's subsets, 1/Pr weights);
- ``results``: batch results, clue-count moments, seed 002's figures.

The names below are the package's public API.
"""
from sudokustudio.sudoku.generate.jobs import GeneratorJob, ua_pool
from sudokustudio.sudoku.generate.results import (PUBLISHED, PUBLISHED_CB_HIST, GenResult, describe_result,
                                                  hist_moments, merge_results, metric_by_clues, metric_overall,
                                                  moments_summary)
from sudokustudio.sudoku.generate.weighted import (DEFAULT_SUBSET_SIZE, WEIGHTED_SOURCES, WeightedSubsetsJob,
                                                   inclusion_weights, weighted_stats)


def warm_up() -> None:
    """Compile every generator's kernels and the difficulty metrics, with the app's types."""
    from sudokustudio.sudoku import difficulty
    from sudokustudio.sudoku.generate import jobs, weighted

    jobs.warm_up()
    weighted.warm_up()
    difficulty.warm_up()


__all__ = ["DEFAULT_SUBSET_SIZE", "GenResult", "GeneratorJob", "PUBLISHED", "PUBLISHED_CB_HIST", "WEIGHTED_SOURCES",
           "WeightedSubsetsJob", "describe_result", "hist_moments", "inclusion_weights", "merge_results",
           "metric_by_clues", "metric_overall", "moments_summary", "ua_pool", "warm_up", "weighted_stats"]
