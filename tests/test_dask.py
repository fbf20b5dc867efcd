"""Cluster runs (jobs/dask.py): same totals as the thread runner, worker deaths, limits.

One LocalCluster (2 single-threaded worker processes) serves the whole module.
The reference thread run always goes first so that the workers load the
kernels from numba's cache instead of compiling them twice in parallel.
"""
import dataclasses
import os
import signal
import time
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("distributed")

from jobs_for_tests import GridGuessesJob  # noqa: E402
from sudokustudio.core.batch import BatchJob  # noqa: E402
from sudokustudio.core.rng import seed_state, shuffle_inplace  # noqa: E402
from sudokustudio.jobs import dask as jobs_dask  # noqa: E402
from sudokustudio.jobs.dask import ClusterError, normalise_address  # noqa: E402
from sudokustudio.jobs.executors import DaskExecutor  # noqa: E402
from sudokustudio.jobs.run import run_batches  # noqa: E402
from sudokustudio.sudoku.grids import random_grid_kernel  # noqa: E402
from sudokustudio.sudoku.solver import count_solutions_kernel  # noqa: E402


class HoleCountJob(BatchJob):
    """Per batch: ``grids`` random grids with ``holes`` random cells emptied; a histogram
    of their solution counts (limit 3), the sum of the grids' first rows, and the batch
    indices merged.  With ``log_dir`` each batch leaves files "<index>.<pid>.start/.done"
    so a test can see which worker process ran (or was running) it."""

    kind = "test-dask-hole-count"

    def __init__(self, grids: int = 8, holes: int = 56, sleep: float = 0.0, log_dir: str = ""):
        super().__init__(grids=grids, holes=holes, sleep=sleep, log_dir=log_dir)
        self.grids, self.holes, self.sleep, self.log_dir = grids, holes, sleep, log_dir

    def _mark(self, index: int, what: str) -> None:
        if self.log_dir:
            Path(self.log_dir, f"{index}.{os.getpid()}.{what}").touch()

    def run_batch(self, batch_index, seed):
        self._mark(batch_index, "start")
        rng = seed_state(np.uint64(seed))
        grid = np.zeros(81, dtype=np.uint8)
        order = np.arange(81)
        hist = np.zeros(4, dtype=np.int64)
        row_sum = 0
        for _ in range(self.grids):
            random_grid_kernel(rng, grid)
            row_sum += int(grid[:9] @ np.arange(1, 10))
            shuffle_inplace(rng, order)
            puzzle = grid.copy()
            puzzle[order[: self.holes]] = 0
            hist[count_solutions_kernel(puzzle, 3)] += 1
        if self.sleep:
            time.sleep(self.sleep)
        self._mark(batch_index, "done")
        return {"hist": hist, "row_sum": row_sum, "batches": [batch_index]}

    def merge(self, a, b):
        return {"hist": a["hist"] + b["hist"], "row_sum": a["row_sum"] + b["row_sum"],
                "batches": a["batches"] + b["batches"]}

    def empty(self):
        return {"hist": np.zeros(4, dtype=np.int64), "row_sum": 0, "batches": []}


TIMINGS = {"cpu", "seconds", "wall"}  # measured, not computed: differ between any two runs


def same_totals(a, b):
    if dataclasses.is_dataclass(a):  # e.g. the estimator's GridStats
        a, b = dataclasses.asdict(a), dataclasses.asdict(b)
        a = {k: v for k, v in a.items() if k not in TIMINGS}
        b = {k: v for k, v in b.items() if k not in TIMINGS}
    assert a.keys() == b.keys()
    for key in a:
        if isinstance(a[key], np.ndarray):
            assert np.array_equal(a[key], b[key]), key
        else:
            assert a[key] == b[key], key  # bit-identical (Moments compare exactly)


@pytest.fixture(scope="module")
def cluster_client():
    client = jobs_dask.connect("local", workers=2)
    client.wait_for_workers(2, timeout=60)
    yield client
    jobs_dask.close_client(client)


