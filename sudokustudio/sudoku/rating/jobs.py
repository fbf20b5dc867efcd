"""W-rating distributions (raw and cf-corrected, seed 002 §3.3) and the
rating of a puzzle file as a batch job."""
from __future__ import annotations

import numpy as np

from sudokustudio.core.batch import BatchJob
from sudokustudio.sudoku.correction import correction_factor
from sudokustudio.sudoku.rating.kernels import DEFAULT_CAP, brt_kernel, check_cap, rate_candidates, rate_puzzles
from sudokustudio.sudoku.rating.paths import rating_label, replay_path, w_rating_path

# ------------------------------------------------------------------ distributions
def w_histogram(ratings, cap: int, weights=None) -> np.ndarray:
    """Counts (or summed weights) of W = 0..cap, then '> cap' (index cap+1);
    invalid puzzles (-1) are left out."""
    r = np.asarray(ratings, dtype=np.int64)
    w = np.ones(len(r)) if weights is None else np.asarray(weights, dtype=np.float64)
    keep = r >= 0
    return np.bincount(np.minimum(r[keep], cap + 1), weights=w[keep], minlength=cap + 2)[:cap + 2]


def w_distribution(ratings, n_clues, cap: int = DEFAULT_CAP, weights=None) -> dict[str, np.ndarray]:
    """Raw and cf-corrected ("real", seed 002 §3.3) W distributions in %.

    Both are arrays over W = 0..cap, then '> cap'.  With ``weights`` (e.g.
    the weighted sampler's 1/Pr) the "real" one uses them instead of cf(n).
    """
    raw = w_histogram(ratings, cap)
    real = w_histogram(ratings, cap, correction_factor(n_clues) if weights is None else weights)
    return {"raw": 100.0 * raw / max(raw.sum(), 1), "real": 100.0 * real / max(real.sum(), 1e-300),
            "counts": raw.astype(np.int64)}


#: seed 002 §3.3, controlled-bias sample (5,926,343 puzzles) and the "real"
#: distribution computed from it; columns L1_0 (= W0), L1 .. L16 (= W1 .. W16)
SEED002_RAW_PERCENT = (35.08, 9.82, 13.05, 20.03, 17.37, 3.56, 0.79, 0.21, 0.055, 0.015,
                       4.4e-03, 1.2e-03, 3.2e-04, 1.0e-04, 6.75e-05, 1.7e-05, 1.7e-05)
SEED002_REAL_PERCENT = (29.17, 8.44, 12.61, 22.26, 21.39, 4.67, 1.07, 0.29, 0.072, 0.020,
                        5.5e-03, 1.5e-03, 3.4e-04, 0.7e-04, 7.17e-05, 6.3e-05, 0.32e-05)


# ------------------------------------------------------------------ batch job


