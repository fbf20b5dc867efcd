"""The result of an atlas run (or of one batch): puzzle records and exact counters,
with the distributions seed 001 tabulates."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from sudokustudio.core.growing import appended_columns
from sudokustudio.core.plain import plain_dataclass

# puzzle record layout: row sums (m) | column sums (n) | solution (m·n) | setup (m·n) | W | swaps
# (chi-square is kept in a separate float array)


def record_width(m: int, n: int) -> int:
    return m + n + 2 * m * n + 2


@plain_dataclass("AtlasResult")
@dataclass
class AtlasResult:
    """Merged (or one batch's) atlas: puzzle records and exact counters.

    ``records`` int64[k, record_width]: row sums | column sums | solution |
    setup | W | min swaps; ``chi2`` float64[k].
    """

    m: int
    n: int
    records: np.ndarray
    chi2: np.ndarray
    tables: int = 0          # trade-free tables met
    candidates: int = 0      # margins met once among them (checked exactly)
    vectors_done: int = 0
    cpu_seconds: float = 0.0   # thread CPU time of the batches (robust to a loaded machine)
    # the growing storage ``records`` and ``chi2`` are the first rows of (merge_results), if any:
    # not a field (class attribute, no annotation), so it is never stored, compared or encoded
    _store = None
    # cached figures (class attributes, not fields): puzzles per (W, min swaps), chi-square range, sd
    _joint = None
    _chi2_range = None
    _swaps_sd = None

    @property
    def count(self) -> int:
        return int(self.records.shape[0])

    # -- columns
    def row_sums(self) -> np.ndarray:
        return self.records[:, :self.m]

    def col_sums(self) -> np.ndarray:
        return self.records[:, self.m:self.m + self.n]

    def solutions(self) -> np.ndarray:
        o = self.m + self.n
        return self.records[:, o:o + self.m * self.n].reshape(-1, self.m, self.n)

    def setups(self) -> np.ndarray:
        o = self.m + self.n + self.m * self.n
        return self.records[:, o:o + self.m * self.n].reshape(-1, self.m, self.n)

    def w(self) -> np.ndarray:
        return self.records[:, -2]

    def swaps(self) -> np.ndarray:
        return self.records[:, -1]

    # -- distributions (from the joint histogram: merged runs never pass over their records again)
    def joint_hist(self) -> np.ndarray:
        """Puzzles per (W, min swaps): int64[max W + 1, max swaps + 1] (0×0 when empty).  Cached, and
        added up by ``merge_results``, so a live run's tables cost no pass over its records."""
        if self._joint is None:
            w, s = self.w(), self.swaps()
            if len(s) == 0:
                self._joint = np.zeros((0, 0), np.int64)
            else:
                ns = int(s.max()) + 1
                self._joint = np.bincount(w * ns + s, minlength=(int(w.max()) + 1) * ns).reshape(-1, ns)
        return self._joint

    def chi2_range(self) -> tuple[float, float] | None:
        if self._chi2_range is None and self.count:
            self._chi2_range = (float(self.chi2.min()), float(self.chi2.max()))
        return self._chi2_range

    def swaps_hist(self) -> list[int]:
        return self.joint_hist().sum(axis=0).tolist()

    def w_hist(self) -> list[int]:
        return self.joint_hist().sum(axis=1).tolist()

    def swaps_mean_sd(self) -> tuple[float, float]:
        if self.count == 0:
            return float("nan"), float("nan")
        # the exact sum of whole numbers over the count: the same float as numpy's mean of them
        swaps = self.joint_hist().sum(axis=0)
        mean = float(int((swaps * np.arange(len(swaps))).sum())) / self.count
        if self._swaps_sd is None:   # numpy's rounding (one pass, cached)
            self._swaps_sd = float(self.swaps().astype(np.float64).std())
        return mean, self._swaps_sd

    def under_k_count(self, k: int) -> int:
        """Puzzles solvable in fewer than ``k`` swaps."""
        return int(self.joint_hist()[:, :max(k, 0)].sum())

    def w_table(self, bins=None, k: int = 6) -> list[tuple[str, int, float]]:
        """Seed 001's W table: (W bin, frequency, % of them solvable in < k swaps).

        Bins: "0-4" then every even W (as seed 001 prints them) up to the largest W met.
        """
        joint = self.joint_hist()
        top = joint.shape[0] - 1 if self.count else 0
        if bins is None:
            bins = [("0-4", 0, 4)] + [(str(x), x, x) for x in range(6, max(top, 6) + 1, 2)]
        # counts per W, then per bin by cumulative sums
        every = np.concatenate([[0], np.cumsum(joint.sum(axis=1))])
        under = np.concatenate([[0], np.cumsum(joint[:, :max(k, 0)].sum(axis=1))])
        out = []
        for label, lo, hi in bins:
            lo, hi = max(int(lo), 0), min(int(hi), top)
            c = int(every[hi + 1] - every[lo]) if lo <= hi and self.count else 0
            u = int(under[hi + 1] - under[lo]) if lo <= hi and self.count else 0
            out.append((label, c, 100.0 * float(u) / c if c else float("nan")))
        return out

    def under6_percent(self) -> float:
        return 100.0 * float(self.under_k_count(6)) / self.count if self.count else float("nan")

    def describe(self, seconds: float | None = None) -> dict:
        mean, sd = self.swaps_mean_sd()
        return {
            "m": self.m, "n": self.n, "count": self.count,
            "swaps_hist": self.swaps_hist(), "W_hist": self.w_hist(),
            "W_table": [{"W": lab, "count": k, "under6_percent": round(p, 1)} for lab, k, p in self.w_table()],
            "under6_percent": round(self.under6_percent(), 1),
            "swaps_mean": mean, "swaps_sd": sd,
            "chi2_min": self.chi2_range()[0] if self.count else None,
            "chi2_max": self.chi2_range()[1] if self.count else None,
            "trade_free_tables": self.tables, "candidates_checked": self.candidates,
            "seconds": self.cpu_seconds if seconds is None else seconds,
            "cpu_seconds": round(self.cpu_seconds, 3),
        }

    def puzzle_line(self, k: int) -> str:
        """One line of the atlas file (see ``write_atlas``)."""
        rec = self.records[k]
        m, n, N = self.m, self.n, self.m * self.n
        o = m + n

        def tab(a):
            return "/".join(" ".join(str(int(x)) for x in a[i * n:(i + 1) * n]) for i in range(m))

        return (f"{' '.join(map(str, rec[:m]))} | {' '.join(map(str, rec[m:o]))} | "
                f"{tab(rec[o:o + N])} | {tab(rec[o + N:o + 2 * N])} | "
                f"{int(rec[-2])} | {int(rec[-1])} | {self.chi2[k]:.4f}")


def empty_result(m: int, n: int) -> AtlasResult:
    return AtlasResult(m, n, np.zeros((0, record_width(m, n)), np.int64), np.zeros(0))


def merge_results(a: AtlasResult, b: AtlasResult) -> AtlasResult:
    """``a``'s puzzles then ``b``'s, counters added.

    Amortised: the merged records grow in a store with spare room (``core.growing``)
    instead of copying ``a``'s every time, so merging a run's batches one by one is
    linear, not quadratic, in the puzzles.  Neither ``a`` nor ``b`` changes.
    """
    counters = (a.tables + b.tables, a.candidates + b.candidates, a.vectors_done + b.vectors_done,
                a.cpu_seconds + b.cpu_seconds)
    if b.count == 0 or a.count == 0:
        keep = a if b.count == 0 else b
        out = AtlasResult(a.m, a.n, keep.records, keep.chi2, *counters)
        out._store, out._joint, out._chi2_range, out._swaps_sd = (keep._store, keep._joint, keep._chi2_range,
                                                                  keep._swaps_sd)
        return out
    cols, store = appended_columns(a._store, {"records": a.records, "chi2": a.chi2},
                                   {"records": b.records, "chi2": b.chi2}, b_source=b)
    out = AtlasResult(a.m, a.n, cols["records"], cols["chi2"], *counters)
    out._store = store
    out._joint = _add_padded(a.joint_hist(), b.joint_hist())
    (a_lo, a_hi), (b_lo, b_hi) = a.chi2_range(), b.chi2_range()
    out._chi2_range = (min(a_lo, b_lo), max(a_hi, b_hi))
    return out


def _add_padded(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    out = np.zeros((max(x.shape[0], y.shape[0]), max(x.shape[1], y.shape[1])), np.int64)
    out[:x.shape[0], :x.shape[1]] += x
    out[:y.shape[0], :y.shape[1]] += y
    return out
