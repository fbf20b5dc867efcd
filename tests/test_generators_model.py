"""The Generators tab's model without Qt: jobs by name, stop rules, rows, imports with
progress, statistics and the table."""
import re
import time

import numpy as np
import pytest

from sudokustudio.jobs.collections import CollectionStore, export_puzzles
from sudokustudio.jobs.executors import ThreadExecutor
from sudokustudio.models.generators import GeneratorsModel, build_job
from sudokustudio.sudoku.generate.weighted import SAMPLES_PER_BATCH

EXECUTOR = ThreadExecutor(2)


def _wait(pred, timeout=180):
    end = time.monotonic() + timeout
    while not pred():
        assert time.monotonic() < end, "timed out"
        time.sleep(0.02)


def test_build_job_by_name_and_its_checks():
    job, n = build_job("top-down", 450)
    assert job.spec["method"] == "top-down" and n == 3
    job, n = build_job("controlled-bias", 10)
    assert n is None                                # stops at a number of puzzles
    job, n = build_job("weighted-subsets", 250)
    assert job.spec["per_batch"] * n == 250 and job.spec["per_batch"] <= SAMPLES_PER_BATCH
    with pytest.raises(ValueError, match="unknown generator"):
        build_job("sideways", 10)
    with pytest.raises(ValueError, match="sequential is for weighted-subsets only"):
        build_job("top-down", 10, grid_source="sequential")


def test_runs_commit_to_the_store_and_fill_the_rows_and_table(tmp_path):
    store = CollectionStore(tmp_path / "c.sqlite3")
    model = GeneratorsModel(store, lambda: EXECUTOR)
    assert model.row("top-down").button == "Start"
    s = model.start("top-down", 300, seed=4)
    _wait(lambda: s.run.finished)
    row = model.row("top-down")
    assert row.count == "300" and row.progress == 1.0 and row.button == "Start"
    assert np.array_equal(store.load(s.collection_id).puzzles, s.current().puzzles)
    rows, cols, cells, kinds = model.table()
    assert cols[0] == "top-down" and kinds[0] == "live" and kinds.count("published") == 4
    assert cells[rows.index("puzzles")][0] == "300"
    x, y = model.hist(s)
    assert abs(y.sum() - 1) < 1e-9 and 20 <= x[np.argmax(y)] <= 27
    # what the tab draws, computed in one go (off its UI thread): the same figures
    d = model.drawing("guesses")
    (c,) = d.curves
    assert c.key == "top-down" and c.version == (s.serial, 300, s.current().tries, True, "guesses")
    assert np.array_equal(c.hist[0], x) and np.array_equal(c.hist[1], y)
    mx, my = model.metric_curve(s, "guesses")
    assert np.array_equal(c.metric[0], mx) and np.allclose(c.metric[1], my)
    assert d.table == (rows, cols, cells, kinds) and d.table_series == [s] and d.note == ""
    assert "guesses" in d.metric_names and model.drawing("W").note.startswith("No W-rating yet")


def test_a_run_waiting_for_its_kernels_shows_how_far_they_are(tmp_path):
    """A first start: the row's bar is the share of the job's kernel groups compiled, its text
    says so, and the run starts once they are ready."""
    from sudokustudio.kernels import KernelReadiness, set_readiness, wait_ready
    from sudokustudio.kernels.readiness import COMPILING, READY

    r = KernelReadiness(["top-down", "generators"], ready=False)   # a plain top-down run needs the first
    r.update("top-down", state=COMPILING, kernels=32, expected=128)
    old = set_readiness(r)
    try:
        model = GeneratorsModel(CollectionStore(tmp_path / "c.sqlite3"), lambda: EXECUTOR,
                                gate=lambda job, stop: wait_ready(job.kernel_groups, cancel=stop))
        s = model.start("top-down", 50, seed=4)
        _wait(lambda: s.run.snapshot(history=False).waiting_for)
        row = model.row("top-down")
        assert row.progress == 0.25 and row.progress_text == "preparing (compiling kernels: 25%)…"
        assert row.progress_short == "preparing…" and row.count == "0"
        r.update("top-down", state=READY)
        _wait(lambda: s.run.finished)
        row = model.row("top-down")
        assert row.progress == 1.0 and row.progress_text == "50 / 50 puzzles"
    finally:
        set_readiness(old)


