"""The kernel groups: which warm functions fill numba's cache for which actions.

A group names the numba kernels one kind of user action needs, as warm
functions ("module:function", no arguments, each calling its kernels once on
tiny inputs with exactly the argument types the app uses).  Groups may share
kernels (the solver's are called by most others); a kernel is compiled once
and later groups load it from the cache.  GROUPS is ordered by what a user
does first; ``after`` is a scheduling hint only (compile those groups first,
so the shared kernels are cached before this group needs them).

Jobs name the groups they need in ``BatchJob.kernel_groups``.  This module
imports nothing heavy: the CLI parser and the window read it at start.
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass

EXTRA_GROUPS_ENV = "SUDOKUSTUDIO_EXTRA_KERNEL_GROUPS"


@dataclass(frozen=True)
class KernelGroup:
    name: str
    label: str                      # what a user reads in the status bar
    warm: tuple[str, ...]           # "module:function"
    after: tuple[str, ...] = ()     # compile these first (shared kernels), if they are pending
    kernels_hint: int | None = None  # compiles counted on a cold cache (progress bar until measured here)
    preload: bool = False            # the window loads these kernels on a background thread once cached


GROUPS: dict[str, KernelGroup] = {g.name: g for g in (
    KernelGroup("survo-solve", "Survo hint and solve",
                ("sudokustudio.survo.warm:warm_solve",), kernels_hint=84, preload=True),
    KernelGroup("survo-generate", "Survo new puzzle",
                ("sudokustudio.survo.warm:warm_generate",), after=("survo-solve",), kernels_hint=94),
    KernelGroup("solver", "Sudoku solver",
                ("sudokustudio.sudoku.warm:warm_up",), kernels_hint=83),
    # a top-down run from fresh grids with the fast difficulty metrics, the Generators tab's first
    # row as it starts: on a first start its first puzzle came ~25 s sooner than with the whole
    # generators group (GeneratorJob names this group for such runs)
    KernelGroup("top-down", "top-down generator",
                ("sudokustudio.sudoku.generate.jobs:warm_top_down",), after=("solver",), kernels_hint=76),
    # seed 002's generators and the pattern ones, the difficulty metrics (the W-rating's kernels
    # among them) and the isomorph classes of an export.  The weighted sampler is a group of its
    # own: it draws its grids with the estimators' kernels, and while it was in this group the
    # first top-down puzzle of a first start waited for them (96 s)
    KernelGroup("generators", "generators",
                ("sudokustudio.sudoku.generate.jobs:warm_up", "sudokustudio.sudoku.difficulty:warm_up",
                 "sudokustudio.sudoku.canon:warm_up", "sudokustudio.sudoku.generate.pattern:warm_up"),
                after=("solver", "top-down"), kernels_hint=106),
    # the grid counts, the Estimator tab's first kind, apart from the minimal counts: on a first
    # start its first estimate came ~25 s sooner (the grid samplers compile in 15 s, both in 42 s).
    # Not after the solver: it shares ~10 small kernels with it (95 compiles on an empty cache, 16 s),
    # and waiting for the solver's 31 s delayed a first start's first grid estimate by as much
    KernelGroup("grid-estimators", "grid estimators",
                ("sudokustudio.sudoku.estimate.grids:warm_up",), kernels_hint=95),
    KernelGroup("estimators", "minimal-count estimators",
                ("sudokustudio.sudoku.estimate.minimals:warm_up",), after=("solver", "grid-estimators"),
                kernels_hint=94),
    KernelGroup("generators-weighted", "weighted generator",
                ("sudokustudio.sudoku.generate.weighted:warm_up",),
                after=("generators", "grid-estimators", "estimators"), kernels_hint=60),
    KernelGroup("ua", "unavoidable sets",
                ("sudokustudio.sudoku.unavoidable.jobs:warm_up",), after=("solver",), kernels_hint=79),
    KernelGroup("rating", "W-rating",
                ("sudokustudio.sudoku.rating:warm_up",), after=("solver",), kernels_hint=40),
    # preloaded: loading them (~0.4 s, the GIL held up to ~40 ms at a time) when the Atlas view was
    # first shown or run held up its first paint and the run's first second
    KernelGroup("survo-atlas", "Survo atlas",
                ("sudokustudio.survo.atlas:warm_up",), after=("survo-solve",), kernels_hint=102, preload=True),
)}



def _extra_groups() -> None:
    """Groups added through the environment, {"name": ["module:function", ...]} as JSON
    (tests use a tiny group; a plug-in could add its own)."""
    raw = os.environ.get(EXTRA_GROUPS_ENV, "")
    if not raw:
        return
    for name, warm in json.loads(raw).items():
        GROUPS[name] = KernelGroup(name, name, tuple(warm))


_extra_groups()
GROUP_NAMES: tuple[str, ...] = tuple(GROUPS)


def check_groups(names) -> tuple[str, ...]:
    """The names as a tuple, or ValueError naming the unknown ones."""
    names = (names,) if isinstance(names, str) else tuple(names)
    unknown = [n for n in names if n not in GROUPS]
    if unknown:
        raise ValueError(f"unknown kernel group(s) {', '.join(unknown)}; known: {', '.join(GROUP_NAMES)}")
    return names
