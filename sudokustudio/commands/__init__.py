"""CLI commands (one module each, see sudokustudio.cli)."""
