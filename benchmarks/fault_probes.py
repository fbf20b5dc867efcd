"""The fault probes of issue 20, run against the CLI: what each gives (exit code, seconds, message).

    python3 benchmarks/fault_probes.py [--repo PATH] [--only NAME,...] [--timeout 40] [--json]

Each probe runs ``python3 -m sudokustudio.cli ...`` in a child process (the
checkout given by --repo, default this one) with a time limit, and prints its
exit code, wall seconds, whether stderr holds a traceback (or "Exception
ignored"), and the last line of stderr.  Network probes talk to servers this
script starts on 127.0.0.1 only: a port that accepts and never answers, a
server that replies garbage, and (with Dask installed) a scheduler with no
workers.  Kernels should be in numba's cache (``sudokustudio-cli warm``).
"""
from __future__ import annotations

import argparse
import json
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
GRID = "468931527751624839392578461134756298289413675675289314846192753513867942927345186"


# ------------------------------------------------------------------ local servers
class SilentServer:
    """Accepts connections on 127.0.0.1 and never answers (nor closes)."""

    def __init__(self):
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.port = self.sock.getsockname()[1]
        self.conns: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.conns.append(conn)


class GarbageServer(SilentServer):
    """Answers every connection with bytes that are not Dask's protocol (an HTTP reply)."""

    def _accept(self):
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.conns.append(conn)
            try:
                conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello" + b"\xff" * 64)
            except OSError:
                pass


def start_scheduler_without_workers():
    """A Dask scheduler process on 127.0.0.1 with no workers; (process, address) or None."""
    try:
        import distributed  # noqa: F401
    except ImportError:
        return None
    port = _free_port()
    proc = subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_scheduler", "--host", "127.0.0.1",
                             "--port", str(port), "--no-dashboard"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    end = time.time() + 30
    while time.time() < end:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return proc, f"tcp://127.0.0.1:{port}"
        except OSError:
            time.sleep(0.2)
    proc.kill()
    return None


def _free_port() -> int:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


# ------------------------------------------------------------------ probes
def probes(tmp: Path, silent: int, garbage: int, empty_scheduler: str | None) -> list[tuple[str, list[str]]]:
    empty = tmp / "empty.txt"
    empty.write_text("")
    utf16 = tmp / "utf16.txt"
    utf16.write_text(GRID[:40] + "0" * 41 + "\n", encoding="utf-16")
    big_sum = tmp / "big_sum.mat"
    big_sum.write_text("MAT SAVE AS A\n1 2 9223372036854775808\n3 4 7\n4 6 0\n")
    puzzles = tmp / "three.txt"
    puzzle = ".......1.4.........2...........5.4.7..8...3....1.9....3..4..2...5.1........8.6..."
    puzzles.write_text("\n".join([puzzle] * 3) + "\n")
    survo = REPO / "resources" / "survo" / "worked_example.mat"
    out = [
        ("estimate grids --seconds nan", ["estimate", "grids", "--seconds", "nan", "--seed", "1"]),
        ("estimate grids --seconds inf", ["estimate", "grids", "--seconds", "inf", "--seed", "1"]),
        ("estimate grids --seed -1", ["estimate", "grids", "--samples", "1000", "--seed", "-1"]),
        ("estimate minimals --per-grid -3", ["estimate", "minimals", "--per-grid", "-3", "--samples", "16",
                                             "--seed", "1"]),
        ("estimate minimals --samples 10**30", ["estimate", "minimals", "--samples", "1" + "0" * 30, "--seed", "1"]),
        ("ua search --max-size 2", ["ua", "search", GRID, "--clues", "12", "--max-size", "2"]),
        ("ua search --seed -1", ["ua", "search", GRID, "--clues", "10", "--seed", "-1"]),
        ("ua search --clues 99", ["ua", "search", GRID, "--clues", "99"]),
        ("ua search --split-depth 40", ["ua", "search", GRID, "--clues", "12", "--split-depth", "40"]),
        ("solve --limit 99999999999999999999", ["solve", str(puzzles), "--limit", "99999999999999999999"]),
        ("solve --limit 1e20", ["solve", str(puzzles), "--limit", "1e20"]),
        ("solve empty file", ["solve", str(empty)]),
        ("solve UTF-16 file", ["solve", str(utf16)]),
        ("solve --threads 0", ["solve", str(puzzles), "--threads", "0"]),
        ("survo solve --limit 1000000000", ["survo", "solve", str(survo), "--limit", "1000000000"]),
        ("survo solve --limit 1e20", ["survo", "solve", str(survo), "--limit", "1e20"]),
        ("survo solve sum 2**63", ["survo", "solve", str(big_sum)]),
        ("survo random --seed -1", ["survo", "random", "3", "4", "--seed", "-1"]),
        ("survo random 6x8 --givens 99", ["survo", "random", "6", "8", "--givens", "99"]),
        ("survo random 6x8 --givens 12", ["survo", "random", "6", "8", "--givens", "12"]),
        ("survo atlas 9 9", ["survo", "atlas", "9", "9"]),
        ("survo atlas --out /nonexistent", ["survo", "atlas", "3", "3", "--out", "/nonexistent_dir/a.txt"]),
        ("generate --out /nonexistent", ["generate", "--method", "controlled-bias", "-n", "30", "--out",
                                         "/nonexistent_dir/cb.csv"]),
        ("generate --subset-size 0", ["generate", "--method", "weighted-subsets", "-n", "10", "--subset-size", "0"]),
        ("generate --seed -1", ["generate", "-n", "5", "--seed", "-1"]),
        ("generate --seed 2**64", ["generate", "-n", "5", "--seed", str(2 ** 64)]),
        ("rate --csv /nonexistent", ["rate", str(puzzles), "--csv", "/nonexistent_dir/w.csv"]),
        ("rate empty file", ["rate", str(empty)]),
        ("--scheduler bogus", ["estimate", "grids", "--samples", "1000", "--seed", "1", "--scheduler", "bogus"]),
        ("--scheduler silent port", ["estimate", "grids", "--samples", "1000", "--seed", "1", "--scheduler",
                                     f"tcp://127.0.0.1:{silent}"]),
        ("--scheduler garbage server", ["estimate", "grids", "--samples", "1000", "--seed", "1", "--scheduler",
                                        f"tcp://127.0.0.1:{garbage}"]),
    ]
    if empty_scheduler:
        out.append(("--scheduler without workers", ["estimate", "grids", "--samples", "1000", "--seed", "1",
                                                    "--scheduler", empty_scheduler]))
    return out


