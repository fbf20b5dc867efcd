"""Survo atlas: time 3×5 and 4×4 on 2 worker threads and check seed 001.

    python3 benchmarks/survo_atlas.py [--sizes 3x5 4x4] [--threads 2] [--out-dir DIR] [--probes P]
    python3 benchmarks/survo_atlas.py --predict-only --sizes 5x5 4x6 3x8 [--probes P]
    python3 benchmarks/survo_atlas.py --sizes 2x9 2x10    # the two-row method; S(2,10) = 843,476
    python3 benchmarks/survo_atlas.py --sizes 4x5 --batches 778 345   # chosen batches, one thread each

For every size: wall time, summed thread CPU time of the batches (robust to a
loaded machine), the count against REFERENCES.md's S(m, n), trade-free tables
met and candidates checked exactly.  For 4×4 it prints seed 001's tables
beside the computed ones with MATCH / MISMATCH per table.  Target: 4×4 in
≤ 60 s on 2 quiet cores.  With --out-dir the atlases are written there (one
puzzle per line, the format of ``sudokustudio-cli survo atlas --out``).
Before each run Knuth's estimate (``--probes``, default 2000) predicts the
trade-free tables and core-hours; the run prints how far off it was in
relative errors (target: within 2).  ``--predict-only`` skips the runs.
Two-row sizes run by their own method (``survo.atlas.two_rows``); past 8
columns there is no estimate (the general search's n! arrangements).
``--batches`` times only the named batches of each size, one after another on
this thread (CPU seconds, puzzles, trade-free tables): a before/after figure for
a kernel change without the whole run (4×5 batch 778 took 7.8 CPU-s and batch
345 13.4 on 2026-11-27, when the whole 4×5 took 10,678).
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from sudokustudio.jobs.run import run_batches  # noqa: E402
from sudokustudio.survo.atlas import SurvoAtlasJob, compare_with_seed, warm_up, write_atlas  # noqa: E402
from sudokustudio.survo.atlas.estimate import estimate_size  # noqa: E402


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", nargs="+", default=["3x5", "4x4"])
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--out-dir", default=None)
    ap.add_argument("--probes", type=int, default=2000)
    ap.add_argument("--predict-only", action="store_true")
    ap.add_argument("--batches", nargs="+", type=int, default=None, help="time only these batches (one thread)")
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    warm_up()
    print(f"warm-up (compile or load the kernels): {time.perf_counter() - t0:.1f} s")
    ok = True
    for size in args.sizes:
        m, n = (int(x) for x in size.lower().split("x"))
        est = estimate_size(m, n, probes=args.probes) if args.probes > 0 and n <= 8 else None
        if est is not None:
            print(f"\n{est.text()}; estimate took {est.seconds:.1f} CPU-s")
        if args.predict_only:
            continue
        if args.batches is not None:
            ok = _time_batches(SurvoAtlasJob(m, n), args.batches) and ok
            continue
        job = SurvoAtlasJob(m, n)
        t0 = time.perf_counter()
        out = run_batches(job, 0, job.n_batches(), workers=args.threads)
        wall = time.perf_counter() - t0
        tot = out.total
        cmp = compare_with_seed(tot)
        mean, sd = tot.swaps_mean_sd()
        known = (f"S = {cmp['known_count']}: {'MATCH' if cmp['count_match'] else 'MISMATCH'}"
                 if cmp["known_count"] is not None else "no published S")
        print(f"\n{m}x{n}: {tot.count} puzzles ({known}); wall {wall:.1f} s on {args.threads} threads, "
              f"batch CPU {tot.cpu_seconds:.1f} s, {job.n_batches()} batches; {tot.tables} trade-free tables, "
              f"{tot.candidates} candidates checked exactly")
        if est is not None and est.rel_err > 0:
            off = (est.tables - tot.tables) / (est.rel_err * est.tables)
            print(f"  predicted {est.tables:.4g} trade-free tables (RE {100 * est.rel_err:.1f} %), measured "
                  f"{tot.tables}: {off:+.2f} relative errors; predicted {est.core_seconds:.1f} core-s, batch CPU "
                  f"{tot.cpu_seconds:.1f} s")
        print(f"  swaps hist {tot.swaps_hist()}  mean {mean:.4f}  sd {sd:.4f}  "
              f"chi-square {tot.chi2.min():.4f} .. {tot.chi2.max():.4f}")
        ok = ok and (cmp["count_match"] or cmp["known_count"] is None)
        if "swaps" in cmp:
            print(f"  seed 001 swaps    {cmp['swaps']['seed']}")
            print(f"  computed swaps    {cmp['swaps']['computed']}   "
                  f"{'MATCH' if cmp['swaps']['match'] else 'MISMATCH'}")
            print("  W table (bin: seed freq / computed freq, seed % <6 / computed % <6):")
            for (lab, sk, sp), (_, ck, cp) in zip(cmp["W_table"]["seed"], cmp["W_table"]["computed"]):
                print(f"    {lab:>4}: {sk:4d} / {ck:4d}   {sp:5.1f} / {cp:6.2f}")
            print(f"  W table {'MATCH' if cmp['W_table']['match'] else 'MISMATCH'}; all < 6 swaps: seed "
                  f"{cmp['under6']['seed']} %, computed {cmp['under6']['computed']} % "
                  f"({'MATCH' if cmp['under6']['match'] else 'MISMATCH'})")
            print(f"  chi-square inside (0.25, 8.25): {'MATCH' if cmp['chi2']['match'] else 'MISMATCH'}; "
                  f"mean/sd of swaps about 4 / 1.6: {'MATCH' if cmp['swaps_mean_sd']['match'] else 'MISMATCH'}")
            print(f"  seed 001 overall: {'MATCH' if cmp['all_match'] else 'MISMATCH'}")
            ok = ok and cmp["all_match"]
            if m == 4 and n == 4:
                print(f"  4x4 target <= 60 s on 2 cores: {'met' if wall <= 60 else 'NOT met'} "
                      f"(wall {wall:.1f} s; shared machine, see CPU figure)")
        if args.out_dir:
            Path(args.out_dir).mkdir(parents=True, exist_ok=True)
            path = Path(args.out_dir) / f"survo_atlas_{m}x{n}.txt"
            write_atlas(path, tot)
            print(f"  wrote {path}")
    return 0 if ok else 1


def _time_batches(job: SurvoAtlasJob, batches: list[int]) -> bool:
    """Run the given batches of ``job`` on this thread and print each one's CPU time; False if
    one is out of range."""
    n_batches = job.n_batches()
    for b in batches:
        if not 0 <= b < n_batches:
            print(f"{job.m}x{job.n}: batch {b} out of range (0..{n_batches - 1})")
            return False
        c0 = time.thread_time()
        res = job.run_batch(b, 0)
        print(f"{job.m}x{job.n} batch {b}: {time.thread_time() - c0:.2f} CPU-s, {res.count} puzzles, "
              f"{int(res.tables)} trade-free tables, {int(res.candidates)} candidates")
    return True


if __name__ == "__main__":
    raise SystemExit(main())
