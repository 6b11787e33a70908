"""A webhook URL whose host is an IPv4 address in any form but four decimal numbers.

Resolvers and browsers read ``0x7f000001``, ``0x7f.1``, ``017700000001`` or
``127.1`` as addresses (inet_aton's forms; WHATWG URL: a host whose last
label is a number is an IPv4 address), so such a host is no DNS name: a
registration with one is refused as ``2130706433`` is (422
``invalid_webhook_url``) and stores nothing, against gunicorn, over HTTP.
"""

from __future__ import annotations

import pytest
import requests

from tests.support.players import new_app

#: Each an IPv4 address a resolver would read, none of them four decimal numbers.
NUMERIC_HOSTS = [
    "2130706433",
    "0x7f000001",
    "0X7F000001",
    "0x7f000001.",
    "0x7f.1",
    "0x7f.0.0.0x1",
    "127.0.0.0x1",
    "127.0x0.0.1",
    "0x7f.0x0.0x0.0x1",
    "017700000001",
    "0177.0.0.1",
    "127.1",
    "127.0.1",
    "127.0.0.01",
    "0x",
    "0xa9fea9fe",
    "0xA9.0xFE.0xA9.0xFE",
    "hooks.example.0x10",
]


@pytest.mark.parametrize("host", NUMERIC_HOSTS)
def test_a_numeric_host_in_any_form_is_refused_at_registration(live_server, redis_client, host):
    app = new_app(redis_client)
    answer = requests.post(
        f"{live_server.url}/v1/webhooks",
        json={"url": f"http://{host}:8080/hook", "events": ["game.turn"]},
        headers=app.headers,
        timeout=10,
    )
    assert answer.status_code == 422, (host, answer.status_code, answer.text)
    assert answer.headers["Content-Type"].startswith("application/problem+json")
    assert answer.json()["code"] == "invalid_webhook_url", answer.text
    listed = requests.get(f"{live_server.url}/v1/webhooks", headers=app.headers, timeout=10)
    assert listed.json()["webhooks"] == []


@pytest.mark.parametrize(
    "host", ["0xcafe.example.com", "hooks.0x7f.example", "x0.example.com", "0xg.example"]
)
def test_a_dns_name_with_a_hex_looking_label_is_still_a_name(live_server, redis_client, host):
    app = new_app(redis_client)
    answer = requests.post(
        f"{live_server.url}/v1/webhooks",
        json={"url": f"https://{host}/hook", "events": ["game.turn"]},
        headers=app.headers,
        timeout=10,
    )
    assert answer.status_code == 201, (host, answer.text)
