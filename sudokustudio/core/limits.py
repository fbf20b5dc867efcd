"""Checks at the door: the limits every option of every command (and the window's
dialogs) is held to, in one place.

Pure Python (no numpy): the CLI's parser imports it, and ``--help`` must stay fast.

- Seeds are whole numbers 0..2**64-1 (SEED_MAX), the range of the generators'
  64-bit state; anything else is refused (no silent wrapping: a seed names one
  run, and two seeds that mean the same run would be a trap).
- Counts are whole numbers in a stated range; floats must be finite.
- Sizes that allocate memory have maxima derived from the machine's memory
  (``memory_limit``): a value that cannot fit is refused before anything runs.

Each check raises ``ValueError`` with a message naming the option, what it
accepts and what it got; the argparse ``type=`` factories (``whole``, ``number``,
``seed``) turn that into argparse's own "argument --x: ..." error (exit code 2).
"""
from __future__ import annotations

import argparse
import math
import os

SEED_MAX = 2 ** 64 - 1
#: the largest number of worker threads a command accepts
MAX_THREADS = 256
#: the window's seed boxes (Qt spin boxes hold int32): a sub-range of the seeds the CLI takes
SPIN_SEED_MAX = 2 ** 31 - 1
#: UA sizes (the smallest UA has 4 cells) and the UA search's clue counts, CLI and window alike
UA_MIN_SIZE, UA_MAX_SIZE = 4, 81
UA_MAX_CLUES = 40
#: at most this share of the machine's memory for one allocation that an option sizes
MEMORY_SHARE = 0.25


def physical_memory() -> int:
    """Bytes of RAM of this machine (8 GiB if it cannot be told)."""
    try:
        return int(os.sysconf("SC_PHYS_PAGES")) * int(os.sysconf("SC_PAGE_SIZE"))
    except (ValueError, OSError, AttributeError):
        return 8 << 30


def memory_limit(bytes_per_unit: float, share: float = MEMORY_SHARE) -> int:
    """How many units of ``bytes_per_unit`` bytes fit in ``share`` of this machine's memory."""
    return max(1, int(physical_memory() * share // max(1.0, float(bytes_per_unit))))


def _int_of(value, name: str) -> int:
    if isinstance(value, bool):
        raise ValueError(f"{name} must be a whole number, got {value!r}")
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        if math.isfinite(value) and value == int(value):
            return int(value)
        raise ValueError(f"{name} must be a whole number, got {value!r}")
    text = str(value).strip()
    try:
        return int(text, 10)
    except ValueError:
        raise ValueError(f"{name} must be a whole number, got {value!r}") from None


def check_whole(value, name: str, lo: int | None = None, hi: int | None = None) -> int:
    """``value`` as an int in lo..hi (either end open when None)."""
    v = _int_of(value, name)
    if (lo is not None and v < lo) or (hi is not None and v > hi):
        raise ValueError(f"{name} must be {_range_text(lo, hi)}, got {v}")
    return v


def check_number(value, name: str, lo: float | None = None, hi: float | None = None, *,
                 lo_open: bool = False) -> float:
    """``value`` as a finite float in [lo, hi] (``lo_open``: lo excluded)."""
    try:
        v = float(str(value).strip()) if not isinstance(value, (int, float)) else float(value)
    except (ValueError, OverflowError):
        raise ValueError(f"{name} must be a number, got {value!r}") from None
    if not math.isfinite(v):
        raise ValueError(f"{name} must be a finite number, got {value!r}")
    if (lo is not None and (v < lo or (lo_open and v == lo))) or (hi is not None and v > hi):
        low = f"more than {lo:g}" if lo_open else f"at least {lo:g}" if lo is not None else ""
        high = f"at most {hi:g}" if hi is not None else ""
        raise ValueError(f"{name} must be {' and '.join(t for t in (low, high) if t)}, got {v:g}")
    return v


def check_seed(value, name: str = "seed") -> int:
    """A run seed: a whole number 0..2**64-1 (see the module docstring)."""
    return check_whole(value, name, 0, SEED_MAX)


def _range_text(lo, hi) -> str:
    if lo is not None and hi is not None:
        return f"a whole number from {lo} to {hi}"
    if lo is not None:
        return f"a whole number >= {lo}"
    if hi is not None:
        return f"a whole number <= {hi}"
    return "a whole number"


# ------------------------------------------------------------------ argparse types
def _argtype(check, label: str):
    def convert(text):
        try:
            return check(text)
        except ValueError as e:
            # argparse prefixes "argument --x:"; drop our own "value must" subject
            msg = str(e)
            raise argparse.ArgumentTypeError(msg.split(" ", 1)[1] if msg.startswith("value ") else msg) from None

    convert.__name__ = label
    return convert


def whole(lo: int | None = None, hi: int | None = None):
    """argparse ``type=``: a whole number in lo..hi."""
    return _argtype(lambda t: check_whole(t, "value", lo, hi), "whole number")


def whole_list(lo: int | None = None, hi: int | None = None):
    """argparse ``type=``: one whole number in lo..hi, or several separated by commas (a list)."""
    def check(text):
        parts = str(text).split(",")
        values = [check_whole(t.strip(), "value", lo, hi) for t in parts]
        return values if len(values) > 1 else values[0]
    return _argtype(check, "whole number(s)")


def number_list(lo: float | None = None, hi: float | None = None, lo_open: bool = False):
    """argparse ``type=``: one finite number in [lo, hi] (lo excluded with ``lo_open``), or
    several separated by commas (a list)."""
    def check(text):
        values = [check_number(t.strip(), "value", lo, hi, lo_open=lo_open) for t in str(text).split(",")]
        return values if len(values) > 1 else values[0]
    return _argtype(check, "number(s)")


def number(lo: float | None = None, hi: float | None = None, lo_open: bool = False):
    """argparse ``type=``: a finite number in [lo, hi] (lo excluded with ``lo_open``)."""
    return _argtype(lambda t: check_number(t, "value", lo, hi, lo_open=lo_open), "number")


def seed():
    """argparse ``type=``: a seed 0..2**64-1."""
    return _argtype(lambda t: check_seed(t, "value"), "seed")


def threads():
    """argparse ``type=``: worker threads, 1..MAX_THREADS."""
    return whole(1, MAX_THREADS)
