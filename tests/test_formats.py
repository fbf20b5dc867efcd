"""sudoku.formats and sudoku.candidates: formats round-trip, bad lines named; the solver and
the W-rating take pencil marks (729-character lines)."""
import gzip
import json

import numpy as np
import pytest

from sudokustudio.cli import main
from sudokustudio.sudoku.candidates import (ALL_DIGITS, count_solutions_with_candidates, puzzle_candidates,
                                            singles_of, solve_candidates_batch, solve_with_candidates)
from sudokustudio.sudoku.formats import (format_candidates, parse_candidates, parse_marked_collection,
                                         read_collection, write_collection, write_marked_collection)
from sudokustudio.sudoku.grid import PuzzleFormatError, format_puzzle, is_valid_grid, read_puzzles
from sudokustudio.sudoku.rating import RatingJob, w_rating_path
from sudokustudio.sudoku.rating.kernels import W_INVALID, brt_candidates, rate_candidates, rate_puzzles
from sudokustudio.sudoku.rating.paths import w_rating_path_from_candidates
from sudokustudio.sudoku.solver import solve_batch

PUZZLE = "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79"
GRID = "534678912672195348198342567859761423426853791713924856961537284287419635345286179"
CB = "controlled_bias/001-puzzles.txt"


def _data(shared_data, name, n, check_units=True):
    return read_puzzles(shared_data / name, check_units=check_units).puzzles[:n]


def _digits(text):
    return np.array([0 if ch in ".0" else int(ch) for ch in text], dtype=np.uint8)


def _brt_marks(puzzles):
    """Each puzzle's candidates after BRT: pencil marks a solver would show."""
    return np.array([brt_candidates(puzzle_candidates(p)) for p in puzzles], dtype=np.uint16)


# ------------------------------------------------------------------ plain files read as before
@pytest.mark.parametrize("name", ["puzzles3_magictour_top1465", "puzzles7_serg_benchmark", CB])
def test_plain_files_read_exactly_as_grid_reads_them(shared_data, name):
    """Comments, CRLF (serg) and trailing fields (the 001 file's tries) as read_puzzles does."""
    a = read_puzzles(shared_data / name, check_units=False)
    b = read_collection(shared_data / name, check_units=False)
    assert np.array_equal(a.puzzles, b.puzzles) and a.lines == b.lines and a.extras == b.extras
    assert not b.has_marks and np.array_equal(b.cands, puzzle_candidates(a.puzzles))
    assert np.array_equal(singles_of(b.cands), b.puzzles)


def test_plain_candidates_are_the_givens_and_nine_elsewhere():
    c = puzzle_candidates(_digits(PUZZLE))
    assert c[0] == 1 << 4 and c[2] == ALL_DIGITS and c[80] == 1 << 8
    assert format_candidates(c)[:27] == "....5......3......123456789"


# ------------------------------------------------------------------ round trips
TRAILING = ["#1 HoDoKu comment", "ED=7.1/1.2/1.2", "field2\tfield3", "", "200314"]


@pytest.mark.parametrize("name", ["p.txt", "p.sdm", "p.txt.gz"])
def test_plain_lines_with_trailing_fields_round_trip(shared_data, tmp_path, name):
    puzzles = _data(shared_data, "puzzles3_magictour_top1465", len(TRAILING))
    write_collection(tmp_path / name, puzzles, extras=TRAILING)
    back = read_collection(tmp_path / name)
    assert np.array_equal(back.puzzles, puzzles) and back.extras == TRAILING and back.lines == [1, 2, 3, 4, 5]
    assert ((tmp_path / name).read_bytes()[:2] == b"\x1f\x8b") == name.endswith(".gz")


def test_hodoku_and_explainer_styles_keep_their_fields(tmp_path):
    """'#' touching the puzzle, tabs, SE's ED= field, ',' and ';' separated fields."""
    f = tmp_path / "styles.txt"
    f.write_text(f"{PUZZLE}#from HoDoKu\n{PUZZLE}\t\tED=2.3/1.2/1.2\n{PUZZLE}   ED=2.3/1.2/1.2\n"
                 f"{PUZZLE},2.3,hard\n{PUZZLE};x\n")
    coll = read_collection(f)
    assert coll.extras == ["#from HoDoKu", "ED=2.3/1.2/1.2", "ED=2.3/1.2/1.2", "2.3,hard", "x"]
    assert all(format_puzzle(p) == PUZZLE for p in coll.puzzles) and not coll.issues
    write_marked_collection(tmp_path / "again.txt", coll)
    again = read_collection(tmp_path / "again.txt")
    assert again.extras == coll.extras and np.array_equal(again.puzzles, coll.puzzles)


