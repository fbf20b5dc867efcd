"""The Survo puzzle model and its text formats.

A Survo puzzle is an m×n table (2 ≤ m, n ≤ 8) to be filled with 1..N
(N = m·n), each once, so that rows and columns add up to the given sums;
some numbers may be given.  Tables are ``int16[m, n]`` with 0 = unknown.

Two text forms are read (seed 001 prints both):

* Survo's matrix file ("MAT SAVE AS A" header optional): m lines of n
  numbers (0 = unknown) followed by the row sum, then a last line with the
  n column sums and a 0 in the corner::

      MAT SAVE AS A
      0 0 0 0 14
      ...
      16 33 40 47 0

* the plain form: ``*`` (or ``.``) for an unknown cell, the row sum at the
  end of each line, the column sums on the last line without a corner::

      * * * * 14
      ...
      16 33 40 47

Every error is a :class:`SurvoFormatError` naming the line (when there is
one) and what is wrong.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from sudokustudio.core.paths import TextEncodingError, decode_text

MIN_SIZE, MAX_SIZE = 2, 8
UNKNOWN_TOKENS = {"*", ".", "0"}


class SurvoFormatError(ValueError):
    """A Survo puzzle text or value that cannot be used; says where and why."""

    def __init__(self, message: str, line: int | None = None, source: str | None = None):
        self.reason = message
        self.line = line
        self.source = source
        where = ""
        if source:
            where = str(source)
        if line is not None:
            where = f"{where}, line {line}" if where else f"line {line}"
        super().__init__(f"{where}: {message}" if where else message)


@dataclass(eq=False)
class SurvoPuzzle:
    """Row sums, column sums and the given numbers (0 = unknown) of a Survo puzzle."""

    row_sums: np.ndarray
    col_sums: np.ndarray
    givens: np.ndarray = field(default=None)  # int16[m, n]
    name: str = ""

    def __post_init__(self):
        self.row_sums = np.asarray(self.row_sums, dtype=np.int64).copy()
        self.col_sums = np.asarray(self.col_sums, dtype=np.int64).copy()
        if self.givens is None:
            self.givens = np.zeros((len(self.row_sums), len(self.col_sums)), dtype=np.int16)
        else:
            self.givens = np.asarray(self.givens, dtype=np.int16).copy()

    # ------------------------------------------------------------- shape
    @property
    def m(self) -> int:
        return int(self.row_sums.shape[0])

    @property
    def n(self) -> int:
        return int(self.col_sums.shape[0])

    @property
    def cells(self) -> int:
        return self.m * self.n

    @property
    def n_givens(self) -> int:
        return int(np.count_nonzero(self.givens))

    @property
    def is_open(self) -> bool:
        return self.n_givens == 0

    def __eq__(self, other) -> bool:
        if not isinstance(other, SurvoPuzzle):
            return NotImplemented
        return (np.array_equal(self.row_sums, other.row_sums) and np.array_equal(self.col_sums, other.col_sums)
                and np.array_equal(self.givens, other.givens))

    def copy(self) -> "SurvoPuzzle":
        return SurvoPuzzle(self.row_sums, self.col_sums, self.givens, self.name)

    # ------------------------------------------------------------- checks
    def validate(self) -> "SurvoPuzzle":
        """Raise SurvoFormatError unless the puzzle is well formed; returns self."""
        validate_puzzle(self.row_sums, self.col_sums, self.givens)
        return self

    @classmethod
    def from_solution(cls, table, n_givens_mask=None, name: str = "") -> "SurvoPuzzle":
        """The puzzle whose margins are those of a filled table (givens where the mask is true)."""
        t = np.asarray(table, dtype=np.int16)
        givens = np.zeros_like(t)
        if n_givens_mask is not None:
            mask = np.asarray(n_givens_mask, dtype=bool)
            givens[mask] = t[mask]
        return cls(t.sum(axis=1), t.sum(axis=0), givens, name)

    # ------------------------------------------------------------- text
    def to_matrix_text(self, name: str = "A", header: bool = True) -> str:
        """Survo's matrix-file form, exactly as seed 001 prints it."""
        lines = [f"MAT SAVE AS {name}"] if header else []
        for i in range(self.m):
            lines.append(" ".join(str(int(v)) for v in self.givens[i]) + f" {int(self.row_sums[i])}")
        lines.append(" ".join(str(int(v)) for v in self.col_sums) + " 0")
        return "\n".join(lines) + "\n"

    def to_plain_text(self) -> str:
        """The plain form: '*' for unknown cells, row sums at the ends, column sums last."""
        width = len(str(max(int(self.row_sums.max()), int(self.col_sums.max()))))
        lines = []
        for i in range(self.m):
            cells = [(str(int(v)) if v else "*").rjust(2) for v in self.givens[i]]
            lines.append(" ".join(cells) + f" {int(self.row_sums[i]):>{width}}")
        lines.append(" ".join(str(int(v)).rjust(2) for v in self.col_sums))
        return "\n".join(lines) + "\n"

    def __str__(self) -> str:
        return self.to_plain_text()


