"""Survo atlas: exact counts S(m, n), an independent brute force, and every
recorded statistic recomputed by the board helper's kernels."""
from __future__ import annotations

import argparse
import itertools
import math
import json

import numpy as np
import pytest

from conftest import sorted_records
from sudokustudio.jobs.run import run_batches
from sudokustudio.survo.atlas import (KNOWN_COUNTS, SurvoAtlasJob, batch_plan, compare_with_seed,
                                      parse_atlas_line, row_sum_vectors, run_vectors, write_atlas)
from sudokustudio.survo.atlas.enumeration import complement_records
from sudokustudio.survo.atlas.plan import pair_vectors
from sudokustudio.survo.board import w_of
from sudokustudio.survo.puzzle import SurvoPuzzle
from sudokustudio.survo.setup import chi_square, product_setup
from sudokustudio.survo.solve import min_swaps, solve_survo


def _atlas(m, n, workers=2):
    job = SurvoAtlasJob(m, n)
    out = run_batches(job, 0, job.n_batches(), workers=workers)
    assert not out.errors
    assert out.batches == job.n_batches()
    return out.total


@pytest.fixture(scope="module")
def atlas_3x4():
    return _atlas(3, 4)


@pytest.mark.parametrize("m,n", [(2, 2), (2, 3), (2, 4), (2, 5), (2, 6), (3, 3)])
def test_small_counts(m, n):
    assert _atlas(m, n).count == KNOWN_COUNTS[(m, n)]


def test_count_3x4(atlas_3x4):
    assert atlas_3x4.count == KNOWN_COUNTS[(3, 4)] == 583
    assert compare_with_seed(atlas_3x4)["count_match"]


def _brute_force(m, n):
    """Every table by brute force; margins sorted; unique ones, one per essential puzzle."""
    N = m * n
    perms = np.array(list(itertools.permutations(range(1, N + 1))), dtype=np.int64).reshape(-1, m, n)
    r = np.sort(perms.sum(axis=2), axis=1)
    c = np.sort(perms.sum(axis=1), axis=1)
    keys = np.concatenate([r, c], axis=1)
    uniq, counts = np.unique(keys, axis=0, return_counts=True)
    # a table with sorted margins appears m!·n! times when all its sums are distinct
    distinct = np.array([len(set(k[:m])) == m and len(set(k[m:])) == n for k in uniq])
    single = uniq[(counts == math.factorial(m) * math.factorial(n)) & distinct]
    out = set()
    for k in single:
        rr, cc = tuple(k[:m]), tuple(k[m:])
        if m == n:
            if sorted(rr, reverse=True) > sorted(cc, reverse=True):
                continue  # the transpose is the representative
        out.add((rr, cc))
    return out


@pytest.mark.parametrize("m,n", [(2, 3), (2, 4), (3, 3)])
def test_same_puzzles_as_brute_force(m, n):
    atlas = _atlas(m, n, workers=1)
    got = {(tuple(map(int, r)), tuple(map(int, c))) for r, c in zip(atlas.row_sums(), atlas.col_sums())}
    assert got == _brute_force(m, n)
    assert len(got) == atlas.count  # no puzzle twice


def test_records_recomputed_by_board_kernels(atlas_3x4):
    """Solution unique (exact solver), setup, W, min swaps and chi-square as recorded."""
    rng = np.random.default_rng(5)
    sample = rng.choice(atlas_3x4.count, size=120, replace=False)
    for k in sample:
        r, c = atlas_3x4.row_sums()[k], atlas_3x4.col_sums()[k]
        sol = atlas_3x4.solutions()[k]
        assert np.array_equal(sol.sum(axis=1), r) and np.array_equal(sol.sum(axis=0), c)
        assert sorted(sol.ravel()) == list(range(1, 13))
        res = solve_survo(SurvoPuzzle(r, c), limit=2)
        assert res.unique and np.array_equal(res.solution, sol)
        setup = product_setup(r, c)
        assert np.array_equal(setup, atlas_3x4.setups()[k])
        assert w_of(setup, r, c) == atlas_3x4.w()[k]
        assert min_swaps(setup, sol) == atlas_3x4.swaps()[k]
        assert chi_square(sol) == pytest.approx(atlas_3x4.chi2[k], rel=1e-12)


