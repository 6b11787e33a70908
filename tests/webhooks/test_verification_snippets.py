"""The Python snippet docs/webhooks.md shows ("Verifying a delivery") accepts a delivery the
service signed and refuses a tampered one: a receiver can copy it as it is. (The TypeScript
one is compiled and run on Node by tests/contract/test_standard_webhooks_js.py.)"""

from __future__ import annotations

import json
import re
import time

from service.jobs.webhook_signing import new_secret, signed_headers
from tests.support.paths import REPO

DOCUMENT = REPO / "docs" / "webhooks.md"
SECRET = new_secret()
ID = "evt_0a1b2c3d4e5f60718293a4b5"
BODY = b'{"id":"evt_0a1b2c3d4e5f60718293a4b5","type":"game.turn","note":"\xc3\xa4"}'


def snippet(language: str) -> str:
    """The fenced block marked ``<language> verify``: there is exactly one."""
    found = re.findall(rf"^```{language} verify\n(.*?)^```", DOCUMENT.read_text(), re.M | re.S)
    assert len(found) == 1, f"docs/webhooks.md has {len(found)} {language} verify blocks"
    return found[0]


def cases() -> list[tuple[str, dict[str, str], bytes, bool]]:
    """(secret, headers, body, whether it is genuine) for deliveries signed now."""
    now = int(time.time())
    headers = signed_headers([SECRET], ID, now, BODY)
    return [
        (SECRET, headers, BODY, True),
        (SECRET, signed_headers([new_secret(), SECRET], ID, now, BODY), BODY, True),
        (SECRET, {k.title(): v for k, v in headers.items()}, BODY, True),
        (SECRET, headers, BODY.replace(b"turn", b"over"), False),
        (SECRET, headers, BODY + b"\n", False),
        (new_secret(), headers, BODY, False),
        (SECRET, signed_headers([SECRET], ID, now - 3600, BODY), BODY, False),
        (SECRET, {**headers, "webhook-timestamp": str(now - 1)}, BODY, False),
        (SECRET, {**headers, "webhook-id": ID + "0"}, BODY, False),
        (SECRET, {}, BODY, False),
        (SECRET, {"webhook-signature": headers["webhook-signature"]}, BODY, False),
    ]


def test_the_python_snippet_answers_a_signed_deliverys_notice_and_refuses_a_tampered_one():
    namespace: dict[str, object] = {}
    exec(compile(snippet("python"), str(DOCUMENT), "exec"), namespace)  # noqa: S102
    verify_delivery = namespace["verify_delivery"]
    given = cases()
    answers = [verify_delivery(secret, headers, body) for secret, headers, body, _ in given]
    assert answers == [json.loads(BODY) if genuine else None for *_, genuine in given]
