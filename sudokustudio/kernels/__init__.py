"""Kernel groups, their on-disk cache and their readiness (issue 15).

Light to import (no numba): the CLI parser and the window read it at start.

- ``groups``: GROUPS, the registry of warm functions per group.
- ``readiness``: ``is_ready(groups)``, ``wait_ready(groups, timeout, cancel)``, ``preparing(groups)``.
- ``cache``: fingerprint, stamps, repairs (imports numba).
- ``launcher``: background compile processes for the window.
- ``compile``: the compile process itself (``python -m sudokustudio.kernels``).
"""
from sudokustudio.kernels.groups import GROUP_NAMES, GROUPS, KernelGroup, check_groups
from sudokustudio.kernels.readiness import (KernelReadiness, is_ready, preparing, readiness, set_readiness,
                                             wait_ready)

__all__ = ["GROUPS", "GROUP_NAMES", "KernelGroup", "check_groups", "KernelReadiness", "is_ready",
           "preparing", "readiness", "set_readiness", "wait_ready"]
