"""Fault injection (issue 20): bad options, bad files, hostile network peers, a locked store,
cancel inside long kernels, and hypothesis over the CLI's option space.

Every probe of benchmarks/fault_probes.py is here as a test; the slow ones (a real window
closing with every job kind running, the CLI in child processes) carry the ``slow`` marker and
the ``faults`` marker, which the default run (and so CI) selects all the same (pyproject.toml).
Hostile store contents (a planted pickle, misfit batches, schema-1 pickles) are tested in
test_run_model.py.
"""
from __future__ import annotations

import math
import os
import socket
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sudokustudio.cli import build_parser, main
from sudokustudio.core import limits
from sudokustudio.core.batch import BatchCancelled
from sudokustudio.core.paths import TextEncodingError, check_writable, decode_text

REPO = Path(__file__).resolve().parent.parent
GRID = "468931527751624839392578461134756298289413675675289314846192753513867942927345186"
PUZZLE = ".......1.4.........2...........5.4.7..8...3....1.9....3..4..2...5.1........8.6..."


def _rc_and_err(capsys, argv):
    rc = main(argv)
    err = capsys.readouterr().err
    assert "Traceback" not in err and "Exception ignored" not in err, err
    return rc, err


# ------------------------------------------------------------------ options at the door
BAD_OPTIONS = [
    (["estimate", "grids", "--seconds", "nan", "--seed", "1"], "--seconds: must be a finite number"),
    (["estimate", "grids", "--seconds", "inf", "--seed", "1"], "--seconds: must be a finite number"),
    (["estimate", "grids", "--seconds", "-1", "--seed", "1"], "--seconds: must be more than 0"),
    (["estimate", "grids", "--samples", "10", "--seed", "-1"], "--seed: must be a whole number from 0"),
    (["estimate", "grids", "--samples", "10", "--seed", str(2 ** 64)], "--seed: must be a whole number from 0"),
    (["estimate", "minimals", "--per-grid", "-3", "--samples", "16", "--seed", "1"], "--per-grid"),
    (["estimate", "minimals", "--samples", "1" + "0" * 30, "--seed", "1"], "--samples"),
    (["ua", "search", GRID, "--clues", "12", "--max-size", "2"], "--max-size: must be a whole number from 4"),
    (["ua", "search", GRID, "--clues", "10", "--seed", "-1"], "--seed"),
    (["ua", "search", GRID, "--clues", "99"], "--clues"),
    (["ua", "search", GRID, "--clues", "12", "--split-depth", "40"], "--split-depth"),
    (["ua", "harvest", GRID, "--max-size", "3"], "--max-size"),
    (["solve", "x.txt", "--limit", "99999999999999999999"], "--limit"),
    (["solve", "x.txt", "--limit", "1e20"], "--limit: must be a whole number"),
    (["solve", "x.txt", "--threads", "0"], "--threads"),
    (["survo", "solve", "x.mat", "--limit", "1000000000000"], "--limit"),
    (["survo", "random", "3", "4", "--seed", "-1"], "--seed"),
    (["survo", "random", "6", "8", "--givens", "99"], "--givens"),
    (["survo", "random", "9", "4"], "argument M"),
    (["survo", "atlas", "9", "9"], "argument M"),
    (["generate", "--method", "weighted-subsets", "-n", "10", "--subset-size", "0"], "--subset-size"),
    (["generate", "-n", "0"], "argument -n"),
    (["generate", "-n", "5", "--seed", "-1"], "--seed"),
    (["rate", "x.txt", "--cap", "0"], "--cap"),
]


@pytest.mark.parametrize("argv, message", BAD_OPTIONS, ids=[" ".join(a[:2]) + " " + m for a, m in BAD_OPTIONS])
def test_a_bad_option_is_exit_code_2_with_a_message_naming_it(capsys, argv, message):
    rc, err = _rc_and_err(capsys, argv)
    assert rc == 2
    assert message in err


