"""HTTP in tests: one small client over either transport, and how answers are judged.

``Api`` speaks to the app through Flask's test client or to a live gunicorn
server through ``requests``; ``ok`` and ``problem`` return an answer's parsed
JSON and assert its status and shape. ``auth`` and ``session_from`` make the
requests of clients as strangers and attackers send them.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import requests
from requests.adapters import HTTPAdapter

PROBLEM_JSON = "application/problem+json"


def auth(token: str) -> dict[str, str]:
    """The header that presents a seat's token or a client key."""
    return {"Authorization": f"Bearer {token}"}


class _FromAddress(HTTPAdapter):
    def __init__(self, address: str):
        self.address = address
        super().__init__()

    def init_poolmanager(self, *args, **kwargs):
        kwargs["source_address"] = (self.address, 0)
        return super().init_poolmanager(*args, **kwargs)


def session_from(address: str) -> requests.Session:
    """A ``requests`` session whose connections leave from ``address`` (any of 127.0.0.0/8).

    On Linux every address of the loopback range is local, so one machine can
    play several clients that the server tells apart by their address.
    """
    session = requests.Session()
    session.mount("http://", _FromAddress(address))
    return session


@dataclass
class Reply:
    """An HTTP answer, whichever transport carried it."""

    status: int
    headers: Mapping[str, str]
    text: str

    @property
    def content_type(self) -> str:
        return self.headers.get("Content-Type", "")

    def json(self) -> Any:
        return json.loads(self.text)

    def __repr__(self) -> str:
        return f"<Reply {self.status} {self.content_type} {self.text[:500]!r}>"


class Api:
    """A client of the service: a Flask test client or ``requests`` against a URL."""

    def __init__(self, client: Any = None, *, base_url: str | None = None):
        self.client = client
        self.base_url = base_url
        if base_url is not None and client is None:
            self.client = requests.Session()

    @classmethod
    def live(cls, base_url: str, session: requests.Session | None = None) -> Api:
        return cls(session or requests.Session(), base_url=base_url)

    def request(
        self,
        method: str,
        path: str,
        *,
        json_body: Any = None,
        data: bytes | str | None = None,
        content_type: str | None = None,
        headers: Mapping[str, str] | None = None,
        token: str | None = None,
    ) -> Reply:
        sent = dict(headers or {})
        if token is not None:
            sent["Authorization"] = f"Bearer {token}"
        if json_body is not None:
            data = json.dumps(json_body)
            content_type = content_type or "application/json"
        if content_type is not None:
            sent["Content-Type"] = content_type
        if self.base_url is not None:
            answer = self.client.request(
                method, self.base_url + path, data=data, headers=sent, timeout=30
            )
            return Reply(answer.status_code, answer.headers, answer.text)
        answer = self.client.open(path, method=method, data=data, headers=sent)
        return Reply(answer.status_code, answer.headers, answer.get_data(as_text=True))

    def get(self, path: str, **kwargs: Any) -> Reply:
        return self.request("GET", path, **kwargs)

    def post(self, path: str, **kwargs: Any) -> Reply:
        return self.request("POST", path, **kwargs)


def ok(reply: Reply, status: int | tuple[int, ...] = 200) -> Any:
    """The JSON body of a successful answer, asserting its status."""
    statuses = (status,) if isinstance(status, int) else status
    assert reply.status in statuses, reply
    assert reply.content_type.startswith("application/json"), reply
    return reply.json()


def problem(reply: Reply, status: int, code: str | None = None) -> dict[str, Any]:
    """The RFC 9457 body of a refusal, asserting its shape, status and code."""
    assert reply.status == status, reply
    assert reply.content_type.split(";")[0].strip() == PROBLEM_JSON, reply
    body = reply.json()
    for member in ("type", "title", "status", "detail", "code"):
        assert member in body, (member, body)
    assert body["status"] == status, body
    assert isinstance(body["detail"], str) and body["detail"], body
    assert isinstance(body["title"], str) and body["title"], body
    if code is not None:
        assert body["code"] == code, body
    return body


def parse_sse(text: str) -> list[dict[str, Any]]:
    """Server-Sent Events from a text/event-stream body: id, event and parsed data."""
    events = []
    for block in text.split("\n\n"):
        fields: dict[str, str] = {}
        for line in block.split("\n"):
            if not line or line.startswith(":"):
                continue
            name, _, value = line.partition(":")
            fields[name] = value[1:] if value.startswith(" ") else value
        if "data" in fields:
            events.append(
                {
                    "id": fields.get("id"),
                    "event": fields.get("event"),
                    "data": json.loads(fields["data"]),
                }
            )
    return events
