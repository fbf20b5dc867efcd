"""The two-row atlas method (``survo.atlas.two_rows``): the same puzzles, solutions and
counters as the general enumeration, a case checked by hand, and its batch plan."""
from __future__ import annotations

import numpy as np
from conftest import sorted_records
import pytest

from sudokustudio.survo.atlas import (KNOWN_COUNTS, SurvoAtlasJob, batch_plan, check_size, merge_results,
                                      row_sum_vectors, run_prefixes, run_vectors, two_row_plan)
from sudokustudio.survo.atlas.two_rows import prefixes_and_work


def _two_rows(n):
    prefixes, _ = two_row_plan(n)
    return run_prefixes(n, prefixes)


@pytest.mark.parametrize("n", [3, 4, 5, 6])
def test_same_records_and_counters_as_the_general_method(n):
    fast = _two_rows(n)
    general = run_vectors(2, n, row_sum_vectors(2, n))
    assert fast.count == general.count == KNOWN_COUNTS[(2, n)]
    # row sums, column sums, solution, setup, W and swaps, puzzle by puzzle
    assert np.array_equal(sorted_records(fast), sorted_records(general))
    assert np.allclose(np.sort(fast.chi2), np.sort(general.chi2), rtol=0, atol=1e-12)
    # trade-free tables met and margins met by exactly one of them: the same figures
    assert (fast.tables, fast.candidates) == (general.tables, general.candidates)


def test_2x7_count_through_the_job():
    job = SurvoAtlasJob(2, 7)
    assert job.two_rows and job.unit == "column-sum prefixes"
    total = job.empty()
    for b in range(job.n_batches()):
        total = job.merge(total, job.run_batch(b, 0))
    assert total.count == KNOWN_COUNTS[(2, 7)] == 5706
    assert total.vectors_done == len(job.plan()[0])
    assert len({tuple(x) for x in total.records[:, :9]}) == total.count   # no puzzle twice
    sols = total.solutions()
    assert np.array_equal(sols.sum(axis=2), total.row_sums()) and np.array_equal(sols.sum(axis=1), total.col_sums())
    assert (np.sort(sols.reshape(-1, 14), axis=1) == np.arange(1, 15)).all()
    # each puzzle lies in the batch batch_of names: the batches' puzzle counts agree
    per_batch = np.bincount(job.batch_of(total), minlength=job.n_batches())
    assert per_batch.tolist() == [job.run_batch(b, 0).count for b in range(job.n_batches())]


def test_arrays_grown_and_the_run_resumed():
    """Tiny first arrays: every prefix stops the kernel once for room, the result is the same."""
    prefixes, _ = two_row_plan(6)
    small = run_prefixes(6, prefixes, room=4, rec_room=2)
    whole = _two_rows(6)
    assert np.array_equal(small.records, whole.records)
    assert (small.tables, small.candidates, small.vectors_done) == (whole.tables, whole.candidates, len(prefixes))


def test_hand_checked_2x3():
    """2×3, column sums 3 7 11 (T = 21): 1..6 pairs only as {1,2} {3,4} {5,6} (3 = 1+2 forces
    {1,2}; 3 then pairs with 4, as 3+8 = 11 is out of range).  Each column's difference is 1, so
    the top row sums to 9 + (columns turned over): 9 once, 10 three times, 11 three times, 12
    once.  With 2r < 21, only r = 9 is unique: puzzle (9, 12 | 3, 7, 11), solution 1 3 5 / 2 4 6;
    r = 10 has three tables, each with a trade (turning its one turned column back and another
    over keeps every sum)."""
    res = run_prefixes(3, np.array([[3]]))
    c = res.col_sums()
    mine = (c == [3, 7, 11]).all(axis=1)
    assert mine.sum() == 1
    k = int(np.flatnonzero(mine)[0])
    assert res.row_sums()[k].tolist() == [9, 12]
    assert res.solutions()[k].tolist() == [[1, 3, 5], [2, 4, 6]]
    # the whole 2×3 atlas is the known 18, and the puzzles with c1 = 3 are exactly those of the general run
    general = run_vectors(2, 3, row_sum_vectors(2, 3))
    general_c3 = {tuple(x) for x in general.records[:, :5] if x[2] == 3}
    assert {tuple(x) for x in res.records[:, :5]} == general_c3


