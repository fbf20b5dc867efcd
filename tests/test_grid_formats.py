import numpy as np
import pytest
from hypothesis import given, settings as hsettings, strategies as st

from sudokustudio.core.rng import seed_state
from sudokustudio.sudoku.grid import (PuzzleFormatError, apply_transform, find_duplicate, format_pretty,
                                      format_puzzle, format_sdk, is_consistent, is_valid_grid, parse_collection,
                                      parse_puzzle, permute_cols, permute_rows, random_isomorph,
                                      random_transform_kernel, read_puzzles, relabel, transpose, write_puzzles)
from sudokustudio.sudoku.solver import count_solutions

GRID = "534678912672195348198342567859761423426853791713924856961537284287419635345286179"
PUZZLE = "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79"


def test_parse_dots_and_zeros_alike():
    a = parse_puzzle(PUZZLE)
    b = parse_puzzle(PUZZLE.replace(".", "0"))
    assert np.array_equal(a, b)
    assert a.dtype == np.uint8 and a.shape == (81,)
    assert int((a > 0).sum()) == 30
    assert format_puzzle(a) == PUZZLE
    assert format_puzzle(a, "0") == PUZZLE.replace(".", "0")


@pytest.mark.parametrize("text,fragment", [
    (PUZZLE[:80], "wrong length: 80"),
    (PUZZLE + "1", "wrong length: 82"),
    (PUZZLE[:10] + "x" + PUZZLE[11:], "bad character 'x' at r2c2"),
    ("55" + PUZZLE[2:], "duplicate digit 5 in row 1"),
])
def test_parse_errors_say_what_is_wrong(text, fragment):
    with pytest.raises(PuzzleFormatError) as e:
        parse_puzzle(text, source="f.txt", line=7)
    assert fragment in str(e.value)
    assert "f.txt, line 7" in str(e.value)


def test_duplicate_in_column_and_box():
    p = np.zeros(81, dtype=np.uint8)
    p[0] = p[27] = 4
    assert find_duplicate(p) == "duplicate digit 4 in column 1"
    q = np.zeros(81, dtype=np.uint8)
    q[0] = q[10] = 2
    assert find_duplicate(q) == "duplicate digit 2 in box 1"
    assert not is_consistent(q)


def test_collection_tolerates_comments_crlf_blank_and_trailing_fields(tmp_path):
    text = f"# a comment\r\n\r\n{PUZZLE} 42 tries\r\n{GRID}\r\nnot a puzzle\r\n"
    f = tmp_path / "c.txt"
    f.write_bytes(text.encode())
    coll = read_puzzles(f)
    assert len(coll) == 2
    assert coll.lines == [3, 4]
    assert coll.extras == ["42 tries", ""]
    assert len(coll.issues) == 1 and coll.issues[0].line == 5
    assert "wrong length" in coll.issues[0].message
    with pytest.raises(PuzzleFormatError, match="line 5"):
        read_puzzles(f, strict=True)


def test_sdk_file(tmp_path):
    f = tmp_path / "p.sdk"
    write_puzzles(f, parse_puzzle(PUZZLE))
    assert f.read_text().count("\n") == 9
    assert format_puzzle(read_puzzles(f).puzzles[0]) == PUZZLE
    assert format_sdk(parse_puzzle(PUZZLE)).splitlines()[0] == "53..7...."
    assert "|" in format_pretty(parse_puzzle(PUZZLE))


def test_write_read_roundtrip_sdm(tmp_path):
    arr = np.stack([parse_puzzle(PUZZLE), parse_puzzle(GRID)])
    f = tmp_path / "x.sdm"
    write_puzzles(f, arr, extras=["a", ""])
    back = read_puzzles(f)
    assert np.array_equal(back.puzzles, arr)
    assert back.extras == ["a", ""]


def test_unreadable_file_names_the_file(tmp_path):
    with pytest.raises(PuzzleFormatError, match="missing.txt"):
        read_puzzles(tmp_path / "missing.txt")
    f = tmp_path / "junk.txt"
    f.write_text("hello\nworld\n")
    with pytest.raises(PuzzleFormatError, match=r"junk.txt, line 1: no readable puzzle"):
        read_puzzles(f)


@hsettings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("0123456789.x #\r\n\t")), max_size=200))
def test_parser_never_crashes(text):
    coll = parse_collection(text)
    for p in coll.puzzles:
        assert is_consistent(p)
    for issue in coll.issues:
        assert issue.line >= 1 and issue.message


