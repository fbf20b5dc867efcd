"""Qt-free models of the window's tabs: every data operation, tested without Qt."""
