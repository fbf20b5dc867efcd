"""Logging: one log file in the user data folder for the window and the CLI.

``setup_logging()`` is called once by each entry point (app.py, cli.py).
Errors of background work (failed batches, failed one-off calls) are logged
with their traceback; the user sees one clear line and can send the file.
"""
from __future__ import annotations

import logging
import logging.handlers
from pathlib import Path

FORMAT = "%(asctime)s %(levelname)s [%(threadName)s] %(name)s: %(message)s"
_configured: Path | None = None


def log_path() -> Path:
    from sudokustudio.core.paths import user_data_dir

    return user_data_dir() / "sudokustudio.log"


def setup_logging(level: int = logging.INFO) -> Path | None:
    """Log to the user data folder (1 MB, three old files kept); None if it cannot be written."""
    global _configured
    if _configured is not None:
        return _configured
    try:
        path = log_path()
        handler = logging.handlers.RotatingFileHandler(path, maxBytes=1 << 20, backupCount=3, encoding="utf-8")
    except OSError:
        return None  # a read-only home: run without a log file rather than not at all
    handler.setFormatter(logging.Formatter(FORMAT))
    root = logging.getLogger("sudokustudio")
    root.setLevel(level)
    root.addHandler(handler)
    _configured = path
    return path
