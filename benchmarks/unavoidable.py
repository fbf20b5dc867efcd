"""Benchmark of the UA workbench on grids of known 17-clue puzzles.

    python3 benchmarks/unavoidable.py [--grids 3] [--k17-grids 2] [--skip-k17]
                                      [--sample-no-forward N] [--pretest]

Prints per grid: harvest time and UA counts, the exhaustive --clues 16
search (expected: nothing), the exhaustive --clues 17 search (expected: the
known puzzle(s)), and search nodes with and without the disjoint-group
forward view.  Times are CPU seconds of the single search thread
(``time.process_time``), since the machine is shared; wall time is shown too.
``--pretest`` measures the UA pre-test (misses_known_ua) as a filter before
solver uniqueness checks in a top-down minimal-puzzle generator.
"""
from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from sudokustudio.core.cellset import clue_set
from sudokustudio.sudoku import unavoidable as U
from sudokustudio.sudoku.grid import format_puzzle, read_puzzles
from sudokustudio.sudoku.unavoidable.groups import misses_known_ua_kernel
from sudokustudio.sudoku.unavoidable.jobs import search_oracle
from sudokustudio.sudoku.unavoidable.search import N_STATS, S_NODES, search_kernel
from sudokustudio.sudoku.solver import solve

DATA = Path(__file__).resolve().parent.parent.parent / "shared" / "data" / "puzzles2_17_clue"
PICKS = [0, 1234, 40000, 20000, 30000, 10000]


def run_search(grid, k, uas, forward=True, force="", cpu_limit=None):
    """Sequential batches in this thread; returns (describe dict, cpu s, wall s, fraction done)."""
    job = U.UASearchJob("".join(map(str, grid)), k, force, 12, forward, 2, 1)
    c0, w0 = time.process_time(), time.perf_counter()
    job.prepare(uas)
    nb = job.n_batches()
    total = job.empty()
    done = 0
    for b in range(nb):
        total = job.merge(total, job.run_batch(b, 0))
        done += 1
        if cpu_limit is not None and time.process_time() - c0 > cpu_limit:
            break
    out = job.describe(total)
    return out, time.process_time() - c0, time.perf_counter() - w0, done / nb


def sampled_node_comparison(grid, k, uas, n_sample=30, split=3, seed=5):
    """Nodes with and without the forward view on the same random subtrees.

    The nodes ``split`` clues below the root (plain dead-cell expansion) are
    listed; a random sample of them is searched both ways.  mean x count
    estimates each full search's nodes without running the slow one to the end.
    """
    g = grid
    job = U.UASearchJob("".join(map(str, g)), k, "", 12, False, split, 1)
    job.prepare(uas)
    _, _, front, pre_nodes = job.prepare()
    rng = np.random.default_rng(seed)
    pick = rng.choice(len(front), size=min(n_sample, len(front)), replace=False)
    cap = len(uas) + 4096
    out = np.zeros((1000, 81), dtype=np.uint8)
    nofront = np.zeros((0, 4), dtype=np.uint64)
    o = search_oracle(g)
    res = {}
    for fw in (True, False):
        nodes = []
        c0 = time.process_time()
        for i in pick:
            st = np.zeros(N_STATS, dtype=np.int64)
            search_kernel(o, uas.lo, uas.hi, front[i], k, fw, 0, cap, out, nofront, st, np.zeros(1, dtype=np.int64))
            nodes.append(int(st[S_NODES]))
        res[fw] = (np.mean(nodes) * len(front), time.process_time() - c0)
    return len(front), len(pick), res


