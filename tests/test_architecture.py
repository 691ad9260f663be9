"""The code's shape, as gates: no import runs up the layers, no function is too long.

- No module of `research/` imports from a higher layer, or from another package of its
  own layer unless the layer table allows it. The table is read from ARCHITECTURE.md,
  never copied here: each row is `| layer | packages | what lives there |`, and a row
  allows an import within its layer by saying "`a` may import `b`". Imports inside
  functions count, and so do imports made only for type checking.
- No function in `research/` is longer than 100 lines.

Ruff's complexity gate (C901 at 15) is part of `ruff check` (tests/test_style.py).
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PACKAGE = REPO / "research"
ARCHITECTURE = REPO / "ARCHITECTURE.md"
MAX_FUNCTION_LINES = 100

# `python -m research`: a shim above every layer, like `research.py` itself.
ENTRY_SHIMS = {"__main__"}


# --- the layer table -------------------------------------------------------------------


@dataclass(frozen=True)
class Layers:
    """The layer table: each package's layer, and the imports allowed within a layer."""

    layer_of: dict[str, int]
    allowed: set[tuple[str, str]]


def read_layers(text: str) -> Layers:
    """Parse the `| layer | packages | ... |` table of ARCHITECTURE.md."""
    rows = [line.strip() for line in text.splitlines() if line.lstrip().startswith("|")]
    header = next((i for i, r in enumerate(rows) if re.match(r"\|\s*layer\s*\|\s*packages", r)))
    layer_of: dict[str, int] = {}
    allowed: set[tuple[str, str]] = set()
    for row in rows[header + 1 :]:
        cells = [cell.strip() for cell in row.strip("|").split("|")]
        if not cells[0].isdigit():
            if set(cells[0]) <= set("-: "):
                continue  # the |---| line under the header
            break  # the next table
        for package in re.findall(r"`(\w+)`", cells[1]):
            layer_of[package] = int(cells[0])
        allowed |= set(re.findall(r"`(\w+)` may import `(\w+)`", row))
    return Layers(layer_of, allowed)


# --- what a module imports -------------------------------------------------------------


def package_of(root: Path, path: Path) -> str:
    """`research/engine/runner.py` -> "engine"; `research/cli.py` -> "cli"."""
    return path.relative_to(root).with_suffix("").parts[0]


def imported_packages(root: Path, path: Path) -> list[tuple[int, str]]:
    """(line, package or top-level module of `research`) for every import, at any depth."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    own = ["research", *path.relative_to(root).with_suffix("").parts]
    if own[-1] == "__init__":
        own.append("")  # a package's relative imports start from the package itself
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(filter(None, [*own[: len(own) - node.level], base]))
            names = [f"{base}.{alias.name}" for alias in node.names]
        else:
            continue
        for name in names:
            parts = name.split(".")
            if parts[0] == "research" and len(parts) > 1 and not parts[1].startswith("__"):
                found.append((node.lineno, parts[1]))
    return found


def layer_violations(root: Path, layers: Layers) -> list[str]:
    """Every import in the package at `root` that the layer table does not allow."""
    problems = []
    for path in sorted(root.rglob("*.py")):
        own = package_of(root, path)
        if own in ENTRY_SHIMS or own == "__init__":
            continue
        where = path.relative_to(root.parent)
        mine = layers.layer_of.get(own)
        if mine is None:
            problems.append(f"{where}: {own!r} is in no layer of the table")
            continue
        for line, other in imported_packages(root, path):
            theirs = layers.layer_of.get(other)
            if other == own or (theirs is not None and theirs < mine):
                continue
            if theirs is None:
                problems.append(f"{where}:{line}: imports {other!r}, which is in no layer")
            elif theirs > mine:
                problems.append(f"{where}:{line}: {own} imports {other}, a higher layer")
            elif (own, other) not in layers.allowed:
                problems.append(f"{where}:{line}: {own} imports {other}, of its own layer")
    return problems


def test_no_module_imports_from_a_higher_layer_or_across_its_own():
    layers = read_layers(ARCHITECTURE.read_text(encoding="utf-8"))
    assert layer_violations(PACKAGE, layers) == []


def test_every_package_of_research_is_in_the_table():
    layers = read_layers(ARCHITECTURE.read_text(encoding="utf-8"))
    packages = {package_of(PACKAGE, p) for p in PACKAGE.rglob("*.py")}
    assert packages - set(layers.layer_of) - ENTRY_SHIMS - {"__init__"} == set()
    assert {"core", "workspace", "engine", "cli"} <= set(layers.layer_of)


TABLE = """\
Intro.