def _mixed(shared_data):
    """Six 001 puzzles: rows 0, 2, 4 as their pencil marks after BRT, the others plain."""
    puzzles = _data(shared_data, CB, 6)
    cands = _brt_marks(puzzles)
    marked = np.array([True, False, True, False, True, False])
    return puzzles, cands, marked


@pytest.mark.parametrize("name", ["m.txt", "m.txt.gz"])
def test_pencil_marks_round_trip_mixed_with_puzzles(shared_data, tmp_path, name):
    puzzles, cands, marked = _mixed(shared_data)
    extras = ["ED=1.2/1.2/1.2", "", "#pm", "a\tb", "", "x"]
    write_collection(tmp_path / name, puzzles, cands=cands, marked=marked, extras=extras)
    back = read_collection(tmp_path / name)
    assert np.array_equal(back.marked, marked) and back.extras == extras and back.lines == list(range(1, 7))
    expect = np.where(marked[:, None], cands, puzzle_candidates(puzzles))
    assert np.array_equal(back.cands, expect)
    assert np.array_equal(back.puzzles[~marked], puzzles[~marked])
    assert np.array_equal(back.puzzles[marked], singles_of(cands[marked]))
    assert [len(back.line_text(i)) for i in range(6)] == [729, 81, 729, 81, 729, 81]
    write_marked_collection(tmp_path / ("again" + name), back)
    assert (tmp_path / ("again" + name)).read_bytes() == (tmp_path / name).read_bytes()


def test_random_pencil_marks_round_trip():
    rng = np.random.default_rng(11)
    cands = rng.integers(1, 512, size=(200, 81)).astype(np.uint16)
    for c in cands:
        for empty in ".0":
            text = format_candidates(c, empty)
            assert len(text) == 729 and np.array_equal(parse_candidates(text, check_units=False), c)


def test_zero_marks_an_eliminated_candidate_like_a_dot():
    c = _brt_marks([_digits(PUZZLE)])[0]
    assert np.array_equal(parse_candidates(format_candidates(c, "0")), c)
    assert np.array_equal(parse_candidates(format_candidates(c)), c)


def test_gzip_is_recognised_by_its_bytes_not_its_name(shared_data, tmp_path):
    puzzles = _data(shared_data, "puzzles6_forum_hardest_1106", 20)
    write_collection(tmp_path / "p.txt.gz", puzzles)
    (tmp_path / "p.txt.gz").rename(tmp_path / "plain-looking.sdm")
    assert np.array_equal(read_collection(tmp_path / "plain-looking.sdm").puzzles, puzzles)


@pytest.mark.parametrize("name", ["one.sdk", "one.sdk.gz"])
def test_sdk_round_trip(tmp_path, name):
    write_collection(tmp_path / name, [_digits(PUZZLE)])
    back = read_collection(tmp_path / name)
    assert len(back) == 1 and format_puzzle(back.puzzles[0]) == PUZZLE
    with pytest.raises(ValueError, match="one plain puzzle"):
        write_collection(tmp_path / name, None, cands=puzzle_candidates(_digits(PUZZLE))[None])


def _library_line(deleted: str, plus_at: int | None = None) -> str:
    """A HoDoKu library line of PUZZLE: technique code, candidate, sudoku, deleted candidates, eliminations."""
    sudoku = PUZZLE if plus_at is None else PUZZLE[:plus_at] + "+" + GRID[plus_at] + PUZZLE[plus_at + 1:]
    return f":0000:x:{sudoku}:{deleted}::"


def test_hodoku_library_lines_give_their_deleted_candidates(tmp_path):
    grid = _digits(GRID)
    # r1c3 placed with '+' (its deletions ignored), 9 deleted in r9c1 (solution 3); a line
    # without deletions; a deletion in a given's cell (ignored, as HoDoKu does)
    lines = [_library_line("113 213 991", plus_at=2), _library_line(""), _library_line("111")]
    f = tmp_path / "lib.txt"
    f.write_text("\n".join(lines) + "\n")
    coll = read_collection(f)
    assert coll.marked.tolist() == [True, False, False] and coll.extras == lines
    full = puzzle_candidates(_digits(PUZZLE))
    assert coll.cands[0, 2] == np.uint16(1 << 3)                       # placed with '+': r1c3 = 4
    assert coll.cands[0, 72] == full[72] & ~np.uint16(1 << 8)
    assert np.count_nonzero(coll.cands[0] != full) == 2
    assert np.array_equal(coll.cands[1], full) and format_puzzle(coll.puzzles[1]) == PUZZLE
    assert np.array_equal(coll.cands[2], full)
    n, sol = solve_with_candidates(coll.cands[0])
    assert n == 1 and np.array_equal(sol, grid)
    write_marked_collection(tmp_path / "back.txt.gz", coll)
    back = read_collection(tmp_path / "back.txt.gz")
    assert np.array_equal(back.cands, coll.cands) and np.array_equal(back.marked, coll.marked)