def test_limits_checks():
    assert limits.check_whole("12", "x", 1, 12) == 12
    assert limits.check_whole(3.0, "x") == 3
    for bad in ("1.5", "1e3", "", "nan", True, 2.5, float("inf")):
        with pytest.raises(ValueError, match="x must be a whole number"):
            limits.check_whole(bad, "x")
    with pytest.raises(ValueError, match="from 1 to 12, got 13"):
        limits.check_whole(13, "x", 1, 12)
    assert limits.check_number("0.5", "t", 0, 1, lo_open=True) == 0.5
    for bad in ("nan", "inf", "-inf", "1e400", "abc"):
        with pytest.raises(ValueError, match="t must be a"):
            limits.check_number(bad, "t")
    with pytest.raises(ValueError, match="more than 0"):
        limits.check_number(0, "t", 0, lo_open=True)
    assert limits.check_seed(0) == 0 and limits.check_seed(limits.SEED_MAX) == 2 ** 64 - 1
    for bad in (-1, 2 ** 64):
        with pytest.raises(ValueError, match="seed must be a whole number from 0 to 18446744073709551615"):
            limits.check_seed(bad)
    assert 1 <= limits.memory_limit(1 << 70) and limits.memory_limit(1) > 1000


# ------------------------------------------------------------------ files
def test_decode_text_honours_byte_order_marks_and_names_utf16_without_one():
    text = PUZZLE + "\n"
    for enc in ("utf-8-sig", "utf-16", "utf-16-be", "utf-32"):
        data = text.encode(enc)
        if enc == "utf-16-be":
            data = b"\xfe\xff" + data
        assert decode_text(data, "f") == text
    assert decode_text("caf\xe9".encode("latin-1"), "f") == "caf\xe9"
    with pytest.raises(TextEncodingError, match="f: holds NUL bytes: a UTF-16"):
        decode_text(text.encode("utf-16-le"), "f")
    with pytest.raises(TextEncodingError, match="byte-order mark but is not valid"):
        decode_text(b"\xff\xfe" + b"\x00\xd8", "f")


def test_check_writable(tmp_path):
    assert check_writable(tmp_path / "a.csv", "--out") == tmp_path / "a.csv"
    with pytest.raises(OSError, match="--out /nonexistent_dir/a.csv: the folder /nonexistent_dir does not exist"):
        check_writable("/nonexistent_dir/a.csv", "--out")
    with pytest.raises(OSError, match="is a folder"):
        check_writable(tmp_path, "--out")


@pytest.mark.parametrize("command", [["solve"], ["rate"]])
def test_puzzle_files_empty_or_utf16_without_bom_are_exit_code_2(capsys, tmp_path, command):
    empty = tmp_path / "empty.txt"
    empty.write_text("")
    rc, err = _rc_and_err(capsys, [*command, str(empty)])
    assert rc == 2 and "empty.txt: the file is empty (no puzzle)" in err
    blank = tmp_path / "blank.txt"
    blank.write_text("\n  \n\n")
    rc, err = _rc_and_err(capsys, [*command, str(blank)])
    assert rc == 2 and "the file is empty" in err
    raw16 = tmp_path / "u16.txt"
    raw16.write_bytes((PUZZLE + "\n").encode("utf-16-le"))
    rc, err = _rc_and_err(capsys, [*command, str(raw16)])
    assert rc == 2 and "u16.txt: holds NUL bytes: a UTF-16" in err


def test_a_utf16_puzzle_file_with_a_bom_is_read(tmp_path):
    from sudokustudio.sudoku.grid import format_puzzle, read_puzzles

    f = tmp_path / "u16.txt"
    f.write_text(PUZZLE + "\n" + PUZZLE + "\n", encoding="utf-16")
    coll = read_puzzles(f)
    assert len(coll) == 2 and format_puzzle(coll.puzzles[0]) == PUZZLE


def test_survo_files_empty_or_with_a_huge_sum_are_exit_code_2(capsys, tmp_path):
    empty = tmp_path / "e.mat"
    empty.write_text("")
    rc, err = _rc_and_err(capsys, ["survo", "solve", str(empty)])
    assert rc == 2 and "e.mat: the file is empty" in err
    big = tmp_path / "big.mat"
    big.write_text("MAT SAVE AS A\n1 2 9223372036854775808\n3 4 7\n4 6 0\n")
    rc, err = _rc_and_err(capsys, ["survo", "solve", str(big)])
    assert rc == 2 and "big.mat, line 2: row sum 9223372036854775808 is outside 1..10" in err
    big.write_text("* * 3\n* * 7\n4 99999999999999999999999\n")
    rc, err = _rc_and_err(capsys, ["survo", "difficulty", str(big)])
    assert rc == 2 and "column sum" in err


