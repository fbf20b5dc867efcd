"""The designs of a minimal-count run: each method's odds of seeing a given minimal, mixtures
of subset sizes weighed by the balance heuristic, plans (each size searched to its own floor), the
best combination and the thinning of subsets by their removable clues.  Plain Python: the
kernels of ``minimals`` get these as numbers and arrays.
"""
from __future__ import annotations

import math


def method_factor(method: str, N: int, c: int, s: int) -> float:
    """Pr(a given c-clue minimal is seen by one probe)^-1 (seed 000)."""
    if method in ("singletons", "path"):
        return float(math.comb(N, c))
    if method == "subsets":
        return math.comb(N, s) / math.comb(N - c, s - c) if s >= c else 0.0
    if method == "supersets":
        return math.comb(N, s) / math.comb(c, s) if c >= s else 0.0
    raise ValueError(method)


def mixture_factor(method, N: int, c: int, s_mix, per_grid_mix, owners=None) -> float:
    """1 / Pr(a given c-clue minimal is seen by one probe of the mixture): probes of size
    s_mix[i] in the shares per_grid_mix[i] / sum (the balance heuristic of multiple
    importance sampling: every probe's count weighs the same, whichever size found it).
    ``method``: one for every size, or one a size (a plan that mixes subsets and supersets).
    ``owners``: the indices of the sizes whose counts of c are kept (default: all)."""
    seen = sum(_seen_by_size(method, N, c, s_mix, per_grid_mix, owners))
    return 1.0 / seen if seen > 0 else 0.0


def _seen_by_size(method, N: int, c: int, s_mix, per_grid_mix, owners) -> list[float]:
    """Pr(a given c-clue minimal is seen by one probe of the mixture, and by size i): its share
    of the probes times its odds; 0 for a size not among ``owners`` (None: all own c)."""
    total = sum(per_grid_mix)
    methods = [method] * len(s_mix) if isinstance(method, str) else list(method)
    seen = []
    for i, (m, s, k) in enumerate(zip(methods, s_mix, per_grid_mix)):
        f = method_factor(m, N, c, s)
        seen.append(k / total / f if f > 0 and (owners is None or i in owners) else 0.0)
    return seen


def balance_shares(method, N: int, c: int, s_mix, per_grid_mix, owners) -> list[float]:
    """Each size's share of the estimate of c under the balance heuristic (:func:`mixture_factor`):
    n_i q_i(c) / sum over the owners, 0 for the others (n_i its probes a grid, q_i(c) its odds of
    seeing a given c-clue minimal)."""
    seen = _seen_by_size(method, N, c, s_mix, per_grid_mix, owners)
    total = sum(seen)
    return [x / total if total > 0 else 0.0 for x in seen]


def share_rows(shares, n_sizes: int) -> dict[int, tuple[float, ...]]:
    """``shares`` (rows [c, share of size 0, share of size 1, ...]; None = none) checked, as
    {c: shares}: each row one share a size, none negative, summing to 1 (to 1e-6; made exact)."""
    if not shares:
        return {}
    out = {}
    for row in shares:
        try:
            c, *rest = row
            c, rest = int(c), [float(v) for v in rest]
        except (TypeError, ValueError):
            raise ValueError(f"shares {row!r}: rows of a clue count and one share per subset size") from None
        if len(rest) != n_sizes or c in out:
            raise ValueError(f"shares {row!r}: one row a clue count, with one share per subset size ({n_sizes})")
        if not all(math.isfinite(v) and v >= 0 for v in rest) or abs(sum(rest) - 1.0) > 1e-6:
            raise ValueError(f"shares {row!r}: shares of 0 or more that sum to 1")
        total = sum(rest)
        out[c] = tuple(v / total for v in rest)
    return out


def size_methods(method: str, methods, s_mix, min_clues, c_hi) -> list[str]:
    """Each size's method, checked: the job's for every size, or a plan's own (``methods``: one a
    size, subsets and supersets; a supersets size needs the job's clue bound c_hi, where its
    search stops, and counts the c from its floor up to it)."""
    if methods is None:
        return [method] * len(s_mix)
    methods = [str(m) for m in methods]
    if method != "subsets" or min_clues is None or len(methods) != len(s_mix):
        raise ValueError(f"methods {methods}: a plan's (subsets with --min-clues), one a size ({len(s_mix)})")
    if any(m not in ("subsets", "supersets") for m in methods):
        raise ValueError(f"methods {methods}: each subsets or supersets")
    if "supersets" in methods and c_hi is None:
        raise ValueError("a plan with supersets needs the clue bound c_hi, where their search stops")
    for m, s in zip(methods, s_mix):
        if m == "supersets" and s > c_hi:
            raise ValueError(f"supersets of {s}: above the clue bound c_hi = {c_hi}")
    return methods


