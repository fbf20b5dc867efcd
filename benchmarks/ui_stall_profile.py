"""What the UI thread was doing during its longest stalls, per job kind.

    python3 benchmarks/ui_stall_profile.py --kinds rating [--seconds 4] [--top 3] [--over 40]
        [--cprofile 40] [--timeline] [--no-sampler --dump stalls.txt]

Runs benchmarks/ui_stalls.py's measurement for each kind while a sampler thread
records the main thread's Python stack every millisecond.  For the ``--top``
longest stalls (gaps between two ticks of the 10 ms timer, over ``--over`` ms)
it prints the functions the samples fell in (inclusive counts), the main
thread's CPU time during the stall (far below the stall: it waited for a core
or for the GIL), and with ``--timeline`` the samples one by one.

Reading it: a sample is taken when the sampler gets the GIL, so short Python
slots called from C++ (a model's data(), a plot item's paint) are mostly
missed and the stall shows as ``pump`` (inside processEvents): ``--cprofile N``
then profiles the UI thread's Python, slots called from C++ included.
``--dump FILE --no-sampler`` under ``perf record -k CLOCK_MONOTONIC -g`` lets
perf's samples of every thread be matched with the stalls' times.
"""
from __future__ import annotations

import argparse
import os
import sys
import threading
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import ui_stalls  # noqa: E402  (the benchmark beside this file)


class StackSampler:
    """Samples one thread's stack (file:function:line per frame) every ``interval`` seconds."""

    def __init__(self, thread_id: int, interval: float = 0.001, others_too: bool = False):
        self.thread_id, self.interval, self.others_too = thread_id, interval, others_too
        self.samples: list[tuple[float, tuple[str, ...]]] = []
        self.others: list[tuple[float, tuple[tuple[str, ...], ...]]] = []   # the other threads' innermost frames
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True, name="stack-sampler")

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(1.0)

    def _loop(self) -> None:
        me = threading.get_ident()
        while not self._stop.is_set():
            frames = sys._current_frames()
            now = time.perf_counter()
            self.samples.append((now, _stack(frames.get(self.thread_id))))
            if self.others_too:   # walking running threads' frames has crashed CPython 3.11 here
                self.others.append((now, tuple(_stack(f, 1) for tid, f in frames.items()
                                               if tid not in (self.thread_id, me))))
            del frames
            time.sleep(self.interval)


def _stack(frame, depth: int = 1000) -> tuple[str, ...]:
    stack = []
    while frame is not None and len(stack) < depth:
        code = frame.f_code
        stack.append(f"{_short(code.co_filename)}:{code.co_name}:{frame.f_lineno}")
        frame = frame.f_back
    return tuple(stack)


def _short(filename: str) -> str:
    for marker in ("sudokustudio/", "site-packages/", "benchmarks/"):
        i = filename.rfind(marker)
        if i >= 0:
            return filename[i:]
    return os.path.basename(filename)


def stalls(ticks: list[float], over_ms: float) -> list[tuple[float, float]]:
    """(start, end) of the gaps between ticks longer than 10 ms + ``over_ms``, longest first."""
    gaps = [(b - a, a, b) for a, b in zip(ticks, ticks[1:]) if (b - a) * 1000 - 10 > over_ms]
    return [(a, b) for _, a, b in sorted(gaps, reverse=True)]


