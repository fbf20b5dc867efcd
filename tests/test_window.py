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


def test_closing_the_window_stops_every_run_and_saves_what_finished(qtbot, settings):
    from sudokustudio.jobs.store import RunStore, default_store_path
    from sudokustudio.sudoku import estimate as E

    win = MainWindow(settings=settings, warm_up=False)
    qtbot.addWidget(win)
    tabs = {type(win.tabs.widget(i)).__name__: win.tabs.widget(i) for i in range(win.tabs.count())}
    est, gen = tabs["EstimatorTab"], tabs["GeneratorsTab"]
    est.box.setCurrentIndex(E.BOX_SHAPES.index("2x2"))
    est.gmethod.setCurrentIndex(E.GRID_METHODS.index("ridder"))
    view = est.start_run()
    for m in ("top-down", "bottom-up"):
        gen.rows[m]["target"].setValue(10_000_000)
        gen.start(m)
    runs = [view.run] + [gen.series[m].run for m in ("top-down", "bottom-up")]
    qtbot.waitUntil(lambda: all(r.batches_done >= 1 for r in runs), timeout=120_000)
    win.close()
    # every run was told to stop; their batches are short, so they have ended and saved what finished
    qtbot.waitUntil(lambda: all(r.finished for r in runs), timeout=30_000)
    assert {r.status.value for r in runs} == {"paused"}
    store = RunStore(default_store_path())
    assert store.run(view.run_id).status == "paused"
    assert len(store.done_indices(view.run_id)) == view.run.batches_done


def test_the_window_collects_garbage_in_the_gui_thread_only(qtbot, settings):
    """Qt objects must die in the GUI thread: with automatic collection on, a worker thread's
    allocations could free a widget cycle while the main thread deleted it (a deadlock seen
    once).  The window turns it off and collects on its own timer, in the GUI thread."""
    import gc
    import threading
    import weakref

    gc.enable()   # as a fresh process has it (the test session keeps it off)
    try:
        win = MainWindow(settings=settings, warm_up=False)
        qtbot.addWidget(win)
        assert not gc.isenabled()

        class Cycle:
            pass

        cycle = Cycle()
        cycle.me = cycle
        dead = weakref.ref(cycle)
        del cycle
        collected_in = []
        kept = []

        def allocate():   # a worker's allocations: past the thresholds, yet no collection here
            kept.append([[] for _ in range(50_000)])   # kept: the count stays past the threshold
            collected_in.append(dead() is None)

        t = threading.Thread(target=allocate)
        t.start()
        t.join()
        assert collected_in == [False]
        qtbot.waitUntil(lambda: dead() is None, timeout=5000)   # the window's timer collects it
        win.close()
    finally:
        gc.disable()


def test_the_window_freezes_its_long_lived_objects_out_of_full_collections(qtbot, settings):
    """A full garbage collection walked every object of the window (~80 ms holding the GIL
    while a run went on): once built, the window moves them to the frozen generation."""
    import gc

    gc.unfreeze()
    before = len(gc.get_objects())
    win = MainWindow(settings=settings, warm_up=False)
    qtbot.addWidget(win)
    assert gc.get_freeze_count() >= before   # everything made before and while building it
    assert len(gc.get_objects()) < gc.get_freeze_count()
    win.close()


def test_a_first_start_fits_the_window_to_the_screen(qtbot, settings):
    from PySide6.QtCore import QSize

    from sudokustudio.ui.main_window import DEFAULT_SIZE, first_size

    assert first_size(QSize(1920, 1050)) == DEFAULT_SIZE
    assert first_size(QSize(1366, 728)) == QSize(1280, 688)    # a 1366x768 laptop under its panel
    assert first_size(QSize(1024, 600)) == QSize(1004, 560)
    assert first_size(QSize(300, 200)) == QSize(640, 480)      # never below a usable size
    win = MainWindow(settings=settings, warm_up=False)         # no saved geometry: a first start
    qtbot.addWidget(win)
    expected = first_size(win.screen().availableGeometry().size())
    assert win.size() == expected.expandedTo(win.minimumSizeHint()), (win.size(), expected)
    win.close()