def test_distribution_consistency(atlas_3x4):
    a = atlas_3x4
    assert sum(a.swaps_hist()) == sum(a.w_hist()) == a.count
    assert all(w % 2 == 0 for w in a.w())          # row D and column D each total 0
    assert (a.swaps() <= a.m * a.n - 1).all()
    # 0 swaps exactly when the setup is the solution, and then W = 0
    zero = a.swaps() == 0
    assert np.array_equal(zero, (a.setups() == a.solutions()).all(axis=(1, 2)))
    assert (a.w()[zero] == 0).all()
    # W = 0 with swaps > 0 would be a second solution: impossible for a unique puzzle
    assert (a.swaps()[a.w() == 0] == 0).all()
    assert sum(k for _, k, _ in a.w_table()) == a.count
    mean, sd = a.swaps_mean_sd()
    assert mean == pytest.approx(np.mean(a.swaps())) and sd > 0
    # margins sorted increasing and distinct, and no puzzle twice
    assert (np.diff(a.row_sums(), axis=1) > 0).all() and (np.diff(a.col_sums(), axis=1) > 0).all()
    assert len({tuple(x) for x in a.records[:, :a.m + a.n]}) == a.count


def test_square_orientation_convention():
    """m = n: row sums sorted decreasingly are lexicographically below the column sums."""
    a = _atlas(3, 3)
    for r, c in zip(a.row_sums(), a.col_sums()):
        assert list(r[::-1]) < list(c[::-1])


def test_batches_merge_to_the_same_atlas(atlas_3x4):
    vectors, bounds = batch_plan(3, 4)
    assert len(bounds) > 2 and bounds[0] == 0 and bounds[-1] == len(vectors) == len(row_sum_vectors(3, 4))
    whole = run_vectors(3, 4, vectors)
    assert np.array_equal(sorted_records(whole), sorted_records(atlas_3x4))
    assert whole.tables == atlas_3x4.tables and whole.candidates == atlas_3x4.candidates
    job = SurvoAtlasJob(3, 4)
    parts = [job.run_batch(b, 0) for b in range(job.n_batches())]
    rev = job.empty()
    for p in reversed(parts):
        rev = job.merge(p, rev)
    assert np.array_equal(rev.records, atlas_3x4.records)


@pytest.mark.parametrize("m,n", [(3, 4), (3, 5)])
def test_complement_pairs_find_the_same_atlas_as_every_row_sum_vector(m, n):
    """Searching one row-sum vector per complement pair (v -> N + 1 - v maps tables with margins
    (r, c) one to one onto tables with the complementary margins) gives the very puzzles, records
    and counters of the search over every vector, and each batch's puzzles map back to it."""
    every = run_vectors(m, n, row_sum_vectors(m, n))
    job = SurvoAtlasJob(m, n)
    assert job.spec["method"] == "pairs" and SurvoAtlasJob(m, n, "rows").spec["method"] == "rows"
    units, alone = pair_vectors(m, n)
    assert len(units) == (len(row_sum_vectors(m, n)) + int(alone.sum())) // 2   # the rest come in twos
    parts = [job.run_batch(b, 0) for b in range(job.n_batches())]
    for b, part in enumerate(parts):
        assert (job.batch_of(part) == b).all()
    total = job.empty()
    for part in parts:
        total = job.merge(total, part)
    assert total.count == every.count == KNOWN_COUNTS[(m, n)]
    assert np.array_equal(sorted_records(total), sorted_records(every))
    assert (total.tables, total.candidates) == (every.tables, every.candidates)
    assert total.vectors_done == len(units)
    twice = complement_records(m, n, complement_records(m, n, every.records))
    assert np.array_equal(twice[:, :m + n + m * n], every.records[:, :m + n + m * n])
    with pytest.raises(ValueError, match="'pairs' for 3 <= m < n"):
        SurvoAtlasJob(4, 4, "pairs")