def project_jobs():
    """Real project jobs when their modules exist (other helpers are writing them)."""
    jobs = []
    try:
        from sudokustudio.sudoku.estimate import GridCountJob

        jobs.append(GridCountJob(box="3x3", method="fc", samples_per_batch=40))
    except Exception:  # not there yet, or changed its spec
        pass
    return jobs


def run_dask(job, seed, n=None, *, client, **kw):
    """The same run model, with the batches on the cluster."""
    return run_batches(job, seed, n, executor=DaskExecutor(client), **kw)


def test_local_cluster_gives_the_thread_runners_totals(cluster_client):
    for job, n in [(HoleCountJob(), 16), (GridGuessesJob(grids=6), 12)] + [(j, 6) for j in project_jobs()]:
        reference = run_batches(job, 2026, n, workers=2)
        seen = []
        out = run_dask(job, 2026, n, client=cluster_client,
                       listener=lambda e, run: e == "batch" and seen.append(run.last_batch[0]))
        assert out.errors == []
        assert out.batches == n and sorted(seen) == list(range(n))
        same_totals(out.total, reference.total)
    other_seed = run_dask(HoleCountJob(), 2027, 16, client=cluster_client).total
    assert other_seed["row_sum"] != run_batches(HoleCountJob(), 2026, 16).total["row_sum"]


def test_the_scheduler_address_path_and_execute(cluster_client):
    from sudokustudio.commands.common import execute

    job = HoleCountJob(grids=4)
    reference = run_batches(job, 7, 8, workers=1)
    address = cluster_client.scheduler.address
    assert address.startswith("tcp://")
    out = execute(job, 7, n_batches=8, scheduler=address)  # what `--scheduler ADDRESS` does
    same_totals(out.total, reference.total)
    assert jobs_dask.describe_cluster(address).startswith(f"connected to {address}: 2 workers, 2 threads")


def test_cli_scheduler_option_gives_the_same_estimate(cluster_client, capsys):
    import json

    from sudokustudio import cli

    if "sudokustudio.commands.estimate" not in cli.COMMANDS:
        pytest.skip("the estimate command is not registered yet")
    argv = ["estimate", "grids", "--box", "2x2", "--method", "fc", "--samples", "20000", "--seed", "11", "--json"]
    assert cli.main(argv + ["--threads", "2"]) == 0
    local = json.loads(capsys.readouterr().out)
    assert cli.main(argv + ["--scheduler", cluster_client.scheduler.address]) == 0
    cluster = json.loads(capsys.readouterr().out)
    assert cluster["samples"] == local["samples"] >= 20000
    assert cluster["estimate"] == local["estimate"] and cluster["rel_err"] == local["rel_err"]
    assert cli.main(argv + ["--scheduler", "tcp://"]) == 2  # a bad address: one clear line
    assert "bad scheduler address" in capsys.readouterr().err


def test_killed_worker_batches_run_elsewhere_and_count_once(cluster_client, tmp_path):
    job = HoleCountJob(grids=4, sleep=0.15, log_dir=str(tmp_path))
    n = 24
    reference = run_batches(HoleCountJob(grids=4), 99, n, workers=2)
    pids = set(cluster_client.run(os.getpid).values())
    killed: list[tuple[int, int]] = []  # (pid, batch it was running)

    def kill_a_busy_worker(event, run):
        if event != "batch" or killed or run.batches_done < 4:
            return
        for _ in range(100):  # find a worker in the middle of a batch
            running = [(int(p.name.split(".")[1]), int(p.name.split(".")[0])) for p in tmp_path.glob("*.start")
                       if not (tmp_path / p.name.replace(".start", ".done")).exists()]
            running = [(pid, i) for pid, i in running if pid in pids]
            if running:
                pid, i = running[0]
                os.kill(pid, signal.SIGKILL)
                killed.append((pid, i))
                return
            time.sleep(0.01)

    out = run_dask(job, 99, n, client=cluster_client, listener=kill_a_busy_worker)
    assert killed, "no worker was caught running a batch"
    pid = killed[0][0]
    started = {int(p.name.split(".")[0]) for p in tmp_path.glob(f"*.{pid}.start")}
    finished = {int(p.name.split(".")[0]) for p in tmp_path.glob(f"*.{pid}.done")}
    interrupted = started - finished
    assert interrupted, "the killed worker was running a batch"
    for i in interrupted:  # each interrupted batch ran to the end in another worker process
        assert [p for p in tmp_path.glob(f"{i}.*.done") if int(p.name.split(".")[1]) != pid]
    assert out.errors == []
    assert out.total["batches"] == list(range(n))  # each batch exactly once
    same_totals(out.total, reference.total)
    cluster_client.wait_for_workers(2, timeout=60)  # the nanny restarts the killed worker


