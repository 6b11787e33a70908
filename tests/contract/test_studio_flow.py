"""A studio's backend flow against a live server with real workers, once through each
generated client, every answer and every webhook notice checked against
openapi.yaml: 0 mismatches.

Two players of one client app register, seek and are paired, play the game out
seat by seat, offer and accept a rematch, challenge each other to a game on a
clock, play a Swiss of one round; the app registers a webhook on a receiver of its own on 127.0.0.1, reads
its deliveries, and takes its bulk export. The flow is written twice, with
nothing but the generated clients' typed calls: python_flow.py with the models
of openapi-python-client (under ``mypy --strict``) and ts/flow.ts with the paths
of openapi-typescript and openapi-fetch (under ``tsc --strict``). Each reads every
notice as the type of its kind (chosen by ``type``) and every NDJSON line of the
export as a ``GameExportLine``, and records every answer and notice; the test
validates each answer against its operation's documented schema and each
notice against the ``webhooks`` entry of its kind (tests/contract/spec_check.py).
"""

from __future__ import annotations

import base64
import json
import secrets
import shutil
import sys
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from redis import Redis

from service.devtools.embedded_redis import EmbeddedRedis
from service.game.notices import NoticeKind
from service.store.clients import ClientRegistry
from service.web.openapi import OPENAPI_FILE
from tests.contract.spec_check import Answer, SpecChecker
from tests.support.contract import BIN, CONTRACT, TS, run
from tests.support.openapi_document import load_yaml
from tests.support.servers import LiveServer, WorkerProcess

SETTINGS = {
    **{f"SCHNAPSEN_RATE_LIMIT_PER_{who}": "0" for who in ("TOKEN", "IP", "CLIENT")},
    "SCHNAPSEN_WEBHOOK_ALLOW_ADDRESSES": "127.0.0.1/32",
    "SCHNAPSEN_WEBHOOK_RETRY_SECONDS": "1,1,1",
    "SCHNAPSEN_BOT_DELAY_MS": "0",
}


@dataclass(frozen=True)
class Deployment:
    """gunicorn and a worker on a Redis of their own (no other test's worker takes their
    jobs: an archiving job must reach this archive), and that Redis."""

    server: LiveServer
    redis: Redis

    @property
    def url(self) -> str:
        return self.server.url


@pytest.fixture(scope="module")
def deployment(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Deployment]:
    """A deployment that may deliver webhooks to 127.0.0.1, with an archive (SQLite) that
    finished games move to, for the bulk export."""
    folder = tmp_path_factory.mktemp("studio")
    redis_server = EmbeddedRedis(folder / "redis").start()
    env = {**SETTINGS, "SCHNAPSEN_ARCHIVE_URL": f"sqlite:///{folder / 'archive.sqlite3'}"}
    server = LiveServer(redis_server.url, env=env)
    worker = WorkerProcess(redis_server.url, **env)
    try:
        yield Deployment(server, Redis.from_url(redis_server.url))
    finally:
        worker.stop()
        server.stop()
        redis_server.stop()


@dataclass(frozen=True)
class FlowRecord:
    """What one client's flow received and what its generated types did not read."""

    answers: list[Answer]
    notices: list[dict[str, Any]]
    unread: list[str]
    read: dict[str, int]

    @classmethod
    def load(cls, path: Path) -> FlowRecord:
        found = json.loads(path.read_text())
        answers = [Answer(a["path"], a["method"], a["status"], a["content_type"],
                          base64.b64decode(a["body"])) for a in found["answers"]]  # fmt: skip
        return cls(answers, found["notices"], found["mismatches"], found["read"])


def client_key(deployment: Deployment, name: str) -> str:
    _, key = ClientRegistry(deployment.redis).create(f"{name} {secrets.token_hex(3)}")
    return key


