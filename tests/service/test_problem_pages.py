"""Problem `type` URIs resolve: `GET /problems/{code}` has a page for every code.

Every code is a member of ``ProblemCode``, which carries its page; an AST
walk over service/ and workers/ finds any code still named as a bare string,
which could be one without a page.
"""

from __future__ import annotations

import ast
import json

import pytest

from service.engine.errors import ErrorCode
from service.game.problem_codes import ProblemCode
from service.web.errors import _CODES_BY_STATUS
from tests.support.http import ok, problem
from tests.support.paths import REPO

#: Calls whose first argument is a problem code.
CODE_FIRST_CALLS = {"JsonRefused", "Refusal"}


def _str(node: ast.AST | None) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def bare_codes(source: str, filename: str = "<source>") -> list[tuple[int, str]]:
    """(line, code) of every problem code ``source`` names as a string literal: a ``code=``
    keyword, an assignment to ``code`` (plain, annotated, or in a tuple), or the code
    argument of a refusal."""
    found: list[tuple[int, str]] = []

    def note(value: ast.AST | None) -> None:
        text = _str(value)
        if text is not None and value is not None:
            found.append((value.lineno, text))

    for node in ast.walk(ast.parse(source, filename)):
        if isinstance(node, ast.keyword) and node.arg == "code":
            note(node.value)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            if node.target.id == "code":
                note(node.value)
        elif isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name) and target.id == "code":
                    note(node.value)
                if isinstance(target, ast.Tuple) and isinstance(node.value, ast.Tuple):
                    for name, value in zip(target.elts, node.value.elts, strict=False):
                        if isinstance(name, ast.Name) and name.id == "code":
                            note(value)
        elif isinstance(node, ast.Call):
            func = node.func
            name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)
            if name in CODE_FIRST_CALLS and node.args:
                note(node.args[0])
    return found


def server_sources() -> dict[str, str]:
    paths = [*(REPO / "service").rglob("*.py"), *(REPO / "workers").rglob("*.py")]
    return {str(path.relative_to(REPO)): path.read_text() for path in sorted(paths)}


def test_no_refusal_names_its_code_as_a_bare_string():
    bare = [
        f"{name}:{line}: {code!r}"
        for name, source in server_sources().items()
        for line, code in bare_codes(source, name)
    ]
    assert bare == [], "name problem codes as ProblemCode members"


@pytest.mark.parametrize(
    "source",
    [
        'raise Problem("x", code="busy")',
        'class Busy(Problem):\n    status, code, title = 409, "busy", "Busy"',
        'class Policy:\n    code: str = "rate_limited"',
        'raise JsonRefused("malformed_json", "not JSON")',
        'return Refusal("uri_too_long", "too long")',
    ],
)
def test_the_walk_finds_a_bare_string_code(source):
    assert [code for _, code in bare_codes(source)] in (
        ["busy"],
        ["rate_limited"],
        ["malformed_json"],
        ["uri_too_long"],
    )


def test_the_walk_takes_a_member_for_no_bare_string():
    assert bare_codes('raise Problem("x", code=ProblemCode.BUSY)') == []


def test_the_engine_refusals_and_the_http_statuses_are_problem_codes():
    members = {code.value for code in ProblemCode}
    assert {code.value for code in ErrorCode} - members == set()
    assert all(isinstance(code, ProblemCode) for code in _CODES_BY_STATUS.values())


@pytest.mark.parametrize("code", list(ProblemCode))
def test_every_problem_code_has_a_page(api, code):
    page = api.get(f"/problems/{code}", headers={"Accept": "text/html"})
    assert page.status == 200, page
    assert page.content_type.startswith("text/html"), page
    assert f"<code>{code}</code>" in page.text
    described = ok(api.get(f"/problems/{code}", headers={"Accept": "application/json"}))
    assert described["code"] == code and described["type"] == f"/problems/{code}"
    assert described["title"] == code.page.title and code.page.title
    assert described["description"] == code.page.description and code.page.description


def test_the_type_of_a_real_problem_resolves(api):
    refused = problem(api.get("/v1/games/0123456789abcdef"), 404, "game_not_found")
    assert refused["type"] == "/problems/game_not_found"
    page = api.get(refused["type"], headers={"Accept": "application/json"})
    assert ok(page)["code"] == "game_not_found"
    # A browser (no Accept, or */*) gets the page.
    assert api.get(refused["type"]).content_type.startswith("text/html")


def test_http_status_codes_without_a_name_have_pages_too(api):
    assert api.get("/problems/http_418").status == 200
    problem(api.get("/problems/http_200"), 404, "problem_not_found")


@pytest.mark.parametrize("code", ["no_such_code", "<script>", "A" * 300, "%00"])
def test_an_unknown_code_is_a_404_problem(api, code):
    reply = api.get(f"/problems/{code}", headers={"Accept": "text/html"})
    body = problem(reply, 404, "problem_not_found")
    assert "<script>" not in json.dumps(body["detail"])
