"""Puzzles and grids as ``uint8[81]``: text formats, validity, symmetry transforms.

Formats read: one-line 81-character puzzles ('.' or '0' = empty; '#'
comments, blank lines, CRLF and trailing fields tolerated), ``.sdk``
(nine rows of nine) and multi-puzzle ``.txt``/``.sdm`` files.  Every error
names the file, the line and what is wrong.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numba import njit

from sudokustudio.core.paths import TextEncodingError, decode_text
from sudokustudio.core.rng import rand_below, shuffle_inplace
from sudokustudio.sudoku.tables import UNITS

EMPTY_CHARS = ".0"


class PuzzleFormatError(ValueError):
    """A puzzle text that cannot be read; says where and why."""

    def __init__(self, message: str, source: str | None = None, line: int | None = None):
        self.source = source
        self.line = line
        self.reason = message
        where = ""
        if source is not None:
            where = f"{source}"
        if line is not None:
            where = f"{where}, line {line}" if where else f"line {line}"
        super().__init__(f"{where}: {message}" if where else message)


# ------------------------------------------------------------- one puzzle
def parse_puzzle(text: str, *, source: str | None = None, line: int | None = None,
                 check_units: bool = True) -> np.ndarray:
    """Parse one 81-character puzzle (extra whitespace-separated fields ignored)."""
    s = text.strip()
    if not s:
        raise PuzzleFormatError("empty line, expected 81 cells", source, line)
    token = s.split()[0]
    if len(token) < 81:
        raise PuzzleFormatError(f"wrong length: {len(token)} characters, expected 81", source, line)
    if len(token) > 81:
        raise PuzzleFormatError(f"wrong length: {len(token)} characters, expected 81", source, line)
    out = np.zeros(81, dtype=np.uint8)
    for i, ch in enumerate(token):
        if ch in EMPTY_CHARS:
            continue
        if "1" <= ch <= "9":
            out[i] = ord(ch) - 48
        else:
            r, c = divmod(i, 9)
            raise PuzzleFormatError(f"bad character {ch!r} at r{r + 1}c{c + 1} (column {i + 1})", source, line)
    if check_units:
        dup = find_duplicate(out)
        if dup is not None:
            raise PuzzleFormatError(dup, source, line)
    return out


def find_duplicate(puzzle: np.ndarray) -> str | None:
    """A description of the first digit repeated in a unit, or None."""
    names = [f"row {i + 1}" for i in range(9)] + [f"column {i + 1}" for i in range(9)] + [
        f"box {i + 1}" for i in range(9)]
    for u in range(27):
        seen = {}
        for cell in UNITS[u]:
            d = int(puzzle[cell])
            if d == 0:
                continue
            if d in seen:
                return f"duplicate digit {d} in {names[u]}"
            seen[d] = cell
    return None


def format_puzzle(puzzle, empty: str = ".") -> str:
    p = np.asarray(puzzle).reshape(81)
    return "".join(str(int(d)) if d else empty for d in p)


def format_puzzles(puzzles, empty: str = ".") -> list[str]:
    """``format_puzzle`` of many puzzles at once (uint8[N, 81] -> N strings of 81 characters):
    one bytes conversion instead of 81 str() calls a puzzle (5,000 puzzles: ~2 ms, not ~130 ms)."""
    p = np.ascontiguousarray(puzzles, dtype=np.uint8).reshape(-1, 81)
    chars = np.where(p == 0, ord(empty), p + ord("0")).astype(np.uint8)
    text = chars.tobytes().decode("ascii")
    return [text[i:i + 81] for i in range(0, len(text), 81)]


def format_sdk(puzzle, empty: str = ".") -> str:
    s = format_puzzle(puzzle, empty)
    return "\n".join(s[i:i + 9] for i in range(0, 81, 9)) + "\n"


def format_pretty(puzzle, empty: str = ".") -> str:
    s = format_puzzle(puzzle, empty)
    lines = []
    for r in range(9):
        row = s[r * 9:(r + 1) * 9]
        lines.append(" ".join([" ".join(row[0:3]), "|", " ".join(row[3:6]), "|", " ".join(row[6:9])]))
        if r in (2, 5):
            lines.append("------+-------+------")
    return "\n".join(lines)


# ------------------------------------------------------------- collections
@dataclass
class ReadIssue:
    """A line that could not be read (kept so callers can report and go on)."""

    line: int
    message: str

    def __str__(self) -> str:
        return f"line {self.line}: {self.message}"


@dataclass
class PuzzleCollection:
    puzzles: np.ndarray            # uint8[N, 81]
    lines: list[int]               # source line of each puzzle
    extras: list[str]              # trailing fields of each line ('' if none)
    issues: list[ReadIssue]        # unreadable lines
    source: str = ""

    def __len__(self) -> int:
        return self.puzzles.shape[0]


def _is_sdk_layout(rows: list[str]) -> bool:
    return len(rows) == 9 and all(len(r) == 9 for r in rows)


def parse_collection(text: str, source: str = "<text>", *, strict: bool = False,
                     check_units: bool = True) -> PuzzleCollection:
    """Parse a multi-puzzle text: one puzzle per line, or one .sdk block of 9 rows.

    With ``strict`` the first bad line raises PuzzleFormatError; otherwise
    bad lines are collected in ``issues`` and skipped.
    """
    raw_lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    content = [(i + 1, ln.strip()) for i, ln in enumerate(raw_lines)]
    content = [(n, s) for n, s in content if s and not s.startswith("#")]
    rows = [s.split()[0] for _, s in content]
    if _is_sdk_layout(rows):
        # .sdk: nine rows of nine cells
        p = parse_puzzle("".join(rows), source=source, line=content[0][0], check_units=check_units)
        return PuzzleCollection(p[None, :], [content[0][0]], [""], [], source)
    fast, fast_ok = parse_rows(rows, check_units)
    puzzles, lines, extras, issues = [], [], [], []
    for k, (n, s) in enumerate(content):
        if fast_ok[k]:
            puzzles.append(fast[k])
        else:   # parse_puzzle names what is wrong with the line
            try:
                puzzles.append(parse_puzzle(s, source=source, line=n, check_units=check_units))
            except PuzzleFormatError as e:
                if strict:
                    raise
                issues.append(ReadIssue(n, e.reason))
                continue
        lines.append(n)
        parts = s.split(None, 1)
        extras.append(parts[1] if len(parts) > 1 else "")
    arr = np.array(puzzles, dtype=np.uint8).reshape(-1, 81)
    return PuzzleCollection(arr, lines, extras, issues, source)


_CELL_VALUE = np.full(256, 255, dtype=np.uint8)   # byte -> digit, 0 empty, 255 not a cell
_CELL_VALUE[[ord(c) for c in EMPTY_CHARS]] = 0
_CELL_VALUE[ord("1"):ord("9") + 1] = np.arange(1, 10, dtype=np.uint8)


def parse_rows(rows: list[str], check_units: bool) -> tuple[np.ndarray, np.ndarray]:
    """All first fields at once (numpy): uint8[N, 81] and which rows are good puzzles.
    A row marked bad goes through parse_puzzle for its message.  Cell by cell in Python,
    a 49,158-puzzle file took ~15 CPU-s (the duplicate check); this takes well under one."""
    ok = np.array([len(r) == 81 and r.isascii() for r in rows], dtype=np.bool_)
    out = np.zeros((len(rows), 81), dtype=np.uint8)
    if not ok.any():
        return out, ok
    idx = np.flatnonzero(ok)
    raw = np.frombuffer("".join(rows[i] for i in idx).encode("ascii"), dtype=np.uint8).reshape(-1, 81)
    cells = _CELL_VALUE[raw]
    good = (cells != 255).all(axis=1)
    if check_units:
        units = np.sort(cells[:, UNITS], axis=2)                 # [n, 27, 9]
        repeated = (units[:, :, 1:] == units[:, :, :-1]) & (units[:, :, 1:] != 0)
        good &= ~repeated.any(axis=(1, 2))
    out[idx] = cells
    ok[idx] = good
    return out, ok


def read_puzzles(path: str | os.PathLike, *, strict: bool = False,
                 check_units: bool = True) -> PuzzleCollection:
    """Read a puzzle file (.txt, .sdm, .sdk, one-line).  Raises PuzzleFormatError
    naming the file if it cannot be read at all."""
    p = Path(path)
    try:
        data = p.read_bytes()
    except OSError as e:
        raise PuzzleFormatError(f"cannot read file: {e.strerror or e}", str(p)) from e
    try:
        text = decode_text(data, str(p))
    except TextEncodingError as e:
        raise PuzzleFormatError(str(e).split(": ", 1)[1], str(p)) from None
    if not text.strip():
        raise PuzzleFormatError("the file is empty (no puzzle)", str(p))
    coll = parse_collection(text, source=str(p), strict=strict, check_units=check_units)
    if len(coll) == 0 and coll.issues:
        first = coll.issues[0]
        raise PuzzleFormatError(f"no readable puzzle ({len(coll.issues)} bad lines; first: {first.message})",
                                str(p), first.line)
    return coll


def write_puzzles(path: str | os.PathLike, puzzles, empty: str = ".", extras=None) -> None:
    """Write one puzzle per line (.txt/.sdm) or a single .sdk block."""
    p = Path(path)
    arr = np.asarray(puzzles, dtype=np.uint8).reshape(-1, 81)
    if p.suffix.lower() == ".sdk":
        if arr.shape[0] != 1:
            raise ValueError(".sdk holds one puzzle; use .txt or .sdm for collections")
        p.write_text(format_sdk(arr[0], empty), encoding="utf-8")
        return
    with p.open("w", encoding="utf-8", newline="\n") as f:
        for i, row in enumerate(arr):
            line = format_puzzle(row, empty)
            if extras is not None and extras[i]:
                line += " " + str(extras[i])
            f.write(line + "\n")


# ------------------------------------------------------------- validity
@njit(cache=True, nogil=True)
def is_valid_grid(grid) -> bool:
    """True for a complete grid obeying all 27 unit constraints."""
    for u in range(27):
        seen = 0
        for k in range(9):
            d = grid[UNITS[u, k]]
            if d < 1 or d > 9:
                return False
            bit = 1 << (d - 1)
            if seen & bit:
                return False
            seen |= bit
    return True


@njit(cache=True, nogil=True)
def is_consistent(puzzle) -> bool:
    """True when no digit repeats in a unit (empty cells allowed)."""
    for u in range(27):
        seen = 0
        for k in range(9):
            d = puzzle[UNITS[u, k]]
            if d == 0:
                continue
            bit = 1 << (d - 1)
            if seen & bit:
                return False
            seen |= bit
    return True


# ------------------------------------------------------------- symmetry
# A transform is (digit map uint8[10] with map[0]=0, cell permutation int64[81],
# where new[cell] = digit_map[old[perm[cell]]]).
def identity_transform():
    return np.arange(10, dtype=np.uint8), np.arange(81, dtype=np.int64)


def _cells_from_rows_cols(rows, cols, transpose=False):
    perm = np.empty(81, dtype=np.int64)
    for r in range(9):
        for c in range(9):
            src_r, src_c = rows[r], cols[c]
            if transpose:
                src_r, src_c = src_c, src_r
            perm[r * 9 + c] = src_r * 9 + src_c
    return perm


def apply_transform(puzzle, digit_map, perm) -> np.ndarray:
    p = np.asarray(puzzle, dtype=np.uint8).reshape(81)
    return np.asarray(digit_map, dtype=np.uint8)[p[perm]]


def relabel(puzzle, digit_map) -> np.ndarray:
    """Digit relabelling; ``digit_map[d]`` is the new digit for d (map[0] = 0)."""
    dm = np.asarray(digit_map, dtype=np.uint8)
    if dm.shape != (10,) or dm[0] != 0 or sorted(dm[1:]) != list(range(1, 10)):
        raise ValueError("digit_map must map 0->0 and permute 1..9")
    return dm[np.asarray(puzzle, dtype=np.uint8).reshape(81)]


def permute_rows(puzzle, rows) -> np.ndarray:
    """New row r is old row ``rows[r]``; must keep rows inside their bands
    unless whole bands are moved together (checked)."""
    rows = list(rows)
    _check_band_preserving(rows, "rows")
    return np.asarray(puzzle, dtype=np.uint8).reshape(81)[_cells_from_rows_cols(rows, range(9))]


def permute_cols(puzzle, cols) -> np.ndarray:
    cols = list(cols)
    _check_band_preserving(cols, "columns")
    return np.asarray(puzzle, dtype=np.uint8).reshape(81)[_cells_from_rows_cols(range(9), cols)]


def transpose(puzzle) -> np.ndarray:
    return np.asarray(puzzle, dtype=np.uint8).reshape(9, 9).T.reshape(81).copy()


def band_permutation(bands, within=((0, 1, 2),) * 3) -> list[int]:
    """Row order from a band order and an order of rows inside each band."""
    return [3 * bands[b] + within[b][i] for b in range(3) for i in range(3)]


def _check_band_preserving(order, what):
    if sorted(order) != list(range(9)):
        raise ValueError(f"{what} must be a permutation of 0..8")
    for b in range(3):
        chunk = order[3 * b:3 * b + 3]
        if len({x // 3 for x in chunk}) != 1:
            raise ValueError(f"{what} permutation breaks a band/stack: {order}")


@njit(cache=True, nogil=True)
def random_transform_kernel(rng, digit_map, perm):
    """Fill a uniformly random element of the Sudoku symmetry group (size 2*6^8*9!)."""
    digits = np.arange(1, 10, dtype=np.int64)   # int64 like every shuffled array: one compiled shuffle
    shuffle_inplace(rng, digits)
    digit_map[0] = 0
    for i in range(9):
        digit_map[i + 1] = digits[i]
    rows = np.empty(9, dtype=np.int64)
    cols = np.empty(9, dtype=np.int64)
    order = np.arange(3, dtype=np.int64)
    inner = np.arange(3, dtype=np.int64)
    for target in range(2):
        out = rows if target == 0 else cols
        shuffle_inplace(rng, order)
        for b in range(3):
            for i in range(3):
                inner[i] = i
            shuffle_inplace(rng, inner)
            for i in range(3):
                out[3 * b + i] = 3 * order[b] + inner[i]
    tr = rand_below(rng, 2)
    for r in range(9):
        for c in range(9):
            if tr:
                perm[r * 9 + c] = cols[c] * 9 + rows[r]
            else:
                perm[r * 9 + c] = rows[r] * 9 + cols[c]


@njit(cache=True, nogil=True)
def random_isomorph_kernel(puzzle, rng, out):
    dm = np.empty(10, dtype=np.uint8)
    perm = np.empty(81, dtype=np.int64)
    random_transform_kernel(rng, dm, perm)
    for i in range(81):
        out[i] = dm[puzzle[perm[i]]]


def random_isomorph(puzzle, rng) -> np.ndarray:
    """A uniformly random isomorph of ``puzzle`` (``rng``: a core.rng state)."""
    out = np.empty(81, dtype=np.uint8)
    random_isomorph_kernel(np.ascontiguousarray(puzzle, dtype=np.uint8).reshape(81), rng, out)
    return out
