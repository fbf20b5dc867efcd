"""The tabs of the main window, in order: "module:Class".

A tab class takes (settings, parent) and may define ``open_file(path)``,
``export_file()``, ``file_filters`` and ``shutdown()`` (cancel and wait for
its runners; called when the window closes).
"""
TABS: list[str] = [
    "sudokustudio.ui.survo_tab:SurvoTab",
    "sudokustudio.ui.generators_tab:GeneratorsTab",
    "sudokustudio.ui.browser_tab:BrowserTab",
    "sudokustudio.ui.estimator_tab:EstimatorTab",
    "sudokustudio.ui.ua_tab:UATab",  # keep last
]