def test_batch_plan_and_merge():
    prefixes, bounds = two_row_plan(9)
    assert bounds[0] == 0 and bounds[-1] == len(prefixes) and (np.diff(bounds) >= 1).all()
    assert (np.diff(prefixes, axis=1) > 0).all()
    # prefixes listed once each, in lexicographic order
    assert [tuple(p) for p in prefixes.tolist()] == sorted({tuple(p) for p in prefixes.tolist()})
    p10, b10 = two_row_plan(10)
    assert 150 <= len(b10) - 1 <= 200 and prefixes_and_work(10)[1].min() > 0
    job = SurvoAtlasJob(2, 6)
    parts = [job.run_batch(b, 0) for b in range(job.n_batches())]
    whole = _two_rows(6)
    rev = job.empty()
    for p in reversed(parts):
        rev = merge_results(p, rev)
    assert np.array_equal(sorted_records(rev), sorted_records(whole))
    assert rev.tables == whole.tables and rev.candidates == whole.candidates


def test_sizes():
    for n in (8, 9, 10):
        check_size(2, n)
    assert not SurvoAtlasJob(2, 2).two_rows and SurvoAtlasJob(2, 10).two_rows
    for m, n in ((2, 11), (3, 9), (4, 6), (9, 2)):
        with pytest.raises(ValueError, match=f"{m}x{n}"):
            SurvoAtlasJob(m, n)
    with pytest.raises(ValueError, match="2x10"):   # the estimate of the general search stops at 8 columns
        check_size(2, 10, max_cells=None)


def test_cli_takes_2x10_and_not_3x9():
    import argparse

    from sudokustudio.commands import survo_atlas

    parser = argparse.ArgumentParser()
    survo_atlas.register(parser.add_subparsers())
    args = parser.parse_args(["atlas", "2", "10", "--json"])
    assert (args.m, args.n) == (2, 10) and survo_atlas._estimate(args) is None   # no estimate past 8 columns
    with pytest.raises(ValueError, match="3x9"):
        survo_atlas.run_atlas(parser.parse_args(["atlas", "3", "9"]))


def test_2x8_against_the_exact_solver():
    """2×8 (past the general method's reach in a test): recorded puzzles are unique with the
    recorded solution, and the margins of tables near atlas solutions (two cells swapped) are in
    the atlas exactly when unique."""
    from sudokustudio.survo.puzzle import SurvoPuzzle
    from sudokustudio.survo.solve import solve_survo

    atlas = _two_rows(8)
    assert atlas.count == 28707
    rng = np.random.default_rng(8)
    for k in rng.choice(atlas.count, size=60, replace=False):
        res = solve_survo(SurvoPuzzle(atlas.row_sums()[k], atlas.col_sums()[k]), limit=2)
        assert res.unique and np.array_equal(res.solution, atlas.solutions()[k])
    known = {tuple(x) for x in atlas.records[:, :10].tolist()}
    checked = unique = 0
    while checked < 150:
        t = atlas.solutions()[rng.integers(atlas.count)].ravel().copy()
        i, j = rng.choice(16, size=2, replace=False)
        t[[i, j]] = t[[j, i]]
        t = t.reshape(2, 8)
        r, c = np.sort(t.sum(axis=1)), np.sort(t.sum(axis=0))
        if r[0] == r[1] or len(set(c.tolist())) < 8:
            continue
        is_unique = solve_survo(SurvoPuzzle(r, c), limit=2).unique
        assert is_unique == (tuple(r.tolist() + c.tolist()) in known)
        checked += 1
        unique += is_unique
    assert 0 < unique < checked   # both kinds met


def test_a_run_stored_before_the_two_row_method_resumes_by_row_sums(tmp_path):
    """The two methods number their batches differently, so the method is in the stored spec;
    a spec without it (stored before the two-row method) means the row-sum batches."""
    from sudokustudio.core.batch import job_from_spec
    from sudokustudio.jobs.run import Run, StopRules
    from sudokustudio.jobs.store import RunStore

    assert SurvoAtlasJob(2, 6).spec == {"m": 2, "n": 6, "method": "two-rows"}
    old = job_from_spec("survo_atlas", {"m": 2, "n": 6})
    assert not old.two_rows and old.n_batches() == len(batch_plan(2, 6)[1]) - 1
    assert job_from_spec("survo_atlas", SurvoAtlasJob(2, 6).spec).two_rows
    with pytest.raises(ValueError, match="two-rows"):
        SurvoAtlasJob(3, 4, method="two-rows")
    # an old run half done, then resumed from the store: the atlas is whole and right
    store = RunStore(tmp_path / "runs.sqlite3")
    run = Run.create(old, 0, StopRules(batches=2), store=store)
    run.run(workers=1)
    assert run.batches_done == 2
    with store._db() as db:   # as an older version wrote it
        db.execute("UPDATE runs SET spec = ? WHERE id = ?", ('{"m": 2, "n": 6}', run.run_id))
    resumed = Run.open(store, run.run_id)
    assert not resumed.job.two_rows and resumed.batches_done == 2
    resumed.set_rules(StopRules())
    resumed.run(workers=1)
    assert resumed.total.count == KNOWN_COUNTS[(2, 6)]
    store.close()
