"""Counting records (issue 18): tail diagnostics, grid counts for every box shape up to
25 cells, the total of minimal puzzles, the record table (report)."""
from __future__ import annotations

import csv
import io
import json
import math

import numpy as np
import pytest

from sudokustudio.core import plain
from sudokustudio.core.stats import TAIL_MAX_SHARE, TAIL_MIN_ESS, tail_diagnostics
from sudokustudio.jobs.run import run_batches
from sudokustudio.sudoku.estimate import (BOX_SHAPES, GridCountJob, GridStats, MinimalsJob, MinimalStats,
                                          canonical_box, grid_reference, parse_box)
from sudokustudio.sudoku.estimate.report import COLUMNS, report_rows, to_csv, to_markdown


def _diag(w):
    w = np.asarray(w, dtype=float)
    return tail_diagnostics(float(w.sum()), float((w * w).sum()), float(w.max()))


# ----------------------------------------------------------------- the diagnostics
def test_tail_diagnostics_on_known_weights():
    d = _diag(np.ones(1000))
    assert d["max_share"] == pytest.approx(1e-3, rel=1e-14) and d["ess"] == pytest.approx(1000, rel=1e-14)
    assert d["warning"] is False
    d = _diag([1.0, 1.0, 2.0])           # sum 4, squares 6: ESS 16/6
    assert d["max_share"] == 0.5 and d["ess"] == pytest.approx(16 / 6, rel=1e-15) and d["warning"]
    d = _diag([1.0] * 999 + [1000.0])    # one weight holds half the sum
    assert d["max_share"] == pytest.approx(1000 / 1999, rel=1e-15)
    assert d["ess"] == pytest.approx(1999 ** 2 / (999 + 1e6), rel=1e-14) and d["warning"]
    # the rule: ESS below TAIL_MIN_ESS, or one value above TAIL_MAX_SHARE of the sum
    assert _diag(np.ones(int(TAIL_MIN_ESS) - 1))["warning"]
    assert not _diag(np.ones(int(TAIL_MIN_ESS)))["warning"]
    w = np.ones(10_000)
    w[0] = 0.06 * 10_000 / 0.94          # share just above 5% with ESS ~ 280
    d = _diag(w)
    assert d["ess"] > TAIL_MIN_ESS and d["max_share"] > TAIL_MAX_SHARE and d["warning"]
    assert tail_diagnostics(0.0, 0.0, 0.0)["warning"]   # nothing seen yet


def test_warning_fires_for_a_heavy_tailed_toy_and_not_for_a_light_one():
    rng = np.random.default_rng(18)
    heavy = rng.pareto(1.05, 5000) + 1.0      # infinite variance: the RE is meaningless
    light = rng.exponential(1.0, 5000)
    assert _diag(heavy)["warning"] and not _diag(light)["warning"]


def test_grid_stats_track_the_largest_weight():
    # crude: every hit weighs |Omega| = 24^4, so the max share is 1/hits and ESS = hits exactly
    job = GridCountJob("2x2", "crude", 5000)
    res = job.run_batch(0, 5)
    d = job.describe(res)
    assert res.wmax * 2.0 ** job.scale_e2 == pytest.approx(24 ** 4, rel=1e-12)
    assert d["tail"]["max_share"] == pytest.approx(1 / res.nonzero) and d["tail"]["ess"] == pytest.approx(res.nonzero)
    # rows on 2x2: weights are whole numbers (products of counts)
    job = GridCountJob("2x2", "rows", 500)
    res = job.run_batch(0, 5)
    w = res.wmax * 2.0 ** job.scale_e2
    assert w == round(w) and res.s1 / res.n <= res.wmax <= res.s1
    # fc: the max is one of the weights, at most the sum, at least the mean
    job = GridCountJob("2x3", "fc", 300)
    res = job.run_batch(0, 6)
    assert res.s1 / res.n <= res.wmax <= res.s1 and res.tail_n == 300


def test_runs_stored_before_the_diagnostics_still_load():
    old_grid = json.dumps({"plain": 1, "data": {"$o": ["GridStats", {"n": 10, "nonzero": 9, "s1": 9.0,
                                                                       "s2": 10.0, "cpu": 0.1}]}}).encode()
    g = plain.decode(old_grid)
    assert isinstance(g, GridStats) and g.tail_n == 0
    d = GridCountJob("2x2", "fc").describe(g)
    assert math.isnan(d["tail"]["max_share"]) and d["tail"]["ess"] == pytest.approx(8.1)
    new = GridCountJob("2x2", "fc", 100).run_batch(0, 1)
    assert math.isnan(GridCountJob("2x2", "fc").describe(g + new)["tail"]["max_share"])
    arr = plain._enc(np.zeros(17), "x")
    old_min = json.dumps({"plain": 1, "data": {"$o": ["MinimalStats", {
        "n": 4, "s1": arr, "s2": arr, "found": plain._enc(np.zeros(17, dtype=np.int64), "x"),
        "solver_calls": 3, "cpu": 0.5}]}}).encode()
    m = plain.decode(old_min)
    job = MinimalsJob("subsets", "2x2")
    assert isinstance(m, MinimalStats) and job.total(m) is None
    both = m + job.run_batch(0, 2)
    assert job.total(both) is None           # partly untracked: no total rather than a wrong one
    assert job.total(job.run_batch(0, 2)) is not None
    # partly stored before the grid weight became a control variate: the plain mean at every c
    fresh = job.run_batch(0, 2) + job.run_batch(1, 3)
    assert fresh.cv_n == fresh.n and both.cv_n < both.n
    assert all(v["se"] == v["se_plain"] for v in job.per_c(both).values())
    assert any(v["se"] < v["se_plain"] for v in job.per_c(fresh).values())


