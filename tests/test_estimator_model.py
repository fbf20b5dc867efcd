"""The Estimator tab's model, without Qt: runs, the run list's statuses, honest rates after a
resume, the panel of the selected run, and exports of plain numbers."""
import csv
import json
import os
import signal
import subprocess
import sys
import time

import pytest

from sudokustudio.jobs.executors import ThreadExecutor
from sudokustudio.jobs.store import RunStore
from sudokustudio.models.estimator import GRIDS, MINIMALS, EstimatorModel, EstimatorParams

EXECUTOR = ThreadExecutor(2)


def _model(tmp_path):
    return EstimatorModel(RunStore(tmp_path / "runs.sqlite3"), lambda: EXECUTOR)


def _wait(pred, timeout=120):
    end = time.monotonic() + timeout
    while not pred():
        assert time.monotonic() < end, "timed out"
        time.sleep(0.02)


def test_start_stop_resume_with_honest_rates_and_the_panel(tmp_path):
    model = _model(tmp_path)
    view = model.start(EstimatorParams(GRIDS, box="2x2", grid_method="ridder", seed=3))
    _wait(lambda: view.run.batches_done >= 3)
    with pytest.raises(ValueError, match="A run is going"):
        model.start(EstimatorParams(GRIDS, box="2x2", seed=4))
    model.stop()
    assert view.run.wait(5)
    first = view.run.snapshot(history=False)
    assert first.status.value == "paused"
    # reopened as after a restart: resume continues with this session's rate only
    again = EstimatorModel(RunStore(tmp_path / "runs.sqlite3"), lambda: EXECUTOR)
    (row,) = again.run_rows(GRIDS)
    assert row.status == "paused" and f"{first.batches:,} batches" in row.text
    opened = again.add_opened(again.open_run(row.run_id))
    assert opened.run.batches_done == first.batches
    again.resume(opened)
    _wait(lambda: opened.run.batches_done >= first.batches + 3)
    again.stop()
    assert opened.run.wait(5)
    snap = opened.run.snapshot(history=False)
    assert snap.rate * snap.session_seconds == pytest.approx(snap.units - first.units)
    panel = again.panel(opened, 1e-6)
    assert panel.lines[0].startswith(f"#{row.run_id} 2x2 ridder — paused")
    assert f"{snap.units:,} samples" in panel.lines[1] and "this session" in panel.lines[1]
    assert "when resumed" in panel.lines[2]
    # the bar: the share of the samples the target needs (RE ~ 1/sqrt(samples)), full once reached
    half = again.panel(opened, snap.rel_err / 2)
    assert half.progress == pytest.approx(0.25)
    assert half.progress_text == f"RE {100 * snap.rel_err:.3g}% → {50 * snap.rel_err:.3g}%: 25% done"
    assert again.panel(opened, snap.rel_err / 20).progress_text.endswith(": 0.25% done")
    reached = again.panel(opened, 2 * snap.rel_err)
    assert reached.progress == 1.0 and reached.progress_text.endswith(": reached")
    d = opened.run.job.describe(opened.run.total)
    assert abs(d["estimate"] - 288) < 5 * d["se"]  # 2x2 boxes: 288 grids


def test_the_panel_follows_the_kind_of_run(tmp_path):
    model = _model(tmp_path)
    grids = model.start(EstimatorParams(GRIDS, box="2x2", grid_method="rows", seed=1))
    _wait(lambda: grids.run.batches_done >= 1)
    model.stop()
    grids.run.wait(5)
    assert model.panel(grids, 0.01).headline.endswith("%") and "c=" not in model.panel(grids, 0.01).headline
    minimals = model.start(EstimatorParams(MINIMALS, minimal_method="path", seed=2))
    _wait(lambda: minimals.run.batches_done >= 1)
    model.stop()
    minimals.run.wait(10)
    assert model.shown_views(GRIDS) == [grids] and model.shown_views(MINIMALS) == [minimals]
    text = model.panel(minimals, 0.01).headline
    assert text.startswith("c=") or text == "no minimal puzzle found yet"


def test_exports_write_plain_numbers(tmp_path):
    model = _model(tmp_path)
    view = model.start(EstimatorParams(MINIMALS, minimal_method="path", seed=5))
    _wait(lambda: view.run.batches_done >= 2)
    model.stop()
    view.run.wait(10)
    model.export(view, tmp_path / "m.csv")
    text = (tmp_path / "m.csv").read_text()
    assert "np." not in text
    rows = list(csv.reader(text.splitlines()))
    assert rows[0] == ["c", "found", "estimate_per_grid", "se", "rel_err"]
    for r in rows[1:]:
        int(r[0]), int(r[1]), float(r[2]), float(r[3])
    model.export(view, tmp_path / "m.json")
    doc = json.loads((tmp_path / "m.json").read_text())
    assert doc["spec"]["method"] == "path" and doc["status"] == "paused"
    assert doc["summary"]["samples"] == view.run.total.n and len(doc["history"]) >= 2


