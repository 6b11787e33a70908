"""Imports run one way, as the table ``ALLOWED`` says: the engine at the bottom, the
processes (web, workers, serve) at the top, the terminal client on its own.

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

#: Which packages each package may import (besides itself and the standard library's
#: and third parties'). Read upwards: engine <- bots <- game <- {store, live, analysis,
#: jobs} <- ops <- {web, workers, serve}. ``competition`` (tournament pairing and
#: standings, pure functions) stands beside game: it may use the rules' words, and
#: everything from ops up may use it. The terminal client (``client``) is an HTTP
#: client: it imports no server code but the engine, whose vocabulary (the words a game
#: is told in) it shares with the text export; the game never imports the client.
#: ``devtools`` (embedded Redis) serves the run command and the tests.
ALLOWED: dict[str, set[str]] = {
    "engine": set(),
    "bots": {"engine"},
    "client": {"engine"},
    "game": {"engine", "bots"},
    "store": {"engine", "game"},
    "live": {"engine", "game"},
    "analysis": {"engine", "bots", "game"},
    "jobs": {"engine", "bots", "game"},
    "competition": {"engine", "game"},
    "ops": {"engine", "bots", "game", "store", "live", "analysis", "jobs", "competition"},
    "devtools": {"ops"},
    "schemas": {"engine", "game", "ops"},
    "web": {
        "engine",
        "bots",
        "game",
        "store",
        "live",
        "analysis",
        "jobs",
        "ops",
        "schemas",
        "competition",
    },
    "workers": {"engine", "bots", "game", "store", "analysis", "jobs", "ops", "competition"},
    "serve": {"ops", "jobs", "store", "web", "devtools", "client"},
}


def layer(module: str) -> str | None:
    """The package of the table a module belongs to (``service.game.commands`` -> game)."""
    parts = module.split(".")
    if parts[0] == "service" and len(parts) > 1 and parts[1] in ALLOWED:
        return parts[1]
    return parts[0] if parts[0] in ("workers", "schemas") else None


def wrong_imports(paths: list[Path]) -> list[str]:
    """Every import of ``paths`` that the table does not allow."""
    found = []
    for path in paths:
        source = module_name(path)
        here = layer(source)
        for name in imported(path):
            there = layer(name)
            if here and there and there != here and there not in ALLOWED[here]:
                found.append(f"{source} imports {name} ({here} may not import {there})")
    return sorted(found)


def test_the_service_holds_packages_only():
    assert sorted(p.name for p in (REPO / "service").glob("*.py")) == ["__init__.py"]
    packages = {p.name for p in (REPO / "service").iterdir() if (p / "__init__.py").exists()}
    assert packages == set(ALLOWED) - {"workers", "schemas"}


def test_every_import_follows_the_table():
    paths = modules("service") + modules("workers") + modules("schemas")
    assert wrong_imports(paths) == []


def test_a_wrong_import_fails_the_table(tmp_path):
    wrong = tmp_path / "service" / "engine" / "wrong.py"
    wrong.parent.mkdir(parents=True)
    wrong.write_text("from service.store.events import EventStore\n")
    global REPO
    here, REPO = REPO, tmp_path
    try:
        assert wrong_imports([wrong]) == [
            "service.engine.wrong imports service.store.events (engine may not import store)"
        ]
    finally:
        REPO = here


def test_the_game_importing_the_terminal_client_fails_the_table(tmp_path):
    wrong = tmp_path / "service" / "game" / "told.py"
    wrong.parent.mkdir(parents=True)
    wrong.write_text("from service.client.words import action_phrase\n")
    global REPO
    here, REPO = REPO, tmp_path
    try:
        assert wrong_imports([wrong]) == [
            "service.game.told imports service.client.words (game may not import client)"
        ]
    finally:
        REPO = here


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
    from service.bots import LEVELS as BOTS
    from service.game.bot_levels import LEVELS

    assert LEVELS == BOTS
