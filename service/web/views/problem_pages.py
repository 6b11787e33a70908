"""``GET /problems/<code>``: the page behind every problem's ``type`` URI.

HTML for a person who follows the link, JSON for a client that asks with
``Accept: application/json``; an unknown code is a 404 problem like any other.
"""

from __future__ import annotations

from html import escape

from flask import Response, request
from flask_smorest import Blueprint

from service.game.problem_codes import ProblemCode
from service.game.problems import Problem
from service.web.operations import NONE, SERVER, operation
from service.web.problem_catalog import problem_type

blp = Blueprint("problems", __name__, url_prefix="/problems", description="Problem types")


def _body(code: str) -> dict[str, str] | None:
    """The JSON form of a code's page; None for a code no problem has."""
    entry = problem_type(code)
    if entry is None:
        return None
    return {
        "type": entry.type_uri,
        "code": entry.code,
        "title": entry.title,
        "description": entry.description,
    }


#: The answer in both of its forms (one 200 with two media types, for the spec).
_ANSWER = {
    "description": "What the code means: a page, or JSON with Accept: application/json",
    "content": {
        "text/html": {"schema": {"type": "string"}},
        "application/json": {
            "schema": {
                "type": "object",
                "required": ["type", "code", "title", "description"],
                "properties": {
                    "type": {"type": "string", "description": "/problems/{code}"},
                    "code": {"type": "string"},
                    "title": {"type": "string"},
                    "description": {"type": "string"},
                },
                "additionalProperties": False,
            },
            "example": _body("game_not_found"),
        },
    },
}

_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{title}</title></head>
<body><h1>{title}</h1><p>Problem code <code>{code}</code></p><p>{description}</p>
<p>Answers with this code are <code>application/problem+json</code> (RFC 9457) whose
<code>type</code> is <code>{uri}</code>.</p></body></html>
"""


@blp.route("/<code>", methods=["GET"])
@blp.response(200, description="What the code means")
@operation(blp, "getProblem", security=NONE, problems=SERVER + (404,))
@blp.doc(responses={"200": _ANSWER})
def get_problem(code: str):
    """What a problem `code` means: the target of every problem's `type` URI.

    HTML by default; JSON with `Accept: application/json`.
    """
    body = _body(code)
    if body is None:
        raise Problem(
            "no problem of this service has this code",
            code=ProblemCode.PROBLEM_NOT_FOUND,
        )
    # A browser (text/html, */*, or no Accept at all) gets the page; a client asking
    # for JSON gets JSON.
    best = request.accept_mimetypes.best_match(["text/html", "application/json"], "text/html")
    if best == "application/json":
        return body
    page = _PAGE.format(
        title=escape(body["title"]),
        code=escape(body["code"]),
        description=escape(body["description"]),
        uri=escape(body["type"]),
    )
    return Response(page, mimetype="text/html")