def plan_owners(s_mix, floor_mix, c: int, methods=None, c_hi: int = 81) -> tuple[int, ...]:
    """The sizes of a plan whose counts of c are kept: every subsets size that can hold c and searches
    down to it (s >= c >= floor), and every supersets size (``methods[i]``; default: all subsets)
    whose bases fit inside c (s <= c) with c at or above its floor and at most ``c_hi``, the
    search's bound; weighed by the balance heuristic (:func:`mixture_factor`:
    every find counts the same, whichever size made it).  In the best combination the
    30-clue subsets searched to the bottom also see c = 28..31 and the 31-clue ones c = 29..31;
    keeping those finds (about a fifth of c = 28's weight, an eighth of c = 29's) cut the
    variance of c = 28 1.30-1.33x, of c = 29 1.24-1.29x and of the total 1.09-1.12x against
    counting each c only in the sizes with the highest floor (2026-11-29: the same 688,000
    grids of two 280-s runs, each half read both ways)."""
    methods = methods or ["subsets"] * len(s_mix)
    return tuple(i for i, (m, s, f) in enumerate(zip(methods, s_mix, floor_mix))
                 if (f <= c <= s if m == "subsets" else max(f, s) <= c <= c_hi))


#: The best combination for the total (issue 18; `estimate minimals` without --method): each range
#: of c from the probes made for it: 30-clue subsets searched to the bottom for c <= 27, 31 searched
#: down to 28 for c = 28, and for c = 29..31 the supersets of a 25-clue base up to 31 clues (the
#: rare classes' own design, :data:`TAIL_DESIGN`); the larger c a smaller size also sees keep their
#: finds (:func:`plan_owners`, the balance heuristic over both methods' odds).  Minimals of 32 clues
#: and more are left out (~1e-5 of the total by Berthier's counts, far below its error).
#: The two subsets sizes are thinned by their removable clues: the 31-clue ones in two stages
#: (:data:`AUTO_THINNING`: fitted on per-probe data, 1.2-1.25x less variance x CPU for their part),
#: the 30-clue ones past their first level with the falling chance min(1, exp(-0.1 (r - 13))), r their
#: clues that can go alone (1.04x for the total, at some cost to c = 22..23, which have their own
#: design).  Probes a grid by Neyman's rule (below).
#: Until the fifth session of 2026-11-30 c >= 29 came from 33-clue subsets searched down to 29 (6
#: probes a grid, 19% of the CPU); the supersets search's pruning made supersets the better design
#: for those classes, and inside the plan they take c = 30 and 31 from the total's weakest classes
#: (ten-minute RE ~20% and one find or none) to ~3% and ~5%.  Paired on this machine class (300 s on
#: one thread each, two at a time, scratch): the total's RE^2 x CPU-s 0.0081 / 0.0085 / 0.0082 at
#: 48 / 35 / 1 against 0.0106 and 0.0157 (a 31-clue find) for the plan with 33-clue subsets.
#: Neyman's rule with each part run alone at the plan's factors (200 s each, scratch; their
#: contributions' variance a grid 1.59e32 / 7.1e31 / 2.1e31 at 48 / 35 / 1, 5.2 / 5.9 / 138 us a
#: probe, ~44 us a grid for the grid and its oracle) gave 48 / 26 / 0.5: the supersets had twice
#: their share of the CPU.  48 / 30 / 0.5 is taken (1.045x less variance x CPU by those figures;
#: two pairs of 300-s runs against 48 / 35 / 1, same seeds: 0.00763 / 0.00777 against 0.00823 /
#: 0.00770).  c = 29 is shared between the 31-clue subsets and the supersets by fitted weights
#: (``shares``): the inverse-variance weights of their own estimates (300-s runs with each alone,
#: rescaled to these probes a grid), 0.25 / 0.75 (the 30-clue subsets see c = 29 a few times a run:
#: share 0); any fixed shares that sum to 1 leave the estimate unbiased.
#: Then twice those probes a grid, 96 / 60 / 1 (2026-11-30, seventh session): what a grid holds apart
#: from its probes' luck is 2.1-2.3% of a grid's variance (split halves, scratch: 2 x 395,000 grids,
#: each grid's probes run twice with fresh oracles, after the weight's control variate), while the grid,
#: its oracle and the oracle's first questions cost 3.3% of a probe-unit's CPU (m = 1 / 2: 567 / 548 us
#: a grid a probe-unit, three alternations); so twice the probes gives 1.011x less variance x CPU
#: (0.511 x 1.935), 1.5x and 2.5x 1.011x and 1.008x.
BEST_PLAN = {"s": [30, 31, 25], "methods": ["subsets", "subsets", "supersets"], "min_clues": [0, 28, 29],
             "c_hi": 31, "per_grid": [96, 60, 1],
             "thin": [[0.1, 13.0], [0.2, 14.0, 0.15, 23.0], [0.0, 0.0]],
             "shares": [[29, 0.0, 0.25, 0.75]]}