| layer | packages | what lives there |
|---|---|---|
| 1 | `core` | pure things |
| 2 | `model` | what is persisted, not `core` |
| 3 | `agents`, `sources` | siblings |
| 4 | `service`, `cluster` | `service` may import `cluster` (to enqueue) |
| 5 | `cli` | the command line |

| other | table |
|---|---|
| 9 | `ignored` |
"""


def test_the_table_gives_layers_and_the_imports_allowed_within_one():
    layers = read_layers(TABLE)
    assert layers.layer_of == {
        "core": 1, "model": 2, "agents": 3, "sources": 3, "service": 4, "cluster": 4, "cli": 5,
    }  # fmt: skip
    assert layers.allowed == {("service", "cluster")}


def write(root: Path, relative: str, text: str) -> None:
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def test_the_check_finds_upward_lazy_relative_and_sideways_imports(tmp_path: Path):
    root = tmp_path / "research"
    write(root, "__init__.py", '__version__ = "1"\n')
    write(root, "core/__init__.py", "")
    write(root, "core/fine.py", "from research import __version__\nfrom . import other\n")
    write(root, "core/up.py", "import research.model.plan\n")
    write(root, "core/lazy.py", "def f():\n    from research.cli import main\n")
    write(root, "model/rel.py", "from ..cli import main\nfrom ..core import fine\n")
    write(root, "agents/side.py", "from research.sources import fetch\n")
    write(root, "service/queue.py", "from research import cluster\nfrom research.core import x\n")
    write(root, "cluster/back.py", "import research.service.app as app\n")
    write(root, "stray/thing.py", "")
    write(root, "cli.py", "from research.stray import thing\nfrom research.service import app\n")
    assert layer_violations(root, read_layers(TABLE)) == [
        "research/agents/side.py:1: agents imports sources, of its own layer",
        "research/cli.py:1: imports 'stray', which is in no layer",
        "research/cluster/back.py:1: cluster imports service, of its own layer",
        "research/core/lazy.py:2: core imports cli, a higher layer",
        "research/core/up.py:1: core imports model, a higher layer",
        "research/model/rel.py:1: model imports cli, a higher layer",
        "research/stray/thing.py: 'stray' is in no layer of the table",
    ]


# --- function length -------------------------------------------------------------------


def long_functions(root: Path, limit: int = MAX_FUNCTION_LINES) -> list[str]:
    """`path:line name (N lines)` for each function or method longer than `limit` lines."""
    found = []
    for path in sorted(root.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
                length = (node.end_lineno or node.lineno) - first + 1
                if length > limit:
                    where = path.relative_to(root.parent)
                    found.append(f"{where}:{node.lineno} {node.name} ({length} lines)")
    return found


def test_no_function_is_longer_than_100_lines():
    assert long_functions(PACKAGE) == []


def test_long_functions_are_found_at_any_depth(tmp_path: Path):
    write(tmp_path / "pkg", "a.py", "def short():\n    a = 1\n    return a\n")
    method = "class C:\n    @staticmethod\n    def m():\n        def inner():\n            pass\n"
    write(tmp_path / "pkg", "b.py", method + "        return inner\n")
    assert long_functions(tmp_path / "pkg", limit=3) == ["pkg/b.py:3 m (5 lines)"]
    assert long_functions(tmp_path / "pkg", limit=1) == [
        "pkg/a.py:1 short (3 lines)",
        "pkg/b.py:3 m (5 lines)",
        "pkg/b.py:4 inner (2 lines)",
    ]
