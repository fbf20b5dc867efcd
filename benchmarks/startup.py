"""First start and warm start of the window and the CLI (issue 15); prints JSON.

    python3 benchmarks/startup.py [--repo PATH] [--cold] [--warm] [--help-runs 5]

``--cold``: a fresh NUMBA_CACHE_DIR (empty cache), then a scripted session in
the window (offscreen): load the Survo worked example, swap two numbers, ask
for a hint, start the top-down generator, and wait until every kernel is
ready.  A 10 ms QTimer on the UI thread measures stalls (the gap between two
ticks beyond 10 ms) from the moment the window shows until every kernel is
ready.  ``--warm``: the same session again on the now-filled cache, and the
warm window start.  ``--help`` of the CLI is timed separately (median of
runs).  ``--repo`` runs another checkout (e.g. the baseline): the script only
uses what both the old and the new window have (``kernels ready``: the old
window's in-process warm-up thread, or the new readiness model).

Figures: seconds of wall time from the start of the child process (``t_*``),
the window's own CPU seconds and its compile processes' CPU seconds;
``top_stalls_s_at_t``: the five longest stalls and when each ended.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

SESSION = r"""
import json, os, resource, sys, time
T0 = time.perf_counter()
from PySide6.QtCore import QSettings, QTimer
from PySide6.QtWidgets import QApplication
app = QApplication(sys.argv[:1])
from sudokustudio.ui.main_window import MainWindow
win = MainWindow(settings=QSettings(sys.argv[1], QSettings.IniFormat))
win.resize(1280, 820)   # the default size unfitted to the offscreen screen, as a baseline checkout has it
win.show()
res = {"t_constructed": time.perf_counter() - T0}

def now():
    return time.perf_counter() - T0

while not (win.windowHandle() and win.windowHandle().isExposed()):
    app.processEvents()
res["t_window_shown"] = now()

def kernels_ready():
    try:
        from sudokustudio.kernels import readiness
        if hasattr(win, "compile_launcher"):
            return readiness().all_ready()
    except ImportError:
        pass
    t = getattr(win, "_warm_thread", None)
    return t is not None and not t.is_alive()

tabs = {type(win.tabs.widget(i)).__name__: win.tabs.widget(i) for i in range(win.tabs.count())}
survo, gens = tabs["SurvoTab"], tabs["GeneratorsTab"]
stalls, last = [], [time.perf_counter()]
def tick():
    t = time.perf_counter()
    stalls.append((t - last[0] - 0.010, t - T0))
    last[0] = t
timer = QTimer(); timer.setInterval(10); timer.timeout.connect(tick); timer.start()

state = {"step": "example"}
def step():
    s = state["step"]
    if s == "example":
        survo.load_example("worked_example.mat")
        state["step"] = "swap"
    elif s == "swap" and survo.board is not None:
        survo.board_widget.swapRequested.emit(1, 2)   # what a click on 1 and then on 2 does
        if len(survo.board.swaps) == 1:
            res["t_board_playable"] = now()
            survo.show_hint()
            state["step"] = "hint"
    elif s == "hint" and survo.hint_label.text().startswith(("Mate in", "Solved")):
        res["t_first_hint"] = now()
        gens.rows["top-down"]["button"].click()
        state["step"] = "generator"
    elif s == "generator":
        se = gens.series.get("top-down")
        try:
            if se is None:
                n = 0
            elif hasattr(se, "run"):
                n = se.run.total.count if se.run is not None else 0
            else:                                   # the window before the run model (baseline)
                n = se.result.count
        except Exception:
            n = 0
        if n > 0:
            res["t_first_generated"] = now()
            gens.stop("top-down")
            state["step"] = "kernels"
    if "t_all_kernels_ready" not in res and kernels_ready():
        res["t_all_kernels_ready"] = now()
    if state["step"] == "kernels" and "t_all_kernels_ready" in res:
        state["step"] = "done"
        try:
            from sudokustudio.kernels.listener import compiled_names, compiles_here
            res["compiles_in_window_process"] = compiles_here()
            res["compiled_in_window_process"] = sorted(set(compiled_names()))[:20]
        except ImportError:
            pass
        app.quit()
    elif now() > float(sys.argv[2]):
        res["timed_out_at_step"] = state["step"]
        app.quit()

driver = QTimer(); driver.setInterval(20); driver.timeout.connect(step); driver.start()
app.exec()
timer.stop()
big = sorted(stalls, reverse=True)
res["longest_stall_s"] = round(big[0][0], 3) if big else None
res["stalls_over_100ms"] = sum(1 for x, _ in stalls if x > 0.1)
res["top_stalls_s_at_t"] = [[round(x, 3), round(t, 2)] for x, t in big[:5]]
ru, rc = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
res["window_cpu_s"] = round(ru.ru_utime + ru.ru_stime, 2)
res["compile_processes_cpu_s"] = round(rc.ru_utime + rc.ru_stime, 2)
win.close()
for k, v in list(res.items()):
    if k.startswith("t_"):
        res[k] = round(v, 3)
