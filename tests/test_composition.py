"""One composition root, and settings read by name only in the settings module.

The web app and the workers get their stores, queues and listeners from one
function, ``service.ops.composition.build(settings, clients)``, so a new store
is wired in one place; and every other module reads a setting as a typed
attribute of the frozen ``Settings`` (a misspelt name fails at once, not on the
first request that reads it).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from tests.support.paths import REPO

#: A setting looked up by its name as a string: ``config["X"]``, ``settings()["X"]``,
#: ``settings["X"]``.
STRING_LOOKUP = re.compile(r"""(config|settings|settings\(\))\[\s*["']""")
SETTINGS_MODULE = REPO / "service" / "ops" / "settings.py"


def python_files(*folders: str) -> list[Path]:
    return sorted(path for folder in folders for path in (REPO / folder).rglob("*.py"))


def calls_of(path: Path) -> set[str]:
    """The names every call of ``path`` calls (``build``, ``composition.build``)."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Call):
            if isinstance(node.func, ast.Name):
                names.add(node.func.id)
            elif isinstance(node.func, ast.Attribute):
                names.add(node.func.attr)
    return names


def imports_from(path: Path) -> dict[str, set[str]]:
    """Module -> the names ``path`` imports from it."""
    found: dict[str, set[str]] = {}
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module:
            found.setdefault(node.module, set()).update(alias.name for alias in node.names)
    return found


def test_no_module_outside_the_settings_module_looks_up_a_setting_by_a_string():
    lookups = [
        f"{path.relative_to(REPO)}:{number}: {line.strip()}"
        for path in python_files("service", "workers")
        if path != SETTINGS_MODULE
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if STRING_LOOKUP.search(line)
    ]
    assert lookups == []


def test_the_web_app_and_the_workers_are_wired_by_the_one_build_function():
    for process in ("service/web/app.py", "workers/runtime.py"):
        path = REPO / process
        assert "build" in imports_from(path).get("service.ops.composition", set()), process
        assert "build" in calls_of(path), f"{process} does not call the one build function"
        assert "build_services" not in calls_of(path), f"{process} wires the services itself"


def test_the_app_factory_builds_no_store_of_its_own():
    """Every store comes from ``build``: the app factory imports none but the Redis
    clients it opens with a request's budget."""
    from_store = {
        module
        for module in imports_from(REPO / "service" / "web" / "app.py")
        if module.startswith("service.store.")
    }
    assert from_store <= {"service.store.redis_clients"}


def test_there_is_one_container_of_the_services():
    """The workers run on the built ``Services`` themselves, and the web app's container
    is the same one with what only a web process holds added."""
    from service.ops.composition import Services
    from service.web.services import WebServices

    assert issubclass(WebServices, Services)
    runtime = (REPO / "workers" / "runtime.py").read_text()
    assert "class Runtime" not in runtime
