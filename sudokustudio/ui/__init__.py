"""The Qt user interface.

Importing this package pins CPython's singletons (see ``_pin_singletons``):
PySide6/shiboken6 6.12 releases a reference to ``None`` (and to ``True`` /
``False``) on calls that return them, as if they were immortal (they are
from Python 3.12).  On Python 3.11 their reference counts then fall to zero
after a few thousand Qt calls and the interpreter aborts with "Fatal Python
error: none_dealloc".  Adding a huge count makes them effectively immortal.
"""
import sys


def _pin_singletons() -> None:
    if sys.version_info >= (3, 12) or sys.implementation.name != "cpython":
        return
    import ctypes

    for obj in (None, True, False, Ellipsis, NotImplemented, ()):
        ctypes.c_ssize_t.from_address(id(obj)).value += 1 << 40


_pin_singletons()
