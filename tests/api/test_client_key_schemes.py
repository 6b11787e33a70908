"""A client key is taken wherever an operation declares it, both ways it may be sent.

openapi.yaml names two schemes for a client app's key: ``clientKey``
(``Authorization: Bearer sck_...``) and ``clientKeyHeader`` (``X-Client-Key``).
Every operation that names them, required or optional, is called here against a
live gunicorn with a fresh app's key sent each way; neither may be refused as
a caller without a key. The operations are read from the committed document,
so a new one is checked as soon as it declares the key.
"""

from __future__ import annotations

import re
import uuid
from typing import Any

import pytest
import requests

from service.store.clients import ClientRegistry
from tests.support.openapi_document import OPERATIONS

#: The schemes that carry a client app's key.
KEY_SCHEMES = frozenset({"clientKey", "clientKeyHeader"})
#: How the key is sent: as a bearer token, or in its own header.
SENT_AS = {
    "bearer": lambda key: {"Authorization": f"Bearer {key}"},
    "x-client-key": lambda key: {"X-Client-Key": key},
}
#: A made-up id for every path parameter: an unknown webhook or player is a 404 to its
#: app, which only an identified app can get.
_PATH_PARAMETER = re.compile(r"\{[^}]+\}")


def declared(operation: dict[str, Any]) -> set[str]:
    """The schemes an operation names, required or read when sent."""
    requirements = (operation.get("security") or []) + (operation.get("x-optional-security") or [])
    return {scheme for requirement in requirements for scheme in requirement}


KEY_OPERATIONS = [
    (path, method, operation)
    for path, method, operation in OPERATIONS
    if declared(operation) >= KEY_SCHEMES
]


def required_query(operation: dict[str, Any]) -> dict[str, str]:
    """A value for each required query parameter: its example, else its first choice."""
    query = {}
    for parameter in operation.get("parameters", []):
        if parameter.get("in") == "query" and parameter.get("required"):
            schema = parameter.get("schema", {})
            query[parameter["name"]] = parameter.get("example", (schema.get("enum") or ["x"])[0])
    return query


def example_body(operation: dict[str, Any]) -> Any:
    """The request body's own example in the document (every body has one)."""
    media = operation.get("requestBody", {}).get("content", {}).get("application/json")
    return None if media is None else media["example"]


def test_the_document_declares_the_client_key_on_the_operations_of_client_apps():
    # The walk below is only as good as its list: the app's own operations are in it.
    names = {operation["operationId"] for _, _, operation in KEY_OPERATIONS}
    assert {
        "createGame",
        "listGames",
        "exportGames",
        "requestBotMove",
        "registerPlayer",
        "getLeaderboard",
        "getRatingHistory",
        "createWebhook",
        "listWebhooks",
    } <= names


@pytest.mark.parametrize("sent_as", sorted(SENT_AS))
@pytest.mark.parametrize(
    ("path", "method", "operation"),
    KEY_OPERATIONS,
    ids=[f"{method.upper()} {path}" for path, method, _ in KEY_OPERATIONS],
)
def test_every_operation_that_declares_the_client_key_takes_it_as_bearer_and_as_x_client_key(
    live_server, redis_client, path, method, operation, sent_as
):
    _, key = ClientRegistry(redis_client).create(f"{operation['operationId']} by {sent_as}")
    headers = {**SENT_AS[sent_as](key), "Idempotency-Key": str(uuid.uuid4())}
    body = example_body(operation)
    answer = requests.request(
        method,
        live_server.url + _PATH_PARAMETER.sub("x0", path),
        params=required_query(operation),
        json=body,
        headers=headers,
        timeout=30,
    )
    refusal = answer.text[:300]
    assert answer.status_code != 401, f"{operation['operationId']} refused the key: {refusal}"
    assert answer.status_code != 500, refusal  # a 503 (no archive for the export) is no refusal
