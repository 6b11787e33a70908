"""Test modules share code through tests/support only.

A test module that imports from a conftest or from another test module ties
the two together: moving, renaming or deleting one breaks the other, and
importing a test module a second time under another name runs its module code
twice. Shared names live in tests/support (tests/support/__init__.py); the
header of a seat's token is built there once (``auth``), not in each module.
"""

from __future__ import annotations

import ast
from pathlib import Path

from tests.support.paths import REPO

TESTS = REPO / "tests"
SUPPORT = TESTS / "support"
#: Functions defined once, in tests/support/http.py, and nowhere else.
SHARED_FUNCTIONS = frozenset({"auth", "bearer"})


def imported_modules(tree: ast.Module, package: str) -> list[str]:
    """Every module an ``import`` or ``from ... import`` of ``tree`` names, dotted and
    absolute (relative ones resolved from ``package``), with each name a ``from`` import
    takes, since ``from tests.api import test_errors`` imports a module too."""
    found: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package.split(".")
            if node.level:
                base = base[: len(base) - node.level + 1]
                module = ".".join([*base, *([node.module] if node.module else [])])
            else:
                module = node.module or ""
            found.append(module)
            found.extend(f"{module}.{alias.name}" for alias in node.names)
    return found


def offences(path: Path, source: str) -> list[str]:
    """What ``source``, the text of ``path`` under tests/, does against the rules above."""
    relative = path.relative_to(REPO)
    package = ".".join(relative.with_suffix("").parts[:-1])
    tree = ast.parse(source, filename=str(relative))
    found = []
    for module in imported_modules(tree, package):
        if not module.startswith("tests."):
            continue
        last = module.rsplit(".", 1)[-1]
        if last == "conftest":
            found.append(f"{relative} imports from a conftest: {module}")
        elif last.startswith("test_"):
            found.append(f"{relative} imports from a test module: {module}")
    if not path.is_relative_to(SUPPORT):
        for node in ast.walk(tree):
            is_function = isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
            if is_function and node.name in SHARED_FUNCTIONS:
                found.append(f"{relative}:{node.lineno} defines {node.name}(): use tests.support")
    return found


def test_no_test_module_imports_from_a_conftest_or_another_test_module():
    found = [
        offence
        for path in sorted(TESTS.rglob("*.py"))
        if "node_modules" not in path.parts
        for offence in offences(path, path.read_text())
    ]
    assert found == [], "\n".join(found)


def test_the_check_finds_each_kind_of_shared_name_taken_from_the_wrong_place():
    here = TESTS / "api" / "test_example.py"
    wrong = {
        "from tests.conftest import REPO": "imports from a conftest",
        "from tests.api.conftest import sse": "imports from a conftest",
        "from . import conftest": "imports from a conftest",
        "from tests.api.test_errors import log_unchanged": "imports from a test module",
        "from tests.api import test_errors": "imports from a test module",
        "import tests.test_readme": "imports from a test module",
        "def auth(token):\n    return {}": "defines auth()",
        "class Client:\n    def bearer(self, token):\n        return {}": "defines bearer()",
    }
    for source, offence in wrong.items():
        found = offences(here, source)
        assert len(found) == 1 and offence in found[0], (source, found)
    right = "from tests.support.http import auth\nfrom tests.engine.builders import play"
    assert offences(here, right) == []
    assert offences(SUPPORT / "http.py", "def auth(token):\n    return {}") == []
