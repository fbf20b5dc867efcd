"""Which module defines each job kind, so a stored run can be rebuilt without
the caller importing the module first.  Update this table when a job moves."""
from __future__ import annotations

import importlib

from sudokustudio.core.batch import JOB_TYPES

JOB_MODULES: dict[str, str] = {
    "estimate.grids": "sudokustudio.sudoku.estimators",
    "estimate.minimals": "sudokustudio.sudoku.estimators",
    "generate": "sudokustudio.sudoku.generators",
    "generate-weighted": "sudokustudio.sudoku.weighted",
    "rating": "sudokustudio.sudoku.rating",
    "ua_search": "sudokustudio.sudoku.unavoidable",
    "ua_harvest": "sudokustudio.sudoku.unavoidable",
    "survo_atlas": "sudokustudio.survo.atlas",
}


def import_job_module(kind: str) -> None:
    """Import the module of ``kind`` (a no-op for kinds already known, e.g. test jobs)."""
    if kind not in JOB_TYPES and kind in JOB_MODULES:
        importlib.import_module(JOB_MODULES[kind])


def import_job_modules() -> None:
    for kind in JOB_MODULES:
        import_job_module(kind)
