"""Atlas of the uniquely solvable open Survo puzzles of a size (seed 001).

An open m×n puzzle is a pair (row sums, column sums) of a table holding
1..N (N = m·n) once each; it is uniquely solvable when exactly one table has
those margins.  Tied sums would let two lines swap, so a unique puzzle has
distinct row sums and distinct column sums, and "essentially different"
puzzles are counted with rows and columns sorted by increasing sum (and,
for m = n, one of a puzzle and its transpose kept).

Method (row-sum batches, whole-row arrangement, trade pruning, margin
dedupe, exact check):

* Every table with sorted margins is enumerated once in a canonical form:
  rows are the row *sets* of a partition with row sums r_1 < … < r_m; the
  rows are placed in an order chosen per partition, the first one written
  in increasing order (it names the columns), each other one whole as one
  of the n! arrangements of its set.  Any order meets every table once;
  the one with the smallest estimated search tree (from the numbers of
  trade-free pairings below) is taken, which puts the most constrained
  rows first.
* A table that contains a *trade* is never the unique solution of its
  margins, so it is cut as soon as the trade appears: two rows whose entries
  over some set of columns have equal sums (swap them: same row and column
  sums), or two columns whose entries over some set of rows have equal sums.
  The full set of columns (rows) is included, which also forces distinct
  row (column) sums.
* Row pairs: whether two rows have such a trade depends only on which of
  their entries share a column (a *pairing*), not on the column order.  So
  when the partition search picks a row set, the trade-free pairings with
  every earlier row set are listed once and shared by the whole subtree; a
  row set without any ends it.  A pairing has a trade exactly when it maps
  some positions S of one set onto positions T of the other with the same
  size and sum; so the (S, T) with equal sums are found by hashing subset
  sums, and each rules out a precomputed bit set over the n! pairings (the
  ones mapping S onto T).  Past 6 columns: a depth-first search with the
  subset sums as a shifted bit set.  A row's candidate arrangements are a bit set over
  the n! arrangement ranks: its trade-free pairings with the first placed
  row (written increasing, so a pairing is an arrangement) AND, for each
  earlier row l, its trade-free pairings with row l composed with row l's
  arrangement (built once when row l is placed).  Candidates that fail a
  row pair are never visited.
* Column pairs: the subset sums of T[., a] − T[., b] over the placed rows
  are kept per column pair; before a row is tried, the differences its
  entries x_a − x_b may not have are collected as bits, so a candidate costs
  one bit test per column pair.  The last row is cut as bit sets instead:
  per column pair and forbidden difference, the arrangements putting two of
  its elements with that difference in those columns (precomputed per
  column pair and element pair); its pairings with the row placed before
  it are tested per candidate by one bit (or ANDed in, when fewer), and
  every survivor is a trade-free table.  Leaves sort their column sums in
  place; a vector's keys are radix sorted, in a buffer that grows by
  redoing the one partition that overflowed it.
* When m >= 4, once three rows are placed, two more trades among them are
  cut: permuting entries within the columns of those three rows keeping
  their row sums (meet in the middle over the columns, in a stamped table
  that is never cleared), and permuting entries within those rows among
  three columns keeping the column sums (the first two rows' part is
  marked once per second row, a third-row candidate costs 6 look-ups per
  triple).  Which test goes first is chosen per partition from counts of
  how often each cuts (the first few candidates of each partition run both):
  the three-row test cuts ~97 % of the 4×5 third-row candidates in some
  batches, 40 % in others; when it goes first the marks are made only for a
  second row with a candidate passing it.
* A batch handles whole row-sum vectors r, so every table with margins
  (r, c) is met inside one batch: the surviving tables' column-sum vectors
  are sorted, and only the c met exactly once are candidates.  (A candidate
  may still have a second solution that was cut for its own trade.)  Each
  key carries a leaf code (the partition's number and the rows' arrangement
  ranks), so a candidate's table is rebuilt and first tested for trades
  within any three rows or any three columns (the search tests only its
  first three rows): on 4×5 that leaves ~15-40 % of the candidates.  The
  rest are proved unique or not by the exact solver knowing the table
  (``solve.solve_other_kernel``: it goes down to the table first and looks
  for any other solution, which mostly lies near it: 3.7× fewer nodes on
  4×5; on the transposed puzzle when m < n, ~20 % fewer nodes on 4×5).
* m = n: only the orientation of REFERENCES.md is kept (row sums sorted
  decreasingly lexicographically smaller than the column sums sorted the
  same way); its transpose is the same essential puzzle.

Two rows (m = 2, n >= 3) run by their own method, ``two_rows``: column
pairings with counted subset sums of the top row (2×10 in minutes; the
general search was predicted at ~74 core-hours), with the same records and
counters.

Per puzzle the batch records the solution, the product setup (DESIGN.md tie
rule, ``setup.product_setups``), the initial W, the minimum number of
swaps from the setup and the chi-square of the solution.  Results are
integer histograms plus the puzzle rows, so merging is exact.

Modules: ``plan`` (sizes, subset tables, batch plan), ``workspace`` (the
kernels' arrays grouped), ``trades`` (trade tests), ``arrange`` (rows into
tables), ``enumeration`` (partitions, margins met once, exact check, one
batch), ``result`` (records and distributions), ``format`` (atlas file),
``job`` (the batch job), ``reference`` (published figures), ``two_rows`` (the
two-row method).
"""
from __future__ import annotations

from sudokustudio.survo.atlas.enumeration import complete_records, cycle_counts, run_vectors
from sudokustudio.survo.atlas.format import ATLAS_HEADER, parse_atlas_line, read_atlas, write_atlas
from sudokustudio.survo.atlas.job import SurvoAtlasJob, warm_up
from sudokustudio.survo.atlas.plan import (MAX_BATCHES, MAX_CELLS, TWO_ROW_MAX_N, batch_plan, check_size,
                                           pairing_tables, row_sum_vectors, subset_tables, uses_two_rows)
from sudokustudio.survo.atlas.reference import (KNOWN_COUNTS, SEED_ALL_UNDER6_4x4, SEED_CHI2_RANGE_4x4,
                                                SEED_SWAPS_4x4, SEED_W_BINS_4x4, _bin_limits, bin_limits,
                                                compare_with_seed, pct_as_printed)
from sudokustudio.survo.atlas.result import AtlasResult, empty_result, merge_results, record_width
from sudokustudio.survo.atlas.two_rows import run_prefixes, two_row_plan

__all__ = [
    "ATLAS_HEADER", "KNOWN_COUNTS", "MAX_BATCHES", "MAX_CELLS", "SEED_ALL_UNDER6_4x4", "SEED_CHI2_RANGE_4x4",
    "SEED_SWAPS_4x4", "SEED_W_BINS_4x4", "AtlasResult", "SurvoAtlasJob", "_bin_limits", "batch_plan",
    "bin_limits", "check_size", "compare_with_seed", "complete_records", "cycle_counts", "empty_result",
    "merge_results", "pairing_tables", "parse_atlas_line", "pct_as_printed", "read_atlas", "record_width",
    "row_sum_vectors", "run_prefixes", "run_vectors", "subset_tables", "TWO_ROW_MAX_N", "two_row_plan",
    "uses_two_rows", "warm_up", "write_atlas",
]
