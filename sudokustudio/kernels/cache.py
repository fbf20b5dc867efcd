"""Where numba caches our kernels, which groups are known to be cached, and repairs.

A group is cached when a compile process ran its warm functions and wrote a
*stamp* for it.  A stamp holds the group's fingerprint: what numba's cache
depends on but does not check by itself:

- the sources its kernels can reach: the files of the kernel packages (core/,
  sudoku/, survo/) that its warm functions' modules import, directly or through
  other modules (read from their import statements; a stamp also names its
  group's warm functions, so a changed registry re-runs that group only).
  A group added from outside the package (a plug-in's, a test's) counts the
  files of its warm modules instead;
  numba's cache checks only the file that defines a kernel, not the files of
  the kernels it calls, so ``prepare`` deletes the cached kernels of a changed
  file and of every file that imports it, and the groups that import it
  compile again; an edit to the Survo code leaves the Sudoku groups cached.
  (This holds because a kernel reaches another only through an import: none
  takes a kernel as an argument);
- the numba, numpy and Python versions;
- the CPU (numba's codegen "magic tuple": triple, CPU name and features).

Stamps live beside the cache numba itself chose (``NUMBA_CACHE_DIR``, else
``__pycache__`` beside the sources, else the user-wide cache for a read-only
install), so they go wherever the cache goes.
"""
from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import pickle
import re
import sys
import tempfile
import time
from functools import lru_cache
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent.parent
KERNEL_PACKAGES = ("core", "sudoku", "survo")
STAMP_FOLDER = "sudokustudio-kernels"
FINGERPRINT_FILE = "cache-fingerprint"


def kernel_sources(root: Path | None = None) -> list[Path]:
    """The sources whose change can change a compiled kernel (warm functions included)."""
    root = root or PACKAGE_DIR
    out = []
    for pkg in KERNEL_PACKAGES:
        out.extend(sorted((root / pkg).rglob("*.py")))
    return [p for p in out if p.is_file()]


def cpu_tuple() -> tuple:
    """numba's key for the machine code target: (triple, CPU name, features)."""
    from numba.core.registry import cpu_target

    return tuple(cpu_target.target_context.codegen().magic_tuple())


@lru_cache(maxsize=1)
def _platform_key() -> str:
    """The numba, numpy and Python versions and the CPU: a change renews the whole cache."""
    import numba
    import numpy

    return hashlib.sha256(repr((numba.__version__, numpy.__version__, sys.version, cpu_tuple())).encode()
                          ).hexdigest()[:32]


def _module_file(name: str, root: Path) -> Path | None:
    """The file of our module ``name`` ("sudokustudio.sudoku.solver"), None if not ours."""
    parts = name.split(".")
    if parts[0] != "sudokustudio" or len(parts) < 2:
        return None
    base = root.joinpath(*parts[1:])
    for p in (base.with_suffix(".py"), base / "__init__.py"):
        if p.is_file():
            return p
    return None


# an import statement at the start of a line, anywhere (lazy imports in functions too); a line of
# a docstring that reads like one only adds an edge, which is safe.  (ast took ~0.3 s for the
# kernel sources, and every CLI command reads them at start; this takes a few ms.)
_IMPORT = re.compile(r"^[ \t]*(?:from[ \t]+(\.*[\w.]*)[ \t]+import[ \t]+(\([^)]*\)|[^\n]*)|import[ \t]+([^\n]*))",
                     re.MULTILINE)


def _imported_files(path: Path, root: Path) -> set[Path]:
    """The files of our modules that ``path`` imports by name.  A package's ``__init__`` counts
    only when named: Python runs it on the way to a submodule, but a kernel calls what it names,
    and the groups stay apart (the generators' package imports the estimators)."""
    try:
        text = re.sub(r"#[^\n]*", "", path.read_text(encoding="utf-8", errors="replace"))
    except OSError:
        return set()
    package = ["sudokustudio", *path.relative_to(root).parts[:-1]]
    out = set()
    for m in _IMPORT.finditer(text):
        if m.group(3) is not None:                       # import a.b.c [as x], d
            found = [_module_file(n.split()[0], root) for n in m.group(3).split(",") if n.strip()]
        else:                                            # from [.]P import name [as x], ...
            spec = m.group(1)
            level = len(spec) - len(spec.lstrip("."))
            module = spec[level:]
            if level:
                module = ".".join(package[:len(package) - level + 1] + ([module] if module else []))
            names = [n.split()[0] for n in m.group(2).strip("()").split(",") if n.strip()]
            # the module P.name if there is one, else an attribute of P
            found = [_module_file(f"{module}.{n}", root) or _module_file(module, root) for n in names]
        out.update(f for f in found if f is not None)
    return out


@lru_cache(maxsize=1)
def _source_graph() -> tuple[dict[Path, str], dict[Path, frozenset[Path]]]:
    """(hash of each kernel source, the kernel sources each imports), read once a process.
    Kernels live in the kernel packages only, so imports of other modules are not followed."""
    root = PACKAGE_DIR
    sources = kernel_sources(root)
    hashes = {p: hashlib.sha256(p.read_bytes()).hexdigest() for p in sources}
    imports = {p: frozenset(f for f in _imported_files(p, root) if f in hashes) for p in sources}
    return hashes, imports