def report(sampler: StackSampler, start: float, end: float, lines: int = 14) -> str:
    """Inclusive counts of the main thread's frames in the stall; the innermost frames of the
    threads that were running Python meanwhile (candidates for holding the GIL); the biggest
    gap between samples (the sampler waits for the GIL: a long gap is C code holding it)."""
    times = [t for t, _ in sampler.samples if start <= t <= end]
    inside = [s for t, s in sampler.samples if start <= t <= end]
    incl: Counter[str] = Counter()
    for stack in inside:
        for fn in set(stack):
            if "ui_stall" not in fn:
                incl[fn] += 1
    leaf: Counter[str] = Counter(s[0] for s in inside if s)
    gap = max((b - a for a, b in zip(times, times[1:])), default=0.0)
    out = [f"  stall {1000 * (end - start) - 10:.0f} ms, {len(inside)} samples, widest gap between samples "
           f"{1000 * gap:.0f} ms"]
    for fn, n in incl.most_common(lines):
        out.append(f"    {n:5d}  {fn}")
    out.append("   main thread innermost:")
    for fn, n in leaf.most_common(5):
        out.append(f"    {n:5d}  {fn}")
    other: Counter[str] = Counter()
    for t, stacks in sampler.others:
        if start <= t <= end:
            for st in stacks:
                if st and not any(w in st[0] for w in ("wait", "sleep", "select", "_loop", "get:", "_worker")):
                    other[" < ".join(st[:3])] += 1
    out.append("   other threads running Python:")
    for fn, n in other.most_common(6):
        out.append(f"    {n:5d}  {fn}")
    return "\n".join(out)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", type=float, default=4.0)
    ap.add_argument("--kinds", default=",".join(ui_stalls.KINDS))
    ap.add_argument("--top", type=int, default=3)
    ap.add_argument("--over", type=float, default=40.0)
    ap.add_argument("--no-sampler", action="store_true", help="no Python stack sampling (e.g. under perf)")
    ap.add_argument("--others", action="store_true", help="also sample the other threads' innermost frames "
                    "(may crash CPython 3.11)")
    ap.add_argument("--dump", help="write the stalls (CLOCK_MONOTONIC start end, seconds) to this file, "
                    "e.g. to match them with `perf record -k CLOCK_MONOTONIC`")
    ap.add_argument("--cprofile", type=int, default=0, metavar="N",
                    help="also profile the UI thread with cProfile (slots called from C++ included) and print "
                         "its N most expensive functions by cumulative time")
    ap.add_argument("--timeline", action="store_true", help="also print the main thread's innermost frame "
                    "at each sample of the longest stall")
    args = ap.parse_args()
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication(sys.argv)
    win = ui_stalls._window()
    meter = ui_stalls.StallMeter(app)
    ui_stalls.settle(win, meter)
    cpu_at: dict[float, float] = {}   # tick -> the main thread's CPU seconds then

    def tick():
        now = time.perf_counter()
        meter.ticks.append(now)
        cpu_at[now] = time.thread_time()

    meter.timer.timeout.disconnect()
    meter.timer.timeout.connect(tick)
    sampler = StackSampler(threading.get_ident(), others_too=args.others)
    if not args.no_sampler:
        sampler.start()
    dump = open(args.dump, "w") if args.dump else None
    all_ticks: list[float] = []
    original_reset = meter.reset

    def keep_ticks():
        if measuring[0]:
            all_ticks.extend(meter.ticks)
        measuring[0] = True
        original_reset()

    measuring = [False]

    meter.reset = keep_ticks
    ap_timeline = args.timeline
    for kind in [k for k in args.kinds.split(",") if k]:
        all_ticks.clear()
        measuring[0] = False
        prof = None
        if args.cprofile:
            import cProfile

            prof = cProfile.Profile()
            prof.enable()
        r = ui_stalls.measure(win, meter, kind, args.seconds)
        if prof is not None:
            import pstats

            prof.disable()
            pstats.Stats(prof).sort_stats("cumulative").print_stats(args.cprofile)
        all_ticks.extend(meter.ticks)
        print(f"{kind}: longest stall {r['running']['max_stall_ms']} ms running, "
              f"{r['stopping']['max_stall_ms']} ms stopping; Stop -> ended {r['stop_seconds']} s", flush=True)
        for k, (a, b) in enumerate(stalls(sorted(all_ticks), args.over)[:args.top]):
            if dump is not None:
                dump.write(f"{kind} {a:.6f} {b:.6f}\n")
                dump.flush()
            print(report(sampler, a, b), flush=True)
            if a in cpu_at and b in cpu_at:
                print(f"   main thread CPU during the stall: {1000 * (cpu_at[b] - cpu_at[a]):.0f} ms")
            if ap_timeline and k == 0:
                for t, st in sampler.samples:
                    if a <= t <= b:
                        print(f"      {1000 * (t - a):6.1f} ms  {' < '.join(st[:3])}")
    if not args.no_sampler:
        sampler.stop()
    os._exit(0)


if __name__ == "__main__":
    main()
