"""Speed of the exact Survo solver and the random-puzzle generator, on this machine.

    python3 benchmarks/survo.py [--count K]

Uniqueness proofs (limit 2, so the search must finish) for uniquely
solvable puzzles: seed 001's S0-S5 and random ones from the generator
(open 4x4, open 4x5, 5x5 with 3 and 5 givens, open 5x5), then generation
times.  Prints median / max seconds and search nodes (placements).  The
issue's target: open 4x5 or 5x5 with a few givens in <= 1 s.  Timings on a
shared 2-core machine are noisy.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from sudokustudio.survo.generate import random_puzzle  # noqa: E402
from sudokustudio.survo.puzzle import read_survo  # noqa: E402
from sudokustudio.survo.solve import solve_survo  # noqa: E402

RES = Path(__file__).resolve().parent.parent / "resources" / "survo"


def prove(puzzles):
    secs, nodes = [], []
    for p in puzzles:
        t0 = time.perf_counter()
        r = solve_survo(p, 2)
        secs.append(time.perf_counter() - t0)
        nodes.append(r.nodes)
        assert r.unique, p
    return np.array(secs), np.array(nodes)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--count", type=int, default=10, help="random puzzles per kind (default 10)")
    args = ap.parse_args()
    solve_survo(read_survo(RES / "S0.mat"))  # compile / load the kernels
    random_puzzle(3, 3, 0, 1)
    print(f"{'puzzles':32s} {'n':>3s} {'median s':>10s} {'max s':>10s} {'median nodes':>13s} {'max nodes':>10s}")
    seed_puzzles = [read_survo(RES / f"S{k}.mat") for k in range(6)]
    kinds = [("seed 001 S0-S5 (uniqueness)", seed_puzzles)]
    gen_rows = []
    for m, n, k in ((4, 4, 0), (4, 5, 0), (5, 5, 3), (5, 5, 5), (5, 5, 0)):
        ps, gsecs = [], []
        for s in range(args.count):
            t0 = time.perf_counter()
            g = random_puzzle(m, n, k, seed=1000 + s)
            gsecs.append(time.perf_counter() - t0)
            ps.append(g.puzzle)
        label = f"random {m}x{n} " + ("open" if k == 0 else f"{k} givens")
        kinds.append((label + " (uniqueness)", ps))
        gen_rows.append((label + " (generation)", np.array(gsecs)))
    for label, ps in kinds:
        secs, nodes = prove(ps)
        print(f"{label:32s} {len(ps):3d} {np.median(secs):10.4f} {secs.max():10.4f} "
              f"{int(np.median(nodes)):13d} {int(nodes.max()):10d}")
    for label, secs in gen_rows:
        print(f"{label:32s} {len(secs):3d} {np.median(secs):10.4f} {secs.max():10.4f}")


if __name__ == "__main__":
    main()
