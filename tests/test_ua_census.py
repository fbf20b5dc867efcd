"""The few-clue census over a file of grids: the same search as `ua search`,
a row per grid, stored runs that resume, clear errors for bad files."""
import json

import numpy as np
import pytest

from sudokustudio.cli import main
from sudokustudio.jobs.run import Run, StopRules
from sudokustudio.jobs.store import RunStore
from sudokustudio.sudoku.grid import PuzzleFormatError
from sudokustudio.sudoku.grids import grid_pool
from sudokustudio.sudoku.unavoidable import UACensusJob, read_grids, search

CLUES = 13   # cheap searches: the harvest dominates (~1 s a grid)


@pytest.fixture(scope="module")
def grids():
    return ["".join(map(str, g)) for g in grid_pool(4, 17, "solver")]


@pytest.fixture
def grid_file(tmp_path, grids):
    path = tmp_path / "grids.txt"
    path.write_text("# four grids\n" + "\n".join(f"{g} extra field" for g in grids) + "\n")
    return path


def _census(capsys, *argv):
    rc = main(["ua", "census", *map(str, argv), "--json", "--threads", "2"])
    return rc, json.loads(capsys.readouterr().out)


def test_each_row_is_the_search_of_its_grid(capsys, grid_file, grids, tmp_path):
    rc, out = _census(capsys, grid_file, "--clues", CLUES, "--csv", tmp_path / "rows.csv")
    assert rc == 0 and out["complete"] and out["grids"] == out["grids_done"] == 4
    assert [r["grid"] for r in out["rows"]] == [0, 1, 2, 3]
    for row, g in zip(out["rows"], grids):
        alone = search(g, CLUES)
        assert row["nodes"] == alone["nodes"] and row["puzzles"] == len(alone["puzzles"]) == 0
        assert row["harvest_cpu"] > 0 and row["search_cpu"] >= 0
    cpu = out["grid_cpu"]
    assert cpu["q1"] <= cpu["median"] <= cpu["q3"] <= cpu["max"]
    whole = [r["harvest_cpu"] + r["search_cpu"] for r in out["rows"]]
    assert cpu["median"] == pytest.approx(float(np.median(whole)), abs=1e-3)
    lines = (tmp_path / "rows.csv").read_text().splitlines()
    assert lines[0].startswith("grid,solution,puzzles") and len(lines) == 5
    assert lines[2].split(",")[:2] == ["2", grids[1]]


def test_a_stopped_census_resumes_with_only_the_grids_left(capsys, grids, tmp_path):
    store_path = tmp_path / "runs.db"
    job = UACensusJob(grids, CLUES)
    run = Run.create(job, 1, StopRules(batches=2), store=RunStore(store_path))
    run.run(workers=1)
    assert sorted(r[0] for r in run.total["rows"]) == [0, 1]
    first_rows = {r[0]: r for r in run.total["rows"]}
    rc, out = _census(capsys, "--resume", run.run_id, "--store", store_path)
    assert rc == 0 and out["complete"] and out["grids_done"] == 4
    for r in out["rows"][:2]:           # kept from the stored batches, not searched again
        assert r["harvest_cpu"] == first_rows[r["grid"]][2]
    rc, fresh = _census(capsys, _write(tmp_path, grids), "--clues", CLUES)
    assert [(r["nodes"], r["uas"]) for r in out["rows"]] == [(r["nodes"], r["uas"]) for r in fresh["rows"]]


def _write(tmp_path, grids):
    path = tmp_path / "again.txt"
    path.write_text("\n".join(grids) + "\n")
    return path


def test_bad_input_is_named(capsys, grids, tmp_path):
    holes = tmp_path / "holes.txt"
    holes.write_text(grids[0] + "\n" + "." + grids[1][1:] + "\n")
    with pytest.raises(PuzzleFormatError, match="line 2"):
        read_grids(holes)
    assert main(["ua", "census", str(holes)]) == 2
    assert "holes.txt, line 2: not a complete valid grid" in capsys.readouterr().err
    broken = tmp_path / "broken.txt"
    broken.write_text(grids[0][:80] + "\n")
    assert main(["ua", "census", str(broken)]) == 2
    assert "broken.txt, line 1" in capsys.readouterr().err
    assert main(["ua", "census", "--resume", "5", "--store", str(tmp_path / "none.db")]) == 2
    assert "no run 5" in capsys.readouterr().err
    assert main(["ua", "census"]) == 2
    assert "give a FILE" in capsys.readouterr().err
    with pytest.raises(ValueError, match="grid 2"):
        UACensusJob([grids[0], "12345"])
