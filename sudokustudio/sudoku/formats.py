"""Puzzle files beyond ``grid.read_puzzles``: pencil-mark lines, trailing-field styles
and gzip, read into a collection that carries every puzzle's candidates.

Per line (``#`` comments and blank lines skipped, as in ``grid``):

- 81 characters: a puzzle ('.' or '0' empty), read by ``grid.parse_collection``
  so plain files read exactly as before;
- 729 characters: pencil marks, cell by cell (r1c1 first), nine slots per cell;
  slot k (1..9) holds the digit k when k is a candidate, '.' or '0' when it is
  eliminated (the forum's usual one-line candidate grid);
- HoDoKu's library format, ``:technique:candidate:sudoku:deleted:eliminations:...``
  (6 or 7 colons): the sudoku field is 81 cells where ``+`` marks a placed digit
  that is not a given, the deleted field lists eliminated candidates as
  digit-row-column triples (``412 937``).  The line is kept whole as the extras;
- either may be followed by fields: HoDoKu's ``puzzle #comment`` (the ``#``
  may touch the puzzle), tab-separated fields, Sudoku Explainer's
  ``puzzle ED=7.1/1.2/1.2``, or ``,``/``;`` separated fields.  They are kept
  as the line's ``extras``.

A file whose bytes start with gzip's magic (1f 8b) is decompressed first,
whatever its name.  Every error names the file and the line.
"""
from __future__ import annotations

import gzip
import io
import os
import re
import zlib
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from sudokustudio.core.paths import TextEncodingError, decode_text
from sudokustudio.sudoku.candidates import ALL_DIGITS, puzzle_candidates, singles_of
from sudokustudio.sudoku.grid import (PuzzleCollection, PuzzleFormatError, ReadIssue, find_duplicate, format_puzzle,
                                      format_puzzles, parse_collection)

PENCIL_LENGTH = 729
_PLAIN_UP_TO = (81 + PENCIL_LENGTH) // 2   # a longer token is read (and its errors named) as pencil marks
GZIP_MAGIC = b"\x1f\x8b"
MAX_TEXT_BYTES = 1 << 30      # of a gunzipped file
_CELL_RUN = re.compile(r"[.0-9]+")
_FIELD_START = "#,;"          # a field may touch the puzzle after these
_PENCIL_SLOT = np.full((256, 9), 255, dtype=np.uint16)   # byte, slot -> bit (0 eliminated, 255 bad)
for _k in range(9):
    _PENCIL_SLOT[ord("."), _k] = 0
    _PENCIL_SLOT[ord("0"), _k] = 0
    _PENCIL_SLOT[ord("1") + _k, _k] = 1 << _k


_MASK_TEXT = ["".join(str(k + 1) if m >> k & 1 else "." for k in range(9)) for m in range(512)]


@dataclass
class MarkedCollection(PuzzleCollection):
    """A PuzzleCollection with every puzzle's candidates.

    ``cands[i]`` (uint16[81]): bit d-1 set when digit d is a candidate; for a
    plain puzzle a given's digit alone and all nine in an empty cell.
    ``marked[i]``: the line gave pencil marks; ``puzzles[i]`` then holds its
    cells with a single candidate.
    """

    cands: np.ndarray = field(default_factory=lambda: np.zeros((0, 81), np.uint16))
    marked: np.ndarray = field(default_factory=lambda: np.zeros(0, np.bool_))

    @property
    def has_marks(self) -> bool:
        return bool(self.marked.any())

    def line_text(self, i: int, empty: str = ".") -> str:
        """Row i as its own kind of line: 729 pencil-mark characters or 81 cells."""
        return format_candidates(self.cands[i], empty) if self.marked[i] else format_puzzle(self.puzzles[i], empty)


