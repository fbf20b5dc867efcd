"""Where the weighted sampler's variance of the mean clue count comes from, class by class.

    python3 benchmarks/weighted_classes.py [--seconds 150] [--seeds 1,2] [--s 32] [--per-grid 4] [--cb-puzzles 240]

Runs the weighted-subsets kernel (sequential grids, one grid sample per call) for
``--seconds`` CPU-s per seed, one process per seed, and keeps each sample's weight per
clue count.  Prints the mean and its SE, each class's share of the variance (the
delta-method influence of the ratio estimator, split by class), the 29-clue class's
variance against what Poisson counts would give (its clustering factor k), and the
rare classes 30 to 32 measured and modelled from the exact inclusion probabilities of
the strata counting them and the published counts (REFERENCES.md): Poisson (k = 1) and
clustered like c = 29.  ``--tail-per-grid 0``: the sampler without its tail stratum.
Then corrected controlled-bias for comparison (``--cb-puzzles``, one thread): its CPU-s a
puzzle measured, times the expected variance a puzzle of its corrected mean, computed from its
known bias and the published counts (a few hundred puzzles measure that variance only
roughly: its heaviest classes are its rarest).  Its cost and the weighted sampler's cost
through its job are timed in alternating rounds (``--rounds``), so a drift of the machine's
speed does not fall on one side of the ratio only.  The "clustered" model applies the
29-clue class's measured clustering to the classes 30 to 32: with the deeper tail subsets
that class comes mostly from 33-clue subsets, the tail's own size.  A run finds the 30-clue
class in a few samples only, too few to measure its own clustering; ``--tail-alone SECONDS``
runs the tail stratum alone (its subsets searched to its floor, nothing else: ~1.4 ms a
sample, a 30-clue find in ~20,000) for that long per seed and measures k_c = sum K^2 / sum K
of its finds per sample (Var / Poisson for rare finds), with a bootstrap 95% range;
``--rare-k K`` gives that factor without the run.  A third model applies it to c = 30..32
(the fewer clues a subset holds beyond a class, the fewer neighbours of a find it can hold
too, so c = 31 and 32 cluster less than 30 would).
The README's Generators section quotes this benchmark.
"""
from __future__ import annotations

import argparse
import math
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from sudokustudio.kernels.cache import prepare_before_running  # noqa: E402
from sudokustudio.sudoku.estimate.published import PUBLISHED_MINIMALS, PUBLISHED_TOTALS  # noqa: E402

CLASSES = np.arange(17, 36)
#: published minimal puzzles per grid (Berthier 2009, REFERENCES.md) and c = 32 from seed 002
#: §3.1.5 (4.7465e10 +- 70.7%, not in REFERENCES.md's table), and their total
PUBLISHED = {**{c: v for c, (v, _) in PUBLISHED_MINIMALS["berthier"].items()}, 32: 4.7465e10}
RARE = (30, 31, 32)
PUBLISHED_TOTAL = PUBLISHED_TOTALS["berthier"][0]


def job_of(s: int, per_grid: int, tail: tuple[int, int, int, int]):
    """The sampler with subsets of s, per_grid a grid, and the tail stratum (tail_s, tail_from,
    tail_per_grid, tail_deep)."""
    from sudokustudio.sudoku.generate.weighted import WeightedSubsetsJob

    return WeightedSubsetsJob(s=s, per_grid=per_grid, tail_s=tail[0], tail_from=tail[1], tail_per_grid=tail[2],
                              tail_deep=tail[3])


def sample(seed: int, seconds: float, s: int, per_grid: int,
           tail: tuple[int, int, int, int]) -> tuple[np.ndarray, float]:
    """Per-sample weights by clue count (samples x CLASSES) and the CPU seconds taken."""
    from sudokustudio.core.rng import seed_state
    from sudokustudio.sudoku.generate import weighted as W
    from sudokustudio.sudoku.grids import grid_pool
    from sudokustudio.sudoku.tables import geometry

    pool = grid_pool(1, 2009, "solver")   # unused with sequential grids, but the kernel takes one
    _, peers, units = geometry(3, 3)
    rng = seed_state(np.uint64(seed))
    strata, inv = job_of(s, per_grid, tail).strata()
    counts, whist, sums = np.zeros(82, np.int64), np.zeros(82), np.zeros(7)
    class_sums = np.zeros((2, 82))
    buf = np.zeros((4096, 81), np.uint8)
    rows = []
    W.warm_up()
    t0 = time.process_time()
    while time.process_time() - t0 < seconds:
        before = whist.copy()
        W.subsets_kernel(rng, pool, peers, units, strata, 1, inv, buf, np.zeros(4096), counts, whist,
                         sums, class_sums, True, np.empty_like(buf))
        rows.append((whist - before)[CLASSES[0]:CLASSES[-1] + 1])
    return np.array(rows), time.process_time() - t0


