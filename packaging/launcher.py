"""Entry script of the frozen app (PyInstaller analyses imports from here)."""
import multiprocessing

from sudokustudio.app import main

if __name__ == "__main__":
    multiprocessing.freeze_support()  # harmless unless something spawns processes
    raise SystemExit(main())
