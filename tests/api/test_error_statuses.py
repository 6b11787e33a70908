"""The API alone maps refusals to HTTP statuses, in one table (service/web/statuses.py):
no refusal names its status where it is raised."""

from __future__ import annotations

import ast
from pathlib import Path

from service.engine.errors import ErrorCode
from service.game.problem_codes import ProblemCode
from service.game.problems import Conflict, IllegalAction, Problem, VersionConflict
from service.web.errors import _CODES_BY_STATUS
from service.web.statuses import STATUS, StaleIfMatch, status_of

REPO = Path(__file__).resolve().parents[2]
COMMANDS = REPO / "service" / "game" / "commands.py"


def test_every_problem_code_has_a_status():
    assert set(STATUS) == set(ProblemCode)
    assert all(400 <= status < 600 for status in STATUS.values())


def test_every_engine_refusal_is_a_conflict_or_unprocessable():
    assert {STATUS[ProblemCode(code.value)] for code in ErrorCode} == {409, 422}
    assert STATUS[ProblemCode.NOT_YOUR_TURN] == 409
    assert STATUS[ProblemCode.MUST_FOLLOW_SUIT] == 422


def test_an_http_error_answers_the_code_whose_status_it_has():
    for status, code in _CODES_BY_STATUS.items():
        assert STATUS[code] == status, code


def test_a_refusal_answers_its_codes_status():
    assert status_of(Problem("x", code=ProblemCode.QUEUE_FULL)) == 503
    assert status_of(Conflict("x", code=ProblemCode.DEAL_NOT_FINISHED)) == 409
    illegal = IllegalAction(ErrorCode.CARD_NOT_IN_HAND, "x", extra={})
    assert status_of(illegal) == 422


def test_a_stale_if_match_is_a_failed_precondition_of_the_same_refusal():
    conflict = VersionConflict(12, 13)
    stale = StaleIfMatch.of(conflict)
    assert status_of(conflict) == 409 and status_of(stale) == 412
    assert (stale.code, stale.title, stale.detail, stale.extra) == (
        conflict.code,
        conflict.title,
        conflict.detail,
        conflict.extra,
    )


def _status_keywords(path: Path, root: Path = REPO) -> list[str]:
    tree = ast.parse(path.read_text(), str(path))
    return [
        f"{path.relative_to(root)}:{node.lineno}"
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        for keyword in node.keywords
        if keyword.arg == "status"
        and isinstance(keyword.value, ast.Constant)
        and isinstance(keyword.value.value, int)
        and keyword.value.value >= 400
    ]


def test_no_refusal_names_its_status_where_it_is_raised():
    paths = [*(REPO / "service").rglob("*.py"), *(REPO / "workers").rglob("*.py")]
    assert [site for path in sorted(paths) for site in _status_keywords(path)] == []


def test_the_status_walk_finds_a_status_keyword(tmp_path):
    source = tmp_path / "service" / "raising.py"
    source.parent.mkdir()
    source.write_text('raise Problem("x", status=409, code=ProblemCode.BUSY)\n')
    assert _status_keywords(source, tmp_path) == ["service/raising.py:1"]


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
