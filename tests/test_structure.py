"""The layer rules of DESIGN.md, read from the code: no import circle, Qt only in the window's
layer, the CLI's commands only in the CLI, the domain below jobs/ and ui/, and files and
functions short unless their docstring says why they are long."""
import ast
import re
from pathlib import Path

PKG = Path(__file__).resolve().parent.parent / "sudokustudio"
QT = ("PySide6", "pyqtgraph", "superqt", "shiboken6")
QT_ALLOWED = ("sudokustudio.ui", "sudokustudio.jobs.qt", "sudokustudio.app")
DOMAIN = ("sudokustudio.core", "sudokustudio.sudoku", "sudokustudio.survo")
ABOVE_DOMAIN = ("sudokustudio.jobs", "sudokustudio.ui", "sudokustudio.commands", "sudokustudio.models",
                "sudokustudio.cli", "sudokustudio.app")
MAX_FILE_LINES, MAX_FUNCTION_LINES = 600, 100
SAYS_WHY = re.compile(r"\blong\b", re.IGNORECASE)
# What issue 14 is splitting now (tabs into views, multi-concept modules into subpackages):
# each entry must disappear with its split, and this list must end empty.
KNOWN: set[str] = set()


def _check(problems: dict[str, str]) -> None:
    """``problems``: key -> message.  Fails on problems not in KNOWN and on KNOWN entries that are gone."""
    new = [msg for key, msg in sorted(problems.items()) if key not in KNOWN]
    assert not new, "\n".join(new)


def test_known_problems_are_still_problems():
    """Keeps KNOWN honest: an entry whose file, function or import has been fixed must go."""
    graph, mods = _graph()
    files = {str(p.relative_to(PKG.parent)) for _, p in mods.items()}
    for key in KNOWN:
        if key.startswith("circle "):
            a, b = key[len("circle "):].split(" -> ")[:2]
            assert b in graph.get(a, []), f"KNOWN lists a circle that is gone: {key}"
        elif " imports " in key:
            a, b = key.split(" imports ")
            assert a in graph and b in graph[a], f"KNOWN lists an import that is gone: {key}"
        else:
            f = key.split(":")[0]
            assert f in files, f"KNOWN lists a file that is gone: {key}"


def _modules():
    for path in sorted(PKG.rglob("*.py")):
        rel = path.relative_to(PKG.parent).with_suffix("")
        parts = list(rel.parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        yield ".".join(parts), path


def _imports(path: Path, module: str):
    """Every module named by an import in the file (function-level imports included)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                yield a.name
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                name = ".".join(base + ([node.module] if node.module else []))
            else:
                name = node.module or ""
            yield name
            for a in node.names:  # "from pkg import module"
                yield f"{name}.{a.name}"


def _graph():
    mods = dict(_modules())
    graph = {}
    for mod, path in mods.items():
        graph[mod] = sorted({i for i in _imports(path, mod) if i in mods and i != mod})
    return graph, mods


def _within(mod: str, prefixes) -> bool:
    return any(mod == p or mod.startswith(p + ".") for p in prefixes)


def test_no_import_circle():
    graph, _ = _graph()
    # packages import their own modules through __init__; only module-to-module edges count
    edges = {m: [d for d in deps if not m.startswith(d + ".")] for m, deps in graph.items()}
    state, stack, circles = {}, [], []

    def visit(m):
        state[m] = 1
        stack.append(m)
        for d in edges.get(m, []):
            if state.get(d) == 1:
                circles.append(stack[stack.index(d):] + [d])
            elif d not in state:
                visit(d)
        stack.pop()
        state[m] = 2

    for m in sorted(edges):
        if m not in state:
            visit(m)
    _check({f"circle {' -> '.join(c[:-1])}": "import circle: " + " -> ".join(c) for c in circles})


def test_layers():
    _, mods = _graph()
    problems = {}
    for mod, path in mods.items():
        imported = set(_imports(path, mod))
        qt = sorted(i for i in imported if i.split(".")[0] in QT)
        if qt and not _within(mod, QT_ALLOWED):
            problems[f"{mod} imports {qt[0]}"] = f"{mod} imports {qt[0]} (Qt belongs to ui/, jobs/qt.py, app.py)"
        if not _within(mod, ("sudokustudio.commands", "sudokustudio.cli")):
            for c in sorted(i for i in imported if _within(i, ("sudokustudio.commands",)))[:1]:
                problems[f"{mod} imports {c}"] = f"{mod} imports {c} (commands/ is the CLI's)"
        if _within(mod, DOMAIN):
            for u in sorted(i for i in imported if _within(i, ABOVE_DOMAIN))[:1]:
                problems[f"{mod} imports {u}"] = f"{mod} imports {u} (the domain and core sit below jobs/ and ui/)"
    _check(problems)


def test_long_files_and_functions_say_why():
    problems = {}
    for mod, path in _modules():
        text = path.read_text(encoding="utf-8")
        tree = ast.parse(text)
        doc = ast.get_docstring(tree) or ""
        n = len(text.splitlines())
        rel = str(path.relative_to(PKG.parent))
        if n > MAX_FILE_LINES and not SAYS_WHY.search(doc):
            problems[rel] = f"{rel}: {n} lines, and its docstring does not say why"
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                length = node.end_lineno - node.lineno + 1
                if length > MAX_FUNCTION_LINES and not SAYS_WHY.search(ast.get_docstring(node) or ""):
                    problems[f"{rel}:{node.name}"] = (f"{rel}:{node.lineno} {node.name}: {length} lines, "
                                                      f"and its docstring does not say why")
    _check(problems)
