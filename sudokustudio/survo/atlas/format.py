"""The atlas file: one puzzle per line (``survo atlas --out``, the Atlas view's Save/Open)."""
from __future__ import annotations

import re

import numpy as np

from sudokustudio.survo.atlas.result import AtlasResult, record_width

ATLAS_HEADER = ("# row sums | column sums | solution (rows split by /) | product setup | W | "
                "min swaps from the setup | chi-square")


def write_atlas(path, result: AtlasResult) -> None:
    """One puzzle per line, in the order of the run (sorted row-sum vectors)."""
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(f"# Survo atlas {result.m}x{result.n}: {result.count} essentially different "
                 "uniquely solvable open puzzles\n")
        fh.write(ATLAS_HEADER + "\n")
        for k in range(result.count):
            fh.write(result.puzzle_line(k) + "\n")


def parse_atlas_line(line: str, m: int, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Row sums, column sums and solution of one atlas line."""
    parts = [p.strip() for p in line.split("|")]
    if len(parts) != 7:
        raise ValueError(f"atlas line needs 7 fields separated by '|', got {len(parts)}: {line!r}")
    r = np.array(parts[0].split(), dtype=np.int64)
    c = np.array(parts[1].split(), dtype=np.int64)
    sol = np.array([row.split() for row in parts[2].split("/")], dtype=np.int64)
    if r.shape != (m,) or c.shape != (n,) or sol.shape != (m, n):
        raise ValueError(f"atlas line does not fit {m}x{n}: {line!r}")
    return r, c, sol


def read_atlas(path) -> AtlasResult:
    """Read a file written by ``write_atlas`` (the size comes from its first line)."""
    with open(path, encoding="utf-8") as fh:
        lines = fh.read().splitlines()
    head = re.match(r"# Survo atlas (\d+)x(\d+):", lines[0]) if lines else None
    if head is None:
        raise ValueError(f"{path}: line 1: not a Survo atlas file (expected '# Survo atlas MxN: ...')")
    m, n = int(head.group(1)), int(head.group(2))
    N = m * n
    recs, chis = [], []
    for no, line in enumerate(lines[1:], start=2):
        if not line.strip() or line.startswith("#"):
            continue
        try:
            r, c, sol = parse_atlas_line(line, m, n)
            parts = [p.strip() for p in line.split("|")]
            setup = np.array([row.split() for row in parts[3].split("/")], dtype=np.int64)
            if setup.shape != (m, n):
                raise ValueError("the setup does not fit the size")
            w, sw, chi = int(parts[4]), int(parts[5]), float(parts[6])
        except ValueError as exc:
            raise ValueError(f"{path}: line {no}: {exc}") from None
        if sorted(sol.ravel().tolist()) != list(range(1, N + 1)):
            raise ValueError(f"{path}: line {no}: the solution is not a table of 1..{N}")
        recs.append(np.concatenate([r, c, sol.ravel(), setup.ravel(), [w, sw]]))
        chis.append(chi)
    records = np.array(recs, dtype=np.int64).reshape(-1, record_width(m, n))
    return AtlasResult(m, n, records, np.array(chis, dtype=np.float64))
