"""Cold compile cost of the numba kernels, per warm-up group and per kernel.

    python3 benchmarks/compile.py [TARGET ...] [--shared] [--top N] [--json]

A TARGET is a warm function as "module:function", or a kernel group's name
(``sudokustudio.kernels.groups``: its warm functions in turn); default: every
group, in the registry's order.  Each target runs in a child process
with an empty numba cache (a fresh ``NUMBA_CACHE_DIR``), so its figure
includes everything it compiles, its dependencies too.  ``--shared`` runs
all targets one after the other in ONE child with one fresh cache instead
(later targets reuse what earlier ones compiled; the sum is the cost of a
cold start with one compile process).

Per target: CPU seconds of the warm-up (``time.process_time``), of which
compiling; per kernel (numba dispatcher) the CPU seconds of its own
compilations (nested compilations of the kernels it calls subtracted;
saving to the cache included) and how many type signatures were compiled.
A kernel compiled for more than one signature is marked: usually a caller
passing other types than the app does.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _child(targets: list[str]) -> dict:
    """Run the targets in this process, timing every numba compilation."""
    import importlib

    from numba.core import dispatcher as nd

    records: dict[str, dict] = {}
    stack: list[float] = []   # CPU time of nested compilations, per open level
    original = nd.Dispatcher.compile

    def timed_compile(self, sig):
        before = len(self.overloads)
        stack.append(0.0)
        t0 = time.process_time()
        try:
            return original(self, sig)
        finally:
            dt = time.process_time() - t0
            nested = stack.pop()
            if stack:
                stack[-1] += dt
            if len(self.overloads) > before:
                key = f"{self.py_func.__module__}.{self.py_func.__qualname__}"
                r = records.setdefault(key, {"self": 0.0, "incl": 0.0, "sigs": []})
                r["self"] += dt - nested
                r["incl"] += dt
                r["sigs"].append(str(list(self.overloads)[-1]))

    nd.Dispatcher.compile = timed_compile
    out = {"targets": []}
    for target in targets:
        mod, _, fn = target.partition(":")
        seen = {k: (v["self"], len(v["sigs"])) for k, v in records.items()}
        c0 = time.process_time()
        f = getattr(importlib.import_module(mod), fn)
        c1 = time.process_time()
        f()
        c2 = time.process_time()
        kernels = {}
        for k, v in records.items():
            s0, n0 = seen.get(k, (0.0, 0))
            if len(v["sigs"]) > n0:
                kernels[k] = {"cpu": round(v["self"] - s0, 3), "sigs": v["sigs"][n0:]}
        out["targets"].append({"target": target, "import_cpu": round(c1 - c0, 3),
                               "warm_cpu": round(c2 - c1, 3),
                               "compile_cpu": round(sum(k["cpu"] for k in kernels.values()), 3),
                               "kernels": kernels})
    return out


def _spawn(targets: list[str]) -> dict:
    with tempfile.TemporaryDirectory(prefix="nbcache-") as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache)
        env.setdefault("PYTHONPATH", str(ROOT))
        p = subprocess.run([sys.executable, __file__, "--child", *targets], env=env,
                           capture_output=True, text=True)
    if p.returncode:
        raise RuntimeError(f"{targets}: {p.stderr[-2000:]}")
    return json.loads(p.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("targets", nargs="*")
    ap.add_argument("--shared", action="store_true", help="all targets in one process, one cache")
    ap.add_argument("--top", type=int, default=8, help="kernels listed per target")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.child:
        print(json.dumps(_child(a.targets)))
        return
    targets = [t for t in a.targets if ":" in t]
    if not a.targets or len(targets) < len(a.targets):   # group names: from the registry
        sys.path.insert(0, os.environ.get("PYTHONPATH", str(ROOT)).split(os.pathsep)[0])
        from sudokustudio.kernels.groups import GROUPS

        targets = []
        for t in a.targets or list(GROUPS):
            targets.extend(GROUPS[t].warm if t in GROUPS else [t])
    if a.shared:
        results = _spawn(targets)["targets"]
    else:
        results = [_spawn([t])["targets"][0] for t in targets]
    if a.json:
        print(json.dumps({"shared": a.shared, "targets": results}, indent=1))
        return
    print(f"cold compile, {'one process and cache for all' if a.shared else 'a fresh cache per target'} "
          f"(CPU seconds)")
    for r in results:
        ks = sorted(r["kernels"].items(), key=lambda kv: -kv[1]["cpu"])
        multi = [k for k, v in ks if len(v["sigs"]) > 1]
        print(f"{r['target']:45s} warm-up {r['warm_cpu']:7.1f}  compile {r['compile_cpu']:7.1f}  "
              f"import {r['import_cpu']:5.1f}  kernels {len(ks):3d}")
        for k, v in ks[:a.top]:
            print(f"    {v['cpu']:6.2f}  x{len(v['sigs'])}  {k}")
        for k in multi:
            print(f"    several signatures: {k}: {r['kernels'][k]['sigs']}")
    print(f"total warm-up CPU {sum(r['warm_cpu'] for r in results):.1f} s")


if __name__ == "__main__":
    main()
