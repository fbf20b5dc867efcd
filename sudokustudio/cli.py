"""Headless entry point: ``sudokustudio-cli COMMAND ...``.

Each command lives in ``sudokustudio/commands/<name>.py`` with
``register(subparsers)``; add new modules to COMMANDS.  Building the parser
imports only those modules, which keep numpy, numba, Qt, Dask and the
domain code inside their ``run`` functions (``--help`` starts in a blink).
"""
from __future__ import annotations

import argparse
import importlib
import sys

COMMANDS: list[str] = [
    "sudokustudio.commands.survo",
    "sudokustudio.commands.estimate",
    "sudokustudio.commands.generate",
    "sudokustudio.commands.solve",
    "sudokustudio.commands.rate",
    "sudokustudio.commands.ua",
    "sudokustudio.commands.canon",
    "sudokustudio.commands.warm",
]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="sudokustudio-cli",
        description="Sudoku Studio, headless: solve, generate, estimate, Survo, unavoidable sets.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for name in COMMANDS:
        importlib.import_module(name).register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    from sudokustudio.logs import setup_logging

    setup_logging()
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except (OSError, ValueError) as exc:  # bad input: one clear line, no traceback
        print(f"sudokustudio-cli: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    raise SystemExit(main())
