"""The one minimality check (``minimal.all_clues_needed``) and the uniqueness
oracle, against brute force: every clue set of a 4x4 grid (uniqueness decided
from the list of all 288 grids, no solver), and 9x9 puzzles checked clue by
clue with the public solver."""
import numpy as np
import pytest
from brute_4x4 import unique_and_minimal

from sudokustudio.core.cellset import ZERO, cell_set, clue_set, from_cells, has_cell, to_cells
from sudokustudio.sudoku import minimal as M
from sudokustudio.sudoku.grid import parse_puzzle
from sudokustudio.sudoku.grids import random_grid
from sudokustudio.sudoku.solver import count_solutions, solve
from sudokustudio.sudoku.tables import geometry

GRID4 = np.array([1, 2, 3, 4, 3, 4, 1, 2, 2, 1, 4, 3, 4, 3, 2, 1], dtype=np.uint8)


@pytest.fixture(scope="module")
def brute_4x4():
    """unique[m], minimal[m] for every clue set m (bit i = cell i) of GRID4."""
    return unique_and_minimal(GRID4)


def _clue_set(work):
    """The clue set as the kernels take it (numba returns Python ints)."""
    lo, hi = clue_set(work)
    return np.uint64(lo), np.uint64(hi)


def _puzzle_of(m):
    mask = ((m >> np.arange(16)) & 1).astype(np.uint8)
    return GRID4 * mask


def test_oracle_and_minimality_check_agree_with_all_grids_on_every_4x4_clue_set(brute_4x4):
    unique, minimal = brute_4x4
    o = M.oracle(GRID4, (2, 2))
    plain = M.oracle(GRID4, (2, 2), seed_uas=False)
    for m in range(1 << 16):
        work = _puzzle_of(m)
        lo, hi = _clue_set(work)
        assert M.is_unique(o, work, lo, hi) == unique[m]
        if unique[m]:
            before = work.copy()
            assert M.all_clues_needed(plain, work, lo, hi, ZERO, ZERO) == minimal[m]
            assert (work == before).all()
    assert minimal.sum() > 0 and unique.sum() > minimal.sum()


def test_minimality_check_skips_only_the_clues_it_is_told_are_needed(brute_4x4):
    unique, minimal = brute_4x4
    rng = np.random.default_rng(4)
    o = M.oracle(GRID4, (2, 2))
    for m in rng.choice(np.flatnonzero(unique & ~minimal), 300, replace=False):
        work = _puzzle_of(m)
        lo, hi = _clue_set(work)
        redundant = [c for c in to_cells(lo, hi) if unique[m & ~(1 << c)]]
        assert redundant
        # told that every clue but one redundant clue is needed, the check still finds it
        slo, shi = from_cells([c for c in to_cells(lo, hi) if c != redundant[0]])
        assert not M.all_clues_needed(o, work, lo, hi, np.uint64(slo), np.uint64(shi))
        # told that all the redundant ones are needed, it has nothing left to find
        slo, shi = from_cells(redundant)
        assert M.all_clues_needed(o, work, lo, hi, np.uint64(slo), np.uint64(shi))


def _minimal_by_solver(p):
    if count_solutions(p, 2) != 1:
        return False
    for c in np.flatnonzero(p):
        q = p.copy()
        q[c] = 0
        if count_solutions(q, 2) == 1:
            return False
    return True


def test_is_minimal_agrees_with_clue_by_clue_solver_checks():
    puzzles = [parse_puzzle(s) for s in (
        "....5.7.9..6.8..2.7.91....62.........37..2..4..8..7....6..91......6..5..9.1.7..38",
        "1.......2.9.4...5...6...7...5.9.3.......7.......85..4.7.....6...3...9.8...2.....1",
    )]
    rng = np.random.default_rng(9)
    cases = []
    for p in puzzles:
        cases.append(p)
        sol = solve(p)
        for c in rng.choice(np.flatnonzero(p == 0), 3, replace=False):
            q = p.copy()
            q[c] = sol[c]          # one redundant clue more
            cases.append(q)
        for c in rng.choice(np.flatnonzero(p), 3, replace=False):
            q = p.copy()
            q[c] = 0               # one clue less
            cases.append(q)
    for k in range(40):
        grid = random_grid(k)
        keep = rng.random(81) < 0.45
        cases.append(np.where(keep, grid, 0).astype(np.uint8))
    verdicts = [_minimal_by_solver(q) for q in cases]
    assert sum(verdicts) >= 2 and not all(verdicts)
    for q, want in zip(cases, verdicts):
        assert M.is_minimal(q) == want
    assert M.first_not_minimal(np.array(cases)) == verdicts.index(False)
    assert M.first_not_minimal(np.array([q for q, v in zip(cases, verdicts) if v])) == -1


def test_fixed_oracle_reads_known_uas_and_never_learns():
    grid = random_grid(3)
    peers, units = geometry(3, 3)[1:]
    lo, hi = M.cached_uas(M.oracle(grid))
    o = M.fixed_oracle(grid, peers, units, lo.copy(), hi.copy(), len(lo))
    c = int(to_cells(lo[0], hi[0])[0])
    work = grid.copy()
    work[to_cells(lo[0], hi[0])] = 0          # misses UA 0: answered without the solver
    a, b = _clue_set(work)
    assert not M.is_unique(o, work, a, b) and o[7][0] == 0
    assert not has_cell(a, b, c)
    none = np.zeros(0, dtype=np.uint64)
    o = M.fixed_oracle(grid, peers, units, none, none, 0)
    work = grid.copy()
    work[:40] = 0                              # not unique: the solver says so, nothing is cached
    a, b = _clue_set(work)
    assert not M.is_unique(o, work, a, b)
    assert o[7][0] == 1 and list(o[5]) == [0, 0, 0]