print("RESULT " + json.dumps(res), flush=True)
os._exit(0)
"""

WINDOW_ONLY = r"""
import sys, time
T0 = time.perf_counter()
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QApplication
app = QApplication(sys.argv[:1])
from sudokustudio.ui.main_window import MainWindow
win = MainWindow(settings=QSettings(sys.argv[1], QSettings.IniFormat))
win.resize(1280, 820)   # the default size unfitted to the offscreen screen, as a baseline checkout has it
win.show()
while not (win.windowHandle() and win.windowHandle().isExposed()):
    app.processEvents()
print("RESULT", time.perf_counter() - T0, flush=True)
import os; os._exit(0)
"""


def _env(repo: Path, cache: Path | None) -> dict:
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", PYTHONPATH=str(repo))
    env.pop("NUMBA_CACHE_DIR", None)
    env.pop("SUDOKUSTUDIO_EXTRA_KERNEL_GROUPS", None)
    if cache is not None:
        env["NUMBA_CACHE_DIR"] = str(cache)
    return env


def _child(code: str, args: list[str], env: dict, timeout: float) -> tuple[str, float, float]:
    """(the RESULT line's payload, wall seconds, CPU seconds of the child and its children)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        out = subprocess.run([sys.executable, "-c", code, str(Path(tmp) / "s.ini"), *args], env=env,
                             capture_output=True, text=True, timeout=timeout + 60, cwd=tmp)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    lines = [ln for ln in out.stdout.splitlines() if ln.startswith("RESULT ")]
    if not lines:
        raise RuntimeError(f"child failed ({out.returncode}): {out.stderr[-2000:]}")
    return lines[-1][len("RESULT "):], wall, cpu


def session(repo: Path, cache: Path | None, timeout: float) -> dict:
    payload, wall, cpu = _child(SESSION, [str(timeout)], _env(repo, cache), timeout)
    res = json.loads(payload)
    res["process_wall_s"] = round(wall, 2)
    res["process_cpu_s"] = round(cpu, 2)
    return res


def warm_window(repo: Path, cache: Path | None, runs: int) -> dict:
    vals = [float(_child(WINDOW_ONLY, [], _env(repo, cache), 120)[0]) for _ in range(runs)]
    return {"median_s": round(statistics.median(vals), 3), "runs": [round(v, 3) for v in vals]}


def help_time(repo: Path, runs: int) -> dict:
    env = _env(repo, None)
    walls, cpus = [], []
    for _ in range(runs + 1):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-m", "sudokustudio.cli", "--help"], env=env, capture_output=True,
                       check=True, cwd=tempfile.gettempdir())   # not this checkout: -m puts the cwd first
        walls.append(time.perf_counter() - t0)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append((after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime))
    return {"median_wall_s": round(statistics.median(walls[1:]), 3),
            "median_cpu_s": round(statistics.median(cpus[1:]), 3)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repo", type=Path, default=REPO, help="checkout to measure (default: this one)")
    ap.add_argument("--cold", action="store_true", help="the session on an empty cache (fresh NUMBA_CACHE_DIR)")
    ap.add_argument("--warm", action="store_true", help="the session and window start on a filled cache")
    ap.add_argument("--cache", type=Path, default=None,
                    help="NUMBA_CACHE_DIR to use (default: a fresh temporary one with --cold, kept for "
                         "--warm; --warm alone: numba's own cache, as `sudokustudio-cli warm` filled it)")
    ap.add_argument("--in-tree-cache", action="store_true",
                    help="use numba's default cache (__pycache__ beside the sources) instead of NUMBA_CACHE_DIR")
    ap.add_argument("--runs", type=int, default=3, help="runs of the warm window start and --help")
    ap.add_argument("--timeout", type=float, default=1500, help="seconds for one session")
    args = ap.parse_args()
    if not (args.cold or args.warm):
        args.cold = args.warm = True
    repo = args.repo.resolve()
    tmp = None
    cache = args.cache
    if args.in_tree_cache or (cache is None and not args.cold):
        cache = None    # --warm alone: a fresh cache would make its session a cold one
    elif cache is None:
        tmp = tempfile.mkdtemp(prefix="startup-bench-")
        cache = Path(tmp) / "numba"
    out = {"repo": str(repo), "cores": len(os.sched_getaffinity(0)),
           "compile_priority": os.environ.get("SUDOKUSTUDIO_COMPILE_PRIORITY", "idle (default)"),
           "numba_cache_dir": str(cache) if cache else "__pycache__ beside the sources"}
    try:
        if args.cold:
            out["cold"] = session(repo, cache, args.timeout)
        if args.warm:
            out["warm"] = session(repo, cache, args.timeout)
            out["warm_window_start"] = warm_window(repo, cache, args.runs)
        out["cli_help"] = help_time(repo, args.runs)
    finally:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
