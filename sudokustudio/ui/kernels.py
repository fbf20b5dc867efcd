"""Qt side of the kernel readiness (sudokustudio.kernels): signals, the status bar
line and ``when_kernels_ready`` for actions.

    from sudokustudio.ui.kernels import when_kernels_ready
    button.clicked.connect(lambda: when_kernels_ready(("ua",), self.start_search, self, "UA search"))

An action whose groups are ready runs at once; otherwise it is queued, the
status bar shows "<label>: preparing (compiling kernels)…" with a progress
bar, the compile of its groups is moved to the front, and it runs on the UI
thread as soon as they are ready.  Nothing waits on the UI thread.
"""
from __future__ import annotations

from typing import Callable, Iterable

from PySide6.QtCore import QObject, QTimer, Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QProgressBar, QWidget

from sudokustudio.kernels.readiness import KernelReadiness, readiness


class ReadinessBridge(QObject):
    """Turns the readiness callbacks (from any thread) into a queued Qt signal."""

    changed = Signal(object)  # group name or None

    def __init__(self, model: KernelReadiness):
        super().__init__()
        self.model = model
        self._remove = model.add_listener(self._emit)

    def _emit(self, group: str | None) -> None:
        try:
            self.changed.emit(group)
        except RuntimeError:   # Qt deleted the bridge (the process is ending): stop listening
            self._remove()


_bridges: dict[int, ReadinessBridge] = {}


def bridge(model: KernelReadiness | None = None) -> ReadinessBridge:
    """The bridge of ``model`` (default: this process's readiness), made once."""
    model = model or readiness()
    b = _bridges.get(id(model))
    if b is None or b.model is not model:
        b = _bridges[id(model)] = ReadinessBridge(model)
    return b


class KernelBusyIndicator(QWidget):
    """"<label>: preparing (compiling kernels)…" and a progress bar over some groups."""

    def __init__(self, groups: Iterable[str], label: str = "", parent=None, model=None):
        super().__init__(parent)
        self.model = model or readiness()
        self.groups = tuple(groups)
        lay = QHBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        self.text = QLabel(f"{label + ': ' if label else ''}preparing (compiling kernels)…")
        self.bar = QProgressBar()
        self.bar.setRange(0, 1000)
        self.bar.setMaximumWidth(120)
        self.bar.setMaximumHeight(14)
        self.bar.setTextVisible(False)
        lay.addWidget(self.text)
        lay.addWidget(self.bar)
        self.setToolTip("Waiting for the numba kernels of: " + ", ".join(self.groups)
                        + "; the action runs as soon as they are compiled")
        self.refresh()

    def refresh(self) -> None:
        self.bar.setValue(int(1000 * self.model.progress(self.groups)))


class PendingAction(QObject):
    """An action waiting for its kernel groups; runs ``fn`` once when they are ready."""

    def __init__(self, groups, fn: Callable[[], object], parent: QObject, label: str, model):
        super().__init__(parent)
        self.groups, self.fn, self.label, self.model = tuple(groups), fn, label, model
        self.indicator: KernelBusyIndicator | None = None
        bridge(model).changed.connect(self._check)
        self._timer = QTimer(self, interval=250, timeout=self._check)  # a safety net for lost signals
        self._timer.start()

    def _check(self, *_):
        if self.indicator is not None:
            self.indicator.refresh()
        if self.fn is not None and self.model.is_ready(self.groups):
            fn, self.fn = self.fn, None
            self._timer.stop()
            self._finish()
            fn()

    def _finish(self):
        try:
            bridge(self.model).changed.disconnect(self._check)
        except (RuntimeError, TypeError):
            pass
        if self.indicator is not None:
            self.indicator.hide()
            self.indicator.deleteLater()
            self.indicator = None
        status = _status_widget(self.parent())
        if status is not None:
            status.forget(self)
        self.deleteLater()

    def cancel(self):
        if self.fn is not None:
            self.fn = None
            self._timer.stop()
            self._finish()


def _status_widget(obj) -> "KernelStatusWidget | None":
    w = obj.window() if isinstance(obj, QWidget) else None
    return None if w is None else w.findChild(KernelStatusWidget)