class RatingJob(BatchJob):
    """Rate a puzzle file (``path``) or a list of puzzle strings (``puzzles``)
    in chunks of ``chunk`` puzzles, one chunk per batch.

    A batch result is ``{"parts": {batch_index: (ratings, cands)}, "hist":
    int64[cap + 3]}`` with hist[w + 1] = number of puzzles rated w (index 0:
    invalid); merging is a dict union plus a sum, so it is associative and
    exact.  Use ``n_batches()`` for the run length.
    """

    kind = "rating"
    unit = "puzzles"
    kernel_groups = ("rating",)

    def __init__(self, path: str | None = None, puzzles: list[str] | None = None,
                 cap: int = DEFAULT_CAP, chunk: int = 24):
        if (path is None) == (puzzles is None):
            raise ValueError("RatingJob needs exactly one of path= or puzzles=")
        super().__init__(path=path, puzzles=puzzles, cap=check_cap(cap), chunk=int(chunk))
        self._data = None
        self._cands = None     # uint16[N, 81] when some puzzle is given by pencil marks, else None

    def __getstate__(self):
        d = dict(self.__dict__)
        d["_data"] = d["_cands"] = None  # reloaded where the job runs
        return d

    @property
    def puzzles(self) -> np.ndarray:
        """The puzzles (uint8[N, 81]); a pencil-mark line (729 characters, in the file
        or in ``puzzles=``) shows its single candidates here and is rated from all of
        its candidates (``candidates``)."""
        if self._data is None:
            from sudokustudio.sudoku.formats import parse_marked_collection, read_collection

            if self.spec["path"] is not None:
                coll = read_collection(self.spec["path"], check_units=False)
            else:
                coll = parse_marked_collection("\n".join(self.spec["puzzles"]), strict=True, check_units=False)
                if len(coll) != len(self.spec["puzzles"]):
                    raise ValueError("RatingJob: every puzzle string must be one puzzle line")
            self._cands = coll.cands if coll.has_marks else None
            self._data = coll.puzzles
        return self._data

    @property
    def candidates(self) -> np.ndarray | None:
        """Candidate masks of every puzzle when some are pencil marks, else None."""
        _ = self.puzzles
        return self._cands

    def n_batches(self) -> int:
        return -(-len(self.puzzles) // self.spec["chunk"])

    def empty(self):
        return {"parts": {}, "hist": np.zeros(self.spec["cap"] + 3, dtype=np.int64)}

    def run_batch(self, batch_index: int, seed: int):
        c = self.spec["chunk"]
        part = slice(batch_index * c, (batch_index + 1) * c)
        if self.candidates is None:
            ratings, cands = rate_puzzles(self.puzzles[part], self.spec["cap"])
        else:   # a plain puzzle's candidates rate as the puzzle does
            ratings, cands = rate_candidates(self.candidates[part], self.spec["cap"])
        hist = np.bincount(ratings.astype(np.int64) + 1, minlength=self.spec["cap"] + 3)
        return {"parts": {batch_index: (ratings, cands)}, "hist": hist.astype(np.int64)}

    def merge(self, a, b):
        parts = dict(a["parts"])
        parts.update(b["parts"])
        return {"parts": parts, "hist": a["hist"] + b["hist"]}

    def warm_up(self) -> None:
        warm_up()
        if self.candidates is not None:
            rate_candidates(np.full((1, 81), 0x1FF, dtype=np.uint16), 2)

    @staticmethod
    def arrays(total) -> tuple[np.ndarray, np.ndarray]:
        """(ratings, cands) of the merged batches, in file order."""
        keys = sorted(total["parts"])
        if not keys:
            return np.zeros(0, np.int16), np.zeros(0, np.int16)
        return (np.concatenate([total["parts"][k][0] for k in keys]),
                np.concatenate([total["parts"][k][1] for k in keys]))

    def units(self, total) -> int:
        return int(total["hist"].sum())

    def describe(self, total) -> dict:
        ratings, cands = self.arrays(total)
        cap = self.spec["cap"]
        hist = {rating_label(w - 1, cap): int(n) for w, n in enumerate(total["hist"]) if n}
        return {"puzzles": int(len(ratings)), "cap": cap, "ratings": ratings.tolist(),
                "cands_after_brt": cands.tolist(), "hist": hist}


def warm_up() -> None:
    p = np.zeros((1, 81), dtype=np.uint8)
    rate_puzzles(p, 2)  # several solutions: compiles the solver path
    easy = "....5.7.9..6.8..2.7.91....62.........37..2..4..8..7....6..91......6..5..9.1.7..38"
    easy_puzzle = np.array([int(ch) if ch != "." else 0 for ch in easy], dtype=np.uint8)
    rate_puzzles(easy_puzzle[None, :], DEFAULT_CAP)
    brt_kernel(p[0])
    replay_path(easy_puzzle, w_rating_path(easy_puzzle))   # the browser's path view
    # pencil-mark input (sudoku.formats): the candidate solver and the rating from candidates
    from sudokustudio.sudoku.candidates import puzzle_candidates, solve_candidates_batch

    marks = puzzle_candidates(easy_puzzle[None, :])
    solve_candidates_batch(marks, 2)
    rate_candidates(marks, DEFAULT_CAP)
