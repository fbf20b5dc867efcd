"""The Atlas view's model without Qt: sizes, prediction, per-partition progress, table rows, CSV."""
from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest
from conftest import sorted_records

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
    lo, hi = est.core_hours_range
    assert f"{lo:.2g}-{hi:.2g} by the cost model's spread" in model.prediction_text()
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
    timed = model.status_text(total, running=True, complete=False, elapsed=75.0, progress=p, left=1500.0)
    assert timed.endswith("; 1 min 15 s elapsed, about 25 min left.")
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
    model.select(4, 6)
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


def test_a_long_run_is_stored_and_another_window_resumes_it(tmp_path, monkeypatch):
    """A run over the store threshold is kept as it goes; stopped after 5 batches (as a crash or a
    closed window leaves it), a new model finds it for its size, marks those partitions done and
    carries it on to the whole atlas; a new run of the size replaces it."""
    from sudokustudio.jobs.run import Run, StopRules, run_batches
    from sudokustudio.jobs.store import RunStore, StoreError
    from sudokustudio.models import survo_atlas as M
    from sudokustudio.sudoku.estimate import GridCountJob
    from sudokustudio.survo.atlas import SurvoAtlasJob

    store = RunStore(tmp_path / "runs.db")
    model = AtlasRunModel(store)
    model.select(3, 4)
    assert not model.worth_storing()            # 12 cells, nothing predicted: too short to keep
    assert model.stored_run_info() is None and model.stored_run_text(None) == ""
    model.predict(probes=50)
    monkeypatch.setattr(M, "STORE_RUN_CORE_SECONDS", 0.0)   # every predicted run counts as long
    assert model.worth_storing()
    run = model.new_run()
    assert run.run_id is not None
    run.set_rules(StopRules(batches=5))
    run.run(workers=1)
    run.set_rules(StopRules(batches=SurvoAtlasJob(3, 4).n_batches()))   # as a crash leaves it: 5 done
    info = model.stored_run_info()
    n_batches = SurvoAtlasJob(3, 4).n_batches()
    assert info.id == run.run_id and info.batches == 5
    other = AtlasRunModel(store)
    other.select(3, 4)
    assert other.stored_run_info().id == run.run_id
    assert f"stopped) has 5 of {n_batches} partitions" in other.stored_run_text(other.stored_run_info())
    assert other.resumable(info)
    driven = dataclasses.replace(info, status="running")   # as a live run of another process reads
    assert not other.resumable(driven) and "running in another process" in other.stored_run_text(driven)
    opened, puzzles = other.open_stored(info.id)
    assert other.job is None                   # opening changes nothing; adopting does
    resumed = other.adopt(opened, puzzles)
    p = other.partition_progress()
    assert p.batches_done == 5 and p.done[:5].all() and len(p.done) == n_batches
    assert int(p.puzzles.sum()) == run.total.count > 0
    resumed.run(workers=2)
    whole = run_batches(SurvoAtlasJob(3, 4), 0, n_batches, workers=2).total
    assert resumed.total.count == whole.count == KNOWN_COUNTS[(3, 4)]
    assert np.array_equal(sorted_records(resumed.total), sorted_records(whole))
    assert "is complete" in other.stored_run_text(other.stored_run_info())
    other.predict(probes=50)
    again = other.new_run()                    # one stored run per size: the old one goes
    assert [r.id for r in store.runs(SurvoAtlasJob.kind)] == [again.run_id] != [run.run_id]
    foreign = Run.create(GridCountJob("2x2"), 1, StopRules(batches=1), store=store)
    with pytest.raises(StoreError, match="not an atlas"):
        other.open_stored(foreign.run_id)


def test_seed_comparison_cells_judge_only_a_complete_atlas():
    from sudokustudio.survo.atlas import SEED_SWAPS_4x4, SEED_W_BINS_4x4, empty_result

    alone = AtlasRunModel.seed_comparison(None)
    assert (1, 3, str(SEED_SWAPS_4x4[3]), None) in alone.swaps_cells
    assert all(ok is None for *_, ok in alone.swaps_cells + alone.w_cells) and "Run 4×4" in alone.summary
    last = len(SEED_W_BINS_4x4)
    empty = empty_result(4, 4)
    judged = AtlasRunModel.seed_comparison(empty, complete=True)
    assert (2, 3, "0", SEED_SWAPS_4x4[3] == 0) in judged.swaps_cells
    assert (last, 2, "0", False) in judged.w_cells and (last, 1, "5327", None) in judged.w_cells
    assert judged.summary == "No 4×4 puzzles in this atlas."
    growing = AtlasRunModel.seed_comparison(empty, complete=False)
    assert all(ok is None for *_, ok in growing.swaps_cells + growing.w_cells) and "Partial" in growing.summary


def test_a_run_stored_by_the_older_method_resumes_with_its_own_plan(tmp_path):
    """A 3×5 run stored with method "rows" (every row-sum vector: before complement pairs) keeps
    its batch numbering when reopened: its partitions are the rows plan's, and it ends whole."""
    from sudokustudio.jobs.run import Run, StopRules
    from sudokustudio.jobs.store import RunStore
    from sudokustudio.survo.atlas import SurvoAtlasJob

    store = RunStore(tmp_path / "runs.db")
    old = SurvoAtlasJob(3, 5, "rows")
    assert old.n_batches() != SurvoAtlasJob(3, 5).n_batches()
    run = Run.create(old, 0, StopRules(batches=4), store=store)
    run.run(workers=1)
    model = AtlasRunModel(store)
    model.select(3, 5)
    resumed = model.adopt(*model.open_stored(run.run_id))
    p = model.partition_progress()
    assert resumed.job.spec["method"] == "rows" and len(p.done) == old.n_batches() and p.batches_done == 4
    assert int(p.puzzles.sum()) == run.total.count
    resumed.run(workers=2)
    assert resumed.total.count == KNOWN_COUNTS[(3, 5)]
