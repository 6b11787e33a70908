"""Imports run one way: workers -> service, service/api -> commands -> engine.

Read statically (``ast`` over every module, imports inside functions too),
so a lazy import cannot hide a wrong direction; and, for what a process
actually loads, in a fresh interpreter.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
#: Libraries a process that only plays the rules, or only runs jobs, has no use for.
WEB = {"flask", "flask_smorest", "flask_cors", "werkzeug", "marshmallow", "prometheus_client"}
STORE = {"redis", "rq"}


def modules(package: str) -> list[Path]:
    return sorted((REPO / package).rglob("*.py"))


def module_name(path: Path) -> str:
    parts = list(path.relative_to(REPO).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imported(path: Path) -> set[str]:
    """Every module ``path`` imports, absolute (relative imports resolved)."""
    tree = ast.parse(path.read_text(), filename=str(path))
    package = module_name(path).split(".")
    if path.name != "__init__.py":
        package.pop()
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + 1]
                names.add(".".join(base + ([node.module] if node.module else [])))
            else:
                names.add(node.module or "")
    return names


def offenders(package: str, refused) -> list[str]:
    return sorted(
        f"{module_name(path)} imports {name}"
        for path in modules(package)
        for name in imported(path)
        if refused(name)
    )


def test_service_never_imports_workers():
    assert offenders("service", lambda name: name.split(".")[0] == "workers") == []


def test_schemas_import_no_bot():
    assert offenders("schemas", lambda name: name.startswith("service.bots")) == []


def test_the_engine_imports_only_the_standard_library_and_itself():
    def foreign(name: str) -> bool:
        top = name.split(".")[0]
        return not name.startswith("service.engine") and top not in sys.stdlib_module_names

    assert offenders("service/engine", foreign) == []


def loaded_by(statement: str) -> set[str]:
    """The top-level packages a fresh interpreter has loaded after ``statement``."""
    code = f"{statement}; import sys; print(sorted({{m.split('.')[0] for m in sys.modules}}))"
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, check=True
    )
    return set(ast.literal_eval(result.stdout.strip().splitlines()[-1]))


def test_importing_the_engine_loads_no_web_store_or_queue_library():
    assert loaded_by("import service.engine, service.engine.replays") & (WEB | STORE) == set()


@pytest.mark.parametrize("module", ["workers.runtime", "workers.jobs", "workers.worker"])
def test_a_worker_loads_neither_flask_nor_prometheus(module):
    assert loaded_by(f"import {module}") & WEB == set()


def test_the_level_names_are_the_bots_levels():
    from service.bot_levels import LEVELS
    from service.bots import LEVELS as BOTS

    assert LEVELS == BOTS