def test_a_learning_oracle_caches_uas_its_clue_sets_miss():
    grid = random_grid(5)
    o = M.oracle(grid, seed_uas=False)
    rng = np.random.default_rng(2)
    learned = 0
    for _ in range(30):
        keep = rng.random(81) < 0.3
        work = np.where(keep, grid, 0).astype(np.uint8)
        lo, hi = _clue_set(work)
        assert not M.is_unique(o, work, lo, hi)     # 24 clues or so: never unique
        i = M.missed_ua(o, lo, hi)
        if i < 0:
            continue    # the solver's first solution was the grid itself: nothing learned
        learned += 1
        ua_lo, ua_hi = o[3][i], o[4][i]
        assert (ua_lo & lo) == 0 and (ua_hi & hi) == 0
        p = grid.copy()
        p[to_cells(ua_lo, ua_hi)] = 0
        assert count_solutions(p, 2) == 2           # emptying it frees it
    assert learned >= 10 and o[5][0] == learned
    assert cell_set(0) == (1, 0) and cell_set(70) == (0, 1 << 6)


def test_generator_certificates_are_checked_not_trusted():
    from sudokustudio.core.rng import seed_state
    from sudokustudio.sudoku.generate.kernels import bottom_up_kernel, top_down_kernel

    no_pool = (np.zeros((1, 81), np.uint8), np.zeros((1, 1), np.uint64), np.zeros((1, 1), np.uint64),
               np.zeros(1, np.int64))
    out = np.zeros((12, 81), np.uint8)
    certs = np.zeros((12, 81, 81), np.uint8)
    top_down_kernel(seed_state(np.uint64(5)), 0, *no_pool, out[:6], certs[:6])
    bottom_up_kernel(seed_state(np.uint64(5)), out[6:], 18, certs[6:])
    masks = np.zeros(27, np.int64)
    for p, ct in zip(out, certs):        # every clue left carries a grid that proves it needed
        g = solve(p)
        for c in np.flatnonzero(p):
            assert M.certifies(ct[c], p, c, masks)
            assert ct[c][c] != g[c] and count_solutions(np.where(np.arange(81) == c, 0, p), 2) == 2
        assert not M.certifies(g, p, int(np.flatnonzero(p)[0]), masks)   # the grid itself proves nothing
    assert M.first_not_minimal(out, certs) == -1
    p, ct = out[0], certs[0].copy()
    c = int(np.flatnonzero(p)[0])
    bad = ct[c].copy()
    r = c // 9
    other = 9 * r + (c % 9 + 1) % 9
    bad[c], bad[other] = bad[other], bad[c]     # no longer a grid with every clue but c
    assert not M.certifies(bad, p, c, masks)
    # a redundant clue is found whatever certificates come with the puzzle
    g = solve(p)
    e = int(np.flatnonzero(p == 0)[0])
    q = p.copy()
    q[e] = g[e]
    junk = np.broadcast_to(g, (1, 81, 81)).copy()
    junk[0, :, e] = g[e] % 9 + 1
    assert M.first_not_minimal(q[None], ct[None]) == 0
    assert M.first_not_minimal(q[None], junk) == 0


def _forced_by_definition(work, x, d):
    """Which single forces digit d into the empty cell x of ``work``, from the clues alone
    (None if none does): 'naked', or the unit ('row', 'column', 'box') where x is d's only
    place."""
    units = {"row": [9 * (x // 9) + j for j in range(9)], "column": [9 * i + x % 9 for i in range(9)],
             "box": [9 * (3 * (x // 27) + i) + 3 * ((x % 9) // 3) + j for i in range(3) for j in range(3)]}
    peers = geometry(3, 3)[1]

    def sees(y, digit):
        return any(work[p] == digit for p in peers[y])

    for name, cells in units.items():
        if all(y == x or work[y] or sees(y, d) for y in cells):
            return name
    if {int(work[p]) for p in peers[x]} >= set(range(1, 10)) - {d}:
        return "naked"
    return None


def test_a_single_settles_a_question_exactly_when_the_clues_force_it():
    """``forced_back`` against the definition of naked and hidden singles, on every clue of
    unique 30- to 36-clue sets of random grids; each question it settles has one solution
    (the solver says so), and the oracle's answers, with it, are the solver's."""
    peers, units = geometry(3, 3)[1:]
    rng = np.random.default_rng(11)
    kinds = {}
    questions = 0
    for seed in range(6):
        grid = random_grid(100 + seed)
        o = M.fixed_oracle(grid, peers, units, np.zeros(0, np.uint64), np.zeros(0, np.uint64), 0)
        sets = 0
        while sets < 5:
            work = np.where(rng.permutation(81) < rng.integers(30, 37), grid, 0).astype(np.uint8)
            if count_solutions(work) != 1:
                continue
            sets += 1
            for x in np.flatnonzero(work):
                x = int(x)
                work[x] = 0
                lo, hi = _clue_set(work)
                kind = _forced_by_definition(work, x, int(grid[x]))
                assert M.forced_back(o[9], grid[x], lo, hi, x) == (kind is not None)
                unique = count_solutions(work) == 1
                assert kind is None or unique
                assert M.is_unique_without(o, work, lo, hi, x) == unique
                kinds[kind] = kinds.get(kind, 0) + 1
                questions += 1
                work[x] = grid[x]
    assert set(kinds) == {None, "row", "column", "box", "naked"}, kinds
    assert 0.05 < 1 - kinds[None] / questions < 0.5