def test_bad_sizes():
    for m, n in [(1, 4), (4, 3), (5, 5), (9, 9)]:
        with pytest.raises(ValueError, match=f"{m}x{n}"):
            SurvoAtlasJob(m, n)


def test_cli_atlas_file_and_json(tmp_path, capsys):
    from sudokustudio.commands import survo_atlas

    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers()
    survo_atlas.register(sub)
    out = tmp_path / "atlas.txt"
    args = parser.parse_args(["atlas", "2", "5", "--out", str(out), "--json", "--threads", "2"])
    assert args.func(args) == 0
    data = json.loads(capsys.readouterr().out)
    for key in ("count", "swaps_hist", "W_hist", "chi2_min", "chi2_max", "seconds"):
        assert key in data
    assert data["count"] == 278 and data["count_match"]
    assert sum(data["swaps_hist"]) == sum(data["W_hist"]) == 278
    lines = [ln for ln in out.read_text().splitlines() if not ln.startswith("#")]
    assert len(lines) == 278
    r, c, sol = parse_atlas_line(lines[0], 2, 5)
    assert np.array_equal(sol.sum(axis=1), r) and np.array_equal(sol.sum(axis=0), c)
    assert solve_survo(SurvoPuzzle(r, c), limit=2).unique


def test_cli_text_output_and_errors(tmp_path, capsys):
    from sudokustudio.commands import survo_atlas

    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers()
    survo_atlas.register(sub)
    args = parser.parse_args(["atlas", "3", "3"])
    assert args.func(args) == 0
    text = capsys.readouterr().out
    assert "38 uniquely solvable" in text and "match" in text
    args = parser.parse_args(["atlas", "3", "2"])
    with pytest.raises(ValueError, match="smaller side first"):
        args.func(args)


def test_cli_a_stopped_atlas_resumes_with_only_the_batches_left(tmp_path, capsys, atlas_3x4):
    """A stored 3x4 run stopped after 5 batches (as a crash leaves it) is carried on by
    `--resume ID`: the batches stored are kept, not run again, and the atlas is the whole one."""
    from sudokustudio.cli import main
    from sudokustudio.jobs.run import Run, StopRules
    from sudokustudio.jobs.store import RunStore

    store_path = tmp_path / "runs.db"
    job = SurvoAtlasJob(3, 4)
    run = Run.create(job, 0, StopRules(batches=5), store=RunStore(store_path))
    run.run(workers=1)
    first = run.total
    assert 0 < first.count < 583 and run.snapshot().batches == 5 < job.n_batches()
    out = tmp_path / "atlas.txt"
    argv = ["survo", "atlas", "3", "4", "--resume", str(run.run_id), "--store", str(store_path), "--probes", "0"]
    assert main([*argv, "--out", str(out), "--json"]) == 0
    said = capsys.readouterr()
    data = json.loads(said.out)
    assert data["count"] == 583 and data["count_match"] and data["run_id"] == run.run_id
    # the run is named at the start (a killed process prints nothing at its end)
    assert f"stored as run {run.run_id} in {store_path}; after a stop, --resume {run.run_id}" in said.err
    whole = [ln for ln in out.read_text().splitlines() if not ln.startswith("#")]
    assert sorted(whole) == sorted(atlas_3x4.puzzle_line(k) for k in range(atlas_3x4.count))
    # the stored batches' CPU seconds are kept, so the total is the first part's plus the rest's
    assert data["cpu_seconds"] >= round(first.cpu_seconds, 3)
    # a run of another size, or one that is not an atlas, is refused by name
    assert main(["survo", "atlas", "3", "5", "--resume", str(run.run_id), "--store", str(store_path)]) == 2
    assert "is the 3x4 atlas, not 3x5" in capsys.readouterr().err
    assert main(["survo", "atlas", "3", "4", "--resume", "9", "--store", str(store_path)]) == 2
    assert "no run 9" in capsys.readouterr().err


