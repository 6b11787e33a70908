"""schemathesis against openapi.yaml, in-process: no 5xx, every answer as documented.

Every operation of the committed document gets a bounded number of
generated requests (valid and invalid); each answer is checked by
schemathesis' checks: no server error, status code, content type and body
as the document says.
"""

from __future__ import annotations

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from schemathesis.checks import (
    negative_data_rejection,
    not_a_server_error,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)
from schemathesis.specs.openapi.checks import content_type_conformance

from service.web.openapi import OPENAPI_FILE
from tests.support.paths import SECRET

EXAMPLES = 25
#: No 5xx, and every answer as documented; invalid requests refused. (Not
#: "every schema-valid request accepted": game rules refuse many valid-looking
#: requests with a 4xx, as they should.)
CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
    response_headers_conformance,
    negative_data_rejection,
]


@pytest.fixture(scope="module")
def api_schema(redis_url, worker):  # a worker running, so /readyz is ready
    from service.web.app import create_app

    app = create_app({"REDIS_URL": redis_url, "SECRET_KEY": SECRET})
    schema = schemathesis.openapi.from_path(OPENAPI_FILE)
    schema.app = app
    return schema, app


def operations(schema):
    for result in schema.get_all_operations():
        operation = result.ok()
        # An event stream never ends within a request; tests/api reads it instead.
        if not operation.path.endswith("/stream"):
            yield operation


def test_every_operation_answers_as_documented(api_schema):
    schema, app = api_schema
    checked = []
    for operation in operations(schema):

        @given(case=operation.as_strategy())
        @settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck),
                  database=None)  # fmt: skip
        def check(case):
            case.call_and_validate(app=app, checks=CHECKS)

        check()
        checked.append(f"{operation.method.upper()} {operation.path}")
    assert len(checked) >= 12, checked
