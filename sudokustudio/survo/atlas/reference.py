"""Published figures the atlas is checked against: S(m, n) (REFERENCES.md) and seed 001's
tables for the 5327 open 4×4 puzzles."""
from __future__ import annotations

import numpy as np

from sudokustudio.survo.atlas.result import AtlasResult

#: S(m, n) of REFERENCES.md (Mustonen), keyed by (m, n) with m <= n.
KNOWN_COUNTS = {(2, 2): 1, (2, 3): 18, (2, 4): 62, (2, 5): 278, (2, 6): 1146, (2, 7): 5706, (2, 10): 843476,
                (3, 3): 38, (3, 4): 583, (3, 5): 5337, (3, 6): 55815, (3, 7): 617658, (4, 4): 5327,
                (4, 5): 257773}

#: Seed 001's tables for the 5327 open 4×4 puzzles.
SEED_SWAPS_4x4 = [85, 262, 522, 977, 1271, 1222, 696, 255, 36, 1]
#: W bins as seed 001 prints them: "0-4", 6, 8, ..., 22 -> (frequency, "% solvable in < 6 swaps").
SEED_W_BINS_4x4 = [("0-4", 467, 100.0), ("6", 417, 99.5), ("8", 609, 99.0), ("10", 879, 93.6),
                   ("12", 896, 85.8), ("14", 929, 70.6), ("16", 681, 56.6), ("18", 312, 49.6),
                   ("20", 126, 46.8), ("22", 11, 54.5)]
SEED_ALL_UNDER6_4x4 = 81.5
SEED_CHI2_RANGE_4x4 = (0.25, 8.25)


def compare_with_seed(result: AtlasResult) -> dict:
    """Seed 001's 4×4 tables beside the computed ones, with a match flag per table.

    Only meaningful for the complete 4×4 atlas; for other sizes only the
    count is compared (with REFERENCES.md's S(m, n)).
    """
    out = {"size": f"{result.m}x{result.n}", "count": result.count,
           "known_count": KNOWN_COUNTS.get((result.m, result.n))}
    out["count_match"] = out["known_count"] == result.count
    if (result.m, result.n) != (4, 4):
        return out
    swaps = result.swaps_hist()
    swaps = swaps + [0] * (len(SEED_SWAPS_4x4) - len(swaps))
    out["swaps"] = {"seed": SEED_SWAPS_4x4, "computed": swaps, "match": swaps == SEED_SWAPS_4x4}
    computed_w = result.w_table([(lab, *bin_limits(lab)) for lab, _, _ in SEED_W_BINS_4x4])
    w_match = all(k == sk and pct_as_printed(p, sp) for (_, k, p), (_, sk, sp) in zip(computed_w, SEED_W_BINS_4x4))
    w_match = w_match and sum(k for _, k, _ in computed_w) == result.count
    out["W_table"] = {"seed": [[lab, k, p] for lab, k, p in SEED_W_BINS_4x4],
                      "computed": [[lab, k, round(p, 2)] for lab, k, p in computed_w], "match": w_match}
    under6 = result.under6_percent()
    out["under6"] = {"seed": SEED_ALL_UNDER6_4x4, "computed": round(under6, 2),
                     "match": pct_as_printed(under6, SEED_ALL_UNDER6_4x4)}
    lo, hi = (float(result.chi2.min()), float(result.chi2.max())) if result.count else (None, None)
    out["chi2"] = {"seed_interval": list(SEED_CHI2_RANGE_4x4), "min": lo, "max": hi,
                   "match": bool(result.count) and SEED_CHI2_RANGE_4x4[0] < lo and hi < SEED_CHI2_RANGE_4x4[1]}
    mean, sd = result.swaps_mean_sd()
    out["swaps_mean_sd"] = {"seed": "about 4 and 1.6", "mean": mean, "sd": sd,
                            "match": bool(result.count) and round(mean) == 4 and abs(sd - 1.6) < 0.05}
    out["all_match"] = all(out[k]["match"] for k in ("swaps", "W_table", "under6", "chi2", "swaps_mean_sd")) \
        and out["count_match"]
    return out


def pct_as_printed(p: float, printed: float) -> bool:
    """Does percentage ``p`` print as seed 001's one-decimal figure?

    Seed 001 cuts its W-table percentages to one decimal (56.68 % -> 56.6,
    49.68 % -> 49.6) but rounds elsewhere (4339/5327 = 81.45 % -> 81.5), so
    either reading is accepted; the frequencies themselves must be equal.
    """
    if p != p:  # NaN: empty bin
        return False
    return abs(round(p, 1) - printed) < 1e-9 or abs(np.floor(p * 10 + 1e-9) / 10 - printed) < 1e-9


def bin_limits(label: str) -> tuple[int, int]:
    """(low, high) W of a bin label: "0-4" or "6"."""
    if "-" in label:
        lo, hi = label.split("-")
        return int(lo), int(hi)
    return int(label), int(label)


_bin_limits = bin_limits   # the Atlas view's name for it