_KILLED = r"""
import sys
from sudokustudio.jobs.executors import ThreadExecutor
from sudokustudio.jobs.store import RunStore
from sudokustudio.models.estimator import EstimatorModel, EstimatorParams
model = EstimatorModel(RunStore(sys.argv[1]), lambda: ThreadExecutor(2))
view = model.start(EstimatorParams("grids", box="2x3", grid_method="ridder", seed=7))
import time
while view.run.batches_done < 4:
    time.sleep(0.01)
print(view.run.run_id, flush=True)
time.sleep(600)
"""


def test_a_run_of_a_killed_process_is_listed_as_interrupted(tmp_path):
    path = tmp_path / "runs.sqlite3"
    proc = subprocess.Popen([sys.executable, "-c", _KILLED, str(path)], stdout=subprocess.PIPE, text=True)
    rid = int(proc.stdout.readline())
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    model = _model(tmp_path)
    (row,) = model.run_rows(GRIDS)
    assert row.run_id == rid and row.status == "interrupted" and "interrupted" in row.text
    view = model.add_opened(model.open_run(rid))
    model.resume(view)
    _wait(lambda: view.run.batches_done >= 6)
    model.shutdown()
    assert view.run.status.value == "paused"


def test_panel_warns_while_the_tail_is_heavy_and_the_table_shows_published_figures(tmp_path):
    from types import SimpleNamespace

    from sudokustudio.jobs.run import run_batches
    from sudokustudio.models.estimator import RunView
    from sudokustudio.sudoku.estimate import GridCountJob, MinimalsJob

    model = _model(tmp_path)
    # 4x5 boxes (20x20) by forward checking, a few samples: the weights are heavy-tailed
    job = GridCountJob("4x5", "fc", 4)
    view = RunView(run_batches(job, 5, 2, workers=1).run, "#000")
    panel = model.panel(view, 0.01)
    assert "Heavy tail" in panel.warning and any(line.startswith("tail: ESS") for line in panel.lines)
    assert any("no published count" in line for line in panel.lines)
    # 9x9 minimal puzzles: the table puts Afmob's, Berthier's and seed 000's figures beside the run's
    mj = MinimalsJob("subsets", "3x3", grids_per_batch=16, per_grid=48)   # ~7 unique subsets: c = 24 found
    mrun = run_batches(mj, 9, 1, workers=1).run
    rows = EstimatorModel.minimal_table(SimpleNamespace(run=mrun))
    assert len(EstimatorModel.TABLE_HEADER) == len(rows[0]) == len(rows[-1]) == 9
    by_c = {r[0]: r for r in rows}
    assert "1.0640e+14" in by_c["24"][5] and "1.0637e+14" in by_c["24"][6] and "1.0672e+14 (1.9%)" in by_c["24"][7]
    assert rows[-1][0].count("..") == 1 and "4.6563e+15" in rows[-1][6]
    assert all(r[4] in ("ok", "CHECK") for r in rows)


def test_a_plan_run_is_followed_by_its_total(tmp_path):
    """The best combination is made for the total: its RE drives the stop rules and the ETA, heads
    the panel, and is the RE plot's series."""
    from sudokustudio.models.estimator import BEST, TOTAL

    model = _model(tmp_path)
    view = model.start(EstimatorParams(MINIMALS, minimal_method=BEST, seed=3))
    _wait(lambda: view.run.batches_done >= 3)
    model.stop()
    view.run.wait(10)
    job, total = view.run.job, view.run.total
    tot = job.total(total)
    assert job.is_plan and tot is not None and job.rel_err(total) == tot["rel_err"]
    panel = model.panel(view, 0.01)
    assert panel.headline.startswith("total: ") and any(line.startswith("c=") for line in panel.lines)
    focus, bars, rel, _ = model.minimal_series([view])
    assert focus == TOTAL and rel[0].y[-1] == pytest.approx(tot["rel_err"])


def test_the_best_combination_is_a_plan_and_its_label_says_so(tmp_path):
    from sudokustudio.models.estimator import BEST, job_label, spec_label
    from sudokustudio.sudoku.estimate import MinimalsJob

    job = EstimatorParams(MINIMALS, minimal_method=BEST).job()
    assert job.spec == MinimalsJob.best().spec and job.floor_mix == (0, 28, 29)
    assert job_label(job, 7) == "#7 best combination"
    assert spec_label(job.kind, job.spec) == "best combination"
    biased = MinimalsJob.best("random")
    assert job_label(biased) == "best combination (biased)" and spec_label(biased.kind, biased.spec).endswith("BIASED")
    # the same sizes with other probe numbers are another plan: its label names them
    other = MinimalsJob("subsets", s=[30, 31, 33], min_clues=[0, 28, 29], per_grid=[48, 20, 3])
    assert spec_label(other.kind, other.spec) == "subsets s=30,31≥28,33≥29"
    assert spec_label(job.kind, MinimalsJob("subsets", s=[29, 31]).spec) == "subsets s=29,31"
    assert EstimatorParams(MINIMALS, minimal_method=BEST, grid_source="random").job().biased
    assert not MinimalsJob("subsets", s=[29, 31]).is_plan and not MinimalsJob("subsets", s=34, c_lo=29).is_plan