def run_probe(repo: Path, argv: list[str], timeout: float, pipe_head: bool = False) -> dict:
    env = dict(os.environ, PYTHONPATH=str(repo))
    cmd = [sys.executable, "-m", "sudokustudio.cli", *argv]
    t0 = time.perf_counter()
    try:
        if pipe_head:
            shell = " ".join(_quote(c) for c in cmd) + " | head -n 1"
            p = subprocess.run(["bash", "-o", "pipefail", "-c", shell], capture_output=True, text=True,
                               timeout=timeout, env=env, cwd=repo)
        else:
            p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env, cwd=repo)
        rc, err = p.returncode, p.stderr
    except subprocess.TimeoutExpired as e:
        rc, err = None, (e.stderr.decode() if isinstance(e.stderr, bytes) else e.stderr or "")
    secs = time.perf_counter() - t0
    lines = [ln for ln in err.splitlines() if ln.strip()]
    return {"rc": rc, "seconds": round(secs, 2),
            "traceback": "Traceback" in err or "Exception ignored" in err,
            "message": lines[-1][:200] if lines else ""}


def _quote(s: str) -> str:
    import shlex

    return shlex.quote(s)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repo", default=str(REPO))
    ap.add_argument("--only", default="")
    ap.add_argument("--timeout", type=float, default=40.0)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    silent, garbage = SilentServer(), GarbageServer()
    sched = start_scheduler_without_workers()
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        todo = probes(tmp, silent.port, garbage.port, sched[1] if sched else None)
        todo.append(("solve | head (BrokenPipe)", ["solve", "../shared/data/puzzles3_magictour_top1465"]))
        only = [s for s in args.only.split(",") if s]
        for name, argv in todo:
            if only and not any(o in name for o in only):
                continue
            r = run_probe(Path(args.repo), argv, args.timeout, pipe_head="| head" in name)
            r["probe"] = name
            results.append(r)
            if not args.json:
                rc = "TIMEOUT" if r["rc"] is None else r["rc"]
                print(f"{name:38s} rc {rc!s:7s} {r['seconds']:6.2f} s {'TRACEBACK ' if r['traceback'] else ''}"
                      f"{r['message']}", flush=True)
    if sched:
        sched[0].kill()
    if args.json:
        print(json.dumps(results))


if __name__ == "__main__":
    main()