# ------------------------------------------------------------------ one line
def parse_candidates(text: str, *, source: str | None = None, line: int | None = None,
                     check_units: bool = True) -> np.ndarray:
    """Candidate masks (uint16[81]) of one 729-character pencil-mark line."""
    token = text.strip().split()[0] if text.strip() else ""
    if len(token) != PENCIL_LENGTH:
        raise PuzzleFormatError(f"wrong length: {len(token)} characters, expected {PENCIL_LENGTH} "
                                f"for pencil marks", source, line)
    raw = np.frombuffer(token.encode("latin-1", "replace"), dtype=np.uint8).reshape(81, 9)
    bits = _PENCIL_SLOT[raw, np.arange(9)]
    bad = np.argwhere(bits == 255)
    if len(bad):
        cell, slot = (int(v) for v in bad[0])
        ch = token[cell * 9 + slot]
        what = f"digit {ch}" if ch.isdigit() else f"bad character {ch!r}"
        raise PuzzleFormatError(f"{what} in slot {slot + 1} of {_cell_name(cell)} (column {cell * 9 + slot + 1}); "
                                f"slot k holds the digit k or '.'", source, line)
    cands = bits.sum(axis=1).astype(np.uint16)
    empty = np.flatnonzero(cands == 0)
    if len(empty):
        c = int(empty[0])
        raise PuzzleFormatError(f"{_cell_name(c)} has no candidate (columns {c * 9 + 1}-{c * 9 + 9})",
                                source, line)
    if check_units:
        dup = find_duplicate(singles_of(cands))
        if dup is not None:
            raise PuzzleFormatError(f"{dup} (cells with a single candidate)", source, line)
    return cands


def format_candidates(cands, empty: str = ".") -> str:
    """The 729-character pencil-mark line of candidate masks uint16[81]."""
    c = np.asarray(cands, dtype=np.uint16).reshape(81)
    text = "".join(_MASK_TEXT[m & ALL_DIGITS] for m in c.tolist())
    return text if empty == "." else text.replace(".", empty)


def is_hodoku_library_line(s: str) -> bool:
    return s.startswith(":") and s.count(":") in (6, 7)


def parse_hodoku_library(s: str, *, source: str | None = None, line: int | None = None,
                         check_units: bool = True) -> tuple[np.ndarray, bool]:
    """(candidate masks uint16[81], whether they say more than the givens) of one HoDoKu
    library line.  As in HoDoKu, a deletion in a placed cell is ignored."""
    fields = s.split(":")
    sudoku = fields[3].strip()
    placed_not_given = "+" in sudoku
    cells = sudoku.replace("+", "")
    if len(cells) != 81:
        raise PuzzleFormatError(f"HoDoKu library line: the sudoku (4th field) has {len(cells)} cells, "
                                f"expected 81", source, line)
    bad = next((i for i, ch in enumerate(cells) if ch not in ".0123456789"), None)
    if bad is not None:
        raise PuzzleFormatError(f"HoDoKu library line: bad character {cells[bad]!r} at {_cell_name(bad)} "
                                f"in the sudoku field", source, line)
    puzzle = np.frombuffer(cells.replace(".", "0").encode("ascii"), dtype=np.uint8) - 48
    if check_units:
        dup = find_duplicate(puzzle)
        if dup is not None:
            raise PuzzleFormatError(f"HoDoKu library line: {dup}", source, line)
    cands = puzzle_candidates(puzzle)
    deleted = fields[4].split() if len(fields) > 4 else []
    for item in deleted:
        if len(item) != 3 or not item.isdigit() or "0" in item:
            raise PuzzleFormatError(f"HoDoKu library line: deleted candidate {item!r} is not "
                                    f"digit-row-column (like 412)", source, line)
        d, r, c = (int(ch) for ch in item)
        cell = (r - 1) * 9 + c - 1
        if puzzle[cell] == 0:
            cands[cell] &= ~np.uint16(1 << (d - 1))
            if cands[cell] == 0:
                raise PuzzleFormatError(f"HoDoKu library line: {_cell_name(cell)} has no candidate left",
                                        source, line)
    return cands, placed_not_given or bool((cands != puzzle_candidates(puzzle)).any())


def _cell_name(cell: int) -> str:
    return f"r{cell // 9 + 1}c{cell % 9 + 1}"


