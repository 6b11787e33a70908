"""Problem `type` URIs resolve: `GET /problems/{code}` has a page for every code.

The codes are collected from the code base itself (an AST walk over service/
and workers/, plus the engine's ErrorCode enum and the HTTP status codes of
the error module), so a new code without a page fails here.
"""

from __future__ import annotations

import ast
import json
import re

import pytest

from service.engine.errors import ErrorCode
from service.web.errors import _CODES_BY_STATUS
from tests.api.helpers import Api, ok, problem
from tests.conftest import REPO

#: Calls whose first string argument is a problem code.
CODE_FIRST_CALLS = {"Refusal", "JsonRefused"}
CODE = re.compile(r"^[a-z][a-z0-9]*(_[a-z0-9]+)*$")


def _str(node: ast.AST) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def codes_in_source() -> set[str]:
    found: set[str] = set()
    for path in [*(REPO / "service").rglob("*.py"), *(REPO / "workers").rglob("*.py")]:
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.keyword) and node.arg == "code" and _str(node.value):
                found.add(_str(node.value))
            elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
                if node.target.id == "code" and node.value is not None and _str(node.value):
                    found.add(_str(node.value))
            elif isinstance(node, ast.Assign):
                for target in node.targets:
                    if isinstance(target, ast.Name) and target.id == "code" and _str(node.value):
                        found.add(_str(node.value))
                    if isinstance(target, ast.Tuple) and isinstance(node.value, ast.Tuple):
                        for name, value in zip(target.elts, node.value.elts, strict=False):
                            if isinstance(name, ast.Name) and name.id == "code" and _str(value):
                                found.add(_str(value))
            elif isinstance(node, ast.Call):
                func = node.func
                name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)
                if name in CODE_FIRST_CALLS:
                    first = next((_str(arg) for arg in node.args if _str(arg)), None)
                    if first:
                        found.add(first)
    return {code for code in found if CODE.match(code)}


def every_code() -> set[str]:
    return codes_in_source() | {c.value for c in ErrorCode} | set(_CODES_BY_STATUS.values())


@pytest.fixture
def api(client) -> Api:
    return Api(client)


def test_the_collector_finds_the_codes_of_every_layer():
    codes = every_code()
    for code in (
        "must_follow_suit",  # the engine's enum
        "game_not_found",  # a Problem subclass
        "token_required",  # a code= keyword
        "uri_too_long",  # gunicorn's own refusals
        "json_too_deep",  # the body gate
        "rate_limited",  # a dataclass default
        "not_found",  # Werkzeug's errors
        "turn_not_timed_out",
    ):
        assert code in codes, code
    assert len(codes) > 60, sorted(codes)


@pytest.mark.parametrize("code", sorted(every_code()))
def test_every_code_has_a_page(api, code):
    page = api.get(f"/problems/{code}", headers={"Accept": "text/html"})
    assert page.status == 200, page
    assert page.content_type.startswith("text/html"), page
    assert f"<code>{code}</code>" in page.text
    described = ok(api.get(f"/problems/{code}", headers={"Accept": "application/json"}))
    assert described["code"] == code and described["type"] == f"/problems/{code}"
    assert described["title"] and described["description"]


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