# ----------------------------------------------------------------- box shapes
def test_box_shapes_up_to_25_cells():
    assert "5x5" in BOX_SHAPES and "4x5" in BOX_SHAPES and "3x5" in BOX_SHAPES and "2x12" in BOX_SHAPES
    assert all(parse_box(b)[0] * parse_box(b)[1] <= 25 for b in BOX_SHAPES)
    assert canonical_box("5x4") == "4x5" and grid_reference("3x2") == grid_reference("2x3")
    assert grid_reference("2x5") == (float(1_903_816_047_972_624_930_994_913_280_000), True)
    assert grid_reference("4x4")[1] is False and grid_reference("5x5") == (None, False)
    for bad in ("5x6", "1x9", "3", "axb"):
        with pytest.raises(ValueError, match="box shape"):
            parse_box(bad)


@pytest.mark.parametrize("box, method, batch, batches", [
    ("2x5", "fc", 400, 6), ("2x5", "ridder", 4000, 4), ("3x2", "fc", 2000, 4), ("3x4", "fc", 40, 6),
    ("2x5", "rows", 200, 4), ("3x2", "smc", 200, 4), ("3x4", "smc", 10, 6), ("5x2", "smc", 20, 4)])
def test_new_shapes_agree_with_exact_counts(box, method, batch, batches):
    job = GridCountJob(box, method, batch)
    d = job.describe(run_batches(job, 1818, batches, workers=2).total)
    ref, exact = grid_reference(box)
    assert exact and abs(d["z"]) < 4, (box, method, d["estimate"], ref, d["z"])
    assert d["z"] == pytest.approx((d["estimate"] - ref) / d["se"])


def test_25x25_weights_stay_in_range_and_carry_their_scale():
    job = GridCountJob("5x5", "fc", 4)
    assert job.spec["scale_e2"] == job.scale_e2 > 900        # a pilot scale, kept with the run
    d = job.describe(job.run_batch(0, 3) + job.run_batch(1, 4))
    assert math.isfinite(d["log10_estimate"]) and 250 < d["log10_estimate"] < 320
    assert d["tail"]["warning"]                               # 8 samples cannot be trusted
    again = GridCountJob(**job.spec)
    assert again.scale_e2 == job.scale_e2


# ----------------------------------------------------------------- the record table
def test_report_table_columns_and_rows():
    job = MinimalsJob("subsets", "2x2", grids_per_batch=100)
    total = run_batches(job, 4, 3, workers=1).total
    rows = report_rows(job, total, 4)
    assert [r["c"] for r in rows] == [4, 5, 6, "total 4..6"]
    text = to_csv(rows)
    read = list(csv.DictReader(io.StringIO(text)))
    assert list(read[0]) == COLUMNS == ["c", "estimate", "rel_err", "ci95_lo", "ci95_hi", "samples",
                                        "core_seconds", "seed", "version", "ess", "max_share", "tail_warning",
                                        "afmob", "afmob_rel_err", "berthier", "berthier_rel_err", "seed000",
                                        "seed000_rel_err"]
    assert read[1]["seed"] == "4" and int(read[1]["samples"]) == total.n
    assert float(read[1]["estimate"]) == rows[1]["estimate"]
    md = to_markdown(rows)
    assert md.count("\n") == 2 + len(rows) and "Afmob 2015" in md and "seed 000 (10 min)" in md
    g = GridCountJob("2x3", "fc", 200)
    grow = report_rows(g, g.run_batch(0, 1), 9)
    assert len(grow) == 1 and grow[0]["c"] == "grids 2x3"


def test_report_shows_published_figures_for_9x9():
    from sudokustudio.sudoku.estimate.report import _published

    assert _published(24, "3x3")["afmob"] == 1.064e14 and _published(31, "3x3")["berthier"] == 1.1240e12
    assert _published("all", "3x3")["berthier"] == 4.6563e15 and _published(5, "2x2")["afmob"] is None
    # seed 000's ten-minute table, from which the record table starts: its c = 22 and its RE
    assert _published(22, "3x3")["seed000"] == 1.7614e11 and _published(22, "3x3")["seed000_rel_err"] == 0.0542
    assert _published("all", "3x3")["seed000"] is None


