"""Throughput of cluster runs against the thread runner, on this machine.

    python3 benchmarks/cluster.py [--batches N] [--grids G] [--scheduler ADDRESS]

Runs the same real job (the estimator's 9x9 grid count, forward-checking
sampler) with the thread runner (2 threads) and with run_dask on a
LocalCluster of 2 single-threaded worker processes (or on --scheduler), and
prints batches/s, the per-batch overhead of the cluster and whether the
totals are identical.  Timings on a shared machine are noisy.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from sudokustudio.jobs.run import run_batches  # noqa: E402
from sudokustudio.sudoku.estimate import GridCountJob  # noqa: E402

# Jobs must live in importable modules (not in this script): see jobs.dask.stream_batches.


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--batches", type=int, default=60)
    ap.add_argument("--samples", type=int, default=400, help="samples per batch (sets the batch time)")
    ap.add_argument("--scheduler", default="local", help="Dask scheduler address (default: a LocalCluster)")
    args = ap.parse_args()
    from sudokustudio.jobs.dask import close_client, connect, run_dask

    job = GridCountJob(box="3x3", method="fc", samples_per_batch=args.samples)
    run_batches(job, 1, 2, workers=1)  # compile (and cache) the kernels first
    t0 = time.perf_counter()
    local = run_batches(job, 7, args.batches, workers=2)
    t_local = time.perf_counter() - t0
    per_batch = t_local * 2 / args.batches
    print(f"thread runner, 2 threads: {args.batches / t_local:7.1f} batches/s  (~{1000 * per_batch:.0f} ms per batch)")

    t0 = time.perf_counter()
    client = connect(args.scheduler, workers=2)
    client.wait_for_workers(1)
    print(f"cluster start/connect: {time.perf_counter() - t0:.1f} s "
          f"({len(client.scheduler_info()['workers'])} workers)")
    run_dask(job, 1, 4, client=client)  # workers load the kernels
    t0 = time.perf_counter()
    cluster = run_dask(job, 7, args.batches, client=client)
    t_cluster = time.perf_counter() - t0
    close_client(client)
    print(f"run_dask ({args.scheduler}):   {args.batches / t_cluster:7.1f} batches/s  "
          f"(overhead ~{1000 * (t_cluster - t_local) / args.batches * 2:+.0f} ms per batch and worker)")
    a, b = local.total, cluster.total  # GridStats: compare the sums, not the measured cpu time
    same = (a.n, a.nonzero, a.s1, a.s2) == (b.n, b.nonzero, b.s1, b.s2)
    print(f"identical totals: {same}  (n={a.n}, sum of weights {a.s1!r} vs {b.s1!r})")
    return 0 if same else 1


if __name__ == "__main__":
    raise SystemExit(main())
