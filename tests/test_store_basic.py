import sqlite3

import pytest

from jobs_for_tests import GridGuessesJob
from sudokustudio.jobs.run import Run, StopRules, run_batches
from sudokustudio.jobs.store import RunStore, StoreError, default_store_path


def test_default_path_is_in_user_data(tmp_path):
    # conftest points SUDOKUSTUDIO_DATA at a temporary folder
    assert str(default_store_path()).startswith(str(tmp_path))


def test_runs_and_batches_round_trip_and_resume(tmp_path):
    store = RunStore(tmp_path / "runs.sqlite3")
    job = GridGuessesJob(grids=3)
    out = run_batches(job, 2**63 + 5, 3, workers=2, store=store, name="first")
    rid = out.run.run_id
    assert out.status.value == "done"
    store.close()
    # reopen (as after quitting) and resume with a longer run
    store = RunStore(tmp_path / "runs.sqlite3")
    info = store.run(rid)
    assert info.seed == 2**63 + 5 and info.batches == 3 and info.target_batches == 3 and info.name == "first"
    again = store.job_of(rid)
    total, done, _ = store.load_results(rid, again)
    assert done == {0, 1, 2}
    run = Run.open(store, rid)
    run.set_rules(StopRules(batches=8))
    rest = run.run(workers=2)
    full = run_batches(job, 2**63 + 5, 8, workers=1)
    assert rest.total["moments"] == full.total["moments"]
    assert store.done_indices(rid) == set(range(8))
    assert store.run(rid).status == "done" and store.run(rid).rules == {"batches": 8}


def test_corrupt_file_gives_a_clear_error(tmp_path):
    bad = tmp_path / "runs.sqlite3"
    bad.write_bytes(b"this is not a database" * 100)
    with pytest.raises(StoreError, match="damaged or not a run store"):
        RunStore(bad)


def test_a_damaged_run_does_not_hide_the_others(tmp_path):
    path = tmp_path / "runs.sqlite3"
    store = RunStore(path)
    job = GridGuessesJob(grids=1)
    good = store.create_run(job, 1)
    broken = store.create_run(job, 2)
    store.add_batch(good, 0, job.encode(job.run_indexed(1, 0)))
    store.add_batch(broken, 0, b"garbage, not plain data")
    store.close()
    db = sqlite3.connect(path)
    db.execute("INSERT INTO runs(kind, spec, seed, created, updated) VALUES ('x', '{not json', '3', 0, 0)")
    db.commit()
    db.close()
    store = RunStore(path)
    ids = [r.id for r in store.runs()]
    assert good in ids and broken in ids and len(ids) == 2  # the unreadable spec row is skipped
    total, done, _ = store.load_results(good, job)
    assert done == {0}
    with pytest.raises(StoreError, match=f"run {broken}: batch 0 is damaged"):
        store.load_results(broken, job)