@pytest.mark.parametrize("argv", [
    ["generate", "--method", "controlled-bias", "-n", "30", "--out", "/nonexistent_dir/cb.csv"],
    ["rate", "PUZZLES", "--csv", "/nonexistent_dir/w.csv"],
    ["survo", "atlas", "3", "3", "--out", "/nonexistent_dir/a.txt"],
    ["survo", "atlas", "3", "3", "--csv", "/nonexistent_dir/p"],
])
def test_an_unwritable_output_fails_before_the_run(capsys, tmp_path, argv):
    f = tmp_path / "p.txt"
    f.write_text(PUZZLE + "\n")
    argv = [str(f) if a == "PUZZLES" else a for a in argv]
    t0 = time.perf_counter()
    rc, err = _rc_and_err(capsys, argv)
    assert rc == 2 and "/nonexistent_dir does not exist" in err
    assert time.perf_counter() - t0 < 60   # a hang guard, not a speed figure


# ------------------------------------------------------------------ network peers
class _Server:
    """A TCP listener on 127.0.0.1 that never answers, or answers ``reply``."""

    def __init__(self, reply: bytes | None = None):
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(8)
        self.port = self.sock.getsockname()[1]
        self.reply = reply
        self.conns = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.conns.append(conn)
            if self.reply is not None:
                try:
                    conn.sendall(self.reply)
                except OSError:
                    pass

    def close(self):
        self.sock.close()
        for c in self.conns:
            c.close()


