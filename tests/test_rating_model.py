"""The Rate dialog's model without Qt: a run over a collection, the distribution beside seed 002,
a stop that keeps the ratings so far, and the CSV."""
import time

import numpy as np

from sudokustudio.jobs.executors import ThreadExecutor
from sudokustudio.models.rating import RatingModel
from sudokustudio.sudoku.grid import format_puzzles
from sudokustudio.sudoku.grid import format_puzzle, read_puzzles


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


def test_format_puzzles_is_format_puzzle_of_each_puzzle():
    rng = np.random.default_rng(5)
    puzzles = rng.integers(0, 10, size=(30, 81)).astype(np.uint8)
    puzzles[0] = 0
    assert format_puzzles(puzzles) == [format_puzzle(p) for p in puzzles]
    assert format_puzzles(puzzles, "0") == [format_puzzle(p, "0") for p in puzzles]
    assert format_puzzles(np.zeros((0, 81), np.uint8)) == []


def test_results_stop_at_the_first_batch_still_missing():
    """Batch 2 done before batch 1: its ratings must not take the rows of batch 1's puzzles."""
    from types import SimpleNamespace

    model = RatingModel(lambda: ThreadExecutor(2))
    model.set_puzzles(np.zeros((6, 81), np.uint8), "six")
    first = (np.array([1, 2], np.int16), np.array([10, 20], np.int16))
    third = (np.array([5, 6], np.int16), np.array([50, 60], np.int16))
    model.run = SimpleNamespace(total={"parts": {0: first, 2: third}, "hist": np.zeros(15, np.int64)})
    ratings, cands = model.results()
    assert ratings.tolist() == [1, 2] and cands.tolist() == [10, 20]
    model.run.total["parts"][1] = (np.array([3, 4], np.int16), np.array([30, 40], np.int16))
    assert model.results()[0].tolist() == [1, 2, 3, 4, 5, 6]
