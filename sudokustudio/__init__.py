"""Sudoku Studio: a workbench for the mathematics of Sudoku and Survo puzzles."""

__version__ = "0.1.0"