def assert_0_mismatches(record: FlowRecord, also: frozenset[str] = frozenset()) -> None:
    """Every answer and notice as the spec says, every notice and export line read as its
    generated type, and the flow met every part of the contract it is about (``FLOW``, and
    ``also``)."""
    checker = SpecChecker(load_yaml(OPENAPI_FILE.read_text()))
    mismatches = [found for answer in record.answers for found in checker.mismatches(answer)]
    mismatches += [found for got in record.notices
                   for found in checker.notice_mismatches(got["body"].encode(), got["headers"])]  # fmt: skip
    mismatches += record.unread
    distinct = Counter(mismatches)
    report = "\n".join(f"{count} x {text}" for text, count in distinct.most_common())
    assert len(mismatches) == 0, f"{len(mismatches)} mismatches:\n{report}"
    met = set(checker.checked)
    assert {f"webhook {kind.value}" for kind in NoticeKind} <= met, met
    assert met >= FLOW | also, (FLOW | also) - met
    assert len(record.answers) > 0 and len(record.notices) > 0
    assert record.read["notices"] == len(record.notices), record.read
    assert record.read["export_lines"] >= 3, record.read


#: The answers the studio's flow must have met, each validated.
FLOW = {
    "POST /v1/players -> 201", "GET /v1/players/me -> 200", "POST /v1/seeks -> 201",
    "GET /v1/seeks/{seek_id} -> 200", "GET /v1/games/{game_id} -> 200",
    "POST /v1/games/{game_id}/actions -> 200", "POST /v1/games/{game_id}/rematch/accept -> 201",
    "POST /v1/games/{game_id}/resign -> 200", "POST /v1/challenges -> 201",
    "POST /v1/challenges/{challenge_id}/accept -> 201", "POST /v1/webhooks -> 201",
    "GET /v1/webhooks/{webhook_id}/deliveries -> 200", "GET /v1/players/me/games -> 200",
    "GET /v1/games/export -> 200", "POST /v1/tournaments -> 201",
    "POST /v1/tournaments/{tournament_id}/entries -> 201",
    "GET /v1/tournaments/{tournament_id}/boards -> 200", "GET /v1/tournaments/{tournament_id} -> 200",
}  # fmt: skip

#: A data-protection request, in the Python flow: the player's export, its erasure, and the
#: erasure asked again.
ERASURE = frozenset({
    "GET /v1/players/{player_id}/export -> 200", "DELETE /v1/players/{player_id} -> 204",
    "DELETE /v1/players/{player_id} -> 404",
})  # fmt: skip


def test_the_studio_flow_through_the_python_client_has_0_mismatches(
    deployment, python_client, tmp_path
):
    program = CONTRACT / "python_flow.py"
    source = program.read_text()
    assert "cast(" not in source and "import Any" not in source and "type: ignore" not in source
    checked = run([str(BIN / "mypy"), "--strict", "--follow-imports=silent", "--no-incremental",
                   str(program)], cwd=python_client, MYPYPATH=str(python_client))  # fmt: skip
    assert "Success" in checked, checked
    out = tmp_path / "flow.json"
    run([sys.executable, str(program), deployment.url, client_key(deployment, "python"), str(out)],
        cwd=python_client, timeout=400, PYTHONPATH=str(python_client))  # fmt: skip
    assert_0_mismatches(FlowRecord.load(out), also=ERASURE)


def test_the_studio_flow_through_the_typescript_client_has_0_mismatches(
    deployment, npm_tools, tmp_path
):
    shutil.copy(TS / "flow.ts", tmp_path / "flow.ts")
    (tmp_path / "package.json").write_text('{"type": "module"}\n')
    (tmp_path / "node_modules").symlink_to(npm_tools / "node_modules")
    tools = npm_tools / "node_modules" / ".bin"
    run([str(tools / "openapi-typescript"), str(OPENAPI_FILE), "-o", "schema.d.ts"], cwd=tmp_path)
    run([str(tools / "tsc"), "--strict", "--noUncheckedIndexedAccess",
         "--exactOptionalPropertyTypes", "--target", "ES2022", "--module", "NodeNext",
         "--moduleResolution", "NodeNext", "--lib", "ES2022,DOM", "--outDir", "out",
         "flow.ts"], cwd=tmp_path)  # fmt: skip
    out = tmp_path / "flow.json"
    run(["node", "out/flow.js", deployment.url, client_key(deployment, "typescript"), str(out)],
        cwd=tmp_path, timeout=400)  # fmt: skip
    assert_0_mismatches(FlowRecord.load(out))
