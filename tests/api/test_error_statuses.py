"""The API alone maps domain refusals to HTTP statuses (service/web/errors.py)."""

from __future__ import annotations

import ast
from pathlib import Path

from service.engine.errors import ErrorCode
from service.web.errors import ILLEGAL_ACTION_STATUS

COMMANDS = Path(__file__).resolve().parents[2] / "service" / "game" / "commands.py"


def test_every_engine_refusal_has_a_status():
    assert set(ILLEGAL_ACTION_STATUS) == set(ErrorCode)
    assert set(ILLEGAL_ACTION_STATUS.values()) == {409, 422}


def test_the_command_layer_names_no_http_status_nor_header():
    tree = ast.parse(COMMANDS.read_text())
    statuses = [
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, int)
        and 400 <= node.value < 600
    ]
    keywords = [
        node.arg
        for node in ast.walk(tree)
        if isinstance(node, ast.keyword)
        if node.arg in {"status", "headers", "precondition"}
    ]
    assert statuses == [] and keywords == []
