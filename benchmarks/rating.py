"""BRT and W-rating of the whole controlled-bias 001 file against Berthier's results.

    python3 benchmarks/rating.py [--threads 2] [--cap 12] [--limit N]

Prints: candidates / decided cells after BRT vs 001-nb-cands-after-BRT.txt and
001-nb-clues-after-BRT.txt (every puzzle); W-ratings vs 001-W-ratings.txt with
the list of disagreements; speed (puzzles/s over the whole file, target >= 50
on 2 threads; timings are noisy on a shared machine); the raw and
cf-corrected ("real") W distributions beside seed 002 §3.3; mean and sd of W
per clue count.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from sudokustudio.jobs.run import run_batches  # noqa: E402
from sudokustudio.sudoku.grid import read_puzzles  # noqa: E402
from sudokustudio.sudoku.correction import correction_factor  # noqa: E402
from sudokustudio.sudoku.rating import (SEED002_RAW_PERCENT, SEED002_REAL_PERCENT, RatingJob,  # noqa: E402
                                        brt_batch_kernel, w_distribution)

DATA = Path(__file__).resolve().parent.parent.parent / "shared" / "data" / "controlled_bias"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--cap", type=int, default=12)
    ap.add_argument("--limit", type=int, default=0, help="rate only the first N puzzles (0 = all)")
    args = ap.parse_args()

    coll = read_puzzles(DATA / "001-puzzles.txt")
    puzzles = coll.puzzles[:args.limit] if args.limit else coll.puzzles
    n = len(puzzles)
    ref = {name: np.loadtxt(DATA / f"001-{name}.txt", dtype=np.int64)[:n]
           for name in ("W-ratings", "nb-cands-after-BRT", "nb-clues-after-BRT", "nb-clues")}

    solved = np.zeros(n, np.bool_)
    cands = np.zeros(n, np.int64)
    decided = np.zeros(n, np.int64)
    brt_batch_kernel(puzzles[:1], solved[:1], cands[:1], decided[:1])
    t0 = time.perf_counter()
    brt_batch_kernel(puzzles, solved, cands, decided)
    t_brt = time.perf_counter() - t0
    print(f"BRT: {n} puzzles in {t_brt:.2f} s (1 thread)")
    print(f"  candidates after BRT equal the oracle: {(cands == ref['nb-cands-after-BRT']).sum()}/{n}")
    print(f"  decided cells after BRT equal the oracle: {(decided == ref['nb-clues-after-BRT']).sum()}/{n}")

    job = RatingJob(path=str(DATA / "001-puzzles.txt"), cap=args.cap)
    if args.limit:
        job = RatingJob(puzzles=[ln.split()[0] for ln in
                                 (DATA / "001-puzzles.txt").read_text().splitlines()[:n]], cap=args.cap)
    job.warm_up()
    t0 = time.perf_counter()
    cpu0 = time.process_time()
    out = run_batches(job, 0, job.n_batches(), workers=args.threads)
    secs = time.perf_counter() - t0
    cpu = time.process_time() - cpu0
    ratings, cands_w = job.arrays(out.total)
    ratings = ratings.astype(np.int64)
    print(f"\nW-rating (cap {args.cap}): {n} puzzles in {secs:.1f} s on {args.threads} threads = "
          f"{n / secs:.1f} puzzles/s (target >= 50; shared machine, noisy)")
    print(f"  CPU time {cpu:.1f} s = {1000 * cpu / n:.2f} ms per puzzle "
          f"(= {n / cpu:.0f} puzzles/s per fully available core)")
    w_ref = ref["W-ratings"]
    comparable = w_ref <= args.cap
    agree = (ratings == w_ref) | (~comparable & (ratings == args.cap + 1))
    print(f"  W equal to 001-W-ratings.txt: {agree.sum()}/{n}")
    bad = np.nonzero(~agree)[0]
    for i in bad[:50]:
        print(f"  disagreement line {coll.lines[i]}: ours {ratings[i]}, Berthier {w_ref[i]}  "
              f"{''.join(str(d) if d else '.' for d in puzzles[i])}")
    print(f"  candidates after BRT (from the rating run) equal the oracle: "
          f"{(cands_w == ref['nb-cands-after-BRT']).sum()}/{n}")

    dist = w_distribution(ratings, ref["nb-clues"], args.cap)
    ref_dist = w_distribution(w_ref, ref["nb-clues"], args.cap)
    print("\nW distribution (%), ours | from 001-W-ratings.txt | seed 002 §3.3 (5,926,343 puzzles)")
    print(f"{'W':>5} {'count':>6} {'raw':>8} {'raw ref':>8} {'seed raw':>9} {'real':>8} {'real ref':>8} "
          f"{'seed real':>9}")
    top = int(max(ratings.max(), 1))
    for w in range(0, min(top, args.cap) + 1):
        sr = SEED002_RAW_PERCENT[w] if w < len(SEED002_RAW_PERCENT) else float("nan")
        sl = SEED002_REAL_PERCENT[w] if w < len(SEED002_REAL_PERCENT) else float("nan")
        print(f"{'W%d' % w:>5} {dist['counts'][w]:>6} {dist['raw'][w]:8.3f} {ref_dist['raw'][w]:8.3f} "
              f"{sr!s:>9} {dist['real'][w]:8.3f} {ref_dist['real'][w]:8.3f} {sl!s:>9}")
    if dist["counts"][args.cap + 1]:
        print(f"{'>cap':>5} {dist['counts'][args.cap + 1]:>6}")

    print("\nW per clue count (controlled-bias sample): n, on(n), cf(n), mean W, sd W")
    clues = ref["nb-clues"]
    sums = np.zeros(3)
    for k in np.unique(clues):
        sel = ratings[clues == k]
        cf = float(correction_factor(k))
        sd = sel.std(ddof=1) if len(sel) > 1 else 0.0
        print(f"  {k:3d} {len(sel):6d} {cf:9.4g} {sel.mean():6.3f} {sd:6.3f}")
        sums += (len(sel) * cf, len(sel) * cf * sel.mean(), len(sel) * cf * sd ** 2)
    print(f"  raw mean W {ratings.mean():.3f} (sd {ratings.std(ddof=1):.3f}); real mean W "
          f"{sums[1] / sums[0]:.3f} (sd {np.sqrt(sums[2] / sums[0]):.3f}, seed 002 §2.3 formulas)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
