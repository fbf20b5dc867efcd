"""Atlas merges grow a shared store (amortised) instead of copying the total per batch:
the same records as concatenating, for any arrival order of batches, and no result
ever sees its rows change when another is merged after it."""
import numpy as np
import pytest

from sudokustudio.core.batch import OrderedMerger
from sudokustudio.survo.atlas.result import AtlasResult, empty_result, merge_results, record_width


def batch(rng, m, n, k, tag):
    rec = rng.integers(0, 50, size=(k, record_width(m, n)), dtype=np.int64)
    rec[:, 0] = tag
    return AtlasResult(m, n, rec, rng.random(k), tables=k + 1, candidates=2 * k, vectors_done=1,
                       cpu_seconds=0.5)


def concatenated(parts):
    return (np.concatenate([p.records for p in parts]), np.concatenate([p.chi2 for p in parts]))


@pytest.mark.parametrize("seed", range(6))
def test_ordered_merge_in_any_arrival_order_equals_concatenation(seed):
    rng = np.random.default_rng(seed)
    parts = [batch(rng, 2, 5, int(k), i) for i, k in enumerate(rng.integers(0, 40, size=30))]
    merger = OrderedMerger(merge_results, empty_result(2, 5))
    seen = []   # every live total, as the run hands it to a view, with a copy of its rows then
    for i in rng.permutation(len(parts)):
        merger.add(int(i), parts[i])
        total = merger.total()
        seen.append((total, total.records.copy(), total.chi2.copy()))
    rec, chi2 = concatenated(parts)
    total = merger.total()
    assert np.array_equal(total.records, rec) and np.array_equal(total.chi2, chi2)
    assert (total.tables, total.candidates, total.vectors_done) == (sum(p.tables for p in parts),
                                                                    sum(p.candidates for p in parts), len(parts))
    assert total.cpu_seconds == pytest.approx(0.5 * len(parts))
    for t, r, c in seen:   # later merges wrote only past the rows these totals show
        assert np.array_equal(t.records, r) and np.array_equal(t.chi2, c)


def test_merging_an_older_result_again_forks_without_changing_the_first_merge():
    rng = np.random.default_rng(7)
    a, b, c = (batch(rng, 2, 4, 10, i) for i in range(3))
    ab = merge_results(merge_results(empty_result(2, 4), a), b)
    a_only = merge_results(empty_result(2, 4), a)
    base = merge_results(a_only, c)        # a_only's rows are followed by b's in ab's store: a copy
    again = merge_results(ab, c)
    assert np.array_equal(base.records, concatenated([a, c])[0])
    assert np.array_equal(ab.records, concatenated([a, b])[0])
    assert np.array_equal(again.records, concatenated([a, b, c])[0])
    assert np.array_equal(merge_results(c, ab).records, concatenated([c, a, b])[0])
    empty = merge_results(ab, empty_result(2, 4))
    assert np.array_equal(empty.records, ab.records) and empty.count == 20


def test_merging_batch_by_batch_appends_in_place():
    """Linear, not quadratic: one batch after another grows the same store."""
    rng = np.random.default_rng(3)
    total = merge_results(empty_result(2, 3), batch(rng, 2, 3, 100, 0))
    copies = 0
    for i in range(1, 50):
        before = total
        total = merge_results(total, batch(rng, 2, 3, 100, i))
        copies += not np.shares_memory(before.records, total.records)
    assert total.count == 5000
    assert copies <= 10   # a new store only when full (it grows by half): ~log_1.5(50) times


def test_figures_carried_by_merges_equal_those_of_the_records():
    """Histograms, mean, W table and chi-square range added up by the merges are exactly the
    figures of the merged records (numpy's own mean of the swaps, bit for bit)."""
    from sudokustudio.survo.atlas.tables import atlas_tables

    rng = np.random.default_rng(11)
    parts = []
    for i, k in enumerate(rng.integers(0, 60, size=25)):
        p = batch(rng, 2, 5, int(k), i)
        p.records[:, -2] = rng.integers(0, 5 + 2 * i, size=int(k))    # W: wider ranges in later batches
        p.records[:, -1] = rng.integers(0, 3 + i % 9, size=int(k))    # swaps
        parts.append(p)
    merger = OrderedMerger(merge_results, empty_result(2, 5))
    for i in rng.permutation(len(parts)):
        merger.add(int(i), parts[i])
        live = merger.total()
        atlas_tables(live)     # as the run's summary does per batch
    total = merger.total()
    fresh = AtlasResult(2, 5, total.records.copy(), total.chi2.copy())
    s, w = fresh.swaps(), fresh.w()
    assert total.swaps_hist() == np.bincount(s).tolist()
    assert total.w_hist() == np.bincount(w).tolist()
    assert total.swaps_mean_sd() == (float(s.astype(np.float64).mean()), float(s.astype(np.float64).std()))
    assert total.under6_percent() == 100.0 * float((s < 6).sum()) / len(s)
    assert total.chi2_range() == (float(fresh.chi2.min()), float(fresh.chi2.max()))
    for lab, c, pct in total.w_table(k=4):
        lo, hi = (0, 4) if lab == "0-4" else (int(lab), int(lab))
        inside = (w >= lo) & (w <= hi)
        assert c == int(inside.sum())
        if c:
            assert pct == 100.0 * float((inside & (s < 4)).sum()) / c
        else:
            assert pct != pct
    assert atlas_tables(total).as_dict() == atlas_tables(fresh).as_dict()