def _split_fields(s: str) -> tuple[str, str]:
    """(cells, extras) of a stripped content line.  The cells are the leading run of
    cell characters when a separator (whitespace, '#', ',', ';') or the end follows it;
    otherwise the first whitespace token, for the parser to name what is wrong."""
    m = _CELL_RUN.match(s)
    if m:
        end = m.end()
        if end == len(s):
            return s, ""
        if s[end].isspace() or s[end] in _FIELD_START:
            rest = s[end:].strip()
            if rest[:1] in ",;":
                rest = rest[1:].strip()
            return s[:end], rest
    parts = s.split(None, 1)
    return parts[0], parts[1] if len(parts) > 1 else ""


# ------------------------------------------------------------------ a text
def parse_marked_collection(text: str, source: str = "<text>", *, strict: bool = False,
                            check_units: bool = True, pencil_marks: bool = True) -> MarkedCollection:
    """Parse a multi-puzzle text of 81- and 729-character lines (see the module
    docstring).  With ``strict`` the first bad line raises PuzzleFormatError;
    with ``pencil_marks=False`` a pencil-mark line is an unreadable line."""
    raw_lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    plain_lines = []          # the text grid reads: pencil lines blanked, fields set apart by a space
    pencil = {}               # line number -> (cands, extras, marked): pencil marks, HoDoKu library lines
    issues = []
    for n, ln in enumerate(raw_lines, start=1):
        s = ln.strip()
        if not s or s.startswith("#"):
            plain_lines.append("")
            continue
        if is_hodoku_library_line(s):
            plain_lines.append("")
            try:
                cands, says_more = parse_hodoku_library(s, source=source, line=n, check_units=check_units)
            except PuzzleFormatError as e:
                issues.append(ReadIssue(n, e.reason))
                continue
            if says_more and not pencil_marks:
                issues.append(ReadIssue(n, "HoDoKu library line with deleted candidates or placed digits: "
                                           "pencil marks are not accepted here"))
                continue
            pencil[n] = (cands, s, says_more)
            continue
        cells, extras = _split_fields(s)
        if len(cells) <= _PLAIN_UP_TO:
            plain_lines.append(f"{cells} {extras}" if extras else cells)
            continue
        plain_lines.append("")
        if not pencil_marks:
            issues.append(ReadIssue(n, f"pencil marks ({len(cells)} characters) are not accepted here; "
                                       f"expected an 81-character puzzle"))
            continue
        try:
            pencil[n] = (parse_candidates(cells, source=source, line=n, check_units=check_units), extras, True)
        except PuzzleFormatError as e:
            issues.append(ReadIssue(n, e.reason))
    plain = parse_collection("\n".join(plain_lines), source, check_units=check_units)
    coll = _merge(plain, pencil, issues, source)
    if strict and coll.issues:
        first = coll.issues[0]
        raise PuzzleFormatError(first.message, source, first.line)
    return coll


def _merge(plain: PuzzleCollection, pencil: dict, issues: list[ReadIssue], source: str) -> MarkedCollection:
    """One collection in line order from grid's plain rows and the pencil-mark rows."""
    all_issues = sorted(plain.issues + issues, key=lambda i: i.line)
    plain_cands = puzzle_candidates(plain.puzzles)
    if not pencil:
        return MarkedCollection(plain.puzzles, plain.lines, plain.extras, all_issues, source,
                                plain_cands, np.zeros(len(plain), np.bool_))
    rows = sorted([(n, False, k) for k, n in enumerate(plain.lines)] + [(n, True, n) for n in pencil])
    cands = np.empty((len(rows), 81), dtype=np.uint16)
    marked = np.zeros(len(rows), dtype=np.bool_)
    extras = []
    for i, (n, is_pencil, k) in enumerate(rows):
        if is_pencil:
            cands[i], extra, marked[i] = pencil[k]
        else:
            cands[i], extra = plain_cands[k], plain.extras[k]
        extras.append(extra)
    return MarkedCollection(singles_of(cands), [r[0] for r in rows], extras, all_issues, source, cands, marked)


