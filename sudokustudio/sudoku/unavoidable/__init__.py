"""Unavoidable sets (UAs) of a solution grid: the UA workbench.

- ``harvest``: every minimal UA up to a size (``harvest``, ``UASet``);
- ``groups``: largest groups of disjoint UAs, the UA pre-test;
- ``search``: the few-clue hitting-set search of seed 004;
- ``formats``: cell masks as text, grids from text or files;
- ``jobs``: the search and the harvest as batch jobs;
- ``census``: the search over a file of grids, a grid per batch.

The names below are the package's public API.
"""
from sudokustudio.sudoku.unavoidable.census import UACensusJob, read_grids
from sudokustudio.sudoku.unavoidable.formats import as_grid, mask_from_string, mask_to_cells, mask_to_string, read_grid
from sudokustudio.sudoku.unavoidable.groups import disjoint_groups, max_disjoint_kernel, misses_known_ua
from sudokustudio.sudoku.unavoidable.harvest import (UASet, brute_force_small_uas, harvest, is_minimal_ua,
                                                     other_solution)
from sudokustudio.sudoku.unavoidable.jobs import UAHarvestJob, UASearchJob, search, warm_up

__all__ = ["UACensusJob", "UAHarvestJob", "UASearchJob", "UASet", "as_grid", "brute_force_small_uas", "disjoint_groups",
           "harvest", "is_minimal_ua", "mask_from_string", "mask_to_cells", "mask_to_string", "max_disjoint_kernel",
           "misses_known_ua", "other_solution", "read_grid", "read_grids", "search", "warm_up"]