def tail_alone(seed: int, seconds: float, tail: tuple[int, int, int, int]) -> np.ndarray:
    """Finds a sample of the classes 30..33 (samples with a find x 4) of the tail stratum run
    alone: tail[2] subsets of tail[0] clues a grid (sequential grids), searched to tail[1]."""
    from sudokustudio.core.rng import seed_state
    from sudokustudio.sudoku.generate import weighted as W
    from sudokustudio.sudoku.grids import grid_pool
    from sudokustudio.sudoku.tables import geometry

    tail_s, lo, per_grid = tail[0], tail[1], tail[2]
    strata = np.array([(tail_s, per_grid, lo, 82)], dtype=np.int64)
    inv = W.inclusion_weights(tail_s)
    inv[:lo] = 0.0
    pool = grid_pool(1, 2009, "solver")
    _, peers, units = geometry(3, 3)
    rng = seed_state(np.uint64(seed))
    counts, whist, sums, class_sums = np.zeros(82, np.int64), np.zeros(82), np.zeros(7), np.zeros((2, 82))
    buf = np.zeros((4096, 81), np.uint8)
    W.warm_up()
    finds = []
    t0 = time.process_time()
    while time.process_time() - t0 < seconds:
        before = counts[30:34].copy()
        W.subsets_kernel(rng, pool, peers, units, strata, 1, inv[None, :], buf, np.zeros(4096), counts, whist,
                         sums, class_sums, True, np.empty_like(buf))
        if np.any(counts[30:34] != before):
            finds.append(counts[30:34] - before)
    return np.array(finds, dtype=np.int64).reshape(-1, 4)


def rare_clustering(finds: np.ndarray) -> float:
    """k_c = sum K^2 / sum K of each rare class found (printed, with a bootstrap 95% range);
    returns the 30-clue class's."""
    rng = np.random.default_rng(1)
    k30 = math.nan
    for j, c in enumerate(range(30, 34)):
        K = finds[:, j]
        if K.sum() == 0:
            continue
        k = (K ** 2).sum() / K.sum()
        boot = []
        for _ in range(2000):
            b = K[rng.integers(0, len(K), len(K))]
            boot.append((b ** 2).sum() / max(1, b.sum()))
        lo, hi = np.percentile(boot, [2.5, 97.5])
        print(f"  tail alone, c = {c}: {K.sum()} finds in {np.count_nonzero(K)} samples, finds a sample "
              f"{dict(enumerate(np.bincount(K)))}; k = {k:.2f} (bootstrap 95%: {lo:.2f}-{hi:.2f})")
        if c == 30:
            k30 = k
    return k30