def _reachable(start, imports) -> set[Path]:
    seen, todo = set(), list(start)
    while todo:
        f = todo.pop()
        if f not in seen:
            seen.add(f)
            todo.extend(imports.get(f, ()))
    return seen


def group_sources(group: str) -> list[Path]:
    """The kernel sources ``group``'s warm functions can reach through imports."""
    hashes, imports = _source_graph()
    start = {_module_file(w.split(":", 1)[0], PACKAGE_DIR) for w in _group_key(group)} - {None}
    return sorted(f for f in _reachable(start, imports) if f in hashes)


def _outside_files(group: str) -> list[Path]:
    """The files of ``group``'s warm modules that are not ours (a group added through the
    environment): their kernels are theirs, so an edit to one must renew the stamp too.  Found
    without importing the module (a dotted name imports its parent package)."""
    out = []
    for name in sorted({w.split(":", 1)[0] for w in _group_key(group)}):
        if name.split(".")[0] == "sudokustudio":
            continue
        try:
            spec = importlib.util.find_spec(name)
        except (ImportError, ValueError):
            continue
        if spec is not None and spec.origin and os.path.isfile(spec.origin):
            out.append(Path(spec.origin))
    return out


def fingerprint(group: str) -> str:
    """A hash of ``group``'s sources (:func:`group_sources`, and :func:`_outside_files`), the
    numba/numpy/Python versions and the CPU."""
    hashes, _ = _source_graph()
    h = hashlib.sha256(_platform_key().encode())
    for p in group_sources(group):
        h.update(str(p.relative_to(PACKAGE_DIR)).encode())
        h.update(hashes[p].encode())
    for p in _outside_files(group):
        h.update(str(p).encode())
        try:
            h.update(hashlib.sha256(p.read_bytes()).digest())
        except OSError:
            pass
    return h.hexdigest()[:32]


def _sources_state() -> dict:
    """What the cache was filled from: the platform and every kernel source's hash."""
    hashes, _ = _source_graph()
    return {"platform": _platform_key(), "files": {str(p.relative_to(PACKAGE_DIR)): h for p, h in hashes.items()}}


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


def _cache_dirs_by_source() -> list[tuple[Path, Path, set[str]]]:
    """(source directory, numba cache directory, module names) for every directory of kernel sources."""
    by_dir: dict[Path, set[str]] = {}
    for p in kernel_sources():
        by_dir.setdefault(p.parent, set()).add(p.stem)
    out = []
    for src, mods in sorted(by_dir.items()):
        d = _numba_cache_dir(src / "__init__.py")
        if d is not None:
            out.append((src, d, mods))
    return out


def cache_files(sources=None) -> list[Path]:
    """numba's index (.nbi) and data (.nbc) files of our kernels (of the files ``sources`` only)."""
    wanted = None if sources is None else {(Path(p).parent, Path(p).stem) for p in sources}
    out = []
    for src, d, mods in _cache_dirs_by_source():
        if not d.is_dir():
            continue
        for f in d.iterdir():
            mod = f.name.split(".", 1)[0]
            if f.suffix in (".nbi", ".nbc") and mod in mods and (wanted is None or (src, mod) in wanted):
                out.append(f)
    return sorted(out)


def clear_cache() -> int:
    """Delete our kernels' numba cache files and every stamp; returns the files deleted."""
    n = _delete(cache_files())
    d = stamp_dir()
    if d is not None:
        for f in d.glob("*.json"):
            try:
                f.unlink()
            except OSError:
                pass
    return n


def _delete(files) -> int:
    n = 0
    for f in files:
        try:
            f.unlink()
            n += 1
        except OSError:
            pass
    return n


def prepare() -> bool:
    """Make the cache consistent with today's sources: delete the cached kernels of every kernel
    source changed since the cache was filled and of every file that imports one (numba would
    reuse a kernel whose callee changed); after a numba, Python or CPU change (or a cache filled
    before sources were recorded one by one) delete them all, and every stamp.  True if it
    deleted anything.  The stamps of the groups that reach a changed file no longer match."""
    d = stamp_dir()
    if d is None:
        return False
    now = _sources_state()
    marker = d / FINGERPRINT_FILE
    try:
        old = json.loads(marker.read_text())
    except (OSError, ValueError):
        old = None
    if old == now:
        return False
    if not isinstance(old, dict) or old.get("platform") != now["platform"] or not isinstance(old.get("files"), dict):
        cleared = old is not None or bool(cache_files())
        if cleared:
            clear_cache()
    else:
        changed = {PACKAGE_DIR / f for f in old["files"].keys() | now["files"].keys()
                   if old["files"].get(f) != now["files"].get(f)}
        _, imports = _source_graph()
        importers: dict[Path, set[Path]] = {}
        for f, deps in imports.items():
            for dep in deps:
                importers.setdefault(dep, set()).add(f)
        stale = _reachable(changed, importers)    # the changed files and all that import one, directly or not
        cleared = _delete(cache_files(stale)) > 0 or bool(changed)
    _atomic_write(marker, json.dumps(now, sort_keys=True))
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
    return bool(s) and s.get("fingerprint") == fingerprint(group) and s.get("warm") == _group_key(group)


def write_stamp(group: str, info: dict) -> bool:
    p = stamp_path(group)
    if p is None:
        return False
    data = dict(info, group=group, fingerprint=fingerprint(group), warm=_group_key(group), written=time.time())
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
