"""Throughput of the solver's consumers, one thread, optionally paired against another checkout.

    python3 benchmarks/consumers.py [NAME ...] [--vs ROOT] [--rounds N] [--scale X]

Workloads (fixed work, the same in every checkout with this job API):
top-down and bottom-up generation (puzzles), controlled-bias generation
(paths from the 256-grid pool), subsets estimation s = 30 (grids), the
exhaustive 16-clue UA search on the grid of the first 17-clue puzzle (its
first search batches) and W-rating (the first controlled-bias puzzles).

Each workload runs in a child process (``PYTHONPATH`` = the checkout, numba
cache of that checkout): one batch first to load or compile the kernels,
then the timed batches; the figure is CPU seconds of the timed batches
(``time.process_time``, one thread).  With ``--vs ROOT`` the two checkouts
run in turn, A B A B ..., ``--rounds`` times; per side the fastest round is
kept and the line gives units per CPU-second of both and their ratio (this
checkout over ROOT; > 1 is faster here).  The machine may be shared: only
the ratio of one run means much.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT.parent / "shared" / "data"

#: name -> (unit, batches timed at scale 1)
WORKLOADS = {
    "top-down": ("puzzles", 3),
    "bottom-up": ("puzzles", 3),
    "controlled-bias": ("paths", 3),
    "subsets-30": ("grids", 3),
    "ua-16": ("batches", 4),
    "rating": ("puzzles", 4),
}


def _module(name: str, older: str):
    """``sudokustudio.sudoku.<name>``, or ``<older>`` in checkouts from before the
    package split (so ``--vs`` reaches back to the start of the solver work)."""
    import importlib
    try:
        return importlib.import_module(f"sudokustudio.sudoku.{name}")
    except ModuleNotFoundError:
        return importlib.import_module(f"sudokustudio.sudoku.{older}")


def _job(name: str):
    """(job, units of one batch or None to read them from the result, seed)."""
    if name in ("top-down", "bottom-up"):
        GeneratorJob = _module("generate", "generators").GeneratorJob
        n = 200 if name == "top-down" else 100
        return GeneratorJob(name, per_batch=n, difficulty=[]), n
    if name == "controlled-bias":
        gen = _module("generate", "generators")
        GeneratorJob = gen.GeneratorJob
        gen.ua_pool(256, 2009)
        return GeneratorJob("controlled-bias", per_batch=20_000, difficulty=[]), 20_000
    if name == "subsets-30":
        MinimalsJob = _module("estimate", "estimators").MinimalsJob
        job = MinimalsJob("subsets", s=30, grids_per_batch=400)
        return job, 400
    if name == "ua-16":
        from sudokustudio.sudoku import unavoidable as U
        from sudokustudio.sudoku.grid import read_puzzles
        from sudokustudio.sudoku.solver import solve
        grid = solve(read_puzzles(DATA / "puzzles2_17_clue").puzzles[0])
        job = U.UASearchJob("".join(map(str, grid)), 16, "", 12, True, 2, 1)
        job.prepare(U.harvest(grid, 12))
        return job, 1
    if name == "rating":
        from sudokustudio.sudoku.rating import RatingJob
        lines = (DATA / "controlled_bias" / "001-puzzles.txt").read_text().splitlines()
        return RatingJob(puzzles=[ln.split()[0] for ln in lines[:24 * 5]], cap=12, chunk=24), 24
    raise ValueError(f"unknown workload {name!r} ({', '.join(WORKLOADS)})")


def _child(name: str, scale: float) -> dict:
    job, per_batch = _job(name)
    job.warm_up()
    job.run_batch(0, 1)
    n = max(1, round(WORKLOADS[name][1] * scale))
    c0 = time.process_time()
    for b in range(1, n + 1):
        job.run_batch(b, 1)
    return {"cpu": time.process_time() - c0, "units": n * per_batch}


def _run_child(root: Path, name: str, scale: float) -> dict:
    env = dict(os.environ, PYTHONPATH=str(root))
    out = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--child", name, "--scale", str(scale)],
                         cwd=root, env=env, capture_output=True, text=True, check=False)
    if out.returncode:
        raise RuntimeError(f"{name} in {root}: {out.stderr.strip()[-2000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("names", nargs="*", help=f"workloads (default all: {', '.join(WORKLOADS)})")
    ap.add_argument("--vs", metavar="ROOT", help="another checkout to pair against")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--scale", type=float, default=1.0, help="more or fewer timed batches")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.child:
        print(json.dumps(_child(a.child, a.scale)))
        return 0
    names = a.names or list(WORKLOADS)
    sides = [ROOT] + ([Path(a.vs).resolve()] if a.vs else [])
    print(f"one thread, CPU time, fastest of {a.rounds} rounds" + (f"; A = {ROOT}, B = {sides[1]}" if a.vs else ""))
    for name in names:
        best = [float("inf")] * len(sides)
        units = 0
        for _ in range(a.rounds):
            for k, root in enumerate(sides):
                r = _run_child(root, name, a.scale)
                best[k] = min(best[k], r["cpu"])
                units = r["units"]
        rates = [units / c for c in best]
        unit = WORKLOADS[name][0]
        line = f"{name:16s} {units:7d} {unit:8s} A {rates[0]:10.1f}/CPU-s"
        if a.vs:
            line += f"   B {rates[1]:10.1f}/CPU-s   A/B {rates[0] / rates[1]:5.2f}"
        print(line, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