def pretest_benchmark(n_grids=20, seed=11):
    """Top-down generator: remove cells in random order, keep a removal if the
    puzzle stays unique.  Uniqueness by the solver alone vs. the UA pre-test
    (UAs of size <= 6, harvested per grid, time included) first."""
    from sudokustudio.sudoku.grids import random_grid
    from sudokustudio.sudoku.solver import count_solutions_kernel

    rng = np.random.default_rng(seed)
    grids = [random_grid(int(s)) for s in rng.integers(1, 2**31, n_grids)]
    orders = [rng.permutation(81) for _ in grids]
    U.harvest(grids[0], 6, random_sets=0)  # compile
    count_solutions_kernel(grids[0].copy(), 2)

    def generate(g, order, uas):
        p = g.copy()
        calls = 0
        for c in order:
            d = p[c]
            p[c] = 0
            if uas is not None:
                lo, hi = clue_set(p)
                missed = misses_known_ua_kernel(lo, hi, uas.lo, uas.hi)
            else:
                missed = False
            if missed:
                p[c] = d
                continue
            calls += 1
            if count_solutions_kernel(p, 2) != 1:
                p[c] = d
        return p, calls

    t0 = time.process_time()
    plain = [generate(g, o, None) for g, o in zip(grids, orders)]
    t_plain = time.process_time() - t0
    t0 = time.process_time()
    harvest_time = 0.0
    pre = []
    for g, o in zip(grids, orders):
        h0 = time.process_time()
        uas = U.harvest(g, 12, quick=True)
        harvest_time += time.process_time() - h0
        pre.append(generate(g, o, uas))
    t_pre = time.process_time() - t0
    assert all((a[0] == b[0]).all() for a, b in zip(plain, pre))  # same puzzles
    print(f"pre-test: {n_grids} top-down minimal puzzles; solver only {t_plain / n_grids * 1000:.1f} ms/puzzle "
          f"({sum(c for _, c in plain) / n_grids:.0f} solver calls); with UA pre-test "
          f"{t_pre / n_grids * 1000:.1f} ms/puzzle incl. {harvest_time / n_grids * 1000:.1f} ms UA harvest "
          f"({sum(c for _, c in pre) / n_grids:.0f} solver calls)", flush=True)
    # many clue subsets of one grid (the (c,s)-subset estimators of seed 000 test
    # uniqueness of random c-clue subsets of the same grid)
    for c in (24, 28, 32):
        g = grids[0]
        h0 = time.process_time()
        uas = U.harvest(g, 12, quick=True)
        th = time.process_time() - h0
        subsets = np.zeros((2000, 81), dtype=np.uint8)
        for i in range(len(subsets)):
            keep = rng.permutation(81)[:c]
            subsets[i, keep] = g[keep]
        t0 = time.process_time()
        plain_u = sum(count_solutions_kernel(s, 2) == 1 for s in subsets)
        t_plain = time.process_time() - t0
        t0 = time.process_time()
        pre_u = 0
        skipped = 0
        for s in subsets:
            lo, hi = clue_set(s)
            if misses_known_ua_kernel(lo, hi, uas.lo, uas.hi):
                skipped += 1
                continue
            pre_u += count_solutions_kernel(s, 2) == 1
        t_pre = time.process_time() - t0
        assert pre_u == plain_u
        print(f"pre-test: random {c}-clue subsets of one grid: "
              f"solver only {t_plain / len(subsets) * 1e6:.0f} us/check; "
              f"with pre-test ({len(uas)} quick UAs, harvest {th * 1000:.0f} ms once) "
              f"{t_pre / len(subsets) * 1e6:.0f} us/check, {skipped / len(subsets):.0%} decided without the solver",
              flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--grids", type=int, default=3)
    ap.add_argument("--first", type=int, default=0, help="start at this grid of the pick list")
    ap.add_argument("--k17-grids", type=int, default=2)
    ap.add_argument("--skip-k17", action="store_true")
    ap.add_argument("--sample-no-forward", type=int, default=30, metavar="N",
                    help="compare nodes with/without forward view on N random subtrees of --clues 16")
    ap.add_argument("--skip-k16", action="store_true")
    ap.add_argument("--pretest", action="store_true")
    ap.add_argument("--only-pretest", action="store_true")
    args = ap.parse_args()
    if args.pretest or args.only_pretest:
        pretest_benchmark()
        if args.only_pretest:
            return
    puzzles = read_puzzles(DATA).puzzles
    U.warm_up()
    for gi, idx in enumerate(PICKS[args.first:args.first + args.grids], start=args.first):
        p = puzzles[idx]
        g = solve(p)
        c0 = time.process_time()
        uas = U.harvest(g, 12)
        hc = time.process_time() - c0
        groups, exact = U.disjoint_groups(uas)
        print(f"grid {idx}: {len(uas)} UAs {uas.by_size()} harvest {hc:.1f} s CPU; "
              f"{len(groups)} disjoint UAs ({'exact' if exact else 'at least'})", flush=True)
        r, cpu, wall, _ = run_search(g, 16, uas) if not args.skip_k16 else ({"puzzles": [], "nodes": 0,
                                                                             "leaves_checked": 0}, 0, 0, 0)
        if not args.skip_k16:
            print(f"  --clues 16 forward view: {len(r['puzzles'])} puzzles, {r['nodes']:,} nodes, "
                  f"{r['leaves_checked']:,} hitting sets checked, {cpu:.1f} s CPU ({wall:.1f} s wall)", flush=True)
        for nf in (() if args.skip_k16 else (8, 6)):
            force = "".join("1" if c in set(np.flatnonzero(p)[:nf].tolist()) else "." for c in range(81))
            a, ca, _, _ = run_search(g, 17, uas, True, force)
            b, cb, _, _ = run_search(g, 17, uas, False, force)
            assert a["puzzles"] == b["puzzles"]
            print(f"  --clues 17, {nf} clues forced: nodes with forward view {a['nodes']:,} ({ca:.1f} s), "
                  f"without {b['nodes']:,} ({cb:.1f} s); ratio {b['nodes'] / max(1, a['nodes']):.1f}; "
                  f"found known: {format_puzzle(p) in a['puzzles']}", flush=True)
        if args.sample_no_forward > 0:
            nf, ns, res = sampled_node_comparison(g, 16, uas, args.sample_no_forward)
            (a, ta), (b, tb) = res[True], res[False]
            print(f"  --clues 16, {ns} random subtrees of {nf} (3 clues deep), estimated full-search nodes: "
                  f"forward view {a:,.0f} ({ta:.1f} s CPU on the sample), without {b:,.0f} "
                  f"({tb:.1f} s CPU on the sample); ratio {b / max(a, 1):.0f}", flush=True)
        if not args.skip_k17 and gi < args.k17_grids:
            r, cpu, wall, _ = run_search(g, 17, uas)
            print(f"  --clues 17 forward view: {len(r['puzzles'])} puzzles, known found: "
                  f"{format_puzzle(p) in r['puzzles']}, {r['nodes']:,} nodes, {cpu:.1f} s CPU ({wall:.1f} s wall)",
                  flush=True)


if __name__ == "__main__":
    main()