# ------------------------------------------------------------------ bad lines named
PM = format_candidates(puzzle_candidates(_digits(PUZZLE)))
NO_CAND = PM[:9 * 2] + "." * 9 + PM[27:]                              # r1c3 empty
TWO_FIVES = PM[:9 * 3] + "....5...." + PM[36:]                        # r1c4 := 5 beside the given 5 in r1c1
BAD_LINES = [
    (_library_line("4a2"), "deleted candidate '4a2' is not digit-row-column"),
    (f":0000:x:{PUZZLE[:80]}:::", "the sudoku (4th field) has 80 cells, expected 81"),
    (_library_line("113 213 313 413 513 613 713 813 913"), "HoDoKu library line: r1c3 has no candidate left"),
    (PUZZLE[:80], "wrong length: 80"),
    (PUZZLE[:10] + "x" + PUZZLE[11:], "bad character 'x' at r2c2"),
    (PM[:-1], "wrong length: 728 characters, expected 729"),
    (PM[:20] + "?" + PM[21:], "bad character '?' in slot 3 of r1c3 (column 21)"),
    (PM[:20] + "7" + PM[21:], "digit 7 in slot 3 of r1c3 (column 21)"),
    (NO_CAND, "r1c3 has no candidate"),
    (TWO_FIVES, "duplicate digit 5 in row 1"),
]


@pytest.mark.parametrize("bad,fragment", BAD_LINES)
def test_bad_lines_are_named_with_file_and_line(tmp_path, bad, fragment):
    f = tmp_path / "bad.txt.gz"
    f.write_bytes(gzip.compress(f"# header\n{PUZZLE}\n{bad}  ED=1.0\n{PM}\n".encode()))
    coll = read_collection(f)
    assert coll.lines == [2, 4] and len(coll.issues) == 1
    assert coll.issues[0].line == 3 and fragment in coll.issues[0].message
    with pytest.raises(PuzzleFormatError) as e:
        read_collection(f, strict=True)
    assert str(e.value).startswith(f"{f}, line 3: ") and fragment in str(e.value)


def test_conflicting_singles_are_readable_without_the_unit_check(tmp_path):
    """Like contradictory givens: solve reads them (check_units=False) and finds no solution."""
    f = tmp_path / "two.txt"
    f.write_text(TWO_FIVES + "\n")
    coll = read_collection(f, check_units=False)
    assert coll.has_marks and count_solutions_with_candidates(coll.cands[0]) == 0


def test_pencil_marks_refused_where_givens_are_needed(tmp_path):
    f = tmp_path / "pm.txt"
    f.write_text(f"{PUZZLE}\n{PM}\n")
    coll = read_collection(f, pencil_marks=False)
    assert len(coll) == 1 and coll.issues[0].line == 2 and "pencil marks" in coll.issues[0].message
    assert main(["canon", str(f)]) == 2


def test_a_gzip_bomb_is_not_unpacked(tmp_path, monkeypatch):
    from sudokustudio.sudoku import formats

    f = tmp_path / "big.txt.gz"
    write_collection(f, np.zeros((50, 81), np.uint8))
    monkeypatch.setattr(formats, "MAX_TEXT_BYTES", 49 * 82)
    with pytest.raises(PuzzleFormatError, match=r"big.txt.gz: decompresses to more than 4,018 bytes"):
        read_collection(f)
    monkeypatch.setattr(formats, "MAX_TEXT_BYTES", 50 * 82)
    assert len(read_collection(f)) == 50


def test_unreadable_files_name_the_file(tmp_path):
    broken = tmp_path / "broken.txt"
    broken.write_bytes(b"\x1f\x8b" + b"not really gzip")
    with pytest.raises(PuzzleFormatError, match=r"broken.txt: starts like a gzip file"):
        read_collection(broken)
    empty = tmp_path / "empty.txt.gz"
    empty.write_bytes(gzip.compress(b"\n\n"))
    with pytest.raises(PuzzleFormatError, match=r"empty.txt.gz: the file is empty"):
        read_collection(empty)
    allbad = tmp_path / "allbad.txt"
    allbad.write_text("# c\n" + PM[:-2] + "\n")
    with pytest.raises(PuzzleFormatError, match=r"allbad.txt, line 2: no readable puzzle"):
        read_collection(allbad)


