"""A receiver on Node 20 verifies real deliveries with the Standard Webhooks library from npm
(``standardwebhooks``), and so does the TypeScript of docs/webhooks.md ("Verifying a
delivery"), compiled by ``tsc --strict`` against the library's types: a tampered delivery is
refused. Deliveries are sent by gunicorn and a real RQ worker to the receiver process."""

from __future__ import annotations

import base64
import json
import re
import secrets
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.contract import CONTRACT, run
from tests.support.paths import REPO
from tests.support.receiver import Receiver
from tests.support.waiting import wait_until
from tests.support.webhook_deployment import Deployment, deployment
from tests.support.webhook_games import app_key, play_against_bot, player_token, register

#: The receiver's npm packages, pinned by their package-lock.json, and its drivers.
TOOLS = CONTRACT / "webhooks_js"
DOCUMENT = REPO / "docs" / "webhooks.md"


def _retried_among(requests: list[dict[str, Any]]) -> list[dict[str, Any]] | None:
    """``requests`` once they hold two notices and the retry of the first, which failed."""
    if len({request["body"] for request in requests}) < 2:
        return None
    first = requests[0]["body"]
    return requests if any(r["body"] == first and r["status"] == 200 for r in requests) else None


@pytest.fixture(scope="module")
def node_modules() -> Path:
    """tests/contract/webhooks_js/node_modules, installed with `npm ci` when missing or stale."""
    npm = shutil.which("npm")
    if npm is None:
        pytest.fail("the receiver on Node needs Node 20 and npm on the PATH")
    lock, stamp = TOOLS / "package-lock.json", TOOLS / "node_modules" / ".package-lock.json"
    if not stamp.exists() or stamp.stat().st_mtime < lock.stat().st_mtime:
        run([npm, "ci", "--no-audit", "--no-fund"], cwd=TOOLS)
    return TOOLS / "node_modules"


def _compiled(node_modules: Path, root: Path, sources: dict[str, str]) -> Path:
    """``sources`` (name -> TypeScript) compiled by ``tsc --strict`` in ``root``."""
    for name, text in sources.items():
        (root / name).write_text(text)
    shutil.copy(TOOLS / "tsconfig.json", root / "tsconfig.json")
    (root / "package.json").write_text('{"type": "module"}\n')
    (root / "node_modules").symlink_to(node_modules)
    run([str(node_modules / ".bin" / "tsc"), "-p", "tsconfig.json"], cwd=root)
    return root / "out"


def _run_node(script: Path, deliveries: list[dict[str, Any]]) -> list[Any]:
    done = subprocess.run(
        ["node", script.name],
        cwd=script.parent,
        input=json.dumps(deliveries),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def documented_typescript() -> str:
    """The fenced block of docs/webhooks.md marked ``typescript verify``: there is one."""
    found = re.findall(r"^```typescript verify\n(.*?)^```", DOCUMENT.read_text(), re.M | re.S)
    assert len(found) == 1, f"docs/webhooks.md has {len(found)} typescript verify blocks"
    return found[0]


@pytest.fixture(scope="module")
def delivering(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Deployment]:
    yield from deployment(tmp_path_factory.mktemp("hooks"), "127.0.0.1/32")


@pytest.fixture(scope="module")
def delivered(delivering: Deployment) -> tuple[str, list[dict[str, Any]]]:
    """An endpoint's secret and the requests the receiver got: two notices, the first
    answered 500 once and so sent twice."""
    receiver = Receiver(delivering.folder, fail_first=1)
    try:
        key = app_key(delivering.redis)
        hook = register(delivering.url, key, receiver.url, ["game.turn"])
        player = player_token(delivering.url, key)
        play_against_bot(delivering.url, player["token"], seed=33, moves=2)
        got = wait_until(
            lambda: _retried_among(receiver.received()),
            60,
            "two notices delivered, one of them after a failed attempt",
        )
    finally:
        receiver.stop()
    return hook["secret"], got


def _cases(secret: str, requests: list[dict[str, Any]]) -> list[tuple[dict[str, Any], bool]]:
    """Each delivery as received, and tampered copies of it: (delivery, whether genuine)."""
    other = "whsec_" + base64.b64encode(secrets.token_bytes(32)).decode()
    found = []
    for request in requests:
        body = request["body"].encode()
        headers = {name.lower(): value for name, value in request["headers"].items()}
        sent_at = int(headers.get("webhook-timestamp", "0"))
        moved = {**headers, "webhook-timestamp": str(sent_at - 1)}
        renamed = {**headers, "webhook-id": headers.get("webhook-id", "") + "0"}
        for given, genuine in [
            ((secret, headers, body), True),
            ((secret, headers, body.replace(b'"game.turn"', b'"game.finished"')), False),
            ((secret, headers, body + b" "), False),
            ((other, headers, body), False),
            ((secret, moved, body), False),
            ((secret, renamed, body), False),
        ]:
            key, sent_headers, sent_body = given
            delivery = {
                "secret": key,
                "headers": sent_headers,
                "body": base64.b64encode(sent_body).decode(),
            }
            found.append((delivery, genuine))
    return found


def test_real_deliveries_verify_with_the_standardwebhooks_npm_package_and_tampered_ones_fail(
    node_modules, delivered, tmp_path
):
    secret, requests = delivered
    out = _compiled(
        node_modules, tmp_path, {"driver.ts": (TOOLS / "library_driver.ts").read_text()}
    )
    cases = _cases(secret, requests)
    outcomes = _run_node(out / "driver.js", [delivery for delivery, _ in cases])
    for (delivery, genuine), outcome in zip(cases, outcomes, strict=True):
        if genuine:
            body = base64.b64decode(delivery["body"])
            assert outcome == {"notice": json.loads(body)}
            assert delivery["headers"]["webhook-id"] == json.loads(body)["id"]
        else:
            assert set(outcome) == {"refused"}, outcome


def test_the_documented_typescript_accepts_real_deliveries_and_refuses_tampered_ones(
    node_modules, delivered, tmp_path
):
    secret, requests = delivered
    out = _compiled(
        node_modules,
        tmp_path,
        {
            "verify.ts": documented_typescript(),
            "driver.ts": (TOOLS / "snippet_driver.ts").read_text(),
        },
    )
    cases = _cases(secret, requests)
    answers = _run_node(out / "driver.js", [delivery for delivery, _ in cases])
    expected = [
        json.loads(base64.b64decode(delivery["body"])) if genuine else None
        for delivery, genuine in cases
    ]
    assert answers == expected