# ------------------------------------------------------------------ files
def read_text(path: str | os.PathLike) -> str:
    """The text of a puzzle file, gunzipped when its bytes start with gzip's magic."""
    p = Path(path)
    try:
        data = p.read_bytes()
    except OSError as e:
        raise PuzzleFormatError(f"cannot read file: {e.strerror or e}", str(p)) from e
    if data[:2] == GZIP_MAGIC:
        try:
            with gzip.GzipFile(fileobj=io.BytesIO(data)) as z:
                data = z.read(MAX_TEXT_BYTES + 1)
        except (OSError, EOFError, zlib.error) as e:
            raise PuzzleFormatError(f"starts like a gzip file but cannot be decompressed ({e})", str(p)) from None
        if len(data) > MAX_TEXT_BYTES:   # a few kilobytes can unpack to gigabytes
            raise PuzzleFormatError(f"decompresses to more than {MAX_TEXT_BYTES:,} bytes; not read", str(p))
    try:
        return decode_text(data, str(p))
    except TextEncodingError as e:
        raise PuzzleFormatError(str(e).split(": ", 1)[1], str(p)) from None


def read_collection(path: str | os.PathLike, *, strict: bool = False, check_units: bool = True,
                    pencil_marks: bool = True) -> MarkedCollection:
    """Read a puzzle file of any supported format (module docstring), gzipped or not.
    Raises PuzzleFormatError naming the file if it cannot be read at all."""
    text = read_text(path)
    source = str(Path(path))
    if not text.strip():
        raise PuzzleFormatError("the file is empty (no puzzle)", source)
    coll = parse_marked_collection(text, source, strict=strict, check_units=check_units,
                                   pencil_marks=pencil_marks)
    if len(coll) == 0 and coll.issues:
        first = coll.issues[0]
        raise PuzzleFormatError(f"no readable puzzle ({len(coll.issues)} bad lines; first: {first.message})",
                                source, first.line)
    return coll


def _is_gzip_name(p: Path) -> bool:
    return p.suffix.lower() == ".gz"


def write_collection(path: str | os.PathLike, puzzles=None, *, cands=None, marked=None, extras=None,
                     empty: str = ".") -> None:
    """Write puzzles (81 characters) and/or candidate grids (729 characters), one per
    line, each followed by its extras; ``.sdk`` (one plain puzzle) as nine rows.  A
    ``.gz`` suffix gzips the file (``x.sdk.gz``: a gzipped .sdk).

    With ``cands`` (uint16[N, 81]) the rows where ``marked`` is set (all when it is
    None) are written as pencil marks, the others from ``puzzles`` (or from the
    single candidates when ``puzzles`` is None)."""
    lines = _line_texts(puzzles, cands, marked, empty)
    p = Path(path)
    inner = p.with_suffix("") if _is_gzip_name(p) else p
    if inner.suffix.lower() == ".sdk":
        if len(lines) != 1 or len(lines[0]) != 81:
            raise ValueError(".sdk holds one plain puzzle; use .txt or .sdm for collections and pencil marks")
        text = "\n".join(lines[0][i:i + 9] for i in range(0, 81, 9)) + "\n"
    else:
        text = "".join(f"{ln} {extras[i]}\n" if extras is not None and extras[i] else ln + "\n"
                       for i, ln in enumerate(lines))
    data = text.encode("utf-8")
    if _is_gzip_name(p):
        data = gzip.compress(data, mtime=0)
    p.write_bytes(data)


def write_marked_collection(path: str | os.PathLike, coll: MarkedCollection, empty: str = ".") -> None:
    """Write a collection back, each row as it was read (pencil marks or a puzzle) with its extras."""
    write_collection(path, coll.puzzles, cands=coll.cands, marked=coll.marked, extras=coll.extras, empty=empty)


def _line_texts(puzzles, cands, marked, empty: str) -> list[str]:
    if cands is None:
        if puzzles is None:
            raise ValueError("nothing to write: give puzzles or cands")
        return format_puzzles(puzzles, empty)
    c = np.asarray(cands, dtype=np.uint16).reshape(-1, 81)
    if (c & ALL_DIGITS != c).any():
        raise ValueError("candidate masks must be below 512")
    m = np.ones(len(c), np.bool_) if marked is None else np.asarray(marked, dtype=np.bool_)
    p = singles_of(c) if puzzles is None else np.asarray(puzzles, dtype=np.uint8).reshape(-1, 81)
    return [format_candidates(c[i], empty) if m[i] else format_puzzle(p[i], empty) for i in range(len(c))]
