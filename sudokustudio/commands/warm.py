"""``sudokustudio-cli warm``: fill numba's kernel cache ahead of time (installers, CI).

Each kernel group (sudokustudio.kernels.groups) compiles in its own process,
as the window does in the background, here at normal priority and on every
core.  Groups already cached (a stamp with today's fingerprint) are skipped.
"""
from __future__ import annotations

import sys
import time

from sudokustudio.commands.common import ProgressBar, add_json_arg, print_json, work_started


def register(sub) -> None:
    from sudokustudio.kernels.groups import GROUP_NAMES

    p = sub.add_parser(
        "warm", help="compile the numba kernels into the cache ahead of time",
        description="Compile the kernel groups into numba's on-disk cache, one process per group, so "
                    "the window and the commands start without compiling. Groups already cached for "
                    "these sources, numba and CPU are skipped. Groups: " + ", ".join(GROUP_NAMES) + ".")
    p.add_argument("--group", action="append", metavar="G", default=None,
                   help="warm only this group (repeat for several; default: all)")
    p.add_argument("--jobs", type=int, default=None,
                   help="compile processes at a time (default: the number of cores)")
    p.add_argument("--force", action="store_true", help="delete the cached kernels first and compile all")
    add_json_arg(p)
    p.set_defaults(func=run)


def run(args) -> int:
    import os

    from sudokustudio.kernels import cache
    from sudokustudio.kernels.groups import GROUP_NAMES, check_groups
    from sudokustudio.kernels.launcher import CompileLauncher
    from sudokustudio.kernels.readiness import FAILED, KernelReadiness

    groups = list(check_groups(args.group)) if args.group else None
    if args.jobs is not None and args.jobs < 1:
        raise ValueError("--jobs must be at least 1")
    try:
        jobs = args.jobs or len(os.sched_getaffinity(0))
    except AttributeError:
        jobs = args.jobs or os.cpu_count() or 1
    t0 = work_started()
    cleared = cache.clear_cache() if args.force else 0
    model = KernelReadiness(groups or GROUP_NAMES, ready=False)
    launcher = CompileLauncher(model, max_procs=jobs, priority="normal", fallback=False)
    names = list(model.groups())
    bar = ProgressBar("compiling kernels", total=len(names), unit="kernel groups")
    launcher.start()
    bytecode = _compile_bytecode()
    try:
        while not model.all_ready():
            busy = model.summary()["busy"]
            extra = ", ".join(f"{g} ({model.state(g).kernels})" for g in busy)
            bar.update(model.progress() * len(names), extra)
            time.sleep(0.1)
    except KeyboardInterrupt:
        launcher.stop()
        raise
    finally:
        bar.close()
    secs = time.perf_counter() - t0
    out = {}
    done = {e["group"]: e for e in launcher.events if e.get("event") in ("done", "failed")}
    for g in names:
        st = model.state(g)
        ev = done.get(g, {})
        if st.state == FAILED:
            out[g] = {"state": "failed", "error": st.error}
        elif st.cached:
            out[g] = {"state": "cached"}
        else:
            out[g] = {"state": "compiled", "seconds": ev.get("seconds"), "cpu_seconds": ev.get("cpu_seconds"),
                      "kernels": ev.get("kernels"), "functions": ev.get("functions", {})}
    failed = [g for g, v in out.items() if v["state"] == "failed"]
    if args.json:
        print_json({"groups": out, "seconds": round(secs, 3), "jobs": jobs, "cleared_files": cleared,
                    "bytecode_written": bytecode, "cache_dir": str(cache.stamp_dir() or ""), "failed": failed})
    else:
        width = max(map(len, out), default=0)
        for g, v in out.items():
            if v["state"] == "compiled":
                print(f"{g:{width}s} compiled {v['kernels'] or 0:3d} kernels in {v['seconds']:.1f} s "
                      f"({v['cpu_seconds']:.1f} CPU-s)")
            elif v["state"] == "cached":
                print(f"{g:{width}s} cached")
            else:
                print(f"{g:{width}s} FAILED: {v['error']}", file=sys.stderr)
        print(f"{len(names) - len(failed)}/{len(names)} kernel groups ready in {secs:.1f} s "
              f"(cache: {cache.stamp_dir()})")
    return 1 if failed else 0


def _compile_bytecode() -> bool:
    """Byte-compile the package too (while the kernel groups compile): a Python that does not
    write .pyc files itself (PYTHONDONTWRITEBYTECODE, a read-only site) otherwise compiles
    every module from source at each start (~0.5 s of the window's).  False when the
    package folder is not writable; nothing else depends on it."""
    import compileall
    from pathlib import Path

    import sudokustudio

    try:
        return bool(compileall.compile_dir(str(Path(sudokustudio.__file__).parent), quiet=2))
    except OSError:
        return False
