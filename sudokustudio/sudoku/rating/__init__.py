"""Berthier's BRT and W-rating (whips) of puzzles.

- ``kernels``: BRT and the whip search as numba kernels, and their Python face;
- ``paths``: the whip eliminations behind a rating, in Berthier's notation;
- ``jobs``: W distributions (raw and cf-corrected) and the rating batch job.

The names below are the package's public API.
"""
from sudokustudio.sudoku.rating.jobs import (SEED002_RAW_PERCENT, SEED002_REAL_PERCENT, RatingJob, w_distribution,
                                             w_histogram, warm_up)
from sudokustudio.sudoku.rating.kernels import (DEFAULT_CAP, MAX_CAP, W_INVALID, brt, brt_batch_kernel, brt_kernel,
                                                rate_puzzles, w_rating)
from sudokustudio.sudoku.rating.paths import WhipStep, WPath, candidate_name, rating_label, variable_name, w_rating_path

__all__ = ["DEFAULT_CAP", "MAX_CAP", "RatingJob", "SEED002_RAW_PERCENT", "SEED002_REAL_PERCENT", "WPath", "W_INVALID",
           "WhipStep", "brt", "brt_batch_kernel", "brt_kernel", "candidate_name", "rate_puzzles", "rating_label",
           "variable_name", "w_distribution", "w_histogram", "w_rating", "w_rating_path", "warm_up"]