def report(R: np.ndarray, cpu: float, units: np.ndarray, rare_k: float | None = None) -> dict[str, float]:
    """Shares of the variance, SE² x CPU-s at the kernel's cost (the run's); returns the
    variance a grid sample of the mean clue count, measured and with c = 30..32 modelled."""
    n = len(R)
    b = R.sum(1)
    mu = (R * CLASSES).sum() / b.sum()
    influence = (CLASSES - mu) * R / b.mean()     # z_i split by class
    V = influence.sum(1).var(ddof=1)
    print(f"{n:,} samples in {cpu:.0f} CPU-s ({1000 * cpu / n:.2f} ms a sample): mean {mu:.4f} ± "
          f"{math.sqrt(V / n):.4f}; SE² x CPU-s {V / n * cpu:.3f} (every class found)")
    from sudokustudio.sudoku.generate.weighted import SEED002_SHARES

    for j, c in enumerate(CLASSES):
        v = influence[:, j].var(ddof=1)
        if v > 0:
            share = R[:, j].sum() / b.sum()
            se = math.sqrt(((R[:, j] - share * b) ** 2).sum() / n / (n - 1)) / b.mean()
            ref = SEED002_SHARES.get(int(c))
            vs = (f"; share {share:.3g} ± {se:.2g}, z {(share - ref[0]) / math.hypot(se, ref[0] * ref[1]):+.2f}"
                  f" against seed 002" if ref else "")
            print(f"  c = {c}: {100 * v / V:6.2f}% of the variance, {np.count_nonzero(R[:, j]):,} samples with a "
                  f"find{vs}")

    def poisson(c):
        """Var of class c's influence if its finds were Poisson, from the strata counting it."""
        return (c - mu) ** 2 * PUBLISHED[c] / PUBLISHED_TOTAL * units[c] / b.mean()

    def measured(c):
        return influence[:, c - CLASSES[0]].var(ddof=1)

    low = influence[:, CLASSES <= 29].sum(1).var(ddof=1)
    k = measured(29) / poisson(29)
    print(f"classes up to 29: SE² x CPU-s {low / n * cpu:.3f}; the 29-clue class's variance is {k:.2f}x Poisson")
    for c in RARE:
        print(f"  c = {c}: variance {measured(c):.1f} measured, {poisson(c):.1f} if Poisson")
    figures = {"measured": V}
    models = [(1.0, "Poisson"), (max(k, 1.0), "clustered like c = 29")]
    if rare_k is not None and math.isfinite(rare_k):
        models.append((rare_k, f"clustered as the tail's 30-clue finds, k = {rare_k:.2f}"))
    for kk, name in models:
        full = low + kk * sum(poisson(c) for c in RARE)
        figures[name] = full
        print(f"  with c = 30..32 modelled ({name}): variance x{full / low:.2f}, SE² x CPU-s "
              f"{full / n * cpu:.3f} (kernel)")
    return figures


def controlled_bias_variance() -> tuple[float, dict[int, float]]:
    """Corrected controlled-bias's variance a puzzle and its clue shares p_cb
    (``correction.corrected_mean_variance``) from Berthier's counts and seed 002's c = 32.  Its
    heavy classes (c = 28..31 carry 90% of it) are rare among its puzzles, which makes a
    measured SE of a few hundred puzzles read low more often than high."""
    from sudokustudio.sudoku.correction import corrected_mean_variance

    return corrected_mean_variance(PUBLISHED)