@pytest.mark.parametrize("reply, message", [
    (None, "accepts connections but sends nothing within 0.5 s"),
    (b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello" + b"\xff" * 64, "not with Dask's protocol"),
    (b"\x00" * 8, "not with Dask's protocol"),
])
def test_a_silent_or_foreign_server_is_refused_quickly_and_clearly(reply, message):
    dask = pytest.importorskip("sudokustudio.jobs.dask")
    server = _Server(reply)
    try:
        with pytest.raises(dask.ClusterError, match=message):
            dask.probe_scheduler(f"tcp://127.0.0.1:{server.port}", connect_timeout=2, handshake_timeout=0.5)
    finally:
        server.close()


def test_unknown_hosts_closed_ports_and_bad_addresses_are_cluster_errors():
    dask = pytest.importorskip("sudokustudio.jobs.dask")
    with pytest.raises(dask.ClusterError, match="host 'no-such-host.invalid' is unknown"):
        dask.probe_scheduler("tcp://no-such-host.invalid:8786", 1, 1)
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    with pytest.raises(dask.ClusterError, match="cannot reach the Dask scheduler"):
        dask.probe_scheduler(f"tcp://127.0.0.1:{port}", 1, 1)
    with pytest.raises(dask.ClusterError, match="port is not a number"):
        dask.probe_scheduler("tcp://127.0.0.1:99999", 1, 1)


def test_the_cli_says_a_silent_scheduler_is_not_one(capsys, monkeypatch):
    dask = pytest.importorskip("sudokustudio.jobs.dask")
    monkeypatch.setattr(dask, "HANDSHAKE_TIMEOUT", 0.5)
    server = _Server()
    try:
        rc, err = _rc_and_err(capsys, ["estimate", "grids", "--box", "2x2", "--samples", "10", "--seed", "1",
                                       "--scheduler", f"tcp://127.0.0.1:{server.port}"])
    finally:
        server.close()
    assert rc == 2 and "sends nothing within 0.5 s: not a Dask scheduler" in err


# ------------------------------------------------------------------ a locked store
def test_a_store_locked_by_another_process_does_not_starve_the_runs_workers(tmp_path):
    from jobs_for_tests import GridGuessesJob

    from sudokustudio.jobs.executors import ThreadExecutor
    from sudokustudio.jobs.run import Run, Status, StopRules
    from sudokustudio.jobs.store import RunStore

    path = tmp_path / "runs.sqlite3"
    store = RunStore(path)                       # the default busy timeout (seconds)
    run = Run(GridGuessesJob(grids=1, sleep=0.02), 3, StopRules(batches=400), store=store)
    run.start(ThreadExecutor(2))
    while run.run_id is None or run.batches_done < 2:
        time.sleep(0.01)
    blocker = sqlite3.connect(path, timeout=5)
    blocker.execute("BEGIN IMMEDIATE")           # another process holds the write lock
    before = run.batches_done
    time.sleep(1.5)
    during = run.batches_done - before
    problem = run.snapshot().store_problem
    blocker.rollback()
    blocker.close()
    run.stop()
    assert run.wait(20)
    # the loop is not stuck in a 5 s write: it goes on merging far more than the 2 batches in flight
    assert during > 4, during
    assert "cannot be saved right now" in problem
    assert run.status is Status.PAUSED and not run.snapshot().store_problem
    assert store.done_indices(run.run_id) == set(range(run.batches_done))


# ------------------------------------------------------------------ cancel inside long kernels
@pytest.fixture(scope="module")
def search17():
    """Issue 20's search: k = 17 on its grid, prepared once (harvest and first levels take seconds)."""
    from sudokustudio.sudoku.unavoidable import UASearchJob

    job = UASearchJob(GRID, 17, "", 12, True, 2, 1)
    job.prepare()
    return job


def test_the_ua_search_kernel_returns_at_once_when_its_run_is_cancelled(search17):
    from sudokustudio.sudoku.unavoidable.search import CANCEL_POLL

    job = search17
    stop = np.ones(1, dtype=np.int64)
    with pytest.raises(BatchCancelled):
        job.run_indexed(1, 0, stop)
    assert CANCEL_POLL <= 4096


def test_the_ua_harvest_and_a_searchs_preparation_stop_when_cancelled():
    from sudokustudio.sudoku.unavoidable import UASearchJob
    from sudokustudio.sudoku.unavoidable.jobs import UAHarvestJob

    stop = np.ones(1, dtype=np.int64)
    with pytest.raises(BatchCancelled):
        UAHarvestJob(GRID, 12).run_indexed(1, 0, stop)
    from sudokustudio.core.batch import cancel_scope

    job = UASearchJob(GRID, 17, "", 12, True, 2, 4)
    with cancel_scope(stop), pytest.raises(BatchCancelled):
        job.prepare()
    assert job._prepared is None


def test_stopping_a_ua_search_run_at_k17_ends_it(search17):
    from sudokustudio.jobs.executors import ThreadExecutor
    from sudokustudio.jobs.run import Run, Status, StopRules

    job = search17
    run = Run(job, 1, StopRules(batches=job.n_batches()))
    run.start(ThreadExecutor(2))
    while run.status is not Status.RUNNING and not run.finished:
        time.sleep(0.01)
    time.sleep(0.3)
    run.stop()
    assert run.wait(30)      # a hang guard: before the kernel polled, the first batch ran > 10 min
    assert run.status is Status.PAUSED and not run.errors


# ------------------------------------------------------------------ hypothesis over the option space
_VALUE = st.one_of(
    st.integers(-2 ** 70, 2 ** 70).map(str),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.sampled_from(["nan", "inf", "-0", "0", "1", "2", "1e20", "", " ", "0x10", "٣", "auto", "x" * 3]),
    st.text(max_size=6),
)

_OPTIONS = {
    ("estimate", "grids"): ["--samples", "--seconds", "--seed", "--threads", "--box", "--method"],
    ("estimate", "minimals"): ["--samples", "--seconds", "--seed", "--threads", "--c", "--s", "--per-grid",
                               "--box", "--method", "--grid-source", "--min-clues"],
    ("generate",): ["-n", "--seed", "--blind", "--subset-size", "--threads", "--method", "--grid-source",
                    "--difficulty"],
    ("solve", "FILE"): ["--limit", "--threads"],
    ("rate", "FILE"): ["--cap", "--threads"],
    ("ua", "search", GRID): ["--clues", "--max-size", "--split-depth", "--seed", "--threads", "--force"],
    ("ua", "harvest", GRID): ["--max-size"],
    ("survo", "solve", "SURVO"): ["--limit"],
    ("survo", "random", "3", "3"): ["--givens", "--number", "--seed", "--difficulty"],
    ("survo", "atlas", "2", "2"): ["--probes", "--threads", "--resume"],
}


_PARSER = []


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(sorted(_OPTIONS)), st.data())
def test_any_option_value_parses_or_is_refused_with_exit_code_2(command, data):
    """The parser half of the option space, in-process and fast: every value of every option either
    passes the door or is argparse's exit code 2 with a message; accepted numbers are finite and in range."""
    opts = data.draw(st.lists(st.sampled_from(_OPTIONS[command]), max_size=4, unique=True))
    argv = [c.replace("FILE", "p.txt").replace("SURVO", "s.mat") for c in command]
    for o in opts:
        argv += [o, data.draw(_VALUE)]
    if command[:2] == ("estimate", "grids") or command[:2] == ("estimate", "minimals"):
        if "--seed" not in opts:
            argv += ["--seed", "1"]
        if "--samples" not in opts and "--seconds" not in opts:
            argv += ["--samples", "1"]
    if command[:2] == ("ua", "search") and "--clues" not in opts:
        argv += ["--clues", "5"]
    if not _PARSER:
        _PARSER.append(build_parser())
    try:
        args = _PARSER[0].parse_args(argv)
    except SystemExit as e:
        assert e.code == 2
        return
    for name in ("samples", "n", "limit", "threads", "clues", "max_size", "cap"):
        v = getattr(args, name, None)
        assert v is None or (isinstance(v, int) and v >= 1)
    v = getattr(args, "per_grid", None)   # estimate minimals: a fraction of a probe is an average
    assert v is None or all(math.isfinite(x) and x > 0 for x in (v if isinstance(v, list) else [v]))
    v = getattr(args, "probes", None)   # survo atlas --probes 0: no estimate
    assert v is None or (isinstance(v, int) and v >= 0)
    for name in ("seconds",):
        v = getattr(args, name, None)
        assert v is None or (math.isfinite(v) and v > 0)
    for name in ("seed", "number"):
        v = getattr(args, name, None)
        assert v is None or 0 <= v <= limits.SEED_MAX


