"""The CLI's progress on stderr: a bar on a terminal, plain timed lines in a log."""
from __future__ import annotations

import io

from sudokustudio.commands.common import ProgressBar


def test_log_lines_name_progress_elapsed_and_time_left():
    log = io.StringIO()   # not a terminal: a line per update once the interval has passed
    bar = ProgressBar("atlas 4x5", total=961, stream=log, log_interval=0.0, unit="batches")
    bar.update(565, "129,705 puzzles", eta=5400.0)
    bar.update(600, "", eta=None)
    bar.update(4.83375, "")   # a fraction of a unit (seconds, kernel groups) to a tenth
    bar.update(1234567, "")
    bar.close()
    lines = log.getvalue().splitlines()
    assert lines[0].startswith("atlas 4x5: 565 of 961 batches (58.8 %), 129,705 puzzles; ")
    assert lines[0].endswith("elapsed, ~1 h 30 min left")
    assert lines[1].startswith("atlas 4x5: 600 of 961 batches (62.4 %); ") and "left" not in lines[1]
    assert lines[2].startswith("atlas 4x5: 4.8 of 961 batches (0.5 %); ")
    assert lines[3].startswith("atlas 4x5: 1,234,567 of 961 batches (100.0 %); ")
    assert lines[4].startswith("atlas 4x5: ended after ")
    assert "\r" not in log.getvalue()


def test_log_waits_for_its_interval_and_a_quiet_run_writes_nothing():
    log = io.StringIO()
    bar = ProgressBar("run", total=10, stream=log, log_interval=3600.0)
    assert not bar.due()
    bar.update(5, "x", eta=1.0)
    bar.close()
    assert log.getvalue() == ""


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_terminal_bar_redraws_one_line():
    tty = _Terminal()
    bar = ProgressBar("run", total=4, stream=tty)
    bar.update(1, "a")
    bar.close()
    text = tty.getvalue()
    assert text.startswith("\rrun [#######-----------------------]  25.0% a") and text.endswith("\n")
