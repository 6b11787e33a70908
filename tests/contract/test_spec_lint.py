"""openapi.yaml passes a standard linter, Redocly CLI's recommended rules, with 0 errors,
no unused component and no example that contradicts its schema."""

from __future__ import annotations

import json

from service.web.openapi import OPENAPI_FILE
from tests.support.contract import run

#: Warnings that mean the document lies or carries dead weight: a component nothing
#: names (the SSE payloads once were), an example its own schema refuses.
UNTRUE = {"no-unused-components", "no-invalid-media-type-examples", "no-invalid-schema-examples"}


def test_redocly_lint_finds_no_error_no_unused_component_and_no_untrue_example(npm_tools):
    output = run(
        [str(npm_tools / "node_modules/.bin/redocly"), "lint", str(OPENAPI_FILE),
         "--format=json"],
        cwd=npm_tools,
    )  # fmt: skip
    # stdout's JSON report comes first; Redocly's notices (stderr) follow it.
    report, _ = json.JSONDecoder().raw_decode(output[output.index("{") :])
    errors = [p for p in report["problems"] if p["severity"] == "error"]
    assert report["totals"]["errors"] == 0 and not errors, errors
    untrue = [(p["ruleId"], p["message"]) for p in report["problems"] if p["ruleId"] in UNTRUE]
    assert untrue == []