def test_the_drawing_s_table_and_series_agree_while_a_run_finds_its_first_puzzle(tmp_path):
    """A run's first puzzles may land while a drawing is being made (a worker thread); the
    table's columns and the series they stand for come from one look at the statistics."""
    model = GeneratorsModel(CollectionStore(tmp_path / "c.sqlite3"), lambda: EXECUTOR)
    s = model.start("top-down", 100, seed=4)
    _wait(lambda: s.run.finished)
    stats, looks = model.stats, []

    def first_look_empty(series):   # the run had nothing at the first look, 100 puzzles at the next
        looks.append(series.key)
        return None if len(looks) == 1 else stats(series)

    model.stats = first_look_empty
    d = model.drawing("guesses")
    rows, cols, cells, kinds = d.table
    assert [k for k in kinds if k != "published"] == ["live"] * len(d.table_series)
    assert cols[:len(d.table_series)] == [x.name for x in d.table_series]


def test_imports_report_progress_and_the_generator_of_our_own_csv(tmp_path, shared_data):
    model = GeneratorsModel(None, lambda: EXECUTOR)
    lines = (shared_data / "controlled_bias" / "001-puzzles.txt").read_text().splitlines()[:4500]
    (tmp_path / "cb.txt").write_text("\n".join(lines) + "\n")
    seen = []
    coll = model.read_collection(tmp_path / "cb.txt", "controlled-bias", lambda d, t: seen.append((d, t)))
    assert seen == [(2000, 4500), (4000, 4500), (4500, 4500)]
    s = model.add_collection(coll)
    assert s.imported and s.current().metrics["brt"].shape == (4500,)
    export_puzzles(tmp_path / "out.csv", s.current(), generator="controlled-bias")
    assert model.guess_generator(tmp_path / "out.csv") == "controlled-bias"
    assert model.guess_generator(tmp_path / "cb.txt") == "unknown"
    assert "W-rating" in model.metric_note("W")


def test_the_weighted_sampler_s_clue_shares_are_compared_with_seed_002(tmp_path):
    from sudokustudio.models.generators import SHARES_ROW, TAIL_ROW

    model = GeneratorsModel(CollectionStore(tmp_path / "c.sqlite3"), lambda: EXECUTOR)
    s = model.start("weighted-subsets", 400, seed=6)
    _wait(lambda: s.run.finished)
    rows, cols, cells, kinds = model.table()
    cell = cells[rows.index(SHARES_ROW)][cols.index("weighted-subsets")]
    z, c, few = re.fullmatch(r"(\d+\.\d\d) \(c = (\d+)\)(?:, (\d+) untested)?", cell).groups()
    assert float(z) < 4 and 20 <= int(c) <= 31
    assert int(few or 0) == len(model.stats(s)["seed002_untested"])
    # 400 samples are far too few for the weighted tail: the row says so, and the drawing carries why
    tail = cells[rows.index(TAIL_ROW)][cols.index("weighted-subsets")]
    assert re.fullmatch(r"[\d,]+: untrusted", tail), tail
    warning = model.tail_warnings([s])["weighted-subsets"]
    assert warning.startswith("Heavy tail:")
    for c in model.stats(s)["tail"]["under_sampled"]:   # the classes in the cell's tooltip
        assert f"c = {c} holds" in warning
    assert s.run.job.spec["grid_source"] == "sequential"      # the unbiased grids by default
    assert cells[rows.index(SHARES_ROW)][cols.index("seed 002 real")] == ""