#: The design for the fewest clues, c = 22 (and 21, 23) on their own (issue 18's record run; `estimate
#: minimals --s 29 --per-grid 192 --thin=-0.35:14.5`): 29-clue subsets, 1.11x / 1.23x less RE^2 x CPU-s
#: than 30 at c = 22 / 23 (96 probes a grid, 300 s each, paired, 2026-11-30), and more so since that day's
#: cheaper rejection of a subset the cached UAs show not unique (29-clue probes 1.23x less CPU, 30-clue
#: 1.06-1.11x); 192 probes a grid (the grid and its oracle cost ~30 us);
#: and the first level thinned the other way round from the tail sizes': a unique subset goes on with a
#: chance that *rises* with its clues that can go alone, min(1, exp(0.35 (r - 14.5))) (r >= 7 for a
#: 22-clue minimal to fit; the subsets holding them have many removable clues, and the costly ones).
#: Fitted on per-probe data (scratch, 2026-11-30: 2 x 19.2 million probes, 104,000 unique subsets each,
#: solver calls as the cost): 1.16x less variance x CPU at c = 22 on the seed not fitted on; paired
#: (300 s on one thread each) 1.07x against thinning only r < 7.
SMALL_C_DESIGN = {"s": 29, "per_grid": 192, "thin": [-0.35, 14.5]}

#: The design for the rare classes, c = 29..31 (issue 18's record run; `estimate minimals --method supersets
#: --s 25 --c 31`): every minimal of at most 31 clues around a random 25-clue base.  Since the supersets search
#: drops a set with a clue no superset can need (2026-11-30, fifth session: 100-500x less CPU a probe, the same
#: minimals), it beats every subsets design at c >= 30: 60-120 s runs on 2 threads projected c = 29 / 30 / 31 to
#: 0.18-0.26 / 0.19-0.30 / 0.27-0.50% in 24 core-hours from bases of 23 to 26 clues (25 and 24 best alike; a
#: 25-clue probe costs ~200 us, a 24-clue one ~920), against 0.43% / 2.4% / out of reach for the best combination.
#: Bases of 22 clues and fewer cost more than their extra finds give (28 ms a probe).
TAIL_DESIGN = {"method": "supersets", "s": 25, "c_hi": 31}


#: thinning (beta, r0) of a subsets size searched to a floor, (s, floor): a subset goes past its
#: first level with chance min(1, exp(-beta (r - r0))), r its clues that can go alone
#: (:func:`thinned_minimals_in_subset`).  Fitted on per-probe data (scratch, 2026-11-29): 12 million
#: 33-clue probes searched to 30 (two seeds; fitted on one and scored on the other, 1.78x and 1.87x
#: less variance x CPU at c = 30; with the counts known beforehand the bound is 10x; measured in
#: three pairs of 600-s runs, 2.8x, 1.6x, 1.6x), 9.6 million searched to 29 (c >= 29 weighted as in the total:
#: 1.69x and 1.83x) and 2.9 million 31-clue probes searched to 28 (1.20x and 1.25x).  Not for
#: 30-clue subsets searched to the bottom: there a falling chance gains ~1.04x only for the total
#: (:data:`BEST_PLAN`) and costs the fewest clues, which runs of --s 30 are for.
#: Second stage (beta2, n2), 2026-11-29 (night): a set one clue above the floor is searched with chance
#: min(1, exp(beta2 (k - n2))), k its clues known needed.  From per-set data (scratch; 33-clue subsets
#: to 29, 28 million such sets in two seeds' 1.8 million probes; 31 to 28, 10.8 million in 7.5
#: million probes), each seed's fit scored on the other: 1.45x / 1.51x less variance x questions
#: for 33 to 29 (its questions 0.43x), 1.22x / 1.20x for 31 to 28 (0.61x).
AUTO_THINNING = {(33, 30): (0.3, 16.5), (33, 29): (0.25, 15.5, 0.25, 22.0), (31, 28): (0.2, 14.0, 0.15, 23.0)}


