"""One-off calls off the UI thread (a solve, a hint, a harvest, an import, one rating path).

Built on superqt's thread workers.  ``BackgroundCalls`` belongs to one view:
``submit(kind, fn, on_done=...)`` runs ``fn()`` on a pool thread and hands
the result to ``on_done`` in the GUI thread; an exception arrives as the
exception object, is logged with its traceback and shown with
``show_error`` (or given to ``on_error``).  ``drop(kind)`` makes pending
answers of a kind stale (e.g. the puzzle changed meanwhile): they are
ignored when they arrive.
"""
from __future__ import annotations

import logging
import time
import traceback
from typing import Any, Callable

from PySide6.QtCore import QCoreApplication, QObject, Signal
from PySide6.QtWidgets import QMessageBox, QWidget
from superqt.utils import create_worker

log = logging.getLogger(__name__)

# errors that are the user's input, not a bug: shown without a traceback
EXPECTED = (ValueError, OSError, LookupError)


def error_text(exc: BaseException) -> str:
    """One line for the user: the message of an expected error, else type and message."""
    if isinstance(exc, EXPECTED) and str(exc):
        return str(exc)
    return f"{type(exc).__name__}: {exc}"


def show_error(parent: QWidget | None, title: str, exc: BaseException | str) -> None:
    """The one way a view shows a failure: a message box with the details (traceback) folded away."""
    box = QMessageBox(QMessageBox.Warning, title, exc if isinstance(exc, str) else error_text(exc),
                      QMessageBox.Ok, parent)
    if isinstance(exc, BaseException) and not isinstance(exc, EXPECTED):
        box.setDetailedText("".join(traceback.format_exception(type(exc), exc, exc.__traceback__)))
    box.open()  # not exec(): never a nested event loop in the middle of a view's slot


class BackgroundCalls(QObject):
    """Background calls of one view (see the module docstring).  ``busyChanged(kinds)``
    tells the view which kinds of call are pending (for a busy indicator)."""

    busyChanged = Signal(list)

    def __init__(self, parent: QWidget, title: str = "Sudoku Studio"):
        super().__init__(parent)
        self._view = parent
        self._title = title
        self._pending: dict[int, str] = {}
        self._workers: dict[int, Any] = {}
        self._stale: set[int] = set()
        self._next = 0

    @property
    def kinds(self) -> list[str]:
        return sorted(set(self._pending.values()))

    def busy(self, kind: str | None = None) -> bool:
        return bool(self._pending) if kind is None else kind in self._pending.values()

    def submit(self, kind: str, fn: Callable[[], Any], on_done: Callable[[Any], None],
               on_error: Callable[[BaseException], None] | None = None) -> int:
        """Run ``fn()`` in the background; returns a ticket."""
        self._next += 1
        ticket = self._next
        worker = create_worker(fn, _start_thread=False, _ignore_errors=True)  # errors go to _failed
        worker.returned.connect(lambda result, t=ticket: self._done(t, on_done, result))
        worker.errored.connect(lambda exc, t=ticket: self._failed(t, kind, on_error, exc))
        self._pending[ticket] = kind
        self._workers[ticket] = worker
        worker.start()
        self.busyChanged.emit(self.kinds)
        return ticket

    def drop(self, kind: str | None = None) -> None:
        """Answers still to come (of ``kind``, or all) are ignored."""
        for t, k in self._pending.items():
            if kind is None or k == kind:
                self._stale.add(t)

    def _finish(self, ticket: int) -> bool:
        self._pending.pop(ticket, None)
        self._workers.pop(ticket, None)
        stale = ticket in self._stale
        self._stale.discard(ticket)
        try:
            self.busyChanged.emit(self.kinds)
        except RuntimeError:  # the view was closed and deleted before the answer came: nobody to tell
            return False
        return not stale

    def _done(self, ticket: int, on_done, result) -> None:
        if self._finish(ticket):
            on_done(result)

    def _failed(self, ticket: int, kind: str, on_error, exc: BaseException) -> None:
        fresh = self._finish(ticket)
        if not fresh:  # dropped (cancelled, closing): nobody waits for it
            log.debug("%s (%s) ended after it was dropped: %s", self._title, kind, error_text(exc))
            return
        log.error("%s (%s) failed", self._title, kind, exc_info=(type(exc), exc, exc.__traceback__))
        if on_error is not None:
            on_error(exc)
        else:
            show_error(self._view, self._title, exc)

    def wait_idle(self, msecs: int = 30000) -> bool:
        """Deliver every pending answer (tests; closing with a deadline); False on timeout."""
        deadline = time.monotonic() + msecs / 1000
        while self._pending and time.monotonic() < deadline:
            QCoreApplication.processEvents()
            time.sleep(0.005)
        QCoreApplication.processEvents()
        return not self._pending
