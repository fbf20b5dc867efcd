"""Target difficulty: keep only the puzzles whose ratings lie in chosen bands.

A band is ``(metric, lo, hi)`` with a metric of ``difficulty.METRICS``
(``W``, ``guesses``, ``brt``) and inclusive bounds; its text form is
``NAME:LO-HI`` (``W:3-5``), ``NAME:V`` (``brt:1``) or with an open side
(``W:4-``, ``guesses:-10``).  Every generator's batch rates what it made
and drops what falls outside; the result counts how many were rated and how
many rejected, so a user sees what a band costs.
"""
from __future__ import annotations

import math

import numpy as np

from sudokustudio.sudoku.difficulty import METRICS, puzzle_difficulty


def parse_band(text: str) -> tuple[str, float, float]:
    """``NAME:LO-HI`` -> (name, lo, hi); ValueError saying what is wrong."""
    name, sep, rng = str(text).partition(":")
    name = name.strip()
    if not sep or not name or not rng.strip():
        raise ValueError(f"rating band {text!r}: expected NAME:LO-HI, e.g. W:3-5")
    if name not in METRICS:
        raise ValueError(f"rating band {text!r}: unknown metric {name!r}; known: {', '.join(METRICS)}")
    lo_s, dash, hi_s = rng.strip().partition("-")
    try:
        lo = float(lo_s) if lo_s.strip() else -math.inf
        hi = (float(hi_s) if hi_s.strip() else math.inf) if dash else lo
    except ValueError:
        raise ValueError(f"rating band {text!r}: bounds must be numbers, e.g. W:3-5") from None
    if lo > hi:
        raise ValueError(f"rating band {text!r}: low bound {lo:g} above high bound {hi:g}")
    return name, lo, hi


def check_bands(bands) -> list[list]:
    """Bands as JSON-able [name, lo, hi] lists (texts are parsed)."""
    out = []
    for b in bands or ():
        name, lo, hi = parse_band(b) if isinstance(b, str) else (str(b[0]), float(b[0 + 1]), float(b[2]))
        if name not in METRICS:
            raise ValueError(f"unknown rating metric {name!r}; known: {', '.join(METRICS)}")
        out.append([name, lo, hi])
    return out


def rated_by_w(metrics, bands) -> bool:
    """Will each puzzle be W-rated (a metric asked for, or a band's)?  At ~10 ms a puzzle that
    rating dwarfs the fast generators' own cost, so their batches are then made smaller."""
    return "W" in metrics or any(b[0] == "W" for b in bands)


def band_text(bands) -> str:
    def side(x):
        return "" if math.isinf(x) else f"{x:g}"

    return ", ".join(f"{n}:{side(lo)}-{side(hi)}" for n, lo, hi in bands)


def in_bands(puzzles, metrics: dict, bands) -> tuple[np.ndarray, dict]:
    """(boolean mask of the puzzles inside every band, metrics with the band metrics added)."""
    n = int(np.asarray(puzzles).reshape(-1, 81).shape[0])
    missing = [b[0] for b in bands if b[0] not in metrics]
    metrics = dict(metrics)
    if missing and n:
        metrics.update(puzzle_difficulty(puzzles, sorted(set(missing))))
    keep = np.ones(n, dtype=bool)
    for name, lo, hi in bands:
        x = np.asarray(metrics.get(name, np.zeros(n)), dtype=np.float64)
        keep &= (x >= lo) & (x <= hi)
    return keep, metrics


def filter_result(res, bands):
    """A GenResult with only the puzzles in the bands; ``rated``/``rejected`` counted."""
    if not bands:
        return res
    keep, metrics = in_bands(res.puzzles, res.metrics, bands)
    res.rated += res.count
    res.rejected += int((~keep).sum())
    res.puzzles = res.puzzles[keep]
    res.weights = np.asarray(res.weights)[keep] if len(res.weights) == len(keep) else res.weights
    res.metrics = {k: np.asarray(v)[keep] for k, v in metrics.items()}
    return res
