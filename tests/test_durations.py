"""The one duration formatter: exact text at each unit's edges, and unknown times."""
import math

from sudokustudio.core.durations import duration_text


def test_precise_durations_name_each_unit():
    assert duration_text(59.94) == "59.9 s"
    assert duration_text(60) == "1 min 00 s"
    assert duration_text(187.9) == "3 min 07 s"
    assert duration_text(3600 + 5 * 60 + 59) == "1 h 05 min"
    assert duration_text(86400 * 3) == "3 days"
    assert duration_text(86400 * 4.25) == "4.25 days"


def test_rounded_durations_for_predictions():
    assert duration_text(0.0086, rounded=True) == "0.009 s" and duration_text(0.4, rounded=True) == "0.4 s"
    assert duration_text(0, rounded=True) == "0 s" and duration_text(0.96, rounded=True) == "1 s"
    assert duration_text(89, rounded=True) == "89 s"
    assert duration_text(90, rounded=True) == "2 min"
    assert duration_text(5399, rounded=True) == "90 min"
    assert duration_text(5400, rounded=True) == "1.5 h"
    assert duration_text(48 * 3600, rounded=True) == "2 days"


def test_unknown_durations():
    for unknown in (None, math.nan, math.inf):
        assert duration_text(unknown) == "–"
        assert duration_text(unknown, rounded=True) == "–"
