"""Fast CLI start and the warm command (issue 15)."""
import functools
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


def test_an_edit_to_a_group_from_outside_the_package_renews_its_stamp(tmp_path):
    """A group added through the environment names modules of its own: editing one compiles the
    group again (before, its stamp held the platform only and stayed "cached")."""
    plug = tmp_path / "plug"
    plug.mkdir()
    (plug / "plug_kernels.py").write_text((TESTS / "kernel_fixture.py").read_text())
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "cache"), PYTHONPATH=f"{REPO}{os.pathsep}{plug}")
    env[EXTRA_GROUPS_ENV] = json.dumps({"plug": ["plug_kernels:warm"]})

    def warm():
        out = _run(["-m", "sudokustudio.cli", "warm", "--group", "plug", "--json"], env)
        assert out.returncode == 0, out.stderr
        return json.loads(out.stdout)["groups"]["plug"]["state"]

    assert warm() == "compiled"
    assert warm() == "cached"
    with open(plug / "plug_kernels.py", "a") as f:
        f.write("\n# an edit\n")
    assert warm() == "compiled"
    assert warm() == "cached"


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


_TREE = {   # a package of kernel sources: two Sudoku groups and a Survo one, sharing core/bits
    "core/__init__.py": "", "core/bits.py": "def popcount(x): pass\n", "core/rng.py": "def draw(s): pass\n",
    "sudoku/__init__.py": "from .solver import solve\n",
    "sudoku/solver.py": "from sudokustudio.core.bits import popcount\n",
    "sudoku/warm.py": "from . import solver\n",
    "sudoku/estimate.py": ("\"\"\"Counts.\"\"\"\n"
                           "from sudokustudio.sudoku.solver import (\n    solve,  # the oracle\n)\n"),
    "survo/__init__.py": "", "survo/solve.py": "from ..core import bits, rng as r\n",
    "survo/warm.py": "def warm():\n    import sudokustudio.survo.solve\n",
}
_WARM = {"solver": ["sudokustudio.sudoku.warm:warm_up"], "est": ["sudokustudio.sudoku.estimate:warm"],
         "survo": ["sudokustudio.survo.warm:warm"]}


def _kernel_tree(tmp_path, monkeypatch):
    """A fake kernel package with numba's cache files for each module and a stamp for each group."""
    from sudokustudio.kernels import cache

    root = tmp_path / "sudokustudio"
    for rel, text in _TREE.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    nb = tmp_path / "numba"
    monkeypatch.setattr(cache, "PACKAGE_DIR", root)
    monkeypatch.setattr(cache, "_numba_cache_dir", lambda py_file: nb / Path(py_file).parent.name)
    monkeypatch.setattr(cache, "_group_key", lambda group: _WARM.get(group, []))
    monkeypatch.setattr(cache, "_platform_key", lambda: "numba 1, CPU a")
    # a cache of its own, so that the real sources' graph is read again after the test
    monkeypatch.setattr(cache, "_source_graph", functools.lru_cache(maxsize=1)(cache._source_graph.__wrapped__))
    assert not cache.prepare()                  # an empty cache: nothing to delete
    files = {}
    for rel in _TREE:
        d = nb / Path(rel).parent.name
        d.mkdir(parents=True, exist_ok=True)
        files[rel] = d / f"{Path(rel).stem}.kernel-10.py311.nbi"
        files[rel].write_bytes(b"x")
    for g in _WARM:
        assert cache.write_stamp(g, {"kernels": 3})
    return root, files


def _edit(root, rel):
    from sudokustudio.kernels import cache

    with open(root / rel, "a") as f:
        f.write("# edited\n")
    cache._source_graph.cache_clear()            # a new process reads the sources again


def test_an_edit_renews_the_kernels_that_reach_it_and_leaves_the_others(tmp_path, monkeypatch):
    """numba checks only a kernel's own file: after an edit to a kernel it calls, it would reuse
    the old code.  So ``prepare`` deletes the cached kernels of the changed file and of every file
    that imports it, and the groups that reach it compile again; the others stay cached."""
    from sudokustudio.kernels import cache

    root, files = _kernel_tree(tmp_path, monkeypatch)
    assert [p.name for p in cache.group_sources("est")] == ["bits.py", "estimate.py", "solver.py"]
    assert all(cache.is_cached(g) for g in _WARM) and not cache.prepare()
    _edit(root, "sudoku/solver.py")
    assert cache.prepare()
    gone = {rel for rel, f in files.items() if not f.exists()}
    assert gone == {"sudoku/solver.py", "sudoku/warm.py", "sudoku/estimate.py", "sudoku/__init__.py"}
    assert [g for g in _WARM if cache.is_cached(g)] == ["survo"]
    for g in ("solver", "est"):
        assert cache.write_stamp(g, {"kernels": 3})    # compiled again
    _edit(root, "core/rng.py")                         # the Survo kernels only
    assert cache.prepare()
    assert not files["survo/solve.py"].exists() and not files["survo/warm.py"].exists()
    assert files["core/bits.py"].exists() and [g for g in _WARM if cache.is_cached(g)] == ["solver", "est"]
    # a changed registry entry re-runs only that group (its kernels are still cached)
    monkeypatch.setattr(cache, "_group_key", lambda group: _WARM[group] + (["m:f"] if group == "est" else []))
    assert not cache.is_cached("est") and cache.is_cached("solver") and not cache.prepare()


def test_a_new_numba_or_an_old_cache_renews_every_kernel(tmp_path, monkeypatch):
    """A numba, Python or CPU change, or a cache filled before the sources were recorded one by
    one, deletes every cached kernel and stamp."""
    from sudokustudio.kernels import cache

    root, files = _kernel_tree(tmp_path, monkeypatch)
    monkeypatch.setattr(cache, "_platform_key", lambda: "numba 2, CPU a")
    assert cache.prepare()
    assert not any(f.exists() for f in files.values()) and not any(cache.read_stamp(g) for g in _WARM)
    for f in files.values():
        f.write_bytes(b"x")
    (cache.stamp_dir() / cache.FINGERPRINT_FILE).write_text("60bd433fe1b0218837d7ccf7313f2f55")  # the old marker
    assert cache.prepare() and not any(f.exists() for f in files.values())


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
