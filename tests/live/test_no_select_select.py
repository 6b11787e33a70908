"""No module of the service looks at a socket with ``select.select``.

``select()`` takes only descriptors below 1024 (``ValueError: filedescriptor
out of range``, under gevent's patch as well), and a server process holding
thousands of waiting clients has sockets far above that. ``select.poll`` (or
a non-blocking peek) has no such limit. Read from the source, so a new call
anywhere under service/ fails here before a server meets its 1024th client.
"""

from __future__ import annotations

import ast

from tests.support.paths import REPO


def select_calls(source: str) -> list[int]:
    """The lines of ``source`` that name ``select.select`` or import ``select`` from
    ``select`` (or gevent's ``select``)."""
    return [
        node.lineno
        for node in ast.walk(ast.parse(source))
        if _names_select_select(node) or _imports_select_select(node)
    ]


def _names_select_select(node: ast.AST) -> bool:
    return (
        isinstance(node, ast.Attribute)
        and node.attr == "select"
        and isinstance(node.value, ast.Name)
        and node.value.id == "select"
    )


def _imports_select_select(node: ast.AST) -> bool:
    return (
        isinstance(node, ast.ImportFrom)
        and node.module in ("select", "gevent.select")
        and any(alias.name == "select" for alias in node.names)
    )


def test_the_check_finds_a_select_call_and_its_import():
    assert select_calls("import select\nselect.select([s], [], [], 0)\n") == [2]
    assert select_calls("from select import select\n") == [1]
    assert select_calls("from gevent.select import select as wait\n") == [1]
    assert select_calls("import select\nselect.poll()\nselectors.select()\n") == []


def test_no_module_under_service_calls_select_select():
    offenders = {
        str(path.relative_to(REPO)): lines
        for path in sorted((REPO / "service").rglob("*.py"))
        if (lines := select_calls(path.read_text()))
    }
    assert offenders == {}, f"select.select (descriptors below 1024 only) in {offenders}"