def _cli(argv, timeout):
    env = dict(os.environ, PYTHONPATH=str(REPO))
    t0 = time.perf_counter()
    try:
        p = subprocess.run([sys.executable, "-m", "sudokustudio.cli", *argv], capture_output=True, text=True,
                           timeout=timeout, env=env, cwd=REPO)
    except subprocess.TimeoutExpired:
        return None, "", time.perf_counter() - t0
    return p.returncode, p.stderr, time.perf_counter() - t0


_SMALL = st.one_of(st.integers(-3, 40).map(str), st.sampled_from(["nan", "inf", "1e3", "", "x", str(2 ** 64)]))


@pytest.mark.slow
@pytest.mark.faults
@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(command=st.sampled_from(["grids", "minimals", "generate", "solve", "rate", "survo-random", "ua-harvest"]),
       data=st.data())
def test_the_cli_over_its_option_space_ends_with_0_1_or_2_and_no_traceback(tmp_path, command, data):
    """The whole CLI in a child process, small amounts, random values elsewhere: exit 0, 1 or 2, no
    traceback, within a time limit."""
    f = tmp_path / "p.txt"
    f.write_text(PUZZLE + "\n")
    draw = lambda: data.draw(_SMALL)  # noqa: E731
    argv = {
        "grids": ["estimate", "grids", "--box", data.draw(st.sampled_from(["2x2", "2x3", "3x3", "9x9", "x"])),
                  "--samples", draw(), "--seed", draw(), "--threads", draw()],
        "minimals": ["estimate", "minimals", "--box", "2x2", "--method",
                     data.draw(st.sampled_from(["singletons", "subsets", "supersets", "path"])),
                     "--c", draw(), "--s", draw(), "--per-grid", draw(), "--samples", draw(), "--seed", draw()],
        "generate": ["generate", "-n", data.draw(st.sampled_from(["1", "2", "0", "-1", "x"])), "--seed", draw(),
                     "--blind", draw()],
        "solve": ["solve", str(f), "--limit", draw(), "--threads", draw()],
        "rate": ["rate", str(f), "--cap", draw()],
        "survo-random": ["survo", "random", data.draw(st.sampled_from(["2", "3", "1", "9", "x"])), "3",
                         "--givens", draw(), "--seed", draw()],
        "ua-harvest": ["ua", "harvest", GRID, "--max-size", draw()],
    }[command]
    rc, err, secs = _cli(argv, timeout=120)
    assert rc in (0, 1, 2), (argv, rc, err[-500:])
    assert "Traceback" not in err and "Exception ignored" not in err, (argv, err[-2000:])


