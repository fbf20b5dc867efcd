"""The atlas file: one puzzle per line (``survo atlas --out``, the Atlas view's Save/Open)."""
from __future__ import annotations

import io
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


#: lines parsed per numpy call: numpy's text reader holds the GIL, so a window reading a
#: file in a worker thread gets it back between chunks (~10 ms each) rather than after
#: seconds (2×10's 843,476 lines in one call froze the window 3 s)
CHUNK_LINES = 2048


def read_atlas(path) -> AtlasResult:
    """Read a file written by ``write_atlas`` (the size comes from its first line).

    A well-formed file is parsed by numpy's text reader, CHUNK_LINES lines a
    call, and checked (every solution and setup a table of 1..mn, the sums
    those of the solution); a file that fails is read again line by line, so
    that the error names the first bad line."""
    with open(path, encoding="utf-8") as fh:
        first = fh.readline()
        head = re.match(r"# Survo atlas (\d+)x(\d+):", first)
        if head is None:
            raise ValueError(f"{path}: line 1: not a Survo atlas file (expected '# Survo atlas MxN: ...')")
        # two flat lists, not (number, line) tuples: a million tuples would make the garbage
        # collector's passes hold the GIL for 100-200 ms (window stalls while a worker reads)
        numbers, lines = [], []
        for no, line in enumerate(fh, start=2):
            if line.strip() and not line.startswith("#"):
                numbers.append(no)
                lines.append(line.rstrip("\r\n"))
    m, n = int(head.group(1)), int(head.group(2))
    chunks = [_read_chunk(m, n, lines[i:i + CHUNK_LINES]) for i in range(0, len(lines), CHUNK_LINES)]
    if any(c is None for c in chunks):
        return _read_by_line(path, m, n, zip(numbers, lines))
    if not chunks:
        return AtlasResult(m, n, np.zeros((0, record_width(m, n)), np.int64), np.zeros(0))
    return AtlasResult(m, n, np.concatenate([c[0] for c in chunks]), np.concatenate([c[1] for c in chunks]))


def _read_chunk(m: int, n: int, lines: list[str]) -> tuple[np.ndarray, np.ndarray] | None:
    """(records, chi-squares) of some data lines; None when any check fails (``_read_by_line``
    then says where)."""
    N = m * n
    width = m + n + 2 * N + 3
    if any(line.count("|") != 6 or line.count("/") != 2 * (m - 1) for line in lines):
        return None
    text = "\n".join(lines).replace("|", " ").replace("/", " ")
    try:
        vals = np.loadtxt(io.StringIO(text), dtype=np.float64, ndmin=2)
    except ValueError:
        return None
    if vals.shape[1] != width or not np.isfinite(vals).all():
        return None
    ints = vals[:, :-1]
    if not np.array_equal(ints, np.round(ints)):
        return None
    rec = ints.astype(np.int64)
    r, c = rec[:, :m], rec[:, m:m + n]
    sol = rec[:, m + n:m + n + N]
    setup = rec[:, m + n + N:m + n + 2 * N]
    want = np.arange(1, N + 1)
    if not (np.array_equal(np.sort(sol, axis=1), np.broadcast_to(want, sol.shape))
            and np.array_equal(np.sort(setup, axis=1), np.broadcast_to(want, setup.shape))):
        return None
    tables = sol.reshape(-1, m, n)
    if not (np.array_equal(tables.sum(axis=2), r) and np.array_equal(tables.sum(axis=1), c)):
        return None
    return rec.reshape(-1, record_width(m, n)), vals[:, -1].copy()


def _read_by_line(path, m: int, n: int, data) -> AtlasResult:
    """Line by line (``data``: (line number, line) pairs), raising at the first bad line with its number."""
    N = m * n
    recs, chis = [], []
    for no, line in data:
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
        if sorted(setup.ravel().tolist()) != list(range(1, N + 1)):
            raise ValueError(f"{path}: line {no}: the product setup is not a table of 1..{N}")
        if not (np.array_equal(sol.sum(axis=1), r) and np.array_equal(sol.sum(axis=0), c)):
            raise ValueError(f"{path}: line {no}: the row and column sums are not those of the solution")
        recs.append(np.concatenate([r, c, sol.ravel(), setup.ravel(), [w, sw]]))
        chis.append(chi)
    records = np.array(recs, dtype=np.int64).reshape(-1, record_width(m, n))
    return AtlasResult(m, n, records, np.array(chis, dtype=np.float64))
