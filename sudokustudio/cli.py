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
    try:
        args = parser.parse_args(argv)  # every option is checked here (core.limits): bad ones exit 2
    except SystemExit as e:  # --help (0) or a bad option (2): a return code, also when called as a function
        return e.code if isinstance(e.code, int) else 2
    from sudokustudio.kernels.cache import prepare_before_running
    from sudokustudio.kernels.listener import announce_first_compile

    prepare_before_running()
    announce_first_compile(lambda text: print(text, file=sys.stderr, flush=True))
    try:
        return int(args.func(args) or 0)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # `... | head`: the reader left; say nothing more
        _quiet_stdout()
        return 1
    except (OSError, ValueError) as exc:  # bad input: one clear line, no traceback
        print(f"sudokustudio-cli: error: {exc}", file=sys.stderr)
        return 2


def _quiet_stdout() -> None:
    """Point stdout at /dev/null so that flushing it at exit raises no second BrokenPipeError."""
    import os

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


if __name__ == "__main__":
    raise SystemExit(main())