@hsettings(max_examples=100, deadline=None)
@given(st.lists(st.booleans(), min_size=81, max_size=81), st.sampled_from(".0"))
def test_format_parse_roundtrip(mask, empty):
    p = parse_puzzle(GRID) * np.array(mask, dtype=np.uint8)
    assert np.array_equal(parse_puzzle(format_puzzle(p, empty)), p)


def test_grid_validity():
    g = parse_puzzle(GRID)
    assert is_valid_grid(g)
    bad = g.copy()
    bad[0], bad[1] = bad[1], bad[0]
    assert not is_valid_grid(bad)
    assert not is_valid_grid(parse_puzzle(PUZZLE))


def test_symmetry_transforms_keep_validity_and_counts():
    g = parse_puzzle(GRID)
    p = parse_puzzle(PUZZLE)
    dm = np.array([0, 9, 8, 7, 6, 5, 4, 3, 2, 1], dtype=np.uint8)
    rows = [3, 5, 4, 0, 2, 1, 6, 8, 7]
    for t in (lambda x: relabel(x, dm), lambda x: permute_rows(x, rows), lambda x: permute_cols(x, rows),
              transpose):
        assert is_valid_grid(t(g))
        assert count_solutions(t(p), 3) == 1
    assert np.array_equal(transpose(transpose(g)), g)
    with pytest.raises(ValueError, match="breaks a band"):
        permute_rows(g, [3, 1, 2, 0, 4, 5, 6, 7, 8])
    assert np.array_equal(relabel(g, np.arange(10)), g)
    with pytest.raises(ValueError, match="permute 1..9"):
        relabel(g, np.array([0, 1, 1, 3, 4, 5, 6, 7, 8, 9]))

def test_random_isomorph_reproducible_and_valid():
    g = parse_puzzle(GRID)
    a = random_isomorph(g, seed_state(np.uint64(11)))
    b = random_isomorph(g, seed_state(np.uint64(11)))
    c = random_isomorph(g, seed_state(np.uint64(12)))
    assert np.array_equal(a, b) and not np.array_equal(a, c)
    assert is_valid_grid(a) and is_valid_grid(c)
    p = parse_puzzle(PUZZLE)
    for s in range(20):
        q = random_isomorph(p, seed_state(np.uint64(s)))
        assert int((q > 0).sum()) == 30
        assert count_solutions(q, 3) == 1


def test_random_transform_is_a_group_element():
    dm = np.empty(10, dtype=np.uint8)
    perm = np.empty(81, dtype=np.int64)
    seen_transposed = set()
    g = parse_puzzle(GRID)
    for s in range(40):
        random_transform_kernel(seed_state(np.uint64(s)), dm, perm)
        assert sorted(perm) == list(range(81))
        assert sorted(dm[1:]) == list(range(1, 10)) and dm[0] == 0
        h = apply_transform(g, dm, perm)
        assert is_valid_grid(h)
        # rows of the transformed grid come from one row or one column of the original
        seen_transposed.add(bool(perm[1] // 9 != perm[0] // 9))
    assert seen_transposed == {True, False}


def test_collection_agrees_with_parsing_line_by_line(shared_data):
    """The vectorised collection parser keeps or rejects each line exactly as parse_puzzle does."""
    rng = np.random.default_rng(5)
    base = [format_puzzle(p) for p in read_puzzles(shared_data / "puzzles2_17_clue").puzzles[:300]]
    lines = []
    for k, p in enumerate(base):
        cells = list(p)
        kind = k % 6
        if kind == 1:    # a digit repeated somewhere (often a duplicate in a unit)
            i = int(rng.integers(81))
            cells[i] = str(int(rng.integers(1, 10)))
        elif kind == 2:  # a bad character, sometimes not ASCII
            cells[int(rng.integers(81))] = "x" if k % 4 else "é"
        elif kind == 3:  # a wrong length
            cells = cells[:80]
        lines.append("".join(cells) + (" extra field" if kind == 4 else ""))
    coll = parse_collection("\n".join(lines))
    kept, issues = [], []
    for n, line in enumerate(lines, start=1):
        try:
            kept.append((n, parse_puzzle(line)))
        except PuzzleFormatError as e:
            issues.append((n, e.reason))
    assert coll.lines == [n for n, _ in kept]
    assert np.array_equal(coll.puzzles, np.array([p for _, p in kept]).reshape(-1, 81))
    assert [(i.line, i.message) for i in coll.issues] == issues
    assert 50 < len(issues) < 250   # every kind of bad line occurred