def validate_puzzle(row_sums, col_sums, givens) -> None:
    """The checks of a Survo puzzle; raises SurvoFormatError saying what is wrong."""
    row_sums = np.asarray(row_sums, dtype=np.int64)
    col_sums = np.asarray(col_sums, dtype=np.int64)
    givens = np.asarray(givens)
    m, n = len(row_sums), len(col_sums)
    if not (MIN_SIZE <= m <= MAX_SIZE and MIN_SIZE <= n <= MAX_SIZE):
        raise SurvoFormatError(f"size {m}×{n} is outside {MIN_SIZE}..{MAX_SIZE} rows and columns")
    if givens.shape != (m, n):
        raise SurvoFormatError(f"givens table is {givens.shape[0]}×{givens.shape[1]}, expected {m}×{n}")
    cells = m * n
    total = cells * (cells + 1) // 2
    if int(row_sums.sum()) != total:
        raise SurvoFormatError(f"row sums total {int(row_sums.sum())}, expected {total} = 1+2+…+{cells}")
    if int(col_sums.sum()) != total:
        raise SurvoFormatError(f"column sums total {int(col_sums.sum())}, expected {total} = 1+2+…+{cells}")
    seen: dict[int, tuple[int, int]] = {}
    for i in range(m):
        for j in range(n):
            v = int(givens[i, j])
            if v == 0:
                continue
            if not 1 <= v <= cells:
                raise SurvoFormatError(f"given {v} at row {i + 1}, column {j + 1} is outside 1..{cells}")
            if v in seen:
                a, b = seen[v]
                raise SurvoFormatError(f"given {v} appears twice (row {a + 1}, column {b + 1} "
                                       f"and row {i + 1}, column {j + 1})")
            seen[v] = (i, j)
    for what, sums, lines in (("row", row_sums, givens), ("column", col_sums, givens.T)):
        k = lines.shape[1]
        for i, line in enumerate(lines):
            s = int(sums[i])
            # the smallest and largest sums k distinct numbers of 1..N can have
            if not k * (k + 1) // 2 <= s <= k * (2 * cells - k + 1) // 2:
                raise SurvoFormatError(f"{what} {i + 1} sum {s} is impossible for {k} distinct numbers "
                                       f"of 1..{cells}")
            g = int(line.sum())
            free = int(np.count_nonzero(line == 0))
            if g > s:
                raise SurvoFormatError(f"{what} {i + 1}: its givens add up to {g}, more than its sum {s}")
            if free == 0 and g != s:
                raise SurvoFormatError(f"{what} {i + 1} is full of givens adding up to {g}, not its sum {s}")
            if free > 0 and s - g < free * (free + 1) // 2:
                raise SurvoFormatError(f"{what} {i + 1}: {free} free cells cannot add up to the "
                                       f"remaining {s - g}")


# ------------------------------------------------------------- parsing
def _int_token(tok: str, line: int, source) -> int:
    try:
        return int(tok)
    except ValueError:
        raise SurvoFormatError(f"{tok!r} is not a whole number", line, source) from None


def _sum_token(tok: str, line: int, source, what: str, cells: int) -> int:
    """A row or column sum: a whole number no larger than 1+2+...+cells (so it fits any integer type)."""
    v = _int_token(tok, line, source)
    total = cells * (cells + 1) // 2
    if not 1 <= v <= total:
        raise SurvoFormatError(f"{what} sum {v} is outside 1..{total} (the sum of all numbers 1..{cells})",
                               line, source)
    return v


