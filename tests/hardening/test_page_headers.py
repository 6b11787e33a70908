"""Pages cannot be framed, and no answer is sniffed into another type, over gunicorn.

/play/, /join/ (where one tap takes seat 1), /replay/ and /docs answer with
a Content-Security-Policy whose ``frame-ancestors 'none'`` (and the older
``X-Frame-Options: DENY``) keeps them out of other sites' frames, and whose
``script-src 'self'`` runs only the service's own script files. Every answer,
JSON, problem, YAML, script, a gunicorn refusal too, says ``nosniff``.
"""

from __future__ import annotations

import socket

import pytest
import requests

PAGES = [
    "/play/",
    "/join/",
    "/replay/",
    "/live/",
    "/watch/",
    "/tournament/",
    "/docs",
    "/docs/",
    "/problems/game_over",
]


def directives(policy: str) -> dict[str, list[str]]:
    parsed = {}
    for directive in policy.split(";"):
        words = directive.split()
        if words:
            parsed[words[0]] = words[1:]
    return parsed


@pytest.mark.parametrize("path", PAGES)
def test_a_page_may_not_be_framed_and_runs_only_its_own_scripts(live_server, path):
    answer = requests.get(f"{live_server.url}{path}", timeout=15)
    assert answer.status_code == 200, answer.text[:200]
    assert answer.headers["Content-Type"].startswith("text/html")
    policy = directives(answer.headers["Content-Security-Policy"])
    assert policy["frame-ancestors"] == ["'none'"]
    assert policy["script-src"] == ["'self'"]
    assert policy["object-src"] == ["'none'"]
    assert policy["base-uri"] == ["'none'"]
    assert answer.headers["X-Frame-Options"] == "DENY"
    assert answer.headers["X-Content-Type-Options"] == "nosniff"
    # No inline script the policy would block: every script is a file of the service.
    assert "<script>" not in answer.text.replace(" ", "")


@pytest.mark.parametrize(
    "method, path, status",
    [
        ("GET", "/healthz", 200),
        ("GET", "/openapi.yaml", 200),
        ("GET", "/static/pages.js", 200),
        ("GET", "/docs/init.js", 200),
        ("GET", "/docs/assets/swagger-ui-bundle.js", 200),
        ("GET", "/v1/bot/levels", 200),
        ("POST", "/v1/games", 201),
        ("GET", "/v1/games/0123456789abcdef", 404),
        ("GET", "/nowhere", 404),
        ("POST", "/v1/games/0123456789abcdef/resign", 401),
    ],
)
def test_every_answer_says_nosniff(live_server, method, path, status):
    body = {"json": {}} if method == "POST" else {}
    answer = requests.request(method, f"{live_server.url}{path}", timeout=15, **body)
    assert answer.status_code == status, answer.text[:200]
    assert answer.headers["X-Content-Type-Options"] == "nosniff"
    # An answer that is no page may not be framed either.
    assert "frame-ancestors 'none'" in answer.headers["Content-Security-Policy"]


def test_a_gunicorn_refusal_says_nosniff(live_server):
    host, port = "127.0.0.1", live_server.port
    with socket.create_connection((host, port), timeout=15) as sock:
        sock.sendall(b"GET /" + b"a" * 5000 + b" HTTP/1.1\r\nHost: x\r\n\r\n")
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
    head = answer.split(b"\r\n\r\n", 1)[0].decode("latin-1").lower()
    assert head.startswith("http/1.1 414"), head
    assert "x-content-type-options: nosniff" in head.splitlines()


@pytest.mark.parametrize("path", ["/play/", "/replay/", "/static/words.js"])
def test_a_not_modified_answer_leaves_the_stored_script_policy_alone(live_server, path):
    """A browser that revalidates a page (a reload) keeps the page and takes the 304's
    headers in place of the stored ones: a stricter policy there (``default-src 'none'``)
    would block the page's own script and style, and the page would stay blank."""
    first = requests.get(live_server.url + path, timeout=15)
    assert first.status_code == 200
    again = requests.get(
        live_server.url + path,
        headers={"If-None-Match": first.headers["ETag"]},
        timeout=15,
    )
    assert again.status_code == 304
    assert again.headers.get("Content-Security-Policy") in (
        None,
        first.headers["Content-Security-Policy"],
    )
    assert again.headers["X-Content-Type-Options"] == "nosniff"
