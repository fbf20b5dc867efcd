"""Seed 001's tables for any atlas size, the random-start baseline, and their CSV export.

For the open 4×4 puzzles seed 001 gives the distribution of the fewest
swaps from the product setup, W against "solvable in < 6 swaps", the share
solved by the setup at once, the chi-square range and the mean and sd of
the swaps, beside the same figures for a random start (the Stirling numbers
of the first kind).  ``atlas_tables`` computes them for any size:

* k of "< k swaps" is the first whole number above the mean swaps, plus
  one (6 for 4×4, as seed 001 chose);
* W bins have an even width w chosen so there are at most about a dozen
  (w = 2 for 4×4); the first bin merges 0..2w ("0-4" for 4×4), as seed 001
  prints them.

Everything is plain data (lists, dicts, numbers) for the UI, JSON and CSV.
"""
from __future__ import annotations

import csv
import io
import math
from dataclasses import asdict, dataclass, field
from pathlib import Path

from sudokustudio.survo.atlas.result import AtlasResult


def random_start(cells: int) -> dict:
    """Swaps needed from a uniformly random table of ``cells`` numbers (exact).

    cells − cycles of a uniform permutation: the unsigned Stirling numbers
    of the first kind.  Returns {"cells", "mean", "sd", "dist": [[swaps,
    permutations, probability], ...]} (permutations as exact integers).
    """
    from sudokustudio.survo.solve import swap_distribution, swap_moments

    dist = swap_distribution(cells)
    total = math.factorial(cells)
    mean, var = swap_moments(cells)
    return {"cells": cells, "mean": float(mean), "sd": math.sqrt(float(var)),
            "dist": [[s, dist[s], dist[s] / total] for s in sorted(dist)]}


def under_k(mean: float) -> int:
    """The k of "solvable in < k swaps": the first whole number above the mean, plus one."""
    return int(math.floor(mean)) + 2


def w_bins(max_w: int, target_rows: int = 12) -> list[tuple[str, int, int]]:
    """(label, low, high) W bins of even width, the first merging 0..2·width."""
    width = 2
    while (max_w - 2 * width) / width + 1 > target_rows:
        width += 2
    bins = [(f"0-{2 * width}", 0, 2 * width)]
    lo = 2 * width + 2
    while lo <= max(max_w, 2 * width + 2):
        hi = lo + width - 2
        bins.append((str(lo) if width == 2 else f"{lo}-{hi}", lo, hi))
        lo += width
    return bins


@dataclass
class AtlasTables:
    """Seed 001's statistics of an atlas (or of the part computed so far)."""

    m: int
    n: int
    count: int
    swaps_hist: list[int]
    swaps_mean: float
    swaps_sd: float
    solved_at_once: int                      # the setup is the solution (0 swaps)
    solved_at_once_percent: float
    chi2_min: float | None
    chi2_max: float | None
    k: int                                   # "solvable in < k swaps"
    under_k_percent: float
    w_table: list[list] = field(default_factory=list)   # [label, count, % of them < k swaps]
    random_start: dict = field(default_factory=dict)

    def as_dict(self) -> dict:
        return asdict(self)


def atlas_tables(result: AtlasResult, k: int | None = None) -> AtlasTables:
    """The tables of an atlas result (k chosen by ``under_k`` unless given)."""
    count = result.count
    mean, sd = result.swaps_mean_sd()
    if k is None:
        k = under_k(mean) if count else 6
    top = result.joint_hist().shape[0] - 1 if count else 0
    w_table = [[lab, c, round(p, 1) if p == p else None]
               for lab, c, p in result.w_table([b for b in w_bins(top)], k=k)]
    zero = result.under_k_count(1)
    chi2 = result.chi2_range() or (None, None)
    return AtlasTables(
        m=result.m, n=result.n, count=count, swaps_hist=result.swaps_hist(), swaps_mean=mean, swaps_sd=sd,
        solved_at_once=zero, solved_at_once_percent=100.0 * zero / count if count else float("nan"),
        chi2_min=chi2[0], chi2_max=chi2[1],
        k=k, under_k_percent=100.0 * float(result.under_k_count(k)) / count if count else float("nan"),
        w_table=w_table, random_start=random_start(result.m * result.n))


def tables_csv(t: AtlasTables) -> dict[str, str]:
    """The tables as CSV texts: {"swaps": ..., "w": ..., "summary": ...}."""
    out = {}
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["swaps", "puzzles", "percent", "cumulative", "cumulative_percent", "random_start_probability"])
    rand = {row[0]: row[2] for row in t.random_start["dist"]}
    cum = 0
    for sw in range(max(len(t.swaps_hist), len(rand))):
        c = t.swaps_hist[sw] if sw < len(t.swaps_hist) else 0
        cum += c
        w.writerow([sw, c, _pct(c, t.count), cum, _pct(cum, t.count), f"{rand.get(sw, 0.0):.12g}"])
    out["swaps"] = buf.getvalue()
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["W", "puzzles", f"percent_under_{t.k}_swaps"])
    for lab, c, p in t.w_table:
        w.writerow([lab, c, "" if p is None else p])
    w.writerow(["all", t.count, round(t.under_k_percent, 1) if t.count else ""])
    out["w"] = buf.getvalue()
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["statistic", "value"])
    for key, val in (("size", f"{t.m}x{t.n}"), ("puzzles", t.count), ("swaps_mean", t.swaps_mean),
                     ("swaps_sd", t.swaps_sd), ("solved_at_once", t.solved_at_once),
                     ("solved_at_once_percent", t.solved_at_once_percent), ("chi2_min", t.chi2_min),
                     ("chi2_max", t.chi2_max), ("k", t.k), ("under_k_percent", t.under_k_percent),
                     ("random_start_mean", t.random_start["mean"]), ("random_start_sd", t.random_start["sd"])):
        w.writerow([key, val])
    out["summary"] = buf.getvalue()
    return out


def write_tables_csv(prefix, t: AtlasTables) -> list[Path]:
    """Write PREFIX_swaps.csv, PREFIX_w.csv and PREFIX_summary.csv; returns the paths."""
    paths = []
    for name, text in tables_csv(t).items():
        p = Path(f"{prefix}_{name}.csv")
        p.write_text(text, encoding="utf-8")
        paths.append(p)
    return paths


def _pct(a: int, b: int) -> str:
    return f"{100.0 * a / b:.2f}" if b else ""