def parse_survo(text: str, source: str | None = None, validate: bool = True) -> SurvoPuzzle:
    """Read a puzzle in the matrix form or the plain form (see the module doc)."""
    rows: list[tuple[int, list[str]]] = []
    name = ""
    for lineno, raw in enumerate(text.splitlines(), start=1):
        s = raw.split("#", 1)[0].strip()
        if not s:
            continue
        up = s.upper()
        if up.startswith("MAT SAVE AS") or up.startswith("MATRIX"):
            if rows:
                raise SurvoFormatError(f"header {s!r} after the table started", lineno, source)
            name = s.split()[-1] if len(s.split()) > 3 or up.startswith("MATRIX") else ""
            continue
        rows.append((lineno, s.replace(",", " ").split()))
    if len(rows) < MIN_SIZE + 1:
        raise SurvoFormatError(f"found {len(rows)} table lines, need at least {MIN_SIZE + 1} "
                               "(rows with their sums, then the column sums)", None, source)
    body, (last_no, last) = rows[:-1], rows[-1]
    width = len(body[0][1])
    for lineno, toks in body:
        if len(toks) != width:
            raise SurvoFormatError(f"{len(toks)} numbers, expected {width} like line {body[0][0]}",
                                   lineno, source)
    n = width - 1
    if len(last) == width:  # matrix form: column sums and the corner
        corner = _int_token(last[-1], last_no, source)
        if corner != 0:
            raise SurvoFormatError(f"the corner of the last line must be 0, found {corner}", last_no, source)
        last = last[:-1]
    elif len(last) != n:
        raise SurvoFormatError(f"the column-sum line has {len(last)} numbers, expected {n} "
                               f"(or {n + 1} with the corner 0)", last_no, source)
    m = len(body)
    if not (MIN_SIZE <= m <= MAX_SIZE and MIN_SIZE <= n <= MAX_SIZE):
        raise SurvoFormatError(f"table is {m}×{n}; rows and columns must be {MIN_SIZE}..{MAX_SIZE}",
                               body[0][0], source)
    givens = np.zeros((m, n), dtype=np.int16)
    row_sums = np.zeros(m, dtype=np.int64)
    for i, (lineno, toks) in enumerate(body):
        for j, tok in enumerate(toks[:-1]):
            if tok in UNKNOWN_TOKENS:
                continue
            v = _int_token(tok, lineno, source)
            if v < 0 or v > m * n:
                raise SurvoFormatError(f"number {v} in column {j + 1} is outside 0..{m * n}", lineno, source)
            givens[i, j] = v
        row_sums[i] = _sum_token(toks[-1], lineno, source, "row", m * n)
    col_sums = np.array([_sum_token(t, last_no, source, "column", m * n) for t in last], dtype=np.int64)
    puzzle = SurvoPuzzle(row_sums, col_sums, givens, name)
    if validate:
        try:
            puzzle.validate()
        except SurvoFormatError as exc:
            raise SurvoFormatError(exc.reason, None, source) from None
    return puzzle


def read_survo(path) -> SurvoPuzzle:
    """Read a puzzle file; errors name the file and the line."""
    p = Path(path)
    try:
        data = p.read_bytes()
    except OSError as exc:
        raise SurvoFormatError(f"cannot read: {exc.strerror or exc}", None, str(p)) from None
    try:
        text = decode_text(data, str(p))
    except TextEncodingError as e:
        raise SurvoFormatError(str(e).split(": ", 1)[1], None, str(p)) from None
    if not text.strip():
        raise SurvoFormatError("the file is empty (no puzzle)", None, str(p))
    puzzle = parse_survo(text, source=p.name)
    puzzle.name = p.stem  # Survo's matrix name ("A") says less than the file name
    return puzzle


def write_survo(path, puzzle: SurvoPuzzle, name: str = "A") -> None:
    """Write a puzzle as a Survo matrix file."""
    Path(path).write_text(puzzle.to_matrix_text(name), encoding="utf-8")


def table_text(table, row_sums=None, col_sums=None) -> str:
    """A filled table as text (row sums appended and column sums below when given)."""
    t = np.asarray(table)
    w = len(str(int(t.max()))) if t.size else 1
    lines = []
    for i in range(t.shape[0]):
        s = " ".join(f"{int(v):>{w}}" for v in t[i])
        if row_sums is not None:
            s += f"  {int(row_sums[i])}"
        lines.append(s)
    if col_sums is not None:
        lines.append(" ".join(f"{int(v):>{w}}" for v in col_sums))
    return "\n".join(lines)
