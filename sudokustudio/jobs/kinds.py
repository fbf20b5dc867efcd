"""Which module defines each job kind, so a stored run can be rebuilt without
the caller importing the module first.  Update this table when a job moves."""
from __future__ import annotations

import importlib

from sudokustudio.core.batch import JOB_TYPES

JOB_MODULES: dict[str, str] = {
    "estimate.grids": "sudokustudio.sudoku.estimate.grids",
    "estimate.minimals": "sudokustudio.sudoku.estimate.minimals",
    "generate": "sudokustudio.sudoku.generate.jobs",
    "generate-weighted": "sudokustudio.sudoku.generate.weighted",
    "generate-pattern": "sudokustudio.sudoku.generate.pattern",
    "rating": "sudokustudio.sudoku.rating.jobs",
    "ua_search": "sudokustudio.sudoku.unavoidable.jobs",
    "ua_harvest": "sudokustudio.sudoku.unavoidable.jobs",
    "ua_census": "sudokustudio.sudoku.unavoidable.census",
    "survo_atlas": "sudokustudio.survo.atlas",
}


def import_job_module(kind: str) -> None:
    """Import the module of ``kind`` (a no-op for kinds already known, e.g. test jobs)."""
    if kind not in JOB_TYPES and kind in JOB_MODULES:
        importlib.import_module(JOB_MODULES[kind])


def import_job_modules() -> None:
    for kind in JOB_MODULES:
        import_job_module(kind)
