from sudokustudio.ui.main_window import MainWindow
from sudokustudio.ui.tabs import TABS


def test_window_opens_with_all_tabs_and_closes_cleanly(qtbot, settings):
    win = MainWindow(settings=settings)
    qtbot.addWidget(win)
    win.show()
    qtbot.waitExposed(win)
    assert win.tabs.count() == len(TABS)
    titles = [win.tabs.tabText(i) for i in range(win.tabs.count())]
    assert all(titles)
    qtbot.waitUntil(win.kernels_settled, timeout=600000)
    win.kernel_status.refresh()
    assert win.kernel_errors() == []
    assert win.kernel_label.text() == "Kernels ready", win.kernel_label.toolTip()
    win.close()
    assert settings.value("main/geometry") is not None


def test_window_restores_geometry_and_tab(qtbot, settings):
    win = MainWindow(settings=settings, warm_up=False)
    qtbot.addWidget(win)
    win.resize(700, 500)  # inside the offscreen screen (restoreGeometry clamps to it)
    win.show()
    qtbot.waitExposed(win)
    win.tabs.setCurrentIndex(win.tabs.count() - 1)
    size, tab = win.size(), win.tabs.currentIndex()
    win.close()
    again = MainWindow(settings=settings, warm_up=False)
    qtbot.addWidget(again)
    assert again.size() == size
    assert again.tabs.currentIndex() == tab
    again.close()