def when_kernels_ready(groups: Iterable[str], fn: Callable[[], object], parent: QObject,
                       label: str = "", model: KernelReadiness | None = None) -> PendingAction | None:
    """Run ``fn()`` now if the groups are ready, else queue it (visible in the status bar)
    and run it on the UI thread when they are.  The same ``label`` queued twice on the same
    parent keeps only the latest ``fn``.  Returns the PendingAction (None if it ran)."""
    model = model or readiness()
    groups = tuple(groups)
    if model.is_ready(groups):
        fn()
        return None
    for old in parent.findChildren(PendingAction):
        if old.label == label and old.fn is not None:
            old.fn = fn
            return old
    pa = PendingAction(groups, fn, parent, label, model)
    status = _status_widget(parent)
    if status is not None:
        status.show_pending(pa)
    elif isinstance(parent, QWidget):
        # a window without the kernel status line (a dialog): the indicator floats at its bottom
        win = parent.window()
        pa.indicator = KernelBusyIndicator(groups, label, win, model)
        pa.indicator.setAutoFillBackground(True)
        pa.indicator.adjustSize()
        pa.indicator.move(8, max(0, win.height() - pa.indicator.height() - 8))
        pa.indicator.show()
        pa.indicator.raise_()
    model.request(groups)
    return pa


class KernelStatusWidget(QWidget):
    """The status bar's kernel line: "preparing kernels: 3/11 groups" with a progress bar,
    "Kernels ready", or a clear line when a group could not be compiled ahead."""

    def __init__(self, parent=None, model: KernelReadiness | None = None):
        super().__init__(parent)
        self.model = model or readiness()
        lay = QHBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        self.pending_box = QHBoxLayout()
        lay.addLayout(self.pending_box)
        self.label = QLabel("")
        self.bar = QProgressBar()
        self.bar.setRange(0, 1000)
        self.bar.setMaximumWidth(140)
        self.bar.setMaximumHeight(14)
        self.bar.setTextVisible(False)
        lay.addWidget(self.label)
        lay.addWidget(self.bar)
        self._pending: list[PendingAction] = []
        bridge(self.model).changed.connect(self._schedule)
        self._timer = QTimer(self, singleShot=True, interval=100, timeout=self.refresh)
        self.refresh()

    def _schedule(self, *_):
        if not self._timer.isActive():
            self._timer.start()

    def show_pending(self, pa: PendingAction) -> None:
        pa.indicator = KernelBusyIndicator(pa.groups, pa.label, self, self.model)
        self.pending_box.addWidget(pa.indicator)
        pa.indicator.show()
        self._pending.append(pa)

    def forget(self, pa: PendingAction) -> None:
        if pa in self._pending:
            self._pending.remove(pa)

    def refresh(self) -> None:
        s = self.model.summary()
        for pa in self._pending:
            if pa.indicator is not None:
                pa.indicator.refresh()
        lines = []
        for g in self.model.groups():
            st = self.model.state(g)
            extra = f" ({st.kernels} kernels)" if st.kernels else ""
            why = f": {st.error}" if st.error else ""
            lines.append(f"{g}: {st.state}{extra}{why}")
        if s["compiles_here"]:
            lines.append(f"{s['compiles_here']} kernel(s) compiled in the window's process (see the log)")
        self.setToolTip("\n".join(lines))
        if s["failed"]:
            names = ", ".join(s["failed"])
            self.label.setText(f"Kernels: {names} could not be compiled ahead; they compile when first "
                               "used (the window may pause)")
            self.label.setStyleSheet("color: #b00;")
        elif s["fallback"]:
            g = s["fallback"][0]
            self.label.setText(f"Kernels: no usable cache for {g} ({s['notes'].get(g, '')}); "
                               "compiling in the app")
            self.label.setStyleSheet("color: #b60;")
        elif s["ready"] < s["total"]:
            self.label.setText(f"preparing kernels: {s['ready']}/{s['total']} groups")
            self.label.setStyleSheet("")
        else:
            self.label.setText("Kernels ready")
            self.label.setStyleSheet("")
        busy = s["ready"] < s["total"]
        self.bar.setVisible(busy)
        if busy:
            self.bar.setValue(int(1000 * self.model.progress()))
