"""Fast CLI start and the warm command (issue 15)."""
import json
import os
import subprocess
import sys
from pathlib import Path

from sudokustudio.kernels.groups import EXTRA_GROUPS_ENV

REPO = Path(__file__).resolve().parent.parent
TESTS = Path(__file__).resolve().parent


def _run(args, env=None, timeout=300):
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, timeout=timeout, cwd=REPO,
                          env=env or dict(os.environ, PYTHONPATH=str(REPO)))


def test_parser_imports_no_numpy_numba_qt_or_commands_work():
    code = ("import sys\nfrom sudokustudio.cli import build_parser\nbuild_parser()\n"
            "heavy = ('numpy', 'numba', 'PySide6', 'pyqtgraph', 'dask', 'distributed')\n"
            "print([m for m in sys.modules if m.split('.')[0] in heavy or m.startswith('sudokustudio.sudoku') "
            "or m.startswith('sudokustudio.survo') or m.startswith('sudokustudio.jobs')])")
    out = _run(["-c", code])
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


def test_warm_compiles_a_group_once_then_finds_it_cached(tmp_path):
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "cache"), PYTHONPATH=f"{REPO}{os.pathsep}{TESTS}")
    env[EXTRA_GROUPS_ENV] = json.dumps({"tiny": ["kernel_fixture:warm"]})
    first = _run(["-m", "sudokustudio.cli", "warm", "--group", "tiny", "--json"], env)
    assert first.returncode == 0, first.stderr
    d = json.loads(first.stdout)
    tiny = d["groups"]["tiny"]
    assert tiny["state"] == "compiled" and tiny["kernels"] == 1
    assert set(tiny["functions"]) == {"kernel_fixture:warm"} and tiny["cpu_seconds"] > 0
    assert d["failed"] == [] and "startup_seconds" in d
    second = json.loads(_run(["-m", "sudokustudio.cli", "warm", "--group", "tiny", "--json"], env).stdout)
    assert second["groups"]["tiny"] == {"state": "cached"}
    bad = _run(["-m", "sudokustudio.cli", "warm", "--group", "nope"], env)
    assert bad.returncode == 2 and "unknown kernel group" in bad.stderr


def test_command_json_separates_startup_from_work():
    out = _run(["-m", "sudokustudio.cli", "survo", "solve", "resources/survo/worked_example.mat", "--json"])
    assert out.returncode == 0, out.stderr
    d = json.loads(out.stdout)
    assert d["solutions"] == 1
    assert d["seconds"] >= 0 and d["startup_seconds"] > 0


def test_rate_parser_caps_are_the_rating_modules():
    from sudokustudio.commands import rate
    from sudokustudio.sudoku import rating

    assert (rate.DEFAULT_CAP, rate.MAX_CAP) == (rating.DEFAULT_CAP, rating.MAX_CAP)


def test_changed_sources_renew_the_cache(tmp_path, monkeypatch):
    """A new fingerprint (kernel sources, numba or CPU changed) deletes our cached kernels
    and every stamp: numba would otherwise reuse a kernel whose callee changed."""
    from sudokustudio.kernels import cache

    sources = tmp_path / "pycache"
    sources.mkdir()
    monkeypatch.setattr(cache, "_numba_cache_dir", lambda py_file: sources)
    monkeypatch.setattr(cache, "kernel_sources", lambda root=None: [Path("/x/sudoku/solver.py")])
    ours = sources / "solver.solve_kernel-10.py311.nbi"
    theirs = sources / "other.f-1.py311.nbi"
    fp = ["A"]
    monkeypatch.setattr(cache, "fingerprint", lambda: fp[0])
    cache.prepare()
    ours.write_bytes(b"x")
    theirs.write_bytes(b"x")
    assert cache.write_stamp("solver", {"kernels": 3})
    assert cache.is_cached("solver") and not cache.prepare()
    # a changed registry entry re-runs only that group (its kernels are still cached)
    monkeypatch.setattr(cache, "_group_key", lambda group: ["sudokustudio.sudoku.warm:other"])
    assert not cache.is_cached("solver") and not cache.prepare() and ours.exists()
    monkeypatch.undo()
    monkeypatch.setattr(cache, "_numba_cache_dir", lambda py_file: sources)
    monkeypatch.setattr(cache, "kernel_sources", lambda root=None: [Path("/x/sudoku/solver.py")])
    monkeypatch.setattr(cache, "fingerprint", lambda: fp[0])
    assert cache.is_cached("solver")
    fp[0] = "B"
    assert not cache.is_cached("solver")
    assert cache.prepare()
    assert not ours.exists() and theirs.exists()
    assert cache.read_stamp("solver") is None


def test_a_command_renews_a_stale_cache_before_its_kernels_run(tmp_path, monkeypatch, capsys):
    """numba checks only a kernel's own file: after an edit to a kernel it calls (the subsets
    DFS under the estimator's batch kernel), a command would run the cached old code.  So every
    command asks ``prepare`` first, and one that cannot write the cache still runs."""
    from sudokustudio import cli
    from sudokustudio.kernels import cache

    puzzles = tmp_path / "p.txt"
    puzzles.write_text("..3.2.6..9..3.5..1..18.64....81.29..7.......8..67.82....26.95..8..2.3..9..5.1.3..\n")
    asked = []
    monkeypatch.setattr(cache, "prepare", lambda: asked.append("prepare") or False)
    assert cli.main(["solve", str(puzzles)]) == 0
    assert asked == ["prepare"] and "1 unique" in capsys.readouterr().out

    def unwritable():
        raise PermissionError("read-only cache")

    monkeypatch.setattr(cache, "prepare", unwritable)
    assert cli.main(["solve", str(puzzles)]) == 0
    assert "1 unique" in capsys.readouterr().out


def test_repair_removes_unreadable_cache_files(tmp_path, monkeypatch):
    import pickle

    from sudokustudio.kernels import cache

    d = tmp_path / "pycache"
    d.mkdir()
    monkeypatch.setattr(cache, "_numba_cache_dir", lambda py_file: d)
    monkeypatch.setattr(cache, "kernel_sources", lambda root=None: [Path("/x/sudoku/solver.py")])
    good = d / "solver.good-1.py311.nbi"
    with open(good, "wb") as f:
        pickle.dump("version", f)
        f.write(pickle.dumps(("stamp", {})))
    bad = d / "solver.bad-9.py311.nbi"
    bad.write_bytes(b"\x80\x04garbage")
    bad_data = d / "solver.bad-9.py311.1.nbc"
    bad_data.write_bytes(b"also garbage")
    removed = cache.repair_cache()
    assert sorted(removed) == sorted([bad.name, bad_data.name])
    assert good.exists() and not bad.exists() and not bad_data.exists()
