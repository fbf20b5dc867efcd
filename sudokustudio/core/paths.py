"""Where Sudoku Studio keeps its files: the user data folder (run stores, log)."""
from __future__ import annotations

import os
from pathlib import Path


def user_data_dir() -> Path:
    """$SUDOKUSTUDIO_DATA, else $XDG_DATA_HOME/sudokustudio, else ~/.local/share/sudokustudio (created)."""
    explicit = os.environ.get("SUDOKUSTUDIO_DATA")
    if explicit:
        root = Path(explicit)
    else:
        base = os.environ.get("XDG_DATA_HOME")
        root = (Path(base) if base else Path.home() / ".local" / "share") / "sudokustudio"
    root.mkdir(parents=True, exist_ok=True)
    return root