# ------------------------------------------------------------------ the solver with candidates
@pytest.mark.parametrize("name,n", [("puzzles3_magictour_top1465", 300), ("puzzles7_serg_benchmark", 300),
                                    ("puzzles2_17_clue", 300)])
def test_candidate_solver_agrees_with_the_solver_on_full_candidates(shared_data, name, n):
    puzzles = _data(shared_data, name, n, check_units=False)
    sols, counts, _ = solve_batch(puzzles, 2)
    csols, ccounts = solve_candidates_batch(puzzle_candidates(puzzles), 2)
    assert np.array_equal(counts, ccounts)
    unique = counts == 1
    assert np.array_equal(csols[unique], sols[unique])
    for p, s in zip(puzzles[counts >= 1], csols[counts >= 1]):   # several solutions: any one, but a real one
        assert is_valid_grid(s) and np.all((p == 0) | (p == s))


def test_eliminating_the_solution_digit_leaves_no_solution(shared_data):
    puzzles = _data(shared_data, "puzzles3_magictour_top1465", 40)
    sols, counts, _ = solve_batch(puzzles, 2)
    rng = np.random.default_rng(5)
    for p, s in zip(puzzles, sols):
        cands = _brt_marks([p])[0]
        open_cells = np.flatnonzero(singles_of(cands) == 0)
        cell = rng.choice(open_cells)
        wrong = cands.copy()
        wrong[cell] &= ~np.uint16(1 << (int(s[cell]) - 1))
        assert count_solutions_with_candidates(wrong, 2) == 0
        assert rate_candidates(wrong[None])[0][0] == W_INVALID
        # a wrong candidate eliminated instead: the same single solution
        right = np.uint16(1 << (int(s[cell]) - 1))
        wrong_bits = cands[cell] & ~right
        other = cands.copy()
        other[cell] &= ~np.uint16(1 << (int(wrong_bits).bit_length() - 1))
        n, sol = solve_with_candidates(other)
        assert n == 1 and np.array_equal(sol, s)


def test_pencil_marks_without_any_single(shared_data):
    """Grids where no cell is decided (no givens at all): every solution found is a grid
    inside the marks, and the planted one is found when unique."""
    gen = np.random.default_rng(17)
    grid = _digits(GRID)
    counts = []
    for k in range(40):
        a, b = gen.integers(0, 512, size=(2, 81)).astype(np.uint16)
        extra = a & b if k % 2 else a | b            # about 2 or 6 wrong candidates per cell
        cands = (extra | (np.uint16(1) << (grid - 1).astype(np.uint16))).astype(np.uint16)
        cands[(cands & (cands - 1)) == 0] |= np.uint16(0b11)   # no single candidate anywhere
        n, sol = solve_with_candidates(cands, 3)
        assert n >= 1 and is_valid_grid(sol)
        assert all(cands[c] >> (sol[c] - 1) & 1 for c in range(81))
        if n == 1:
            assert np.array_equal(sol, grid)
        counts.append(n)
    assert 1 in counts and 3 in counts


# ------------------------------------------------------------------ the W-rating with candidates
def test_rating_from_candidates_matches_the_rating_from_givens(shared_data):
    """Full candidates, and pencil marks after BRT or part of BRT, rate as the puzzle does
    (BRT's fixpoint from any of them is the same); Berthier's own W-ratings agree."""
    puzzles = _data(shared_data, CB, 60)
    berthier = np.loadtxt(shared_data / "controlled_bias/001-W-ratings.txt", max_rows=60).astype(int)
    plain_w, plain_n = rate_puzzles(puzzles)
    assert np.array_equal(plain_w, berthier)
    full_w, full_n = rate_candidates(puzzle_candidates(puzzles))
    assert np.array_equal(full_w, plain_w) and np.array_equal(full_n, plain_n)
    after = _brt_marks(puzzles)
    rng = np.random.default_rng(3)
    half = np.where(rng.random((60, 81)) < 0.5, after, puzzle_candidates(puzzles))   # part of BRT's work
    for marks in (after, half):
        w, n = rate_candidates(marks)
        assert np.array_equal(w, plain_w) and np.array_equal(n, plain_n)


