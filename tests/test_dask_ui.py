"""Settings → Cluster…: the dialog stores what window_executor reads and explains a missing Dask."""
import pytest

from sudokustudio.jobs.qt import cluster_address
from sudokustudio.ui import settings_dialog
from sudokustudio.ui.settings_dialog import ClusterSettingsDialog

needs_dask = pytest.mark.skipif(not settings_dialog.dask_available(), reason="needs sudokustudio[cluster]")


@needs_dask
def test_dialog_stores_the_cluster_settings(qtbot, settings):
    dlg = ClusterSettingsDialog(settings)
    qtbot.addWidget(dlg)
    assert not dlg.enabled.isChecked() and not dlg.address.isEnabled()
    dlg.enabled.setChecked(True)
    assert dlg.address.isEnabled()
    dlg.address.setText("node1:8786")
    dlg.accept()
    assert settings.value("cluster/enabled", False, bool) is True
    assert cluster_address(settings) == "node1:8786"
    again = ClusterSettingsDialog(settings)
    qtbot.addWidget(again)
    assert again.enabled.isChecked() and again.address.text() == "node1:8786"
    again.enabled.setChecked(False)
    again.accept()
    assert cluster_address(settings) is None


@needs_dask
def test_a_missing_or_bad_address_is_refused_with_a_message(qtbot, settings, monkeypatch):
    warnings = []
    monkeypatch.setattr(settings_dialog.QMessageBox, "warning", lambda *a: warnings.append(a[2]))
    dlg = ClusterSettingsDialog(settings)
    qtbot.addWidget(dlg)
    dlg.enabled.setChecked(True)
    dlg.address.setText("   ")
    dlg.accept()
    assert warnings and "address" in warnings[0]
    assert "Enter the scheduler address" in dlg.status.text()
    assert dlg.result() != dlg.DialogCode.Accepted and cluster_address(settings) is None
    dlg.address.setText("tcp://")
    dlg.accept()
    assert "bad scheduler address" in dlg.status.text()


@needs_dask
def test_test_connection_reports_in_the_dialog(qtbot, settings):
    dlg = ClusterSettingsDialog(settings)
    qtbot.addWidget(dlg)
    dlg.enabled.setChecked(True)
    dlg.address.setText("local")
    dlg.test_connection()
    qtbot.waitUntil(lambda: dlg.test_button.isEnabled(), timeout=30000)
    assert "private cluster of worker processes" in dlg.status.text()
    dlg.connect_timeout = 1.0
    dlg.address.setText("127.0.0.1:9")  # nothing listens there
    dlg.test_connection()
    assert not dlg.test_button.isEnabled()  # the test runs in a thread; the dialog stays responsive
    qtbot.waitUntil(lambda: dlg.test_button.isEnabled(), timeout=60000)
    assert "cannot reach the Dask scheduler at tcp://127.0.0.1:9" in dlg.status.text()


def test_without_dask_the_dialog_says_how_to_get_it(qtbot, settings, monkeypatch):
    monkeypatch.setattr(settings_dialog, "dask_available", lambda: False)
    settings.setValue("cluster/enabled", True)
    settings.setValue("cluster/address", "tcp://node1:8786")
    dlg = ClusterSettingsDialog(settings)
    qtbot.addWidget(dlg)
    assert "pip install 'sudokustudio[cluster]'" in dlg.status.text()
    assert not dlg.enabled.isEnabled() and not dlg.test_button.isEnabled()
    dlg.accept()
    assert cluster_address(settings) is None  # the window falls back to local threads


def test_main_window_has_settings_cluster(qtbot, settings, monkeypatch):
    from sudokustudio.ui.main_window import MainWindow

    opened = []
    monkeypatch.setattr(ClusterSettingsDialog, "exec", lambda self: opened.append(self) or 0)
    win = MainWindow(settings=settings, tab_names=[], warm_up=False)
    qtbot.addWidget(win)
    menus = {a.text().replace("&", ""): a.menu() for a in win.menuBar().actions()}
    assert "Settings" in menus
    assert [a.text() for a in menus["Settings"].actions()] == ["&Cluster…"]
    win.cluster_action.trigger()
    assert len(opened) == 1 and opened[0].settings is settings
