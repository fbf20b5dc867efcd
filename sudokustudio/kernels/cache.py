"""Where numba caches our kernels, which groups are known to be cached, and repairs.

A group is cached when a compile process ran its warm functions and wrote a
*stamp* for it.  A stamp holds the fingerprint of everything numba's cache
depends on but does not check by itself:

- the sources of the kernel packages (core/, sudoku/, survo/) as one hash
  (a stamp also names its group's warm functions, so a changed registry
  re-runs that group only):
  numba's cache checks only the file that defines a kernel, not the files of
  the kernels it calls, so any change to any kernel source invalidates every
  group (and ``prepare`` deletes the package's cache files);
- the numba, numpy and Python versions;
- the CPU (numba's codegen "magic tuple": triple, CPU name and features).

Stamps live beside the cache numba itself chose (``NUMBA_CACHE_DIR``, else
``__pycache__`` beside the sources, else the user-wide cache for a read-only
install), so they go wherever the cache goes.
"""
from __future__ import annotations

import hashlib
import json
import os
import pickle
import sys
import tempfile
import time
from functools import lru_cache
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent.parent
KERNEL_PACKAGES = ("core", "sudoku", "survo")
STAMP_FOLDER = "sudokustudio-kernels"
FINGERPRINT_FILE = "cache-fingerprint"


def kernel_sources(root: Path = PACKAGE_DIR) -> list[Path]:
    """The sources whose change can change a compiled kernel (warm functions included)."""
    out = []
    for pkg in KERNEL_PACKAGES:
        out.extend(sorted((root / pkg).rglob("*.py")))
    return [p for p in out if p.is_file()]


def cpu_tuple() -> tuple:
    """numba's key for the machine code target: (triple, CPU name, features)."""
    from numba.core.registry import cpu_target

    return tuple(cpu_target.target_context.codegen().magic_tuple())


@lru_cache(maxsize=1)
def fingerprint() -> str:
    """A hash of the kernel sources, the numba/numpy/Python versions and the CPU."""
    import numba
    import numpy

    h = hashlib.sha256()
    for p in kernel_sources():
        h.update(str(p.relative_to(PACKAGE_DIR)).encode())
        h.update(hashlib.sha256(p.read_bytes()).digest())
    h.update(repr((numba.__version__, numpy.__version__, sys.version, cpu_tuple())).encode())
    return h.hexdigest()[:32]


def _numba_cache_dir(py_file: Path) -> Path | None:
    """The directory numba would cache a function of ``py_file`` in (None: nowhere writable)."""
    from numba.core import caching

    def probe():  # a function object for the locators (they read its first line number)
        pass

    impl = getattr(caching, "CacheImpl", None) or getattr(caching, "_CacheImpl", None)  # renamed in 0.6x
    for cls in getattr(impl, "_locator_classes", ()):
        try:
            loc = cls.from_function(probe, str(py_file))
        except Exception:
            continue
        if loc is not None:
            return Path(loc.get_cache_path())
    from numba.core import config

    default = Path(config.CACHE_DIR) / f"{py_file.parent.name}_fallback" if config.CACHE_DIR else \
        py_file.parent / "__pycache__"
    try:
        default.mkdir(parents=True, exist_ok=True)
        tempfile.TemporaryFile(dir=default).close()
        return default
    except OSError:
        return None


def stamp_dir() -> Path | None:
    """Where the stamps live (None: no writable cache location at all)."""
    d = _numba_cache_dir(PACKAGE_DIR / "kernels" / "groups.py")
    if d is None:
        return None
    d = d / STAMP_FOLDER
    try:
        d.mkdir(parents=True, exist_ok=True)
    except OSError:
        return None
    return d


def cache_dirs() -> list[tuple[Path, set[str]]]:
    """(numba cache directory, module names) for every directory of kernel sources."""
    by_dir: dict[Path, set[str]] = {}
    for p in kernel_sources():
        by_dir.setdefault(p.parent, set()).add(p.stem)
    out = []
    for src, mods in sorted(by_dir.items()):
        d = _numba_cache_dir(src / "__init__.py")
        if d is not None:
            out.append((d, mods))
    return out


