"""Entry script of the frozen app (PyInstaller analyses imports from here).

    sudokustudio                      the window
    sudokustudio --warm [--json]      fill the kernel cache ahead of time (sudokustudio-cli warm)
    sudokustudio --compile-kernels …  a background compile process (started by the window itself)
"""
import multiprocessing
import sys

if __name__ == "__main__":
    multiprocessing.freeze_support()  # harmless unless something spawns processes
    if len(sys.argv) > 1 and sys.argv[1] == "--compile-kernels":
        from sudokustudio.kernels.compile import main as compile_main

        raise SystemExit(compile_main(sys.argv[2:]))
    if len(sys.argv) > 1 and sys.argv[1] == "--warm":
        from sudokustudio.cli import main as cli_main

        raise SystemExit(cli_main(["warm", *sys.argv[2:]]))
    from sudokustudio.app import main

    raise SystemExit(main())
