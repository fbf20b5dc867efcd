"""The record table of an estimate run: one row per clue count (and the total) for
minimal-puzzle runs, one row for grid runs, with the compute behind each figure and
the published figures beside it (``PUBLISHED_MINIMALS``, REFERENCES.md).

Pure: builds rows and CSV / Markdown text; the CLI writes the files.
"""
from __future__ import annotations

import csv
import io
import math

from sudokustudio import __version__
from sudokustudio.sudoku.estimate.grids import GridCountJob
from sudokustudio.sudoku.estimate.minimals import MinimalsJob
from sudokustudio.sudoku.estimate.published import PUBLISHED_MINIMALS, PUBLISHED_TOTALS

COLUMNS = ["c", "estimate", "rel_err", "ci95_lo", "ci95_hi", "samples", "core_seconds", "seed", "version",
           "ess", "max_share", "tail_warning", "afmob", "afmob_rel_err", "berthier", "berthier_rel_err",
           "seed000", "seed000_rel_err"]
#: the published figures beside ours (``PUBLISHED_MINIMALS``' keys), in column order
SOURCES = ("afmob", "berthier", "seed000")


def report_rows(job, total, seed: int) -> list[dict]:
    """The table of a merged result ``total`` of ``job`` (a MinimalsJob or a GridCountJob)."""
    common = {"seed": int(seed), "version": __version__}
    if isinstance(job, GridCountJob):
        d = job.describe(total)
        return [{"c": f"grids {job.box}", "estimate": d["estimate"], "rel_err": d["rel_err"],
                 "ci95_lo": d["ci95"][0], "ci95_hi": d["ci95"][1], "samples": d["samples"],
                 "core_seconds": d["core_seconds"], **common, **_tail(d["tail"]),
                 **_published(None, None)}]
    if not isinstance(job, MinimalsJob):
        raise ValueError(f"no report for {type(job).__name__} runs (estimate runs only)")
    rows = []
    for c, v in sorted(job.per_c(total).items()):
        rows.append({"c": c, "estimate": v["estimate"], "rel_err": v["rel_err"], "ci95_lo": v["ci95"][0],
                     "ci95_hi": v["ci95"][1], "samples": total.n, "core_seconds": total.cpu, **common,
                     **_tail(v["tail"]), **_published(c, job.box)})
    t = job.total(total)
    if t is not None:
        lo, hi = t["c_range"]
        rows.append({"c": f"total {lo}..{hi}", "estimate": t["estimate"], "rel_err": t["rel_err"],
                     "ci95_lo": t["ci95"][0], "ci95_hi": t["ci95"][1], "samples": total.n,
                     "core_seconds": total.cpu, **common, **_tail(t["tail"]),
                     **_published("all" if job.total_is_comparable else None, job.box)})
    return rows


def _tail(t: dict) -> dict:
    return {"ess": t["ess"], "max_share": t["max_share"], "tail_warning": bool(t["warning"])}


def _published(c, box) -> dict:
    out = {}
    for who in SOURCES:
        if box == "3x3" and c == "all":
            val = PUBLISHED_TOTALS.get(who)
        else:
            val = PUBLISHED_MINIMALS[who].get(c) if box == "3x3" else None
        out[who] = val[0] if val else None
        out[f"{who}_rel_err"] = val[1] if val else None
    return out


def to_csv(rows: list[dict]) -> str:
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=COLUMNS, lineterminator="\n")
    w.writeheader()
    for r in rows:
        w.writerow({k: _plain(r.get(k)) for k in COLUMNS})
    return buf.getvalue()


def _plain(x):
    if x is None:
        return ""
    if isinstance(x, float):
        return repr(float(x)) if math.isfinite(x) else str(float(x))
    return x


def _pct(x) -> str:
    return "–" if x is None or not math.isfinite(x) else f"{100 * x:.3g}%"


def _num(x) -> str:
    return "–" if x is None else f"{x:.5g}"


def to_markdown(rows: list[dict]) -> str:
    head = ["c", "estimate", "RE", "95% CI", "samples", "core-s", "seed", "version", "ESS", "max share",
            "tail", "Afmob 2015", "Berthier 2009", "seed 000 (10 min)"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        pub = [f"{_num(r[w])} ({_pct(r[w + '_rel_err'])})" if r[w] is not None else "–"
               for w in SOURCES]
        lines.append("| " + " | ".join([
            str(r["c"]), _num(r["estimate"]), _pct(r["rel_err"]), f"[{_num(r['ci95_lo'])}, {_num(r['ci95_hi'])}]",
            f"{r['samples']:,}", f"{r['core_seconds']:.1f}", str(r["seed"]), r["version"], f"{r['ess']:.4g}",
            _pct(r["max_share"]), "UNTRUSTED" if r["tail_warning"] else "ok", *pub]) + " |")
    return "\n".join(lines) + "\n"
