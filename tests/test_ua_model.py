"""The Unavoidable-sets tab's model without Qt: grid, harvest run, prepared search run, stop."""
import time

from sudokustudio.jobs.executors import ThreadExecutor
from sudokustudio.models.ua import UAModel
from sudokustudio.sudoku.grid import format_puzzle, read_puzzles
from sudokustudio.sudoku.solver import solve


def test_harvest_then_a_forced_search_finds_the_known_puzzle(shared_data, tmp_path):
    p = read_puzzles(shared_data / "puzzles2_17_clue").puzzles[1234]
    model = UAModel(lambda: ThreadExecutor(2))
    model.set_grid(format_puzzle(p))                # a puzzle stands for its solution
    assert (model.grid == solve(p)).all()
    assert model.harvest_run is None and not model.busy
    run = model.start_harvest(12)
    assert run.wait(120) and model.take_harvest()
    info, bound = model.summary(12)
    assert f"{len(model.uas)} minimal UAs" in info and "Clue lower bound" in bound
    cells, other = model.ua_cells(0)
    assert set(other) == set(cells)                 # a minimal UA: every cell changes in the other filling
    forced = "".join("1" if p[c] else "." for c in range(81))
    forced = "".join(ch if k < 11 or ch == "." else "." for k, ch in zip(
        [sum(1 for x in forced[:i + 1] if x == "1") for i in range(81)], forced))
    job = model.prepare_search(17, forced, 12, True)
    run = model.start_search(job)
    assert run.wait(120)
    state = model.search_state()
    assert format_puzzle(p) in state.puzzles and "complete" in state.text and state.finished
    assert model.save_puzzles(tmp_path / "f.txt") == len(state.puzzles)


def test_a_search_stops_on_request(shared_data):
    p = read_puzzles(shared_data / "puzzles2_17_clue").puzzles[0]
    model = UAModel(lambda: ThreadExecutor(2))
    model.set_grid(solve(p))
    assert model.start_harvest(12).wait(120) and model.take_harvest()
    run = model.start_search(model.prepare_search(16, "", 12, True))
    while run.batches_done < 1:
        time.sleep(0.01)
    model.stop()
    assert run.wait(120) and run.status.value == "paused"
    assert "stopped" in model.search_state().text
