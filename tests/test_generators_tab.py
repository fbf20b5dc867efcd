"""The Generators tab: runs on a shared pool, stores batches, imports and exports, shows the table."""
import numpy as np

from sudokustudio.jobs.collections import CollectionStore, import_collection


def _wait_idle(qtbot, tab, timeout=120_000):
    qtbot.waitUntil(lambda: not any(tab.is_running(m) for m in tab.rows), timeout=timeout)


def test_tab_runs_generators_stores_and_exports(qtbot, settings, tmp_path):
    from sudokustudio.ui.generators_tab import GeneratorsTab

    tab = GeneratorsTab(settings)
    qtbot.addWidget(tab)
    tab.rows["top-down"]["target"].setValue(200)
    tab.rows["bottom-up"]["target"].setValue(100)
    tab.start("top-down")
    tab.start("bottom-up")
    assert tab.pool.maxThreadCount() == 2
    _wait_idle(qtbot, tab)
    tab.refresh()
    td = tab.series["top-down"]
    assert td.result.count == 200 and tab.series["bottom-up"].result.count == 100
    # every batch was committed to the collection store
    store = CollectionStore()
    assert np.array_equal(store.load(td.collection_id).puzzles, td.result.puzzles)
    # the table has the live columns and the published seed 002 columns
    headers = [tab.table.horizontalHeaderItem(j).text() for j in range(tab.table.columnCount())]
    assert "top-down" in headers and any("seed 002" in h for h in headers)
    rows = [tab.table.verticalHeaderItem(i).text() for i in range(tab.table.rowCount())]
    assert "mean clues" in rows and "mean solver guesses" in rows
    n = tab.export_series("top-down", str(tmp_path / "td.csv"))
    assert n == 200 and import_collection(tmp_path / "td.csv").puzzles.shape == (200, 81)
    tab.shutdown()


def test_tab_imports_and_corrects_a_collection(qtbot, settings, shared_data, monkeypatch):
    from sudokustudio.ui import generators_tab
    from sudokustudio.ui.generators_tab import GeneratorsTab

    warnings = []
    monkeypatch.setattr(generators_tab.QMessageBox, "warning", lambda *a: warnings.append(a[2]))

    tab = GeneratorsTab(settings)
    qtbot.addWidget(tab)
    coll = import_collection(shared_data / "controlled_bias" / "001-puzzles.txt", generator="controlled-bias")
    coll.puzzles = coll.puzzles[:3000]
    coll.weights = coll.weights[:3000]
    s = tab.add_collection(coll)
    tab.refresh()
    assert s.stats["corrected_mean"] > s.stats["mean"] + 0.5
    tab.correct_box.setChecked(False)
    tab.refresh()
    tab.open_file(str(shared_data / "README.md"), generator="unknown")  # not a collection: a message, no crash
    assert warnings and "README.md" in warnings[0] and "line" in warnings[0]
    tab.shutdown()
