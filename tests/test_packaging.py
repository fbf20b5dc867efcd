"""The desktop bundle (packaging/): builds, starts offscreen, shows the window, exits cleanly.

Slow (a few minutes: PyInstaller plus a first numba compile into the user
cache); not run by default.  Run with:  python3 -m pytest -m slow -s tests/test_packaging.py
"""
import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent


def _size_mb(path: Path) -> float:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file() and not f.is_symlink()) / 2**20


@pytest.mark.slow
def test_bundle_builds_starts_offscreen_and_exits_cleanly(tmp_path):
    pytest.importorskip("PyInstaller")
    dist, work, home = tmp_path / "dist", tmp_path / "work", tmp_path / "home"
    home.mkdir()
    env = dict(os.environ, DIST_DIR=str(dist), WORK_DIR=str(work))
    t0 = time.perf_counter()
    build = subprocess.run(["bash", str(REPO / "packaging" / "build.sh")], cwd=REPO, env=env,
                           capture_output=True, text=True, timeout=1800)
    build_seconds = time.perf_counter() - t0
    assert build.returncode == 0, build.stderr[-3000:]
    bundle = dist / "sudokustudio"
    exe = bundle / "sudokustudio"
    assert exe.is_file() and os.access(exe, os.X_OK)
    assert (bundle / "share" / "applications" / "sudokustudio.desktop").is_file()
    assert (bundle / "share" / "icons" / "hicolor" / "256x256" / "apps" / "sudokustudio.png").is_file()
    internal = bundle / "_internal"
    assert (internal / "sudokustudio" / "resources" / "icons" / "sudokustudio.svg").is_file()
    assert list(internal.rglob("platforms/libqoffscreen.so")) and list(internal.rglob("platforms/libqxcb.so"))
    assert not (internal / "distributed").exists() and not (internal / "scipy").exists()
    size = _size_mb(bundle)
    print(f"\nbuild: {build_seconds:.0f} s, bundle: {size:.0f} MB")

    run_env = {k: v for k, v in os.environ.items()
               if k not in ("NUMBA_CACHE_DIR", "PYTHONPATH", "XDG_CACHE_HOME", "XDG_CONFIG_HOME")}
    run_env.update(HOME=str(home), QT_QPA_PLATFORM="offscreen", SUDOKUSTUDIO_DATA=str(tmp_path / "data"))
    t0 = time.perf_counter()
    shown = subprocess.run([str(exe)], env=dict(run_env, SUDOKUSTUDIO_SMOKE="1"),
                           capture_output=True, text=True, timeout=600)
    shown_seconds = time.perf_counter() - t0
    assert shown.returncode == 0 and "window shown" in shown.stdout, shown.stdout + shown.stderr[-3000:]
    print(f"start to window and clean exit: {shown_seconds:.1f} s")

    # the kernels compile in the frozen app and are cached in the user cache folder
    t0 = time.perf_counter()
    warm = subprocess.run([str(exe)], env=dict(run_env, SUDOKUSTUDIO_SMOKE="kernels",
                                               SUDOKUSTUDIO_SMOKE_TIMEOUT="1500"),
                          capture_output=True, text=True, timeout=1600)
    warm_seconds = time.perf_counter() - t0
    assert warm.returncode == 0, warm.stdout + warm.stderr[-3000:]
    assert "kernels: Kernels ready" in warm.stdout, warm.stdout + warm.stderr[-3000:]
    cache = home / ".cache" / "sudokustudio" / "numba"
    cached = list(cache.rglob("*.nbi"))
    assert cached, f"numba wrote no cache index under {cache}"
    assert not list(internal.rglob("*.nbi")), "numba must not write into the bundle"
    print(f"first kernel warm-up in the bundle: {warm_seconds:.0f} s ({len(cached)} kernels cached in {cache})")
    shutil.rmtree(work, ignore_errors=True)
