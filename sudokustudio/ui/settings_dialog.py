"""Settings → Cluster…: run long jobs on a Dask cluster instead of this machine's threads.

Stored in QSettings as ``cluster/enabled`` (bool) and ``cluster/address``
(str); ``jobs.qt.window_executor`` reads them through ``cluster_address``, so
every tab's next run goes to the cluster without the tab knowing.
"""
from __future__ import annotations

import importlib.util
import sys
import threading

from PySide6.QtCore import QObject, Qt, Signal, Slot
from PySide6.QtWidgets import (QCheckBox, QDialog, QDialogButtonBox, QFormLayout, QHBoxLayout, QLabel,
                               QLineEdit, QMessageBox, QPushButton, QVBoxLayout, QWidget)

INSTALL_HINT = "pip install 'sudokustudio[cluster]'"
ADDRESS_EXAMPLE = "tcp://scheduler-host:8786"


def dask_available() -> bool:
    """True when the optional Dask extra is installed (checked without importing it)."""
    return importlib.util.find_spec("distributed") is not None


class _TestRelay(QObject):
    """Carries the connection test's answer from its thread to the dialog."""

    done = Signal(bool, str)


class ClusterSettingsDialog(QDialog):
    """"Run on cluster" checkbox, scheduler address and a Test connection button."""

    def __init__(self, settings, parent: QWidget | None = None):
        super().__init__(parent)
        self.settings = settings
        self.setWindowTitle("Cluster")
        self.setMinimumWidth(520)
        self.available = dask_available()
        self.connect_timeout = 5.0  # seconds "Test connection" waits for a scheduler

        intro = QLabel(
            "Long runs (estimates, generators, atlas, UA search) can send their batches to a "
            "<a href='https://docs.dask.org/en/stable/deploying-cli.html'>Dask cluster</a>. "
            "Totals are the same as on this machine for the same seed. Every worker needs the "
            "same Sudoku Studio installed; <b>local</b> starts worker processes on this machine.")
        intro.setWordWrap(True)
        intro.setOpenExternalLinks(True)

        self.enabled = QCheckBox("&Run on cluster")
        self.enabled.setToolTip("When on, new runs in every tab go to the Dask scheduler below")
        self.address = QLineEdit()
        self.address.setPlaceholderText(f"{ADDRESS_EXAMPLE}  or  local")
        self.address.setToolTip("The address `dask scheduler` prints, e.g. tcp://192.168.1.10:8786")
        self.address.setClearButtonEnabled(True)
        self.test_button = QPushButton("&Test connection")
        self.test_button.setToolTip("Connect to the scheduler and count its workers")
        self.test_button.clicked.connect(self.test_connection)
        self.status = QLabel("")
        self.status.setWordWrap(True)
        self.status.setTextInteractionFlags(Qt.TextSelectableByMouse)

        row = QHBoxLayout()
        row.addWidget(self.address, 1)
        row.addWidget(self.test_button)
        form = QFormLayout()
        form.addRow(self.enabled)
        address_label = QLabel("Scheduler &address:")
        address_label.setBuddy(self.address)
        form.addRow(address_label, row)
        form.addRow("", self.status)
        self.buttons = QDialogButtonBox(QDialogButtonBox.Ok | QDialogButtonBox.Cancel)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)

        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addLayout(form)
        layout.addStretch(1)
        layout.addWidget(self.buttons)

        self.enabled.setChecked(bool(settings.value("cluster/enabled", False, bool)))
        self.address.setText(str(settings.value("cluster/address", "") or ""))
        self._relay = _TestRelay()
        self._relay.done.connect(self._show_test_result)
        self._test_thread: threading.Thread | None = None
        if not self.available:
            self.enabled.setChecked(False)
            for w in (self.enabled, self.address, self.test_button):
                w.setEnabled(False)
            if getattr(sys, "frozen", False):  # the desktop bundle leaves Dask out
                self.show_status(False, "This packaged build runs on this machine only. For cluster runs "
                                        f"install the Python package: <code>{INSTALL_HINT}</code>.")
            else:
                self.show_status(False, f"Dask is not installed. To run on a cluster, install it with "
                                        f"<code>{INSTALL_HINT}</code> and restart Sudoku Studio.")
        self.enabled.toggled.connect(self._update)
        self._update()

    def _update(self, *_):
        on = self.available and self.enabled.isChecked()
        self.address.setEnabled(on)

    def show_status(self, ok: bool, text: str) -> None:
        colour = "#1b7837" if ok else "#b2182b"
        self.status.setText(f"<span style='color:{colour}'>{text}</span>")

    def check_address(self) -> str | None:
        """The normalised address, or None after telling the user what is wrong."""
        from sudokustudio.jobs.dask import ClusterError, normalise_address

        text = self.address.text().strip()
        if not text:
            self.show_status(False, f"Enter the scheduler address, e.g. {ADDRESS_EXAMPLE}, or <b>local</b>.")
            return None
        try:
            return normalise_address(text) or "local"
        except ClusterError as exc:
            self.show_status(False, str(exc))
            return None

    @Slot()
    def test_connection(self) -> None:
        """Connect in a thread (it may take seconds); the answer comes back by signal."""
        if not self.available or (self._test_thread is not None and self._test_thread.is_alive()):
            return
        address = self.check_address()
        if address is None:
            return
        self.test_button.setEnabled(False)
        self.show_status(True, f"Connecting to {address}…")
        relay = self._relay

        def work():
            from sudokustudio.jobs.dask import describe_cluster

            try:
                relay.done.emit(True, describe_cluster(address, timeout=self.connect_timeout))
            except Exception as exc:  # shown in the dialog, never fatal
                relay.done.emit(False, str(exc))

        self._test_thread = threading.Thread(target=work, name="cluster-test", daemon=True)
        self._test_thread.start()

    @Slot(bool, str)
    def _show_test_result(self, ok: bool, text: str) -> None:
        self.test_button.setEnabled(self.available)
        self.show_status(ok, text)

    def accept(self) -> None:
        on = self.available and self.enabled.isChecked()
        address = self.address.text().strip()
        if on:
            if self.check_address() is None:
                QMessageBox.warning(self, "Cluster", "The scheduler address is missing or malformed: "
                                                     f"enter e.g. {ADDRESS_EXAMPLE}, or local.")
                return
        self.settings.setValue("cluster/enabled", on)
        self.settings.setValue("cluster/address", address)
        self.settings.sync()
        super().accept()

    def wait_for_test(self, timeout: float = 30.0) -> None:
        if self._test_thread is not None:
            self._test_thread.join(timeout)
