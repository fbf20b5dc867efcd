"""Unavoidable sets: harvest (unavoidable, minimal, complete for sizes 4 and 6),
seed 004's example, disjoint groups, the UA pre-test, and the few-clue search."""
from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest

from sudokustudio.sudoku import unavoidable as U
from sudokustudio.sudoku.grid import format_puzzle, parse_puzzle
from sudokustudio.sudoku.grids import random_grid
from sudokustudio.sudoku.solver import count_solutions, solve

SEED_004 = Path(__file__).resolve().parent.parent.parent / "shared" / "seeds" / "004_233fc9813b1bde6a.txt"
BANDS_12 = "123456789457189263698732145285691374764523918931847526"


@pytest.fixture(scope="module")
def grid_and_uas():
    g = random_grid(2024)
    return g, U.harvest(g, 12)


@pytest.fixture(scope="module")
def seventeens(shared_data):
    from sudokustudio.sudoku.grid import read_puzzles

    coll = read_puzzles(shared_data / "puzzles2_17_clue")
    return coll.puzzles[[0, 1234, 40000]]


@pytest.fixture(scope="module")
def seventeen_uas(seventeens):
    """(puzzle, grid, UAs) for the 17-clue puzzles, harvested once."""
    out = []
    for p in seventeens:
        g = solve(p)
        out.append((p, g, U.harvest(g, 12, random_sets=0)))
    return out


def _empty(grid, cells):
    p = grid.copy()
    p[cells] = 0
    return p


def test_harvested_uas_are_unavoidable_and_minimal(grid_and_uas):
    """Checked with the public solver, independently of the harvest's own kernels."""
    g, uas = grid_and_uas
    assert len(uas) > 100
    sizes = uas.sizes()
    assert sizes.min() >= 4 and sizes.max() <= 12
    assert list(sizes) == sorted(sizes)
    assert len(set(uas.masks())) == len(uas)
    for lo, hi in zip(uas.lo, uas.hi):
        cells = U.mask_to_cells(lo, hi)
        assert count_solutions(_empty(g, cells), 2) == 2          # unavoidable
        for c in cells:                                            # minimal
            assert count_solutions(_empty(g, cells[cells != c]), 2) == 1


def test_no_ua_contains_another(grid_and_uas):
    _, uas = grid_and_uas
    lo, hi = uas.lo, uas.hi
    for i in range(len(uas)):
        inside = ((lo & lo[i]) == lo) & ((hi & hi[i]) == hi)
        assert inside.sum() == 1  # only itself


