"""A schemathesis check for benchmarks/schemathesis_live.py: a request the schema allows is
never refused for its form.

schemathesis' own ``positive_data_acceptance`` counts every 4xx but 401, 403,
404, 409 and 429 to a schema-valid request as a failure, the game's rules too: a
replay at a version the game has not reached, a deal it does not have, an
Idempotency-Key sent again with another body (422 by the IETF draft), a stale
If-Match (412), a cursor this server never handed out. No schema can say those;
they are the state's, not the form's. This check fails where the schema is
looser than the server: a request generated from the schema (positive mode)
refused with a problem code that judges its form.

Loaded with ``SCHEMATHESIS_HOOKS=schemathesis_checks`` (this folder on PYTHONPATH).
"""

from __future__ import annotations

import json
from typing import Any

import schemathesis

#: The problem codes (service/game/problem_codes.py) of a request the schema should refuse.
FORM_CODES = frozenset({
    "invalid_request", "malformed_json", "malformed_body", "number_too_large",
    "unsupported_media_type", "invalid_idempotency_key", "invalid_if_match",
    "invalid_authorization", "invalid_webhook_url", "invalid_deck", "invalid_action",
    "invalid_name", "invalid_last_event_id", "bad_request",
})  # fmt: skip


@schemathesis.check
def schema_valid_request_passes_validation(ctx: Any, response: Any, case: Any) -> bool | None:
    meta = case.meta
    if meta is None or not meta.generation.mode.is_positive:
        return None
    if response.status_code not in (400, 413, 415, 422):
        return None
    try:
        problem = json.loads(response.content)
    except ValueError:
        return None
    code = problem.get("code") if isinstance(problem, dict) else None
    if code in FORM_CODES:
        raise AssertionError(
            f"a request the schema allows was refused for its form: {response.status_code} "
            f"{code}: {str(problem.get('detail'))[:300]}"
        )
    return None