def test_cli_report_from_a_stored_run(tmp_path, capsys):
    from sudokustudio.cli import main
    from sudokustudio.jobs.store import RunStore

    store = RunStore(tmp_path / "runs.sqlite3")
    job = MinimalsJob("subsets", "2x2", grids_per_batch=50)
    run_batches(job, 12, 2, workers=1, store=store, name="r")
    run_id = store.runs()[0].id
    md, cs = tmp_path / "t.md", tmp_path / "t.csv"
    assert main(["estimate", "report", "--run", str(run_id), "--store", str(tmp_path / "runs.sqlite3"),
                 "--csv", str(cs), "--md", str(md)]) == 0
    rows = list(csv.DictReader(cs.open()))
    assert rows[-1]["c"].startswith("total") and rows[0]["seed"] == "12"
    assert main(["estimate", "report", "--run", "999", "--store", str(tmp_path / "runs.sqlite3"),
                 "--md", str(md)]) == 2
    assert "999" in capsys.readouterr().err
    # a mistyped store path is an error, and no store is made there (an empty file stays empty)
    empty = tmp_path / "notes.txt"
    empty.touch()
    for path in (tmp_path / "runz.sqlite3", empty):
        assert main(["estimate", "report", "--run", str(run_id), "--store", str(path), "--md", str(md)]) == 2
        assert "no run store at" in capsys.readouterr().err
    assert not (tmp_path / "runz.sqlite3").exists() and empty.stat().st_size == 0


def test_cli_grids_json_has_tail_z_and_core_seconds(capsys):
    from sudokustudio.cli import main

    assert main(["estimate", "grids", "--box", "2x5", "--method", "fc", "--samples", "800", "--seed", "2",
                 "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert {"ess", "max_share", "warning"} == set(d["tail"]) and d["core_seconds"] > 0
    assert d["z"] == pytest.approx((d["estimate"] - d["exact"]) / (d["rel_err"] * d["estimate"]), rel=1e-9)


def test_counts_past_the_float_range_print_from_their_log10():
    from sudokustudio.commands.estimate import _fmt_scaled

    assert _fmt_scaled(6.67e21, math.log10(6.67e21)) == "6.67e+21"      # in range: as before
    assert _fmt_scaled(math.inf, 308.6448) == "4.41367e+308"
    assert _fmt_scaled(math.inf, 308.6448, 1 - 0.5) == "2.20684e+308"
    assert _fmt_scaled(math.inf, 308.6448, -0.25) == "-1.10342e+308"
    assert _fmt_scaled(math.inf, -math.inf) == "0" and _fmt_scaled(math.nan, math.nan) == "nan"


def test_cli_25x25_smc_has_a_finite_text_estimate_and_json_null(capsys):
    from sudokustudio.cli import main

    assert main(["estimate", "grids", "--box", "5x5", "--method", "smc", "--samples", "2", "--seed", "5",
                 "--threads", "1"]) == 0
    line = next(x for x in capsys.readouterr().out.splitlines() if x.strip().startswith("estimate"))
    assert "e+308" in line and "inf" not in line
    assert main(["estimate", "grids", "--box", "5x5", "--method", "smc", "--samples", "2", "--seed", "5",
                 "--threads", "1", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["estimate"] is None and 308 < d["log10_estimate"] < 309 and d["ci95"] == [None, None]


def test_a_total_stands_beside_the_published_total_only_when_its_clue_range_makes_one():
    """A run searched down to 25 or 30 clues counts part of the minimal puzzles: its 'total' row
    must not sit beside Berthier's 4.6563e15 (in the report file nor in the Estimator's table);
    the best combination's and a plain s = 30 run's do."""
    from types import SimpleNamespace

    from sudokustudio.models.estimator import EstimatorModel

    tail = MinimalsJob("subsets", s=33, c_lo=30, grids_per_batch=2, per_grid=1)
    assert not tail.total_is_comparable
    assert MinimalsJob.best().total_is_comparable and MinimalsJob("subsets", s=30).total_is_comparable
    assert not MinimalsJob("subsets", "2x2").total_is_comparable
    job = MinimalsJob("subsets", s=30, c_lo=25, grids_per_batch=16, per_grid=8)   # c = 25..30 only
    total = run_batches(job, 5, 2, workers=1).total
    rows = report_rows(job, total, 5)
    assert rows[-1]["c"].startswith("total") and rows[-1]["berthier"] is None
    run = SimpleNamespace(job=job, total=total)
    assert EstimatorModel.minimal_table(SimpleNamespace(run=run))[-1][6] == "–"