@pytest.mark.slow
@pytest.mark.faults
def test_every_fault_probe_gives_a_clear_answer_within_30_seconds():
    """benchmarks/fault_probes.py, all of it, as a test (needs the kernels in numba's cache)."""
    p = subprocess.run([sys.executable, str(REPO / "benchmarks" / "fault_probes.py"), "--json", "--timeout", "60"],
                       capture_output=True, text=True, env=dict(os.environ, PYTHONPATH=str(REPO)), timeout=1800)
    import json

    results = json.loads(p.stdout.strip().splitlines()[-1])
    bad = [r for r in results if r["rc"] not in (0, 1, 2) or r["traceback"] or r["seconds"] > 40]
    assert not bad, bad


# ------------------------------------------------------------------ hostile store contents
@pytest.mark.parametrize("result, message", [
    ({"puzzles": [], "stats": np.zeros(3, dtype=np.int64), "nodes_done": 0}, "does not merge"),
    ({"puzzles": [], "stats": np.zeros(8, dtype=np.int64)}, "expected the keys"),
    ([1, 2, 3], "expected a dict"),
])
def test_a_misfit_ua_search_batch_is_a_store_error_naming_run_and_batch(tmp_path, result, message):
    from sudokustudio.core import plain
    from sudokustudio.jobs.run import Run
    from sudokustudio.jobs.store import RunStore, StoreError
    from sudokustudio.sudoku.unavoidable import UASearchJob

    store = RunStore(tmp_path / "runs.sqlite3")
    job = UASearchJob(GRID, 5, "", 6, True, 1, 4)
    rid = store.create_run(job, 1, target_batches=3)
    store.add_batch(rid, 0, job.encode(job.empty()))
    store.add_batch(rid, 2, plain.encode(result))
    with pytest.raises(StoreError, match=f"run {rid}: batch 2 is damaged .*{message}"):
        Run.open(store, rid)


# ------------------------------------------------------------------ closing the window mid-run
@pytest.mark.slow
@pytest.mark.faults
def test_closing_the_window_during_a_ua_search_at_k17_and_other_runs_ends_them(qtbot, settings):
    """Issue 20's hang: Harvest, Clues 17, Start, close.  Every run ends soon after the close
    (benchmarks/ui_stalls.py times it with every job kind running)."""
    from sudokustudio.sudoku import estimate as E
    from sudokustudio.ui.main_window import MainWindow

    win = MainWindow(settings=settings, warm_up=False)
    qtbot.addWidget(win)
    tabs = {type(win.tabs.widget(i)).__name__: win.tabs.widget(i) for i in range(win.tabs.count())}
    ua, est, gen = tabs["UATab"], tabs["EstimatorTab"], tabs["GeneratorsTab"]
    ua.set_grid(np.array([int(c) for c in GRID], dtype=np.uint8))
    ua.start_harvest()
    qtbot.waitUntil(lambda: ua.uas is not None, timeout=300_000)
    ua.k_spin.setValue(17)
    ua.start_search()
    qtbot.waitUntil(lambda: ua.model.search_run is not None and ua.model.search_run.status.value == "running",
                    timeout=300_000)
    est.box.setCurrentIndex(E.BOX_SHAPES.index("2x2"))
    view = est.start_run()
    gen.rows["top-down"]["target"].setValue(10_000_000)
    gen.start("top-down")
    runs = [ua.model.search_run, view.run, gen.series["top-down"].run]
    qtbot.waitUntil(lambda: all(r.status.value == "running" for r in runs), timeout=120_000)
    qtbot.wait(500)
    win.close()
    qtbot.waitUntil(lambda: all(r.finished for r in runs), timeout=30_000)   # a hang guard
    assert {r.status.value for r in runs} == {"paused"}


def test_every_commands_help_renders_as_written():
    """Each command's and subcommand's --help formats without error and shows no "%%": argparse
    %-formats the options' help strings, not a parser's description, so an escaped percent sign
    there was printed doubled ("95%% CI" in `estimate report --help`)."""
    import argparse

    def walk(parser, path):
        yield path, parser
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    yield from walk(sub, path + [name])

    seen = 0
    for path, parser in walk(build_parser(), []):
        text = parser.format_help()
        assert "%%" not in text, (" ".join(path), [line for line in text.splitlines() if "%%" in line])
        seen += 1
    assert seen >= 15
