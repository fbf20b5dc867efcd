"""The Atlas view's model without Qt: sizes, prediction, per-partition progress, table rows, CSV."""
from __future__ import annotations

import math

import numpy as np
import pytest

from sudokustudio.models.survo_atlas import PREDICT_SIZES, RUN_SIZES, SIZES, AtlasRunModel, size_label
from sudokustudio.survo.atlas import KNOWN_COUNTS, merge_results


def _run_all(model: AtlasRunModel):
    run = model.new_run()
    job = model.job
    total = job.empty()
    for b in range(job.n_batches()):
        res = job.run_batch(b, 0)
        model.take_batch(b, res)
        total = merge_results(total, res)
    return run, total


def test_sizes_and_labels():
    assert (3, 6) in RUN_SIZES and (4, 5) in RUN_SIZES and (5, 5) in PREDICT_SIZES and (3, 8) in PREDICT_SIZES
    assert len(set(SIZES)) == len(SIZES)
    assert "55,815" in size_label(3, 6) or KNOWN_COUNTS.get((3, 6)) is None
    assert "prediction only" in size_label(5, 5)


def test_run_of_2x6_progress_tables_and_prediction_check(tmp_path):
    model = AtlasRunModel()
    model.select(2, 6)
    assert model.runnable and model.prediction() is None
    assert "predicting" in model.prediction_text()
    est = model.predict(probes=300)
    assert est.tables > 0 and model.prediction() is est
    assert model.prediction_text().startswith("S(2,6): about") and "core-hours" in model.prediction_text()
    run, total = _run_all(model)
    assert run.rules.batches == model.job.n_batches()
    assert total.count == KNOWN_COUNTS[(2, 6)] == 1146
    p = model.partition_progress()
    vectors, bounds = model.job.plan()   # 2×6 runs by the two-row method: column-sum prefixes
    assert model.job.two_rows and vectors.shape[1] == 2 and bounds[-1] == len(vectors)
    assert p.done.all() and p.vectors_done == len(vectors) and p.batches_done == len(bounds) - 1
    assert int(p.puzzles.sum()) == 1146
    t = model.tables(total)
    rows = model.swaps_rows(t)
    assert sum(int(r[1].replace(",", "")) for r in rows) == 1146
    assert [int(r[0]) for r in rows] == list(range(len(t.swaps_hist)))
    w = model.w_rows(t)
    assert w[-1][0] == "all" and w[-1][1] == "1,146"
    assert sum(int(r[1].replace(",", "")) for r in w[:-1]) == 1146
    summary = dict(model.summary_rows(t))
    assert summary["puzzles"] == "1,146" and "random start (12 cells) mean / sd" in summary
    assert "match" in model.status_text(total, running=False, complete=True, elapsed=1.0)
    live = model.status_text(total, running=True, complete=False, elapsed=1.0, progress=p)
    assert f"{len(vectors)} of {len(vectors)} column-sum prefixes" in live
    check = model.prediction_check_text(total)
    assert f"measured {total.tables:,}" in check
    c = est.against(total.tables, total.cpu_seconds)
    assert math.isclose(c["relative_difference"], (est.tables - total.tables) / total.tables)
    # Knuth's estimate is unbiased: within 4 of its relative errors (fixed seed)
    assert abs(c["relative_errors_off"]) < 4
    other = AtlasRunModel()
    other.take_result(total)   # an atlas read from a file: the same puzzles per partition
    q = other.partition_progress()
    assert (other.m, other.n) == (2, 6) and q.done.all() and q.puzzles.tolist() == p.puzzles.tolist()
    paths = model.export_csv(tmp_path / "a", total)
    assert sorted(x.name for x in paths) == ["a_summary.csv", "a_swaps.csv", "a_w.csv"]
    assert "1146" in (tmp_path / "a_summary.csv").read_text()


def test_partial_progress_and_sizes_beyond_a_run():
    model = AtlasRunModel()
    model.select(3, 4)
    model.new_run()
    job = model.job
    model.take_batch(1, job.run_batch(1, 0))
    p = model.partition_progress()
    assert p.batches_done == 1 and p.done[1] and not p.done[0]
    assert p.vectors_done == int(p.vectors[1])
    model.select(3, 7)
    assert not model.runnable
    with pytest.raises(ValueError, match="prediction only"):
        model.new_run()
    model.select(4, 5)
    assert model.needs_confirmation()   # not predicted yet: a big size asks first
    model.select(2, 10)   # two rows: minutes by their own method, no estimate of the general search past 8 columns
    assert model.runnable and not model.predictable and not model.wants_prediction()
    assert not model.needs_confirmation()
    assert "two-row method" in model.prediction_text() and "843,476" in size_label(2, 10)


@pytest.mark.parametrize("descending", [False, True])
def test_sort_order_packs_keys_like_a_lexsort(descending):
    """The puzzle list's order: the same as a stable lexsort (first key first, ties in row order),
    packed keys or not (40 keys of 2 bits do not fit in 63: the lexsort path)."""
    from sudokustudio.models.survo_atlas import sort_order

    rng = np.random.default_rng(5)
    for n_keys, top in ((1, 5), (2, 200), (10, 40), (40, 3)):
        keys = [rng.integers(1, top + 1, size=3000) for _ in range(n_keys)]
        want = np.lexsort([-k if descending else k for k in keys[::-1]])
        assert np.array_equal(sort_order(keys, descending), want)