def test_limits_cancel_and_failed_batches(cluster_client):
    job = HoleCountJob(grids=2, sleep=0.02)
    out = run_dask(job, 5, None, client=cluster_client, units=6)  # HoleCountJob counts batches
    assert out.batches >= 6 and out.total["batches"] == list(range(out.batches))
    out = run_dask(job, 5, None, client=cluster_client, seconds=0.5)
    assert out.batches > 0 and out.total["batches"] == list(range(out.batches))
    out = run_dask(job, 5, 500, client=cluster_client,
                   listener=lambda e, run: e == "batch" and run.batches_done >= 3 and run.stop())
    assert out.cancelled and 3 <= out.batches < 500
    assert sorted(out.total["batches"]) == out.total["batches"]
    out = run_dask(GridGuessesJob(grids=2, fail_at=2), 5, 30, client=cluster_client)
    assert len(out.errors) == 1 and out.errors[0].startswith("batch 2: RuntimeError: planned failure")
    assert 2 not in out.total["batches"] and out.batches < 30 and out.status.value == "failed"
    with pytest.raises(ValueError, match="needs a stop rule"):
        run_dask(job, 5, None, client=cluster_client)


def test_addresses_are_checked_and_unreachable_schedulers_named():
    assert normalise_address(None) is None and normalise_address(" local ") is None
    assert normalise_address("node7:8786") == "tcp://node7:8786"
    assert normalise_address("tls://a:1") == "tls://a:1"
    with pytest.raises(ClusterError, match="bad scheduler address"):
        normalise_address("tcp://")
    with pytest.raises(ClusterError, match="cannot reach the Dask scheduler at tcp://127.0.0.1:9"):
        jobs_dask.connect("127.0.0.1:9", timeout=1)


# ---------------------------------------------------------------- the window's runs
def test_qt_run_on_the_cluster_merges_and_commits_to_the_store(qtbot, cluster_client, tmp_path):
    from PySide6.QtCore import QCoreApplication, QThread

    from sudokustudio.jobs.qt import QtRun
    from sudokustudio.jobs.run import Run, StopRules
    from sudokustudio.jobs.store import RunStore

    job, n = HoleCountJob(grids=4), 14
    reference = run_batches(job, 31, n, workers=2)
    store = RunStore(tmp_path / "runs.sqlite3")
    qrun = QtRun(Run(job, 31, StopRules(batches=n), store=store))
    gui_thread = QCoreApplication.instance().thread()
    arrivals = []
    qrun.batchDone.connect(lambda i, r: arrivals.append((i, QThread.currentThread() is gui_thread)))
    with qtbot.waitSignal(qrun.finished, timeout=60000) as blocker:
        qrun.start(DaskExecutor(cluster_client))
    assert blocker.args == ["done"] and qrun.run.errors == []
    assert sorted(i for i, _ in arrivals) == list(range(n)) and all(ok for _, ok in arrivals)
    snap = qrun.snapshot()
    assert snap.batches == n and snap.session_seconds > 0
    same_totals(snap.total, reference.total)
    stored, done, _ = store.load_results(qrun.run.run_id, job)
    assert done == set(range(n))
    same_totals(stored, reference.total)
    store.close()


