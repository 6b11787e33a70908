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

And a hook: a client sends a new Idempotency-Key with each new request, while
schemathesis' coverage phase holds one key while it varies the rest of the
request (and hypothesis draws the same short key again and again); the server
rightly refuses a key reused with another request (422
``idempotency_key_reused``, the IETF draft's answer), a refusal of the state
like a stale If-Match, which schemathesis would count against the schema. So
each well-formed key is replaced, before its request goes out, by a new random
one (as long, and at least 24 characters: keys are scoped to the app, and the
seeds' runs share the app and the server); a key the schema refuses is left
as it is, for the negative cases.

Loaded with ``SCHEMATHESIS_HOOKS=schemathesis_checks`` (this folder on PYTHONPATH).
"""

from __future__ import annotations

import json
import re
import secrets
from typing import Any

import schemathesis

#: The problem codes (service/game/problem_codes.py) of a request the schema should refuse.
FORM_CODES = frozenset({
    "invalid_request", "malformed_json", "malformed_body", "number_too_large",
    "unsupported_media_type", "invalid_idempotency_key", "invalid_if_match",
    "invalid_authorization", "invalid_webhook_url", "invalid_deck", "invalid_action",
    "invalid_name", "invalid_last_event_id", "bad_request",
})  # fmt: skip


#: An Idempotency-Key the spec admits (its pattern in openapi.yaml).
_KEY = re.compile(r"[!-~]{1,255}")
_VISIBLE = "".join(map(chr, range(0x21, 0x7F)))
#: The fewest characters of a new key: enough that no two runs against one server share one.
_FRESH = 24


@schemathesis.hook
def before_call(ctx: Any, case: Any, **kwargs: Any) -> None:
    """Each request goes out with an Idempotency-Key of its own, as a client sends it."""
    headers = case.headers
    key = headers.get("Idempotency-Key") if headers else None
    if isinstance(key, str) and _KEY.fullmatch(key):
        headers["Idempotency-Key"] = "".join(
            secrets.choice(_VISIBLE) for _ in range(max(len(key), _FRESH))
        )


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
