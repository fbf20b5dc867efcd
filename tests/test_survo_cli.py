"""sudokustudio-cli survo solve / random."""
import json
import subprocess
import sys
from pathlib import Path

import pytest

from sudokustudio.cli import main
from sudokustudio.survo.puzzle import parse_survo
from sudokustudio.survo.solve import solve_survo

RES = Path(__file__).resolve().parent.parent / "resources" / "survo"


def test_survo_solve_json():
    # A child process, so the JSON is read from a real stdout: under xdist with cold numba caches,
    # capsys here has come back empty (the line landed in the worker's own capture), stops 9 and 12.
    done = subprocess.run([sys.executable, "-m", "sudokustudio.cli", "survo", "solve",
                           str(RES / "worked_example.mat"), "--json"], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["setup"] == [[1, 3, 4, 5], [2, 8, 9, 10], [6, 11, 13, 15], [7, 12, 14, 16]]
    assert out["W"] == 6 and out["min_swaps"] == 2 and out["solutions"] == 1
    assert out["solution"] == [[1, 3, 4, 6], [2, 7, 9, 10], [5, 11, 13, 15], [8, 12, 14, 16]]


def test_survo_solve_text(capsys):
    assert main(["survo", "solve", str(RES / "S1.mat")]) == 0
    out = capsys.readouterr().out
    assert "Minimum swaps from the setup: 3" in out and "Solutions: 1 (unique)" in out and "W=4" in out


def test_survo_solve_bad_file(tmp_path, capsys):
    f = tmp_path / "bad.mat"
    f.write_text("MAT SAVE AS A\n0 0 3\n0 0 7\n4 6 1\n")
    assert main(["survo", "solve", str(f)]) == 2
    assert "line 4: the corner of the last line must be 0" in capsys.readouterr().err


def test_survo_random_prints_a_unique_matrix(capsys):
    assert main(["survo", "random", "4", "4", "--givens", "1", "--seed", "9"]) == 0
    text = capsys.readouterr().out
    assert text.startswith("MAT SAVE AS A\n")
    p = parse_survo(text)
    assert p.m == 4 and p.n == 4 and p.n_givens >= 1 and solve_survo(p).unique  # k is a minimum
    assert main(["survo", "random", "4", "4", "--givens", "1", "--seed", "9"]) == 0
    assert capsys.readouterr().out == text


def test_survo_subcommand_registry():
    from sudokustudio.commands import survo

    assert isinstance(survo.SURVO_SUBCOMMANDS, list)


def test_survo_random_graded_json_and_difficulty_of_a_file(capsys, tmp_path):
    assert main(["survo", "random", "4", "4", "--difficulty", "hard", "--number", "5", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    for key in ("givens", "min_swaps", "sacrifices", "shortest_sequences", "difficulty"):
        assert key in out
    assert out["difficulty"] == "hard"
    f = tmp_path / "p.mat"
    f.write_text(out["matrix"])
    assert main(["survo", "difficulty", str(f), "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert {k: d[k] for k in ("givens", "min_swaps", "sacrifices", "shortest_sequences", "difficulty")} == \
        {k: out[k] for k in ("givens", "min_swaps", "sacrifices", "shortest_sequences", "difficulty")}


def test_survo_atlas_predict_only_json(capsys):
    assert main(["survo", "atlas", "3", "4", "--predict-only", "--probes", "300", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["predicted_tables"] > 0 and 0 < out["predicted_rel_err"] < 1 and out["predicted_core_hours"] > 0
    lo, hi = out["predicted_core_hours_range"]   # the cost model's spread, either side of the figure
    assert lo * hi == pytest.approx(out["predicted_core_hours"] ** 2) and lo < out["predicted_core_hours"] < hi


def test_survo_atlas_probes_zero_runs_without_an_estimate(capsys):
    """--probes 0 is what the help says: no estimate (it used to be refused)."""
    assert main(["survo", "atlas", "2", "5", "--probes", "0", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["count"] == 278 and out.get("predicted_tables") is None
    assert main(["survo", "atlas", "2", "5", "--predict-only", "--probes", "0", "--json"]) == 2
    assert "--probes > 0" in capsys.readouterr().err