def auto_thinning(s, min_clues) -> list[tuple[float, ...]]:
    """The thinning of :data:`AUTO_THINNING` for each (size, floor) of a job, (0, 0) where none."""
    sizes, floors = as_list(s), as_list(min_clues)
    if len(floors) == 1:
        floors *= len(sizes)
    return [AUTO_THINNING.get((a, b), (0.0, 0.0)) for a, b in zip(sizes, floors)]


def thinning(thin, method, floors) -> list[tuple[float, ...]]:
    """The thinning of each size (``floors``: their clue floors), checked: (beta, r0), or
    (beta, r0, beta2, n2) with a second thinning above the floor (:func:`thinned_minimals_in_subset`);
    None = none; one entry for every size, or one a size.  An entry whose beta2 is 0 is kept as a
    pair."""
    n_sizes = len(floors)
    if thin is None:
        return [(0.0, 0.0)] * n_sizes
    entries = [thin] if len(thin) in (2, 4) and not isinstance(thin[0], (list, tuple)) else list(thin)
    try:
        entries = [tuple(float(v) for v in e) for e in entries]
    except (TypeError, ValueError):
        raise ValueError(f"thinning {thin!r}: (beta, r0) or (beta, r0, beta2, n2) entries of numbers") from None
    if any(len(e) not in (2, 4) for e in entries):
        raise ValueError(f"thinning {thin!r}: (beta, r0) or (beta, r0, beta2, n2) entries of numbers")
    entries = [e[:2] if len(e) == 4 and e[2] == 0.0 else e for e in entries]
    if len(entries) == 1:
        entries *= n_sizes
    if len(entries) != n_sizes:
        raise ValueError(f"thinning {thin!r}: one entry, or one per subset size ({n_sizes})")

    def bad(e):
        return (not all(math.isfinite(v) for v in e) or any(abs(b) > 10 for b in e[0::2])
                or any(abs(r) > 81 for r in e[1::2]))

    if any(bad(e) for e in entries):
        raise ValueError(f"thinning {thin!r}: each beta within +-10 and each r0 / n2 within +-81, finite")
    methods = [method] * n_sizes if isinstance(method, str) else list(method)
    if any(m != "subsets" and is_thinned([e]) for m, e in zip(methods, entries)):
        raise ValueError("thinning: subsets only")
    if any(len(e) == 4 and f == 0 for e, f in zip(entries, floors)):
        raise ValueError(f"thinning {thin!r}: a second stage (beta2, n2) needs a floor (--min-clues) for its size")
    return entries


def is_thinned(entries) -> bool:
    """Does any size of a job thin (either stage)?"""
    return any(e[0] != 0.0 or len(e) == 4 for e in entries)


def thinning_rows(entries) -> list[tuple[float, float, float, float]]:
    """(beta, r0, beta2, n2) a size, the kernel's array rows (no second stage: 0, 0)."""
    return [(e + (0.0, 0.0))[:4] for e in entries]


def probes_per_grid(per_grid, method: str, N: int, n_sizes: int) -> list[int | float]:
    """The probes a grid of each size, checked (default: the method's)."""
    # subsets: the variance is nearly all between the probes of one grid (a share of 0.4-4.6%
    # between grids at 16 probes, 144,000 weighted grids x 64 probes at s = 30), and a grid
    # with its oracle costs ~72 us against ~14 us a probe (2026-11-28), so 9x9 grids get 48
    # probes: from the measured variance parts and costs, 1.16 / 1.13 / 1.10 / 1.09 / 1.12 /
    # 1.18x less RE^2 x CPU-s than 16 at c = 22..27 and 1.19x for the total (64: 1.07-1.21x)
    if per_grid is None:
        per_grid = {"subsets": 48 if N == 81 else 16, "supersets": 4, "path": 8, "singletons": 8}[method]
    # a fraction is an average: a plan's costly 34-clue probes go to one grid in four or so
    mix = [whole_or_fraction(v) for v in (per_grid if isinstance(per_grid, (list, tuple)) else [per_grid])]
    if len(mix) == 1:
        mix *= n_sizes
    if len(mix) != n_sizes:
        raise ValueError(f"probes per grid {per_grid}: one number, or one per subset size ({n_sizes})")
    for one in mix:
        if not (0 < one <= 1_000_000 and math.isfinite(one)):
            raise ValueError(f"probes per grid: more than 0, at most 1000000, got {one}")
    return mix


def as_list(x) -> list[int]:
    return [int(v) for v in x] if isinstance(x, (list, tuple)) else [int(x)]


def whole_or_fraction(x: float) -> int | float:
    """2.0 -> 2 (specs stored with whole probe counts stay as they were), 0.25 stays."""
    x = float(x)
    return int(x) if math.isfinite(x) and x == int(x) else x
