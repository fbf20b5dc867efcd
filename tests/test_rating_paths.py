"""The whips behind a W-rating, checked by an independent reading of the definition.

This file re-implements BRT and the whip conditions in plain Python (sets, no
bitboards, no shared tables) and replays the resolution path the kernel
reports: every step must be a valid whip in the state it is applied to, the
path must solve the puzzle, and its longest whip is the rating.
"""
from __future__ import annotations

import numpy as np
import pytest

from sudokustudio.sudoku.grid import read_puzzles
from sudokustudio.sudoku.rating import W_INVALID, w_rating, w_rating_path
from sudokustudio.sudoku.solver import solve

# line (1-based) of the 001 file where the kernel finds W8 and Berthier's file says W9
LINE_W8_NOT_W9 = 3753


def variables_of(x: int) -> tuple[tuple, ...]:
    """The four CSP variables of candidate x = cell*9 + digit-1, as readable tuples."""
    cell, d = divmod(x, 9)
    r, c = divmod(cell, 9)
    return (("rc", r, c), ("rn", r, d), ("cn", c, d), ("bn", 3 * (r // 3) + c // 3, d))


def decode_variable(v: int) -> tuple:
    """The kernel's numbering: rc 0..80, then rn, cn, bn blocks of 81 (index*9 + digit-1)."""
    kind, i = divmod(v, 81)
    if kind == 0:
        return ("rc", *divmod(i, 9))
    return (("rn", "cn", "bn")[kind - 1], *divmod(i, 9))


MEMBERS: dict[tuple, set[int]] = {}
for _x in range(729):
    for _v in variables_of(_x):
        MEMBERS.setdefault(_v, set()).add(_x)
LINKED = [set().union(*(MEMBERS[v] for v in variables_of(x))) - {x} for x in range(729)]


def linked(x: int, y: int) -> bool:
    return y in LINKED[x]


def candidates_in(var: tuple, cands: set[int]) -> list[int]:
    return sorted(MEMBERS[var] & cands)


def brt(cands: set[int]) -> set[int]:
    """Elementary constraint propagation plus singles, to a fixpoint."""
    cands = set(cands)
    decided: set[int] = set()
    while True:
        progress = False
        for var, members in MEMBERS.items():
            xs = members & cands
            assert xs, f"contradiction: {var} has no candidate"
            if len(xs) == 1:
                x = next(iter(xs))
                if x not in decided:
                    decided.add(x)
                    cands -= LINKED[x]
                    progress = True
        if not progress:
            return cands


def assert_valid_whip(step, cands: set[int]) -> None:
    z, llcs, rlcs = step.target, step.llcs, step.rlcs
    variables = [decode_variable(v) for v in step.variables]
    n = len(llcs)
    assert len(variables) == n and len(rlcs) == n - 1
    chain = [z, *llcs, *rlcs]
    assert len(set(chain)) == len(chain), "candidates of a whip are all different"
    assert len(set(variables)) == n, "CSP variables of a whip are all different"
    assert all(x in cands for x in chain), "every candidate of the whip is present"
    assert linked(llcs[0], z), "L1 is linked to the target"
    context = [z]
    for k in range(n):
        var = variables[k]
        assert var in variables_of(llcs[k]), f"L{k + 1} belongs to V{k + 1}"
        if k:
            assert linked(llcs[k], rlcs[k - 1]), f"L{k + 1} is linked to R{k}"
        compatible = [y for y in candidates_in(var, cands)
                      if y != llcs[k] and not any(linked(y, c) for c in context)]
        if k < n - 1:
            assert compatible == [rlcs[k]], f"R{k + 1} is the only compatible candidate of V{k + 1}"
            context.append(rlcs[k])
        else:
            assert compatible == [], "the last CSP variable has no compatible candidate"


def replay(puzzle: np.ndarray, path) -> set[int]:
    cands = {cell * 9 + d for cell in range(81) for d in range(9)
             if puzzle[cell] in (0, d + 1)}
    cands = brt(cands)
    for step in path.steps:
        assert_valid_whip(step, cands)
        cands = brt(cands - {step.target})
    return cands


@pytest.fixture(scope="module")
def oracle(shared_data):
    d = shared_data / "controlled_bias"
    puzzles = read_puzzles(d / "001-puzzles.txt").puzzles
    return puzzles, np.loadtxt(d / "001-W-ratings.txt", dtype=np.int64)


def check_path(puzzle: np.ndarray) -> int:
    path = w_rating_path(puzzle)
    assert path.rating == w_rating(puzzle)
    final = replay(puzzle, path)
    solution = solve(puzzle)
    assert final == {cell * 9 + int(solution[cell]) - 1 for cell in range(81)}, "the path solves it"
    assert path.rating == max((s.length for s in path.steps), default=0)
    return path.rating


def test_every_whip_of_sampled_paths_is_valid_by_the_definition(oracle):
    puzzles, w_ref = oracle
    idx = np.concatenate([np.nonzero(w_ref == w)[0][:3] for w in range(1, 9)])
    for i in idx:
        assert check_path(puzzles[i]) == w_ref[i], f"line {i + 1}"


def test_line_3753_is_w8_by_valid_whips(oracle):
    """Berthier's file says W9.  CSP-Rules keeps one partial whip per sequence of
    right-linking candidates; here the whip[8] on r3c9≠2 needs L1 = n2r1c7 while
    n2r2c7 (in the same c7n2) gives the same R1 and would block L2 = n2r2c7."""
    puzzles, w_ref = oracle
    puzzle = puzzles[LINE_W8_NOT_W9 - 1]
    assert w_ref[LINE_W8_NOT_W9 - 1] == 9
    assert check_path(puzzle) == 8
    text = [str(s) for s in w_rating_path(puzzle).steps]
    assert ("whip[8]: c7n2{r1 r5} - r2n2{c7 c3} - r1c2{n2 n7} - c7n7{r1 r3} - c7n1{r3 r2} - "
            "c7n6{r2 r4} - r4c2{n6 n1} - r9c2{n1 .} ==> r3c9≠2") in text


def test_path_of_an_invalid_puzzle_is_empty():
    two_solutions = np.zeros(81, dtype=np.uint8)
    path = w_rating_path(two_solutions)
    assert path.rating == W_INVALID and path.steps == ()


def test_the_checker_rejects_broken_whips(oracle):
    """The replay would prove nothing if the checker accepted anything."""
    from dataclasses import replace

    puzzles, _ = oracle
    puzzle = puzzles[LINE_W8_NOT_W9 - 1]
    path = w_rating_path(puzzle)
    k = next(i for i, s in enumerate(path.steps) if s.length == 8)
    cands = {cell * 9 + d for cell in range(81) for d in range(9) if puzzle[cell] in (0, d + 1)}
    cands = brt(cands)
    for step in path.steps[:k]:
        cands = brt(cands - {step.target})
    good = path.steps[k]
    assert_valid_whip(good, cands)
    short = replace(good, llcs=good.llcs[:-1], variables=good.variables[:-1], rlcs=good.rlcs[:-1])
    wrong_r = replace(good, rlcs=(good.rlcs[1],) + good.rlcs[1:])
    other_target = replace(good, target=next(x for x in sorted(cands) if x != good.target
                                             and linked(x, good.llcs[0])))
    for broken in (short, wrong_r, other_target):
        with pytest.raises(AssertionError):
            assert_valid_whip(broken, cands)


def test_cli_rate_explain_prints_the_path(tmp_path, oracle, capsys):
    import json

    from sudokustudio.cli import main
    from sudokustudio.sudoku.grid import format_puzzle

    puzzles, _ = oracle
    f = tmp_path / "one.txt"
    f.write_text(format_puzzle(puzzles[LINE_W8_NOT_W9 - 1]) + "\n")
    assert main(["rate", str(f), "--explain", "--json", "--threads", "1"]) == 0
    out = json.loads(capsys.readouterr().out)
    expected = [str(s) for s in w_rating_path(puzzles[LINE_W8_NOT_W9 - 1]).steps]
    assert out["ratings"] == [8] and out["paths"] == [expected]
    assert main(["rate", str(f), "--explain"]) == 0
    text = capsys.readouterr().out.splitlines()
    assert text[0].startswith("line 1: W8") and text[1:1 + len(expected)] == [f"    {s}" for s in expected]
