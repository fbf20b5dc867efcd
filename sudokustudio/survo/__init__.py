"""Survo puzzles: model and formats (puzzle), product setup (setup), board and W (board),
exact solver and minimum swaps (solve), random puzzles (generate).  No Qt here."""
