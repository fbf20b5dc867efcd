"""Pattern and symmetry generation, and target difficulty bands for every generator."""
from __future__ import annotations

import json

import numpy as np
import pytest

from sudokustudio.jobs.run import run_batches
from sudokustudio.models.generators import build_job
from sudokustudio.sudoku.generate.bands import check_bands, in_bands, parse_band
from sudokustudio.sudoku.generate.pattern import SYMMETRIES, PatternJob, is_symmetric, orbits, parse_mask, read_masks
from sudokustudio.sudoku.grid import PuzzleFormatError
from sudokustudio.sudoku.minimal import first_not_minimal
from sudokustudio.sudoku.solver import solve_batch

# a 24-clue centrally symmetric pattern
MASK24 = "..x....xx...xx...x.....x.x.....x.x..x..x.x..x..x.x.....x.x.....x...xx...xx....x.."
# a 30-clue pattern (MASK24 and six cells): about one grid in 15 gives a unique puzzle
MASK30 = ".xx....xx.x.xx...x.....x.x.x...x.x..x..x.x..x..x.x...x.x.x.....x...xx.x.xx....xx."


def test_masks_parse_and_errors(tmp_path):
    m = parse_mask(MASK24)
    assert m.sum() == 24 and parse_mask(MASK24.replace("x", "1").replace(".", "0")).tolist() == m.tolist()
    with pytest.raises(PuzzleFormatError, match="r1c5"):
        parse_mask("xxxxq" + "." * 76)
    with pytest.raises(PuzzleFormatError, match="81 characters"):
        parse_mask("x" * 80)
    f = tmp_path / "masks.txt"
    f.write_text("# masks\n" + MASK24 + "\n" + MASK24[:40] + "\n")
    with pytest.raises(PuzzleFormatError, match="line 3"):
        read_masks(str(f))
    f.write_text(MASK24 + "\n\n" + MASK30 + "\n")
    assert len(read_masks(str(f))) == 2


def test_orbits_partition_the_cells():
    for s in SYMMETRIES:
        orb = orbits(s)
        cells = sorted(int(c) for c in orb.ravel() if c >= 0)
        assert cells == list(range(81))
    assert len(orbits("central")) == 41 and len(orbits("dihedral")) == 15
    assert is_symmetric(parse_mask(MASK24), "central")


def test_pattern_puzzles_on_the_mask_and_unique():
    mask = parse_mask(MASK30)
    res = PatternJob("pattern", mask=MASK30, per_batch=300, difficulty=[]).run_batch(0, 11)
    assert res.count >= 3 and res.tries == 300
    assert ((res.puzzles != 0) == (mask[None, :] == 1)).all()
    _, counts, _ = solve_batch(res.puzzles, 2)
    assert (counts == 1).all()


def test_symmetric_puzzles_minimal_and_symmetric():
    for s in ("central", "diagonal", "mirror"):
        res = PatternJob("symmetry", symmetry=s, per_batch=120, difficulty=[]).run_batch(0, 5)
        assert res.count >= 1, s
        assert first_not_minimal(res.puzzles) == -1
        assert all(is_symmetric(p, s) for p in res.puzzles)


def test_bands_parse():
    assert parse_band("W:3-5") == ("W", 3.0, 5.0)
    assert parse_band("brt:1") == ("brt", 1.0, 1.0)
    assert parse_band("guesses:-4")[1] == -np.inf
    for bad in ("W", "X:1-2", "W:a-b", "W:5-3", "W:"):
        with pytest.raises(ValueError):
            parse_band(bad)


@pytest.mark.parametrize("method", ["top-down", "symmetry"])
def test_rating_band_output_in_band(method):
    job, n_batches = build_job(method, 12, bands=["guesses:1-3"], difficulty=[], symmetry="central")
    out = run_batches(job, 3, n_batches, units=12, workers=1)
    total = out.total
    assert total.count >= 12 and total.rated >= total.count
    assert total.rejected == total.rated - total.count
    g = total.metrics["guesses"]
    assert ((g >= 1) & (g <= 3)).all()
    keep, m = in_bands(total.puzzles, {}, check_bands(["guesses:1-3"]))
    assert keep.all()


def test_rating_band_weighted_and_w():
    job, n_batches = build_job("top-down", 3, bands=["W:2-3"], difficulty=[])
    total = run_batches(job, 8, n_batches, units=3, workers=1).total
    assert total.count >= 3 and ((total.metrics["W"] >= 2) & (total.metrics["W"] <= 3)).all()


def test_cli_pattern_and_symmetry(tmp_path, capsys):
    from sudokustudio.cli import main

    assert main(["generate", "--pattern", MASK30, "-n", "4", "--json", "--threads", "1"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["count"] == 4 and d["pattern_clues"] == 30 and d["grids_per_puzzle"] >= 1
    out = tmp_path / "s.txt"
    assert main(["generate", "--symmetry", "diagonal", "-n", "3", "--rating", "brt:0", "--out", str(out),
                 "--json", "--threads", "1"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["count"] == 3 and d["symmetry"] == "diagonal" and "rejected" in d
    assert len(out.read_text().split()) == 3
    assert main(["generate", "--pattern", "x" * 12, "-n", "1"]) == 2
    assert "81 characters" in capsys.readouterr().err
    assert main(["generate", "--rating", "W:9-1"]) == 2