def cache_files() -> list[Path]:
    """numba's index (.nbi) and data (.nbc) files of our kernels."""
    out = []
    for d, mods in cache_dirs():
        if not d.is_dir():
            continue
        for f in d.iterdir():
            if f.suffix in (".nbi", ".nbc") and f.name.split(".", 1)[0] in mods:
                out.append(f)
    return sorted(out)


def clear_cache() -> int:
    """Delete our kernels' numba cache files and every stamp; returns the files deleted."""
    n = 0
    for f in cache_files():
        try:
            f.unlink()
            n += 1
        except OSError:
            pass
    d = stamp_dir()
    if d is not None:
        for f in d.glob("*.json"):
            try:
                f.unlink()
            except OSError:
                pass
    return n


def prepare() -> bool:
    """Make the cache consistent with today's fingerprint: when the kernel sources,
    numba or the CPU changed since the cache was filled, delete our cache files and
    stamps (numba would reuse a kernel whose callee changed).  True if it cleared."""
    d = stamp_dir()
    if d is None:
        return False
    fp = fingerprint()
    marker = d / FINGERPRINT_FILE
    try:
        old = marker.read_text().strip()
    except OSError:
        old = None
    if old == fp:
        return False
    cleared = old is not None or bool(cache_files())
    if cleared:
        clear_cache()
    _atomic_write(marker, fp)
    return cleared


def prepare_before_running() -> None:
    """:func:`prepare` for a process about to run kernels itself (the CLI, a benchmark), so that
    after an edit to a kernel source it compiles today's code instead of loading a cached kernel
    that calls the old one; a cache it cannot write is left as it is (the run still works)."""
    try:
        prepare()
    except OSError:
        pass


def repair_cache() -> list[str]:
    """Delete cache files that cannot be read (a corrupt index or data file, e.g. after
    a crash or a full disk), with their siblings; returns the names deleted."""
    bad = []
    for f in cache_files():
        try:
            with open(f, "rb") as fh:
                if f.suffix == ".nbi":
                    pickle.load(fh)                 # numba's version
                    pickle.loads(fh.read())         # (stamp, overloads)
                else:
                    pickle.loads(fh.read())
        except FileNotFoundError:
            continue
        except Exception:
            bad.append(f)
    removed = []
    for f in bad:
        stem = f.name.split(".py", 1)[0]   # "module.function-LINE" of this index and its data files
        for sib in f.parent.glob(stem + ".*"):
            if sib.suffix in (".nbi", ".nbc"):
                try:
                    sib.unlink()
                    removed.append(sib.name)
                except OSError:
                    pass
    return removed


def stamp_path(group: str) -> Path | None:
    d = stamp_dir()
    return None if d is None else d / f"{group}.json"


def read_stamp(group: str) -> dict | None:
    p = stamp_path(group)
    if p is None:
        return None
    try:
        return json.loads(p.read_text())
    except (OSError, ValueError):
        return None


def _group_key(group: str) -> list[str]:
    from sudokustudio.kernels.groups import GROUPS

    return list(GROUPS[group].warm) if group in GROUPS else []


def is_cached(group: str) -> bool:
    """Did a compile process fill the cache for ``group`` with today's fingerprint and
    today's warm functions of the group?"""
    s = read_stamp(group)
    return bool(s) and s.get("fingerprint") == fingerprint() and s.get("warm") == _group_key(group)


def write_stamp(group: str, info: dict) -> bool:
    p = stamp_path(group)
    if p is None:
        return False
    data = dict(info, group=group, fingerprint=fingerprint(), warm=_group_key(group), written=time.time())
    try:
        _atomic_write(p, json.dumps(data))
    except OSError:
        return False
    return True


def _atomic_write(path: Path, text: str) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
    try:
        with os.fdopen(fd, "w") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
