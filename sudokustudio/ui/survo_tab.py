"""The Survo tab: the swap board of seed 001, with undo, hints, the solver, the
difficulty and new graded puzzles.

A thin view over ``models.survo.SurvoModel`` (board state, swaps, W, hints,
solutions, difficulty, generation, files).  The board starts from the
product-of-marginal-sums setup; the player swaps numbers until W = 0.  The
exact solver runs off the UI thread as soon as a puzzle is loaded, so Hint
("mate in N") and Solve are instant afterwards; the difficulty (after the
puzzle is solved, or on request: D) and new puzzles are computed the same
way.  Undo is a QUndoStack whose commands call the model.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt, QTimer, Slot
from PySide6.QtGui import QAction, QColor, QFont, QFontMetrics, QKeySequence, QUndoCommand, QUndoStack
from PySide6.QtWidgets import (QBoxLayout, QCheckBox, QDialog, QFileDialog, QGridLayout, QHBoxLayout, QLabel,
                               QListWidget, QListWidgetItem, QMenu, QMessageBox, QProgressBar, QPushButton,
                               QSizePolicy, QSplitter, QTabWidget, QToolButton, QVBoxLayout, QWidget)

from sudokustudio.models.survo import SurvoModel
from sudokustudio.survo.puzzle import SurvoFormatError, SurvoPuzzle
from sudokustudio.ui.background import BackgroundCalls, error_text
from sudokustudio.ui.survo_dialogs import NewPuzzleDialog
from sudokustudio.ui.kernels import when_kernels_ready
from sudokustudio.ui.style import RESOURCES, SERIES
from sudokustudio.ui.widgets.steady_plot import cache_axes, fixed_label_width
from sudokustudio.ui.widgets.survo_board import SurvoBoardWidget

EXAMPLES_DIR = RESOURCES / "survo"
EXAMPLES = [  # (file, menu label)
    ("worked_example.mat", "Worked example (2 swaps)"),
    ("harder_example.mat", "Harder example (5 swaps)"),
    ("sacrifice_example.mat", "Sacrifice example (W 4 → 6 → 0)"),
    ("S0.mat", "S0 (no swaps needed)"),
    ("S1.mat", "S1 (three swaps)"),
    ("S2.mat", "S2 (four swaps)"),
    ("S3.mat", "S3 (3×5)"),
    ("S4.mat", "S4"),
    ("S5.mat", "S5"),
]


def _warm_board_kernels() -> None:
    """Compile what the board needs on the UI thread (setup, W, chi-square); the solver
    and the generator compile on the pool thread when first used."""
    from sudokustudio.survo.setup import chi_square, puzzle_setup
    from sudokustudio.survo.board import w_of

    p = SurvoPuzzle([3, 7], [4, 6])
    t = puzzle_setup(p)
    w_of(t, p.row_sums, p.col_sums)
    chi_square(t)
    p.givens[0, 0] = 1
    puzzle_setup(p)



# ------------------------------------------------------------- undo
class SwapCommand(QUndoCommand):
    def __init__(self, tab: "SurvoTab", a: int, b: int):
        super().__init__(f"swap ({min(a, b)},{max(a, b)})")
        self.tab, self.a, self.b = tab, a, b

    def redo(self) -> None:
        self.tab.model.swap(self.a, self.b)
        self.tab._after_change()

    def undo(self) -> None:
        self.tab.model.undo_swap()
        self.tab._after_change()


__all__ = ["NewPuzzleDialog", "SurvoTab"]


# ------------------------------------------------------------- the tab
class SurvoTab(QWidget):
    title = "Survo swap board"
    #: kernel groups the window loads in the background once the tab has been shown a moment
    kernel_groups = ("survo-generate",)   # solve and atlas are preloaded at start
    file_filters = "Survo matrix files (*.mat *.txt *.survo);;All files (*)"

    def __init__(self, settings=None, parent=None):
        super().__init__(parent)
        self.settings = settings
        self.model = SurvoModel()
        self.undo_stack = QUndoStack(self)
        self.calls = BackgroundCalls(self, "Survo")
        self.calls.busyChanged.connect(lambda _: self._update_busy())
        self._after_solve: list = []
        self._cancel_generation = False
        self._number = int(np.random.SeedSequence().entropy % 1_000_000)
        self._w_plot_timer = QTimer(self, singleShot=True, interval=0, timeout=self._draw_w_plot)
        self._build()
        # The first puzzle appears once the board kernels are compiled (or loaded from
        # numba's cache) on the pool thread: the window never waits for compilation.
        when_kernels_ready(("survo-solve",), lambda: self._submit("warm", _warm_board_kernels), self, "Survo board")

    # the model's state, read by tests and benchmarks
    board = property(lambda self: self.model.board)
    solutions = property(lambda self: self.model.solutions)
    solution_count = property(lambda self: self.model.solution_count)
    setup_min_swaps = property(lambda self: self.model.setup_min_swaps)

    # ------------------------------------------------------------- layout
    def _build(self) -> None:
        outer = QVBoxLayout(self)
        outer.setContentsMargins(4, 4, 4, 4)
        self.views = QTabWidget()
        self.views.setDocumentMode(True)
        outer.addWidget(self.views)

        page = QWidget()
        self.board_page = page
        lay = QVBoxLayout(page)
        lay.addWidget(self._toolbar())
        self.message = QLabel("")
        self.message.setAlignment(Qt.AlignCenter)
        self.message.setWordWrap(True)
        f = QFont(self.font())
        f.setPointSizeF(f.pointSizeF() * 1.25)
        f.setBold(True)
        self.message.setFont(f)
        self.message.setStyleSheet("padding: 4px;")
        lay.addWidget(self.message)

        split = QSplitter(Qt.Horizontal)
        self.board_widget = SurvoBoardWidget()
        self.board_widget.swapRequested.connect(self.request_swap)
        self.board_widget.givenClicked.connect(
            lambda v: self._status(f"{v} is a given number (blue): it never moves."))
        split.addWidget(self.board_widget)
        split.addWidget(self._side_panel())
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 2)
        lay.addWidget(split, 1)
        self.status = QLabel("")
        self.status.setStyleSheet("color: #444;")
        busy_row = QHBoxLayout()
        busy_row.addWidget(self.status, 1)
        self.busy = QProgressBar()
        self.busy.setRange(0, 0)
        self.busy.setMaximumWidth(160)
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setToolTip("Stop generating after the current try")
        self.cancel_button.clicked.connect(self._cancel_generating)
        for w in (self.busy, self.cancel_button):   # their room stays: showing them must not move the board
            w.setVisible(False)
            policy = w.sizePolicy()
            policy.setRetainSizeWhenHidden(True)
            w.setSizePolicy(policy)
            busy_row.addWidget(w)
        lay.addLayout(busy_row)
        self.views.addTab(page, "Board")
        # --- extra views --- (other views are added to self.views below this line)
        from sudokustudio.ui.survo_atlas_view import AtlasView

        self.atlas_view = AtlasView(self.settings, self)
        self.atlas_view.playRequested.connect(self.play_puzzle)
        self.views.addTab(self.atlas_view, "Atlas")

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        one_row = sum(r.sizeHint().width() for r in self.bar_rows) + 40   # + the page's margins, spacing
        self.bar.setDirection(QBoxLayout.LeftToRight if self.width() >= one_row else QBoxLayout.TopToBottom)

    def _toolbar(self) -> QWidget:
        """The play and file buttons in one row, or in two when the tab is narrower (resizeEvent;
        a bar scrolling sideways hid Save at 800 px); its width is ignored, else one row would
        set the window's minimum width."""
        self.bar_rows = (QHBoxLayout(), QHBoxLayout())   # play, file
        bar = self.bar_rows[0]

        def button(text, tip, slot, shortcut=None):
            b = QPushButton(text)
            b.setToolTip(tip + (f" ({shortcut})" if shortcut else ""))
            b.clicked.connect(slot)
            bar.addWidget(b)
            return b

        # fixed labels ("Undo", not QUndoStack's "Undo swap (5,6)"): the toolbar never shifts; the
        # swap to be taken back is in the tooltip
        self.undo_action = QAction("Undo", self, triggered=self.undo_stack.undo, enabled=False)
        self.undo_action.setShortcut(QKeySequence("Ctrl+Z"))
        self.redo_action = QAction("Redo", self, triggered=self.undo_stack.redo, enabled=False)
        self.redo_action.setShortcuts([QKeySequence("Ctrl+Y"), QKeySequence("Ctrl+Shift+Z")])
        self.undo_stack.canUndoChanged.connect(self.undo_action.setEnabled)
        self.undo_stack.canRedoChanged.connect(self.redo_action.setEnabled)
        self.undo_stack.undoTextChanged.connect(
            lambda t: self.undo_button.setToolTip(f"Take back the last swap{': ' + t if t else ''} (Ctrl+Z)"))
        self.undo_stack.redoTextChanged.connect(
            lambda t: self.redo_button.setToolTip(f"Swap again{': ' + t if t else ''} (Ctrl+Y)"))
        for a in (self.undo_action, self.redo_action):
            a.setShortcutContext(Qt.WidgetWithChildrenShortcut)
            self.addAction(a)
        self.undo_button, self.redo_button = QToolButton(), QToolButton()
        for b, a, tip in ((self.undo_button, self.undo_action, "Take back the last swap (Ctrl+Z)"),
                          (self.redo_button, self.redo_action, "Swap again (Ctrl+Y)")):
            b.setDefaultAction(a)
            b.setToolButtonStyle(Qt.ToolButtonTextOnly)
            b.setToolTip(tip)
            bar.addWidget(b)
        self.reset_button = button("Reset", "Back to the product-of-sums setup", self.reset_board)
        self.hint_button = button("Hint", "Mate in N: the fewest swaps left, and one swap that brings it to N−1",
                                  self.show_hint, "H")
        self.hint_button.setShortcut(QKeySequence("H"))
        self.solve_button = button("Solve", "Show the solution and whether it is unique", self.show_solution)
        self.difficulty_button = button("Difficulty", "Fewest swaps, sacrifices, shortest sequences, setup W "
                                        "and the grade (also shown once the puzzle is solved)",
                                        self.show_difficulty, "D")
        self.difficulty_button.setShortcut(QKeySequence("D"))
        bar = self.bar_rows[1]
        self.new_button = button("New puzzle…", "A uniquely solvable puzzle of a chosen size and difficulty",
                                 self.new_puzzle_dialog, "Ctrl+N")
        self.new_button.setShortcut(QKeySequence("Ctrl+N"))
        self.examples_button = QToolButton()
        self.examples_button.setText("Examples")
        self.examples_button.setToolTip("The puzzles of seed 001: the worked example, S0–S5, the sacrifice")
        self.examples_button.setPopupMode(QToolButton.InstantPopup)
        menu = QMenu(self.examples_button)
        for fname, label in EXAMPLES:
            menu.addAction(QAction(label, self, triggered=lambda _=False, f=fname: self.load_example(f)))
        self.examples_menu = menu
        self.examples_button.setMenu(menu)
        bar.addWidget(self.examples_button)
        button("Open…", "Open a Survo matrix file", self.open_dialog)
        self.save_button = button("Save…", "Save the puzzle as a Survo matrix file", self.export_file)
        self.bar = QBoxLayout(QBoxLayout.LeftToRight)
        for row in self.bar_rows:
            self.bar.addLayout(row)
            self.bar.setAlignment(row, Qt.AlignLeft)
        self.bar.addStretch(1)
        holder = QWidget()
        holder.setLayout(self.bar)
        holder.setSizePolicy(QSizePolicy.Ignored, QSizePolicy.Fixed)
        return holder

    def _side_panel(self) -> QWidget:
        w = QWidget()
        v = QVBoxLayout(w)
        v.setContentsMargins(6, 0, 0, 0)
        grid = QGridLayout()
        # the puzzle's name (cut off at the toolbar's end at 1024 px); its line kept: no plot resize
        self.title_label = QLabel("")
        self.title_label.setStyleSheet("color: #333; font-weight: bold;")
        self.title_label.setWordWrap(True)
        self.title_label.setMinimumHeight(self.title_label.fontMetrics().lineSpacing())
        v.addWidget(self.title_label)
        self.info_label = QLabel("")
        self.info_label.setWordWrap(True)
        grid.addWidget(self.info_label, 0, 0)
        self.hint_label = QLabel("")
        self.hint_label.setWordWrap(True)
        f = QFont(self.font())
        f.setPointSizeF(f.pointSizeF() * 1.15)
        f.setBold(True)
        self.hint_label.setFont(f)
        self.hint_label.setStyleSheet("color: #8a5a00;")
        grid.addWidget(self.hint_label, 1, 0)
        # room for the usual lines kept: a label that grows when the solver answers would resize
        # the W plot below it, and pyqtgraph redraws its axes (~10 ms of the UI thread)
        self.info_label.setMinimumHeight(7 * self.info_label.fontMetrics().lineSpacing())
        self.info_label.setAlignment(Qt.AlignLeft | Qt.AlignTop)
        self.hint_label.setMinimumHeight(2 * QFontMetrics(f).lineSpacing())
        grid.setColumnStretch(0, 1)
        v.addLayout(grid)
        self.w_label = QLabel("W = –")
        self.w_label.setToolTip("W = Σ|Sum − OK| over rows and columns; 0 = solved")
        v.addWidget(self.w_label)
        self.plot = pg.PlotWidget(background="w")
        self.plot.setMinimumHeight(150)
        self.plot.setMaximumHeight(230)
        self.plot.setLabel("left", "W")
        self.plot.setLabel("bottom", "swap")
        self.plot.showGrid(x=True, y=True, alpha=0.3)
        self.plot.setMouseEnabled(x=False, y=False)
        self.plot.hideButtons()
        self.plot.getAxis("bottom").setTickSpacing(major=5, minor=1)
        self.plot.getAxis("left").setTickSpacing(major=10, minor=2)
        # a new puzzle repaints the window several times while it settles: the axes are drawn
        # once per range, and W's labels (up to 3 digits) never resize the plot
        cache_axes(self.plot)
        fixed_label_width(self.plot, "888")
        self.w_curve = self.plot.plot([], [], pen=pg.mkPen(SERIES[0], width=2), symbol="o", symbolSize=7,
                                      symbolBrush=SERIES[0], symbolPen=None)
        self.sacrifice_dots = pg.ScatterPlotItem(size=11, brush=pg.mkBrush(SERIES[1]), pen=None)
        self.plot.addItem(self.sacrifice_dots)
        v.addWidget(self.plot)
        v.addWidget(QLabel("Swaps (orange: sacrifice, W went up)"))
        self.swap_list = QListWidget()
        self.swap_list.setToolTip("The swaps made, in the style of /SP_SWAP; click one to go back to it")
        self.swap_list.itemClicked.connect(self._jump_to_swap)
        v.addWidget(self.swap_list, 1)
        self.show_solution_box = QCheckBox("Show the solution in the cells")
        self.show_solution_box.setToolTip("Small green numbers show where each misplaced number belongs")
        self.show_solution_box.toggled.connect(self._toggle_solution_overlay)
        v.addWidget(self.show_solution_box)
        return w

    # ------------------------------------------------------------- loading
    def play_puzzle(self, puzzle: SurvoPuzzle) -> None:
        """Put a puzzle on the board (from its setup) and show the board."""
        self.model.load(puzzle)
        self.undo_stack.clear()
        self._after_solve.clear()
        self.board_widget.set_board(self.board)
        self.show_solution_box.setChecked(False)
        self.hint_label.setText("")
        self.title_label.setText(self.model.title())
        self._after_change()
        self.views.setCurrentWidget(self.board_page)
        self.board_widget.setFocus()
        self._start_solver()

    def load_example(self, fname: str) -> None:
        if self.open_file(str(EXAMPLES_DIR / fname)):
            label = dict(EXAMPLES).get(fname)
            if label:
                self.board.puzzle.name = label
                self.title_label.setText(self.model.title())

    def open_file(self, path: str) -> bool:
        """Open a matrix file; a bad file shows an error and leaves the board as it was."""
        try:
            puzzle = self.model.read(path)
        except SurvoFormatError as exc:
            QMessageBox.critical(self, "Cannot open Survo puzzle", f"{Path(path).name} cannot be used:\n\n{exc}")
            return False
        self.play_puzzle(puzzle)
        return True

    def open_dialog(self) -> None:
        start = str(self.settings.value("folders/survo", str(Path.home()))) if self.settings else ""
        path, _ = QFileDialog.getOpenFileName(self, "Open Survo puzzle", start, self.file_filters)
        if path:
            if self.settings is not None:
                self.settings.setValue("folders/survo", str(Path(path).parent))
            self.open_file(path)

    def export_file(self, path: str | None = None) -> bool:
        """Save the puzzle (not the swaps) as a Survo matrix file."""
        if self.board is None:
            return False
        if not path:
            start = str(self.settings.value("folders/survo", str(Path.home()))) if self.settings else ""
            path, _ = QFileDialog.getSaveFileName(self, "Save Survo puzzle", start, self.file_filters)
            if not path:
                return False
        try:
            self.model.write(path)
        except OSError as exc:
            QMessageBox.critical(self, "Cannot save", f"{path}: {exc.strerror or exc}")
            return False
        self._status(f"Saved {Path(path).name}")
        return True

    # ------------------------------------------------------------- swaps
    @Slot(int, int)
    def request_swap(self, a: int, b: int) -> None:
        why = self.model.refusal(a, b)
        if why is not None:
            if why:
                self._status(why)
            return
        self.undo_stack.push(SwapCommand(self, a, b))

    def reset_board(self) -> None:
        if self.board is None:
            return
        self.model.reset()
        self.undo_stack.clear()
        self._after_change()
        self._status("Back to the product-of-sums setup")

    def _jump_to_swap(self, item: QListWidgetItem) -> None:
        k = self.swap_list.row(item) + 1  # swaps 1..k kept
        self.undo_stack.setIndex(k)

    def _after_change(self) -> None:
        """Redraw everything that depends on the table."""
        b = self.board
        if b is None:
            return
        self.board_widget.set_hint(None)
        self.hint_label.setText("")
        self.board_widget.update()
        w = b.w
        self.w_label.setText(f"W after each swap — now W = {w}")
        self.w_label.setStyleSheet(f"font-weight: bold; color: {'#009E73' if w == 0 else '#D55E00'};")
        self.swap_list.clear()
        for label, sacrifice in self.model.swap_rows():
            item = QListWidgetItem(label)
            if sacrifice:
                item.setForeground(QColor(SERIES[1]))
                bold = item.font()
                bold.setBold(True)
                item.setFont(bold)
                item.setToolTip("A sacrifice: this swap raised W")
            self.swap_list.addItem(item)
        if b.swaps:
            self.swap_list.setCurrentRow(len(b.swaps) - 1)
        self._w_plot_timer.start()
        self._update_info()
        if b.solved:
            self._show_solved()
        else:
            self.message.setText("")
            self.message.setStyleSheet("padding: 4px;")

    def _draw_w_plot(self) -> None:
        """The W history, drawn on the turn of the event loop after the board's: a new range
        redraws the plot's axes, and board and plot in one paint held the UI thread ~25 ms."""
        b = self.board
        if b is None:
            return
        hist = b.w_history()
        self.w_curve.setData(np.arange(len(hist)), hist)
        sac = self.model.sacrifices()
        self.sacrifice_dots.setData([p[0] for p in sac], [p[1] for p in sac])
        self.plot.setXRange(0, max(4, len(hist) - 1), padding=0.05)
        self.plot.setYRange(0, max(4, max(hist)), padding=0.08)

    def _update_info(self) -> None:
        self.info_label.setText("\n".join(self.model.info_lines()))

    def _show_solved(self) -> None:
        self.message.setText(self.model.solved_text())
        self.message.setStyleSheet("padding: 4px; background: #cdebd0; color: #0b5a2a; border-radius: 4px;")
        self._status(self.message.text())
        if self.model.difficulty_result is None:
            self.show_difficulty()

    # ------------------------------------------------------------- solver
    def _submit(self, kind: str, fn, payload=None) -> int:
        return self.calls.submit(kind, fn, on_done=lambda result: self._on_task_done(kind, payload, result),
                                 on_error=lambda exc: self._on_task_failed(kind, exc))

    def _update_busy(self) -> None:
        busy = self.calls.busy()
        self.busy.setVisible(busy)
        generating = self.calls.busy("generate")
        self.cancel_button.setVisible(generating)
        self.new_button.setEnabled(not generating)

    def _start_solver(self) -> None:
        puzzle = self.board.puzzle.copy()
        board = self.board
        when_kernels_ready(("survo-solve",), lambda: self._submit("solve", lambda: SurvoModel.solve(puzzle), board),
                           self, "Hint and Solve")

    def _on_task_done(self, kind: str, payload, result) -> None:
        if kind == "solve":
            if not self.model.take_solutions(payload, result):  # a puzzle loaded since: stale
                return
            self._update_info()
            todo, self._after_solve = self._after_solve, []
            waiting = self.status.text()
            for fn in todo:
                fn()
            if todo and self.status.text() == waiting:   # "Solving…" is over: not left standing
                self._status("")
        elif kind == "warm":
            if self.board is None:
                self.load_example("worked_example.mat")
        elif kind == "difficulty":
            if self.model.take_difficulty(payload, result):
                self._update_info()
                self._status(self.model.difficulty_text())
        elif kind == "generate":
            self.play_puzzle(result.puzzle)
            self._status(SurvoModel.generated_text(result))

    def _on_task_failed(self, kind: str, exc: BaseException) -> None:
        msg = error_text(exc)
        if kind == "warm":  # compile on demand instead
            self._status(f"Kernel warm-up failed: {msg}")
            if self.board is None:
                self.load_example("worked_example.mat")
            return
        if kind == "difficulty":
            self.model.difficulty_error = f"Difficulty: not available ({msg})"
            self._update_info()
            return
        if kind == "generate" and "cancelled" in msg:
            self._status("Generation cancelled")
            return
        QMessageBox.warning(self, "Survo", f"The {kind or 'task'} failed:\n\n{msg}")

    def _when_solved(self, fn) -> None:
        if self.solutions is not None:
            fn()
        else:
            from sudokustudio.kernels import is_ready

            self._status("Solving…" if is_ready(("survo-solve",)) else "Preparing (compiling kernels)…")
            self._after_solve.append(fn)

    def show_hint(self) -> None:
        if self.board is None:
            return
        self._when_solved(self._show_hint_now)

    def _show_hint_now(self) -> None:
        h = self.model.hint()
        self.hint_label.setText(h.text)
        if h.swap is not None:
            self.board_widget.set_hint(h.swap)

    def show_solution(self) -> None:
        if self.board is None:
            return
        self._when_solved(self._show_solution_now)

    def _show_solution_now(self) -> None:
        uniq = self.model.uniqueness_text()
        if not self.solutions:
            QMessageBox.information(self, "Solution", uniq)
            return
        self.show_solution_box.setChecked(True)
        self.hint_label.setText(uniq + f" Fewest swaps from the setup: {self.setup_min_swaps}.")
        self._status(uniq)

    def show_difficulty(self) -> None:
        """The difficulty of the puzzle on the board, computed off the UI thread (after the solver)."""
        if self.board is None:
            return
        self._when_solved(self._start_difficulty)

    def _start_difficulty(self) -> None:
        req = self.model.difficulty_request()
        if isinstance(req, str):
            self.model.difficulty_error = req
            self._update_info()
            return
        if self.model.difficulty_result is not None:
            self._status(self.model.difficulty_text())
            return
        if self.calls.busy("difficulty"):
            return
        puzzle, solution = req
        self._status("Computing the difficulty…")
        self._submit("difficulty", lambda: SurvoModel.difficulty(puzzle, solution), self.board)

    def _toggle_solution_overlay(self, on: bool) -> None:
        if on and self.solutions:
            self.board_widget.solution = self.solutions[0]
        else:
            self.board_widget.solution = None
        self.board_widget.update()

    # ------------------------------------------------------------- new puzzles
    def new_puzzle_dialog(self) -> None:
        m = self.board.puzzle.m if self.board else 4
        n = self.board.puzzle.n if self.board else 4
        dlg = NewPuzzleDialog(self, m, n, self._number)
        if dlg.exec() == QDialog.Accepted:
            values = dlg.values()
            self._number = values["number"] + 1
            when_kernels_ready(("survo-generate",), lambda: self.generate(**values), self, "New puzzle")

    def generate(self, m: int, n: int, level: str | None = None, number: int = 0,
                 givens: int | str = "auto") -> int:
        """Generate graded puzzle ``number`` off the UI thread; it is loaded when ready."""
        self._cancel_generation = False
        self._status(f"Generating {m}×{n} {level or ''} puzzle #{number}…")
        return self._submit("generate", lambda: SurvoModel.generate(
            m, n, level, number, givens, cancelled=lambda: self._cancel_generation))

    def _cancel_generating(self) -> None:
        self._cancel_generation = True
        self._status("Cancelling after the current try…")

    # ------------------------------------------------------------- misc
    def _status(self, text: str) -> None:
        """Say ``text`` below the board and in the window's status bar ("": clear both)."""
        self.status.setText(text)
        win = self.window()
        if win is not None and hasattr(win, "statusBar") and win is not self:
            if text:
                win.statusBar().showMessage(text, 5000)
            else:
                win.statusBar().clearMessage()

    def wait_idle(self, msecs: int = 30000) -> bool:
        """Block until background work is done and delivered (tests, closing)."""
        from PySide6.QtCore import QCoreApplication

        ok = self.calls.wait_idle(msecs)
        QCoreApplication.processEvents()
        return ok

    def shutdown(self, deadline: float = 1.5) -> None:
        self._cancel_generation = True
        self.atlas_view.shutdown(deadline)
        self.calls.drop()  # answers that arrive after closing are ignored: nothing to wait for
        # (a generation polls the cancel flag between its tries and ends by itself)
