"""The atlas kernels' arrays, grouped by what they serve (plain namedtuples of numpy
arrays, which numba passes as one argument each: no jitclass to compile).

* ``Plan``:   read-only tables of a size (subsets by sum, row arrangements, ...).
* ``Rows``:   the partition search (row sets, their trade-free pairings).
* ``Grid``:   the arrangement search (the table, candidate bit sets, column sums).
* ``Trades``: scratch of the three-row / three-column trade checks (stamped, never cleared;
  ``stamps[2:6]`` count what the checks cut, ``trades.row_test_first``).
"""
from __future__ import annotations

from collections import namedtuple
from math import factorial

import numpy as np

from sudokustudio.survo.atlas.plan import cell_pair_masks, pairing_tables, subset_pair_masks, subset_tables
from sudokustudio.survo.atlas.trades import reach_words

Plan = namedtuple("Plan", "masks start perms inverse compose_t fact row_orders bits cell_masks subset_masks rank_bits")
Rows = namedtuple("Rows", "vals pair_list pair_count placed_vals placed_list placed_count row0_mask last_pair_mask "
                          "reach pick rank_prefix subset_sums sum_head sum_next bad chosen used pos")
Grid = namedtuple("Grid", "T cand composed cursor colsub forbid diff_start diff_pairs realized row_cut placed_k "
                          "colbase x_last cs_sorted r_desc")
Trades = namedtuple("Trades", "opt half_a half_b seen marks stamps")


def key_bits(m: int, n: int) -> int:
    """Bits per column sum in a sorted-column-sums key (a column sum is below m·N + 1)."""
    N = m * n
    bits = 1
    while (1 << bits) <= m * N:
        bits += 1
    return bits


def make_plan(m: int, n: int) -> Plan:
    masks, start = subset_tables(m, n)
    perms, inverse, compose_t, fact, row_orders = pairing_tables(m, n)
    return Plan(masks, start, perms, inverse, compose_t, fact, row_orders, key_bits(m, n), cell_pair_masks(n),
                subset_pair_masks(n), rank_bits(n))


def rank_bits(n: int) -> int:
    """Bits per arrangement rank (< n!) in a leaf code (``arrange.arrange_rows_fast``)."""
    return max(1, (factorial(n) - 1).bit_length())


def make_workspace(m: int, n: int) -> tuple[Rows, Grid, Trades]:
    """Fresh scratch arrays for one thread's enumeration of an m×n atlas."""
    N = m * n
    n_perms = int(np.prod(np.arange(1, n + 1)))
    n_words = (n_perms + 63) // 64
    z = np.zeros
    rows = Rows(vals=z((m, n), np.int64), pair_list=z((m, m, n_perms), np.int64), pair_count=z((m, m), np.int64),
                placed_vals=z((m, n), np.int64), placed_list=z((m, m, n_perms), np.int64),
                placed_count=z((m, m), np.int64), row0_mask=z((m, n_words), np.int64),
                last_pair_mask=z(n_words, np.int64), reach=z((n + 1, reach_words(m, n)), np.uint64),
                pick=z(n + 1, np.int64), rank_prefix=z(n + 1, np.int64), subset_sums=z((2, 1 << n), np.int64),
                sum_head=np.full((n + 1) * (n * N + 1), -1, np.int64), sum_next=z(1 << n, np.int64),
                bad=z(n_words, np.int64), chosen=z(m, np.int64), used=z(m + 1, np.int64), pos=z(m, np.int64))
    grid = Grid(T=z((m, n), np.int64), cand=z((m, n_words), np.int64), composed=z((m, m, n_words), np.int64),
                cursor=z(m, np.int64), colsub=z((n * n, 1 << m), np.int64), forbid=z((m, n * n), np.int64),
                diff_start=z((m, 2 * N), np.int64), diff_pairs=z((m, n * n), np.int64), realized=z(m, np.int64),
                row_cut=z(m, np.bool_), placed_k=z(m, np.int64),
                colbase=z(n, np.int64), x_last=z(n, np.int64),
                cs_sorted=z(n, np.int64), r_desc=z(m, np.int64))
    span = (N - 1) * (n - n // 2)    # |Δ| bound of a half in three_row_trade
    span2 = 2 * (N - 1)              # |Δ| bound of two rows in mark_two_row_triples
    trades = Trades(opt=z((n, 6), np.int64), half_a=z(6 ** (n // 2), np.int64),
                    half_b=z(6 ** (n - n // 2), np.int64), seen=z((2 * span + 1) ** 2, np.int64),
                    marks=z((max(1, n * (n - 1) * (n - 2) // 6), (2 * span2 + 1) ** 2), np.int64),
                    stamps=z(6, np.int64))
    return rows, grid, trades
