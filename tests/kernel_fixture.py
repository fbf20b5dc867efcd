"""A tiny kernel group for the tests of sudokustudio.kernels (compiles in ~1 s)."""
import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def tiny_sum(a):
    s = 0
    for x in a:
        s += x * x
    return s


def warm() -> None:
    tiny_sum(np.arange(5, dtype=np.int64))


def broken() -> None:
    raise RuntimeError("this warm function always fails")


def crash_in_helper() -> None:
    """Kills a compile process (as a segfault would); in the app's own process it warms."""
    import os
    import sys

    if "--group" in sys.argv:
        os._exit(3)
    warm()


def slow() -> None:
    import time

    time.sleep(60)


#: threads that ran ``probe`` (the preload test: which thread loads a group, and how often)
PROBE_THREADS: list[str] = []


def probe() -> None:
    import threading

    PROBE_THREADS.append(threading.current_thread().name)