def test_a_cluster_run_stopped_then_resumed_gives_the_full_total(qtbot, cluster_client):
    from sudokustudio.jobs.qt import QtRun
    from sudokustudio.jobs.run import Run, StopRules

    job, n = HoleCountJob(grids=2, sleep=0.05), 30
    reference = run_batches(HoleCountJob(grids=2), 8, n, workers=2)
    qrun = QtRun(Run(job, 8, StopRules(batches=n)))
    ex = DaskExecutor(cluster_client)
    qrun.batchDone.connect(lambda i, r: qrun.run.batches_done >= 4 and qrun.stop())
    with qtbot.waitSignal(qrun.finished, timeout=60000) as blocker:
        qrun.start(ex)
    assert blocker.args == ["paused"] and 4 <= qrun.run.batches_done < n
    qrun.batchDone.disconnect()
    with qtbot.waitSignal(qrun.finished, timeout=60000) as blocker:
        qrun.start(ex)  # resume: only the missing batches go out
    assert blocker.args == ["done"]
    same_totals(qrun.run.total, reference.total)


def test_window_executor_follows_the_cluster_settings(settings):
    from sudokustudio.jobs.qt import cluster_address, window_executor, window_threads

    assert window_executor(settings) is window_threads()
    settings.setValue("cluster/enabled", True)
    settings.setValue("cluster/address", "tcp://node1:8786")
    assert cluster_address(settings) == "tcp://node1:8786"
    ex = window_executor(settings)
    assert isinstance(ex, DaskExecutor) and ex.address == "tcp://node1:8786"
    settings.setValue("cluster/enabled", False)
    assert window_executor(settings) is window_threads()


def test_a_cluster_run_without_dask_says_how_to_get_it(monkeypatch):
    import sys

    from sudokustudio.jobs.run import Run, StopRules

    monkeypatch.setitem(sys.modules, "sudokustudio.jobs.dask", None)
    run = Run(HoleCountJob(grids=1), 1, StopRules(batches=2))
    run.start(DaskExecutor(address="tcp://node1:8786"))
    assert run.wait(10)
    assert run.status.value == "failed"
    assert "pip install 'sudokustudio[cluster]'" in run.errors[-1]


def test_jobs_defined_in_a_main_script_are_refused(cluster_client):
    main_job_class = type("ScriptJob", (HoleCountJob,), {"__module__": "__main__", "kind": ""})
    with pytest.raises(ClusterError, match="define cluster jobs in an importable module"):
        run_dask(main_job_class(), 1, 2, client=cluster_client)


def test_ua_census_on_the_cluster_resumes_a_stored_run(cluster_client, capsys, tmp_path):
    """`ua census --resume ID --scheduler ADDRESS`: a census stopped after one grid is
    finished on the cluster, each grid searched once, with the threads' results."""
    import json

    from sudokustudio import cli
    from sudokustudio.jobs.run import Run, StopRules
    from sudokustudio.jobs.store import RunStore
    from sudokustudio.sudoku.grids import grid_pool
    from sudokustudio.sudoku.unavoidable import UACensusJob

    grids = ["".join(map(str, g)) for g in grid_pool(3, 23, "solver")]
    store = tmp_path / "runs.db"
    run = Run.create(UACensusJob(grids, 13), 1, StopRules(batches=1), store=RunStore(store))
    run.run(workers=1)
    argv = ["ua", "census", "--resume", str(run.run_id), "--store", str(store), "--json"]
    assert cli.main(argv + ["--scheduler", cluster_client.scheduler.address]) == 0
    cluster = json.loads(capsys.readouterr().out)
    assert cluster["complete"] and [r["grid"] for r in cluster["rows"]] == [0, 1, 2]
    threads = UACensusJob(grids, 13)
    local = run_batches(threads, 1, threads.n_batches(), workers=2).total
    assert [(r["nodes"], r["uas"]) for r in cluster["rows"]] == [(r[4], r[6]) for r in local["rows"]]
    assert cluster["rows"][0]["harvest_cpu"] == run.total["rows"][0][2]   # the stored grid was not redone
