"""Imports in ``service/`` form no circle: every module can be read, and changed, with
what it imports below it and never itself among them.

The graph is read statically (``ast`` over every module, imports inside functions
and under ``TYPE_CHECKING`` too), so a lazy import cannot hide a circle. An import of
``package.name`` counts as an import of the module ``package.name`` when there is one,
else of the package ``package`` (a name its ``__init__`` defines).
"""

from __future__ import annotations

import ast
from pathlib import Path

from tests.test_import_direction import REPO

ImportGraph = dict[str, set[str]]


def import_graph(root: Path, package: str = "service") -> ImportGraph:
    """Every module of ``package`` under ``root`` and the modules of ``package`` it imports."""
    paths = sorted((root / package).rglob("*.py"))
    names = {_name(root, path): path for path in paths}
    graph: ImportGraph = {}
    for name, path in names.items():
        graph[name] = {
            target
            for imported in _imports(path, name)
            if (target := _module_of(imported, names)) is not None and target != name
        }
    return graph


def circles(graph: ImportGraph) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm,
    iterative: the graph is deeper than Python's recursion would like)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    found: list[list[str]] = []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            advanced = False
            for child in children:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                    advanced = True
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            if advanced:
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return sorted(found)


def _name(root: Path, path: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _imports(path: Path, name: str) -> set[str]:
    """Every name ``path`` imports, absolute: ``from a import b`` gives ``a.b`` (a module,
    or else a name of ``a``, which ``_module_of`` reads as ``a``); relative imports resolved."""
    tree = ast.parse(path.read_text(), filename=str(path))
    package = name.split(".")
    if path.name != "__init__.py":
        package.pop()
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                prefix = package[: len(package) - node.level + 1]
                base = ".".join(prefix + ([node.module] if node.module else []))
            found.update(f"{base}.{alias.name}" for alias in node.names)
    return found


def _module_of(imported: str, names: dict[str, Path]) -> str | None:
    """The module of the graph ``imported`` names: itself, or the nearest package above it."""
    parts = imported.split(".")
    while parts:
        candidate = ".".join(parts)
        if candidate in names:
            return candidate
        parts.pop()
    return None


def test_the_service_has_no_import_circle():
    assert circles(import_graph(REPO)) == []


def test_a_circle_is_found(tmp_path):
    package = tmp_path / "service" / "store"
    package.mkdir(parents=True)
    (tmp_path / "service" / "__init__.py").write_text("")
    (package / "__init__.py").write_text("")
    (package / "archive.py").write_text("def open():\n    from service.store import disk\n")
    (package / "disk.py").write_text("from service.store.archive import open\n")
    (package / "alone.py").write_text("import service.store.disk\n")
    assert circles(import_graph(tmp_path)) == [["service.store.archive", "service.store.disk"]]
