"""openapi.yaml passes a standard linter, Redocly CLI's recommended rules, with 0 errors."""

from __future__ import annotations

import json

from service.openapi import OPENAPI_FILE
from tests.contract.conftest import run


def test_redocly_lint_finds_no_error(npm_tools):
    output = run(
        [str(npm_tools / "node_modules/.bin/redocly"), "lint", str(OPENAPI_FILE),
         "--format=json"],
        cwd=npm_tools,
    )  # fmt: skip
    # stdout's JSON report comes first; Redocly's notices (stderr) follow it.
    report, _ = json.JSONDecoder().raw_decode(output[output.index("{") :])
    errors = [p for p in report["problems"] if p["severity"] == "error"]
    assert report["totals"]["errors"] == 0 and not errors, errors