def test_whip_eliminations_never_raise_the_rating(shared_data):
    """Pencil marks with the first whip eliminations of the puzzle's own path applied rate
    at most its W (Wn is confluent), and exactly the rest of the path follows."""
    puzzles = _data(shared_data, CB, 40)
    ratings, _ = rate_puzzles(puzzles)
    checked = 0
    for p, w in zip(puzzles, ratings):
        if w < 2:
            continue
        path = w_rating_path(p)
        marks = _brt_marks([p])[0]
        for step in path.steps[:3]:
            cell, d = divmod(step.target, 9)
            marks[cell] &= ~np.uint16(1 << d)
        w2 = rate_candidates(marks[None])[0][0]
        assert 0 <= w2 <= w
        rest = w_rating_path_from_candidates(marks)
        assert rest.rating == w2 and len(rest.steps) <= len(path.steps)
        checked += 1
    assert checked >= 10


def test_the_path_from_pencil_marks_is_the_puzzles_path(shared_data):
    steps = 0
    for p in _data(shared_data, CB, 8):
        plain = w_rating_path(p)
        assert w_rating_path_from_candidates(_brt_marks([p])[0]) == plain
        steps += len(plain.steps)
    assert steps > 20


def test_rating_job_reads_pencil_marks_from_a_file(shared_data, tmp_path):
    puzzles, cands, marked = _mixed(shared_data)
    f = tmp_path / "m.txt.gz"
    write_collection(f, puzzles, cands=cands, marked=marked)
    job = RatingJob(path=str(f), chunk=6)
    ratings, n_cands = job.arrays(job.run_batch(0, 0))
    assert np.array_equal(ratings, rate_puzzles(puzzles)[0]) and np.array_equal(n_cands, rate_puzzles(puzzles)[1])


def test_the_rate_dialog_reads_gzip_and_skips_pencil_marks(tmp_path):
    from sudokustudio.models.rating import RatingModel

    f = tmp_path / "r.txt.gz"
    f.write_bytes(gzip.compress(f"{PUZZLE} #c\n{PM}\n".encode()))
    coll = RatingModel.read_file(f)
    assert len(coll) == 1 and coll.extras == ["#c"] and coll.issues[0].line == 2


def test_rating_job_takes_pencil_mark_lines(shared_data):
    puzzles, cands, marked = _mixed(shared_data)
    lines = [format_candidates(cands[i]) if marked[i] else format_puzzle(puzzles[i]) for i in range(6)]
    job = RatingJob(puzzles=lines, cap=12, chunk=4)
    assert job.candidates is not None and np.array_equal(job.candidates[marked], cands[marked])
    out = job.merge(job.run_batch(0, 0), job.run_batch(1, 0))
    ratings, _ = job.arrays(out)
    assert np.array_equal(ratings, rate_puzzles(puzzles)[0])


# ------------------------------------------------------------------ the CLI
def test_cli_solves_and_rates_a_gzipped_pencil_mark_file(shared_data, tmp_path, capsys):
    puzzles, cands, marked = _mixed(shared_data)
    wrong = cands[2].copy()
    sols, _, _ = solve_batch(puzzles, 2)
    open_cell = int(np.flatnonzero(singles_of(wrong) == 0)[0])
    wrong[open_cell] &= ~np.uint16(1 << (int(sols[2][open_cell]) - 1))
    f = tmp_path / "mixed.txt.gz"
    write_collection(f, np.vstack([puzzles, puzzles[2:3]]), cands=np.vstack([cands, wrong[None]]),
                     marked=np.append(marked, True))
    assert main(["solve", str(f)]) == 0
    out = capsys.readouterr().out
    for i in range(6):
        assert f"line {i + 1}: unique {format_puzzle(sols[i])}" in out
    assert "line 7: none" in out and "7 puzzles: 6 unique, 0 multiple, 1 none" in out
    assert main(["rate", str(f), "--json", "--threads", "1"]) == 0
    data = json.loads(capsys.readouterr().out)
    berthier = np.loadtxt(shared_data / "controlled_bias/001-W-ratings.txt", max_rows=6).astype(int)
    assert data["ratings"] == berthier.tolist() + [W_INVALID]
    assert data["cands_after_brt"][:6] == rate_puzzles(puzzles)[1].tolist()


def test_parse_marked_collection_of_strings():
    coll = parse_marked_collection(f"{PM}\n{PUZZLE}\n")
    assert coll.marked.tolist() == [True, False] and np.array_equal(coll.puzzles[0], coll.puzzles[1])
