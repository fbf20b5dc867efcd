"""The Rate dialog's model without Qt: a run over a collection, the distribution beside seed 002,
a stop that keeps the ratings so far, and the CSV."""
import time

import numpy as np

from sudokustudio.jobs.executors import ThreadExecutor
from sudokustudio.models.rating import RatingModel
from sudokustudio.sudoku.grid import read_puzzles


def test_rating_model_runs_and_reports(shared_data, tmp_path):
    d = shared_data / "controlled_bias"
    puzzles = read_puzzles(d / "001-puzzles.txt").puzzles[:24]
    w_ref = np.loadtxt(d / "001-W-ratings.txt", dtype=int)[:24]
    model = RatingModel(lambda: ThreadExecutor(2))
    model.set_puzzles(puzzles, "first 24")
    assert "open a file" in model.distribution().summary
    run = model.start(12)
    assert run.wait(300)
    ratings, _ = model.results()
    assert ratings.tolist() == w_ref.tolist()
    dist = model.distribution()
    assert dist.rows[0][1] == str(int((w_ref == 0).sum())) and dist.rows[0][4] == "35.08"
    assert dist.summary.startswith("24 puzzles rated: mean W") and "done: 24 rated" in model.progress_text()
    assert model.export_csv(tmp_path / "r.csv") == 24
    assert (tmp_path / "r.csv").read_text().splitlines()[1].split(",")[3] == str(w_ref[0])


def test_a_stopped_rating_keeps_what_it_rated(shared_data):
    puzzles = read_puzzles(shared_data / "controlled_bias" / "001-puzzles.txt").puzzles[:400]
    model = RatingModel(lambda: ThreadExecutor(2))
    model.set_puzzles(puzzles, "400")
    run = model.start(12)
    while run.batches_done < 2:
        time.sleep(0.01)
    model.stop()
    assert run.wait(30)
    ratings, cands = model.results()
    assert 0 < len(ratings) < 400 and len(ratings) == len(cands)
    assert "Stopped after" in model.distribution().summary