@pytest.mark.parametrize("seed", [2024, 7, 99])
def test_sizes_4_and_6_equal_brute_force(seed, grid_and_uas):
    g = grid_and_uas[0] if seed == 2024 else random_grid(seed)
    # the quick harvest (2- and 3-digit sets) must already find every UA of size 4 and 6
    uas = grid_and_uas[1] if seed == 2024 else U.harvest(g, 6, quick=True)
    brute = U.brute_force_small_uas(g)
    assert len(brute) > 0
    small = {m for m, s in zip(uas.masks(), uas.sizes()) if s <= 6}
    assert small == set(brute.masks())
    # size 4 = unique rectangles: 2 rows x 2 columns in exactly 2 boxes
    for m, s in zip(brute.masks(), brute.sizes()):
        if s == 4:
            cells = [i for i, ch in enumerate(m) if ch == "1"]
            assert len({c // 9 for c in cells}) == 2 and len({c % 9 for c in cells}) == 2
            assert len({(c // 27, c % 9 // 3) for c in cells}) == 2


def test_seed_004_example_small_uas():
    text = SEED_004.read_text(encoding="utf-8")
    listing = text[text.index("The smallest UAs are"):text.index("Note : an easy way")]
    listed = re.findall(r"^([.1]{54}) \d+ (\d+)$", listing, re.M)
    assert len(listed) == 10
    g = solve(parse_puzzle(BANDS_12 + "." * 27))
    assert format_puzzle(g)[:54] == BANDS_12
    have = set(U.harvest(g, 12).masks())
    for mask, size in listed:
        full = mask + "." * 27
        assert full.count("1") == int(size)
        assert full in have, mask


def test_disjoint_groups_are_disjoint_and_exact_on_small_sets(grid_and_uas):
    _, uas = grid_and_uas
    idx, exact = U.disjoint_groups(uas)
    cells = [set(U.mask_to_cells(uas.lo[i], uas.hi[i])) for i in idx]
    assert sum(len(c) for c in cells) == len(set().union(*cells))
    assert exact
    # exact search equals brute force on the 18 smallest UAs
    n = 18
    best = np.empty(n, dtype=np.int64)
    k, ex = U.max_disjoint_kernel(uas.lo[:n], uas.hi[:n], best, 10**7)
    sets = [set(U.mask_to_cells(uas.lo[i], uas.hi[i])) for i in range(n)]
    brute = 0
    for sub in range(1 << n):
        members = [sets[i] for i in range(n) if sub >> i & 1]
        if len(members) > brute and sum(map(len, members)) == len(set().union(*members)):
            brute = len(members)
    assert ex and k == brute


def test_disjoint_bound_at_most_17_for_17_clue_grids(seventeen_uas):
    for p, _, uas in seventeen_uas:
        idx, _ = U.disjoint_groups(uas)
        assert len(idx) <= 17
        assert not U.misses_known_ua(p, uas)  # a unique puzzle hits every UA


def test_misses_known_ua_means_not_unique(grid_and_uas):
    g, uas = grid_and_uas
    rng = np.random.default_rng(5)
    seen = 0
    for _ in range(200):
        keep = rng.random(81) < 0.35
        puzzle = np.where(keep, g, 0).astype(np.uint8)
        if U.misses_known_ua(puzzle, uas):
            seen += 1
            assert count_solutions(puzzle, 2) == 2
    assert seen > 50
    assert not U.misses_known_ua(g, uas)
    assert U.misses_known_ua(np.zeros(81, dtype=np.uint8), uas)


def _force_mask(puzzle, n):
    cells = set(np.flatnonzero(puzzle)[:n].tolist())
    return "".join("1" if c in cells else "." for c in range(81))


def test_force_11_of_17_finds_the_puzzle(seventeen_uas):
    for p, g, uas in seventeen_uas:
        res = U.search(g, 17, _force_mask(p, 11), uas=uas)
        assert format_puzzle(p) in res["puzzles"]
        for q in res["puzzles"]:
            arr = parse_puzzle(q)
            assert (arr != 0).sum() <= 17
            assert ((arr == 0) | (arr == g)).all()
            assert count_solutions(arr, 2) == 1
            assert all(arr[c] for c in np.flatnonzero(p)[:11])


def test_forward_view_same_puzzles_fewer_nodes(seventeen_uas):
    p, g, uas = seventeen_uas[1]
    force = _force_mask(p, 9)
    with_fv = U.search(g, 17, force, uas=uas, forward=True)
    without = U.search(g, 17, force, uas=uas, forward=False)
    assert with_fv["puzzles"] == without["puzzles"]
    assert format_puzzle(p) in with_fv["puzzles"]
    assert with_fv["nodes"] < without["nodes"]


def test_batched_search_equals_single_run(seventeen_uas):
    from sudokustudio.jobs.run import run_batches

    p, g, uas = seventeen_uas[2]
    force = _force_mask(p, 10)
    single = U.search(g, 17, force, uas=uas)
    job = U.UASearchJob("".join(map(str, g)), 17, force, 12, True, 2, 1)
    job.prepare(uas)
    out = run_batches(job, 3, job.n_batches(), workers=2)
    assert not out.errors and out.batches == job.n_batches() > 1
    assert out.total["puzzles"] == single["puzzles"]
    assert format_puzzle(p) in single["puzzles"]


def test_small_clue_bound_finds_nothing(grid_and_uas):
    g, uas = grid_and_uas
    res = U.search(g, 10, uas=uas)
    assert res["puzzles"] == []


def test_masks_round_trip_and_errors():
    lo, hi = U.mask_from_string("1" * 81)
    assert U.mask_to_cells(lo, hi).tolist() == list(range(81))
    assert U.mask_to_string(*U.mask_from_string("1..1")) == "1..1" + "." * 77
    with pytest.raises(ValueError, match="position 3"):
        U.mask_from_string("..z")
    with pytest.raises(ValueError):
        U.read_grid("12345")


def test_cli_harvest_and_search_json(capsys, seventeens):
    from sudokustudio.cli import main

    p = seventeens[0]
    g = "".join(map(str, solve(p)))
    assert main(["ua", "harvest", g, "--max-size", "8", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert set(out) >= {"uas", "by_size", "disjoint_lower_bound", "seconds"}
    assert all(len(m) == 81 for m in out["uas"])
    assert sum(out["by_size"].values()) == len(out["uas"])
    assert main(["ua", "search", g, "--clues", "17", "--force", _force_mask(p, 12), "--json",
                 "--threads", "1"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert format_puzzle(p) in out["puzzles"] and out["nodes"] > 0 and out["complete"]
    assert main(["ua", "search", g, "--clues", "17", "--force", "..q"]) == 2
    assert "--force" in capsys.readouterr().err


def test_refilling_digit_by_digit_finds_what_the_general_search_finds():
    """The harvest's digit-template refilling against the general candidate search:
    the same number of other solutions and the same difference sets, on the
    harvest's own cell sets (digit sets, band pairs, bands, random sets) and on
    random sets of 20..50 cells."""
    from sudokustudio.core.cellset import from_cells
    from sudokustudio.sudoku.generic import search_g
    from sudokustudio.sudoku.tables import geometry
    from sudokustudio.sudoku.unavoidable.harvest import (MAX_TEMPLATES, harvest_cell_sets, refillings_kernel,
                                                         restrict)

    _, peers, units = geometry(3, 3)
    rng = np.random.default_rng(7)
    t_lo = np.empty((10, MAX_TEMPLATES), dtype=np.uint64)
    t_hi = np.empty((10, MAX_TEMPLATES), dtype=np.uint64)
    checked = 0
    for seed in (3, 11):
        g = random_grid(seed)
        lo, hi = harvest_cell_sets(g, seed=seed, random_sets=40)
        extra = [from_cells(rng.choice(81, size=int(rng.integers(20, 51)), replace=False)) for _ in range(60)]
        sets = list(zip(lo.tolist(), hi.tolist())) + extra
        for a, b in sets[::3]:
            a, b = np.uint64(a), np.uint64(b)
            mine = (np.empty(20000, np.uint64), np.empty(20000, np.uint64), np.zeros(1, np.int64))
            n = refillings_kernel(g, a, b, 20000, 81, *mine, t_lo, t_hi)
            theirs = (np.empty(20000, np.uint64), np.empty(20000, np.uint64), np.zeros(1, np.int64))
            puzzle = np.empty(81, np.uint8)
            restrict(g, ~a, ~b & np.uint64((1 << 17) - 1), puzzle)
            m = search_g(puzzle, peers, units, 20000, g, np.empty(81, np.uint8), *theirs, 81)
            assert n == m
            if n == 20000:      # both stopped at the cap, each after its own first 20,000
                continue
            k, j = mine[2][0], theirs[2][0]
            assert sorted(zip(mine[0][:k], mine[1][:k])) == sorted(zip(theirs[0][:j], theirs[1][:j]))
            checked += 1
    assert checked > 150
    # a size bound prunes the refillings, not the answer: exactly the unbounded ones within it
    bounded = 0
    for a, b in sets[1::5]:
        a, b = np.uint64(a), np.uint64(b)
        every = (np.empty(20000, np.uint64), np.empty(20000, np.uint64), np.zeros(1, np.int64))
        if refillings_kernel(g, a, b, 20000, 81, *every, t_lo, t_hi) >= 20000:
            continue
        small = [(x, y) for x, y in zip(every[0][:every[2][0]], every[1][:every[2][0]])
                 if bin(int(x)).count("1") + bin(int(y)).count("1") <= 12]
        within = (np.empty(20000, np.uint64), np.empty(20000, np.uint64), np.zeros(1, np.int64))
        assert refillings_kernel(g, a, b, 20000, 12, *within, t_lo, t_hi) == len(small)
        assert sorted(zip(within[0][:within[2][0]], within[1][:within[2][0]])) == sorted(small)
        bounded += bool(small)
    assert bounded > 20
    # past the template room nothing is written and the harvest takes the general search
    room = (np.empty(100, np.uint64), np.empty(100, np.uint64), np.zeros(1, np.int64))
    a, b = lo[200], hi[200]    # a four-digit set: every digit has several templates
    assert refillings_kernel(g, a, b, 20000, 81, *room, t_lo[:, :1].copy(), t_hi[:, :1].copy()) == -1
    assert room[2][0] == 0


def test_sizes_of_many_sets_match_one_by_one():
    from sudokustudio.core.cellset import size_of, sizes_of

    rng = np.random.default_rng(5)
    lo = rng.integers(0, 2**63, 2000, dtype=np.uint64) * np.uint64(2) + rng.integers(0, 2, 2000).astype(np.uint64)
    hi = rng.integers(0, 2**17, 2000).astype(np.uint64)
    lo[:3] = [0, np.uint64(2**64 - 1), 1]
    hi[:3] = [0, np.uint64(2**17 - 1), 0]
    sizes = sizes_of(lo, hi)
    assert sizes.dtype == np.int64 and list(sizes[:3]) == [0, 81, 1]
    assert np.array_equal(sizes, [size_of(a, b) for a, b in zip(lo, hi)])


def test_sets_of_masks_match_one_by_one(grid_and_uas):
    from sudokustudio.core.cellset import from_cells, sets_of_masks
    from sudokustudio.sudoku.unavoidable.harvest import harvest_cell_sets

    rng = np.random.default_rng(8)
    for n in (81, 128, 5):
        masks = rng.random((3, 40, n)) < rng.random((3, 40, 1))
        lo, hi = sets_of_masks(masks)
        assert lo.shape == hi.shape == (3, 40) and lo.dtype == hi.dtype == np.uint64
        for k in range(3):
            for i in range(40):
                assert (int(lo[k, i]), int(hi[k, i])) == from_cells(np.flatnonzero(masks[k, i]))
    with pytest.raises(ValueError, match="129 cells"):
        sets_of_masks(np.zeros((2, 129), dtype=bool))
    # the harvest's first cell sets are the cells of digits {1, 2}, {1, 3}, ... in that order
    grid = grid_and_uas[0]
    lo, hi = harvest_cell_sets(grid, quick=True)
    assert len(lo) == 36 + 84
    assert (int(lo[0]), int(hi[0])) == from_cells(np.flatnonzero((grid == 1) | (grid == 2)))
    assert (int(lo[36]), int(hi[36])) == from_cells(np.flatnonzero((grid == 1) | (grid == 2) | (grid == 3)))
