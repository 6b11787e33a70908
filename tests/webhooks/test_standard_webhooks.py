"""Real deliveries verify with the maintained Standard Webhooks library for Python (PyPI
``standardwebhooks``), as a receiver checks them, and a tampered one is refused: a receiver
needs no code of ours. Sent by gunicorn and a real RQ worker to the receiver process."""

from __future__ import annotations

import base64
import json
import secrets
from typing import Any

import pytest
from standardwebhooks import Webhook, WebhookVerificationError

from tests.support.receiver import Receiver
from tests.support.waiting import wait_until
from tests.support.webhook_games import app_key, play_against_bot, player_token, register


def _retried_among(requests: list[dict[str, Any]]) -> list[dict[str, Any]] | None:
    """``requests`` once they hold two notices and the retry of the first, which failed."""
    if len({request["body"] for request in requests}) < 2:
        return None
    first = requests[0]["body"]
    return requests if any(r["body"] == first and r["status"] == 200 for r in requests) else None


def _lowered(headers: dict[str, str]) -> dict[str, str]:
    return {name.lower(): value for name, value in headers.items()}


def _refused(webhook: Webhook, body: bytes, headers: dict[str, str]) -> str:
    """Why the library refuses the delivery (it must)."""
    with pytest.raises(WebhookVerificationError) as refused:
        webhook.verify(body, headers)
    return str(refused.value)


def test_every_delivery_verifies_with_the_standard_webhooks_library_and_a_tampered_one_fails(
    allowed,
):
    receiver = Receiver(allowed.folder, fail_first=1)
    try:
        key = app_key(allowed.redis)
        hook = register(allowed.url, key, receiver.url, ["game.turn"])
        player = player_token(allowed.url, key)
        play_against_bot(allowed.url, player["token"], seed=31, moves=2)
        # the first attempt is answered 500 and retried: that retry is one more delivery
        got = wait_until(
            lambda: _retried_among(receiver.received()),
            60,
            "two notices delivered, one of them after a failed attempt",
        )
        webhook = Webhook(hook["secret"])
        for request in got:
            body, headers = request["body"].encode(), _lowered(request["headers"])
            notice = webhook.verify(body, headers)
            assert notice == json.loads(body)
            assert headers["webhook-id"] == notice["id"]  # what a receiver deduplicates by

            assert _refused(webhook, body.replace(b'"game.turn"', b'"game.finished"'), headers)
            assert _refused(webhook, body + b" ", headers)
            other = "whsec_" + base64.b64encode(secrets.token_bytes(32)).decode()
            assert _refused(Webhook(other), body, headers)
            moved = {**headers, "webhook-timestamp": str(int(headers["webhook-timestamp"]) - 1)}
            assert _refused(webhook, body, moved)
            renamed = {**headers, "webhook-id": notice["id"] + "0"}
            assert _refused(webhook, body, renamed)
        failed = got[0]
        retried = next(r for r in got[1:] if r["body"] == failed["body"])
        assert failed["status"] == 500 and retried["status"] == 200
        assert (
            _lowered(failed["headers"])["webhook-id"] == _lowered(retried["headers"])["webhook-id"]
        )
    finally:
        receiver.stop()