def test_write_atlas_round_trip(tmp_path):
    a = _atlas(2, 4, workers=1)
    path = tmp_path / "a.txt"
    write_atlas(path, a)
    lines = [ln for ln in path.read_text().splitlines() if not ln.startswith("#")]
    for k, line in enumerate(lines):
        r, c, sol = parse_atlas_line(line, 2, 4)
        assert np.array_equal(r, a.row_sums()[k]) and np.array_equal(sol, a.solutions()[k])
    with pytest.raises(ValueError, match="7 fields"):
        parse_atlas_line("1 2 | 3", 2, 4)


def test_read_atlas_round_trip_and_errors(tmp_path):
    from sudokustudio.survo.atlas import read_atlas

    a = _atlas(2, 5)
    path = tmp_path / "a.txt"
    write_atlas(path, a)
    b = read_atlas(path)
    assert (b.m, b.n) == (2, 5) and np.array_equal(a.records, b.records)
    assert np.allclose(a.chi2, b.chi2, atol=1e-4)
    bad = tmp_path / "bad.txt"
    bad.write_text("hello\n")
    with pytest.raises(ValueError, match="line 1"):
        read_atlas(bad)
    lines = path.read_text().splitlines()
    lines[3] = lines[3].replace("|", ";", 1)
    bad.write_text("\n".join(lines))
    with pytest.raises(ValueError, match="line 4"):
        read_atlas(bad)


def test_read_atlas_whole_file_equals_line_by_line_and_bad_content_names_its_line(tmp_path):
    from sudokustudio.survo.atlas.format import _read_by_line, read_atlas

    a = _atlas(2, 5)
    path = tmp_path / "a.txt"
    write_atlas(path, a)
    lines = path.read_text().splitlines()
    data = [(no, line) for no, line in enumerate(lines[1:], start=2) if not line.startswith("#")]
    whole, by_line = read_atlas(path), _read_by_line(path, 2, 5, data)
    assert np.array_equal(whole.records, by_line.records) and np.array_equal(whole.chi2, by_line.chi2)
    bad = tmp_path / "bad.txt"
    fields = lines[5].split("|")
    cells = fields[2].split()
    # a solution that is no longer a table of 1..10 (one number doubled)
    fields[2] = " " + " ".join([cells[1]] + cells[1:]) + " "
    bad.write_text("\n".join(lines[:5] + ["|".join(fields)] + lines[6:]))
    with pytest.raises(ValueError, match="line 6: the solution is not a table"):
        read_atlas(bad)
    # a row sum that is not the solution's
    fields = lines[7].split("|")
    sums = fields[0].split()
    fields[0] = f" {int(sums[0]) + 1} {int(sums[1]) - 1} "
    bad.write_text("\n".join(lines[:7] + ["|".join(fields)] + lines[8:]))
    with pytest.raises(ValueError, match="line 8: the row and column sums"):
        read_atlas(bad)


def test_cli_main_dispatches_survo_atlas(capsys):
    from sudokustudio.cli import main

    assert main(["survo", "atlas", "2", "3", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["count"] == 18 and data["known_count"] == 18
    assert main(["survo", "atlas", "1", "3"]) == 2
    assert "between 2 and 8" in capsys.readouterr().err


@pytest.mark.slow
def test_4x4_reproduces_seed_001():
    """The full 4×4 atlas (minutes of CPU): seed 001's tables exactly (also in benchmarks/survo_atlas.py)."""
    a = _atlas(4, 4)
    cmp = compare_with_seed(a)
    assert a.count == 5327
    assert cmp["swaps"]["computed"] == [85, 262, 522, 977, 1271, 1222, 696, 255, 36, 1]
    assert [k for _, k, _ in cmp["W_table"]["computed"]] == [467, 417, 609, 879, 896, 929, 681, 312, 126, 11]
    assert cmp["all_match"], cmp