def paired_costs(job, cb_puzzles: int, rounds: int, seed: int):
    """CPU ms a grid sample of the weighted sampler through its job (the kernel, plus the
    isomorphs of the puzzles written and the spread minimality check; sequential grids) and CPU-s
    a puzzle of controlled-bias, one thread each, timed in alternating rounds so that the
    machine's drift (this one's speed has moved 1.2x within an hour) falls on both alike.
    Returns (ms a sample, s a puzzle, controlled-bias's merged result)."""
    from sudokustudio.jobs.run import run_batches
    from sudokustudio.sudoku.generate import GeneratorJob, WeightedSubsetsJob, ua_pool

    ours = WeightedSubsetsJob(**{**job.spec, "grid_source": "sequential", "per_batch": 100, "difficulty": []})
    ours.run_batch(0, 1)
    ua_pool(256, 2009)      # built once a process, as in the window: not the puzzles' cost
    cb = GeneratorJob("controlled-bias", pool_size=256, difficulty=[])
    cb.warm_up()
    ours_cpu = cb_cpu = 0.0
    samples = 0
    total = cb.empty()
    per_round = max(1, cb_puzzles // rounds)
    for r in range(rounds):
        t0 = time.process_time()
        part = run_batches(cb, seed + 1000 * r, None, units=per_round, workers=1).total
        cb_cpu += time.process_time() - t0
        total = cb.merge(total, part)
        t0 = time.process_time()
        b = 0
        while time.process_time() - t0 < cb_cpu / (r + 1) / 4:   # a quarter of a CB round
            samples += ours.run_batch(b, 900 + 100 * r + b).tries
            b += 1
        ours_cpu += time.process_time() - t0
    return 1000 * ours_cpu / samples, cb_cpu / total.count, total


def controlled_bias_figure(per_puzzle: float, total, ours_ms: float, ours: dict[str, float]) -> None:
    """Corrected controlled-bias: its expected SE² x CPU-s (its cost a puzzle times
    :func:`controlled_bias_variance`), the run's own (noisy) figure, its clue counts against
    p_cb; the weighted sampler's figures (variance a sample x its cost) and the ratios."""
    from sudokustudio.sudoku.generate import describe_result

    d = describe_result("controlled-bias", total)
    var, p_cb = controlled_bias_variance()
    expected = var * per_puzzle
    print(f"corrected controlled-bias: {total.count} puzzles, {per_puzzle:.3f} CPU-s a puzzle; expected SE² x "
          f"CPU-s {expected:.3f} ({var:.2f} a puzzle x its cost); this run's own "
          f"{d['corrected_mean_se'] ** 2 * per_puzzle * total.count:.3f}")
    hist = d["clues_hist"]
    m = sum(hist.values())
    print("  its clue counts (expected from p_cb): " + "  ".join(
        f"{c}: {hist.get(c, 0)} ({m * p_cb[c]:.1f})" for c in range(22, 32)))
    print(f"weighted sampler through the job: {ours_ms:.2f} ms a sample; SE² x CPU-s " + ", ".join(
        f"{v * ours_ms / 1000:.3f} ({k})" for k, v in ours.items()))
    print("  cheaper than corrected controlled-bias by: " + ", ".join(
        f"{expected / (v * ours_ms / 1000):.1f}x ({k})" for k, v in ours.items()))


def main() -> int:
    prepare_before_running()   # after a kernel edit, today's code (not a cached caller of the old)
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=150.0, help="CPU seconds per seed")
    ap.add_argument("--seeds", default="1,2", help="one process per seed")
    ap.add_argument("--s", type=int, default=32)
    ap.add_argument("--per-grid", type=int, default=4)
    ap.add_argument("--tail-per-grid", type=int, default=None,
                    help="tail subsets per grid (default: the sampler's; 0: no tail stratum)")
    ap.add_argument("--tail-s", type=int, default=None, help="tail subset size (default: the sampler's)")
    ap.add_argument("--tail-from", type=int, default=None, help="first clue count of the tail (default: the sampler's)")
    ap.add_argument("--tail-deep", type=int, default=None,
                    help="tail subsets a grid searched one clue deeper (default: the sampler's)")
    ap.add_argument("--cb-puzzles", type=int, default=240,
                    help="controlled-bias puzzles timed for the comparison (0: none)")
    ap.add_argument("--rounds", type=int, default=4,
                    help="alternating timing rounds of controlled-bias and the weighted sampler's job")
    ap.add_argument("--tail-alone", type=float, default=0.0, metavar="SECONDS",
                    help="CPU-s per seed of the tail stratum alone, to measure the 30-clue class's clustering")
    ap.add_argument("--rare-k", type=float, default=None,
                    help="that clustering factor, given (e.g. from an earlier --tail-alone run)")
    a = ap.parse_args()
    seeds = [int(x) for x in a.seeds.split(",")]
    from sudokustudio.sudoku.generate import weighted as W

    tail_per_grid = W.TAIL_PER_GRID if a.tail_per_grid is None else a.tail_per_grid
    tail = (W.TAIL_SUBSET_SIZE if a.tail_s is None else a.tail_s, W.TAIL_FROM if a.tail_from is None else a.tail_from,
            tail_per_grid, min(W.TAIL_DEEP, tail_per_grid) if a.tail_deep is None else a.tail_deep)
    print(f"s = {a.s}, {a.per_grid} a grid; tail stratum: " +
          (f"c >= {tail[1]} in {tail[0]}-clue subsets, {tail[2]} a grid, {tail[3]} of them also counting "
           f"c = {tail[1] - 1} (pooled with the main stratum's)" if tail[2] else "none"))
    with ProcessPoolExecutor(len(seeds)) as ex:
        parts = list(ex.map(sample, seeds, [a.seconds] * len(seeds), [a.s] * len(seeds),
                            [a.per_grid] * len(seeds), [tail] * len(seeds)))
        rare_k = a.rare_k
        if a.tail_alone > 0 and tail[2]:
            alone = list(ex.map(tail_alone, [s + 100 for s in seeds], [a.tail_alone] * len(seeds),
                                [tail] * len(seeds)))
            print(f"tail stratum alone, {a.tail_alone:.0f} CPU-s a seed:")
            rare_k = rare_clustering(np.concatenate(alone))
    job = job_of(a.s, a.per_grid, tail)
    R = np.concatenate([r for r, _ in parts])
    ours = report(R, sum(t for _, t in parts), W.poisson_units(*job.strata()), rare_k)
    if a.cb_puzzles:
        ms, per_puzzle, total = paired_costs(job, a.cb_puzzles, a.rounds, seeds[0])
        controlled_bias_figure(per_puzzle, total, ms, ours)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
