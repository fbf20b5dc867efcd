"""Canonical (minlex) forms: the kernel against a brute-force minimum over all 3,359,232 cell
symmetries, invariance under random isomorphs, one puzzle per class, the CLI."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numba import njit

from sudokustudio.core.rng import seed_state
from sudokustudio.sudoku.canon import COLPERMS, classes, dedup, minlex, minlex_many
from sudokustudio.sudoku.grid import parse_puzzle, random_isomorph
from sudokustudio.sudoku.solver import solve_batch

DATA = Path("/work/shared/data")
P17 = "000000010400000000020000000000050407008000300001090000300400200050100000000806000"
HARD = "800000000003600000070090200050007000000045700000100030001000068008500010090000400"


@njit(cache=False)
def brute_minlex(p, perms):
    """The smallest first-appearance-relabelled string over transposition x row orders x
    column orders (row and column orders share the 1296-element table), written plainly."""
    best = np.full(81, 99, dtype=np.int64)
    cur = np.empty(81, dtype=np.int64)
    lab = np.empty(10, dtype=np.int64)
    for t in range(2):
        for rp in range(1296):
            for cp in range(1296):
                lab[:] = 0
                nxt = 1
                for i in range(81):
                    r = perms[rp, i // 9]
                    c = perms[cp, i % 9]
                    v = p[r * 9 + c] if t == 0 else p[c * 9 + r]
                    if v and lab[v] == 0:
                        lab[v] = nxt
                        nxt += 1
                    cur[i] = lab[v] if v else 0
                smaller = False
                for i in range(81):
                    if cur[i] != best[i]:
                        smaller = cur[i] < best[i]
                        break
                if smaller:
                    best[:] = cur
    return best


def _p(s: str) -> np.ndarray:
    return parse_puzzle(s)


def test_colperms_are_the_column_group():
    assert len({tuple(r) for r in COLPERMS}) == 1296
    for r in COLPERMS[::97]:
        assert sorted(r) == list(range(9))
        assert all(len({x // 3 for x in r[3 * s:3 * s + 3]}) == 1 for s in range(3))


def test_minlex_equals_brute_force():
    rng = np.random.default_rng(17)
    grid = solve_batch(_p(HARD)[None, :], 2)[0][0]
    # a 17-clue puzzle, a hard one, a solution grid, a random 30-cell subset of that grid
    sub = grid.copy()
    sub[rng.choice(81, 51, replace=False)] = 0
    for p in (_p(P17), _p(HARD), grid, sub):
        assert np.array_equal(minlex(p), brute_minlex(p, COLPERMS))


@pytest.mark.slow
def test_minlex_equals_brute_force_many():
    rng = np.random.default_rng(5)
    grid = solve_batch(_p(HARD)[None, :], 2)[0][0]
    for k in (5, 12, 20, 40, 60):
        p = grid.copy()
        p[rng.choice(81, 81 - k, replace=False)] = 0
        assert np.array_equal(minlex(p), brute_minlex(p, COLPERMS))


def test_known_form_and_empty():
    # row 0 of a minlex puzzle: the emptiest line; the empty puzzle is all zeros
    assert not minlex(np.zeros(81, dtype=np.uint8)).any()
    f = minlex(_p(P17))
    assert f[:8].tolist() == [0] * 8    # this one has no empty row or column
    assert np.count_nonzero(f) == 17
    g = minlex(solve_batch(_p(HARD)[None, :], 2)[0][0])
    assert g[:9].tolist() == list(range(1, 10))


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**63 - 1), which=st.sampled_from([P17, HARD, "grid"]))
def test_isomorph_invariance(seed, which):
    p = _p(HARD) if which == "grid" else _p(which)
    if which == "grid":
        p = solve_batch(p[None, :], 2)[0][0]
    q = random_isomorph(p, seed_state(np.uint64(seed)))
    assert np.array_equal(minlex(p), minlex(q))


def test_dedup_keeps_one_per_class():
    rng_state = seed_state(np.uint64(3))
    base = [_p(P17), _p(HARD)]
    grid = solve_batch(_p(HARD)[None, :], 2)[0][0]
    base.append(grid)
    rows, cls = [], []
    order = np.random.default_rng(1).permutation(12)
    for j in order:
        rows.append(random_isomorph(base[j % 3], rng_state))
        cls.append(j % 3)
    keep = dedup(np.array(rows), threads=1)
    assert sorted(cls[i] for i in keep) == [0, 1, 2]
    # the first of each class, in input order
    firsts = sorted({c: i for i, c in reversed(list(enumerate(cls)))}.values())
    assert keep.tolist() == firsts
    forms, _ = minlex_many(np.array(rows), threads=2)
    first, ids = classes(forms)
    assert len(first) == 3 and len(set(ids.tolist())) == 3


def test_threads_same_forms():
    p = np.array([random_isomorph(_p(P17), seed_state(np.uint64(s))) for s in range(300)])
    a, _ = minlex_many(p, 1)
    b, _ = minlex_many(p, 2)
    assert np.array_equal(a, b) and (a == a[0]).all()


def test_17_clue_file_all_distinct():
    path = DATA / "puzzles2_17_clue"
    if not path.exists():
        pytest.skip("shared data not here")
    from sudokustudio.sudoku.grid import read_puzzles

    p = read_puzzles(path).puzzles[:2000]
    forms, _ = minlex_many(p, 2)
    assert len(classes(forms)[0]) == len(p)


def test_cli_canon(tmp_path, capsys):
    from sudokustudio.cli import main

    rows = [random_isomorph(_p(P17), seed_state(np.uint64(s))) for s in range(3)] + [_p(HARD)]
    f = tmp_path / "p.txt"
    f.write_text("".join("".join(str(int(d)) if d else "." for d in r) + "\n" for r in rows))
    assert main(["canon", str(f), "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["puzzles"] == 4 and d["classes"] == 2
    assert main(["canon", str(f), "--dedup"]) == 0
    lines = capsys.readouterr().out.split()
    assert len(lines) == 2 and lines[1] == HARD.replace("0", ".")
    assert main(["canon", str(f)]) == 0
    forms = capsys.readouterr().out.split()
    assert len(set(forms[:3])) == 1 and forms[0] == "".join(map(str, minlex(_p(P17))))
    bad = tmp_path / "bad.txt"
    bad.write_text(P17 + "\n" + "12x\n")
    assert main(["canon", str(bad)]) == 2
    assert "line 2" in capsys.readouterr().err


def test_import_counts_isomorphs_and_export_one_per_class(tmp_path):
    from sudokustudio.jobs.collections import export_puzzles, import_collection
    from sudokustudio.models.generators import GeneratorsModel
    from sudokustudio.sudoku.generate import GenResult

    rows = [random_isomorph(_p(P17), seed_state(np.uint64(s))) for s in range(4)] + [_p(HARD)]
    f = tmp_path / "in.txt"
    export_puzzles(f, GenResult(np.array(rows), np.ones(5), {"guesses": np.arange(5.0)}))
    coll = GeneratorsModel.read_collection(f, "unknown")
    assert coll.classes == 2 and "2 isomorphism classes (3 isomorphs)" in GeneratorsModel.isomorph_text(coll)
    out = tmp_path / "out.csv"
    assert export_puzzles(out, GenResult(np.array(rows), np.ones(5), {"guesses": np.arange(5.0)}),
                          one_per_class=True) == 2
    back = import_collection(out)
    assert np.array_equal(back.puzzles, np.array([rows[0], rows[4]]))
    assert back.metrics["guesses"].tolist() == [0.0, 4.0]
