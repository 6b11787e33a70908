"""A studio's backend flow against a live server, every answer and every webhook notice
checked against openapi.yaml: 0 mismatches.

Two players of one client app register, seek and are paired, play the game out
seat by seat, offer and accept a rematch, challenge each other to a game on a
clock; the app registers a webhook on a receiver on 127.0.0.1, reads its
deliveries, and takes its bulk export (NDJSON, each line checked). Each
answer is validated against its operation's documented schema, each SSE
message and NDJSON line against its item's, and each notice the receiver got
against the ``webhooks`` entry of its kind (tests/contract/spec_check.py); then
both generated clients read every notice as the type of its kind: the Python
client's models (python_notices.py, under ``mypy --strict``) and the
TypeScript types narrowed on ``type`` (ts/notices.ts, under ``tsc --strict``).
"""

from __future__ import annotations

import json
import re
import secrets
import shutil
import sys
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml
from redis import Redis

from service.devtools.embedded_redis import EmbeddedRedis
from service.game.notices import NoticeKind
from service.store.clients import ClientRegistry
from service.web.openapi import OPENAPI_FILE
from tests.contract.spec_check import Answer, RecordingClient, SpecChecker
from tests.support.contract import BIN, CONTRACT, TS, run
from tests.support.http import auth
from tests.support.servers import LiveServer, WorkerProcess
from tests.support.waiting import wait_until
from tests.support.webhooks import Received, Receiver

GAME = "/v1/games/{game_id}"
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


def seat_client(app: RecordingClient, token: str) -> RecordingClient:
    return RecordingClient(str(app.http.base_url), app.answers, auth(token))


def play_out(seats: dict[int, RecordingClient], game_id: str) -> dict[str, Any]:
    """Both seats play their first legal action on their turns until the game is over."""
    ids = {"game_id": game_id}
    view = seats[0].call("get", GAME, params=ids).json()
    while view["status"] != "finished":
        mover = seats[view["to_move"]]
        mine = mover.call("get", GAME, params=ids).json()
        if mine["to_move"] != mine["seat"] or not mine["deal"]["legal_actions"]:
            view = mine
            continue
        acted = mover.call("post", f"{GAME}/actions", params=ids,
                           json=mine["deal"]["legal_actions"][0])  # fmt: skip
        assert acted.status_code == 200, acted.text
        view = acted.json()
    return view


@dataclass(frozen=True)
class Flow:
    """What the studio's flow received: every answer, every notice delivered."""

    answers: list[Answer]
    notices: list[Received]


@pytest.fixture(scope="module")
def flow(deployment: Deployment) -> Flow:
    answers: list[Answer] = []
    _, key = ClientRegistry(deployment.redis).create(f"studio {secrets.token_hex(3)}")
    app = RecordingClient(deployment.url, answers, {"X-Client-Key": key})
    with Receiver() as receiver:
        hook = app.call("post", "/v1/webhooks", json={"url": f"{receiver.base}/hook"}).json()
        players = {}
        for name in ("Anna", "Ben"):
            registered = app.call("post", "/v1/players", json={
                "app_player_id": f"{name.lower()}-{secrets.token_hex(4)}", "name": name})  # fmt: skip
            assert registered.status_code == 201, registered.text
            players[name] = registered.json()
        anna = seat_client(app, players["Anna"]["token"])
        ben = seat_client(app, players["Ben"]["token"])
        anna.call("get", "/v1/players/me")

        # Matchmaking: two seeks paired into a game, each seat learns its own token.
        seeks = [who.call("post", "/v1/seeks", json={"variant": "head"}).json()
                 for who in (anna, ben)]  # fmt: skip
        paired = [who.call("get", "/v1/seeks/{seek_id}", params={"seek_id": seek["seek_id"]},
                           query={"wait": 10}).json() for who, seek in zip((anna, ben), seeks, strict=True)]  # fmt: skip
        assert {seek["status"] for seek in paired} == {"paired"}, paired
        game_id = paired[0]["game_id"]
        seats = {seek["seat"]: seat_client(app, seek["token"]) for seek in paired}
        final = play_out(seats, game_id)
        ids = {"game_id": game_id}
        for seat in seats.values():
            seat.call("get", f"{GAME}/stream", params=ids, query={"include": "view"})
            seat.call("get", f"{GAME}/events", params=ids, query={"after": 0})

        # A rematch: offered by one seat, accepted by the other, resigned at once.
        offered = seats[final["winner"]].call("post", f"{GAME}/rematch", params=ids)
        assert offered.status_code in (200, 201), offered.text
        accepted = seats[1 - final["winner"]].call("post", f"{GAME}/rematch/accept", params=ids)
        assert accepted.status_code == 201, accepted.text
        rematch = accepted.json()
        seat_client(app, rematch["token"]).call("post", f"{GAME}/resign",
                                                params={"game_id": rematch["game_id"]})  # fmt: skip

        # A challenge on a clock, accepted, then resigned.
        challenge = anna.call("post", "/v1/challenges", json={
            "player_id": players["Ben"]["player"]["player_id"],
            "clock": {"seconds_per_move": 60, "on_timeout": "lose"}}).json()  # fmt: skip
        ben.call("get", "/v1/challenges")
        taken = ben.call("post", "/v1/challenges/{challenge_id}/accept",
                         params={"challenge_id": challenge["challenge_id"]})  # fmt: skip
        assert taken.status_code == 201, taken.text
        clocked = seat_client(app, taken.json()["token"])
        clocked.call("get", GAME, params={"game_id": taken.json()["game_id"]})
        clocked.call("post", f"{GAME}/resign", params={"game_id": taken.json()["game_id"]})

        # Every kind of notice arrives; the app reads its webhook and deliveries.
        kinds = {kind.value for kind in NoticeKind}

        def received_kinds() -> set[str]:
            return {json.loads(got.body)["type"] for got in receiver.received}

        wait_until(lambda: received_kinds() >= kinds, 60, "a notice of every kind")
        hooked = {"webhook_id": hook["webhook_id"]}
        app.call("get", "/v1/webhooks")
        app.call("get", "/v1/webhooks/{webhook_id}", params=hooked)
        app.call("get", "/v1/webhooks/{webhook_id}/deliveries", params=hooked)

        # The three finished games, once archived, in the bulk export (NDJSON).
        def exported() -> int:
            text = app.http.get("/v1/games/export", params={"client": "me"}).text
            return len(text.splitlines())

        wait_until(lambda: exported() >= 3, 180, "the finished games in the archive")
        app.call("get", "/v1/games/export", query={"client": "me"})
        app.call("get", "/v1/players/{player_id}/ratings",
                 params={"player_id": players["Anna"]["player"]["player_id"]})  # fmt: skip
        notices = list(receiver.received)
        # A data-protection request: Anna's export, her erasure, her games after it.
        anna = {"player_id": players["Anna"]["player"]["player_id"]}
        app.call("get", "/v1/players/{player_id}/export", params=anna)
        app.call("delete", "/v1/players/{player_id}", params=anna)
        app.call("delete", "/v1/players/{player_id}", params=anna)
        app.call("get", "/v1/games/export", query={"client": "me"})
    return Flow(answers, notices)


def test_every_answer_and_notice_of_the_studio_flow_matches_the_spec(flow):
    checker = SpecChecker(yaml.safe_load(OPENAPI_FILE.read_text()))
    mismatches = [found for answer in flow.answers for found in checker.mismatches(answer)]
    mismatches += [found for got in flow.notices
                   for found in checker.notice_mismatches(got.body, got.headers)]  # fmt: skip
    met = set(checker.checked)
    assert {f"webhook {kind.value}" for kind in NoticeKind} <= met, met
    assert {"GET /v1/games/export -> 200", "GET /v1/games/{game_id}/stream -> 200",
            "POST /v1/challenges/{challenge_id}/accept -> 201",
            "POST /v1/games/{game_id}/rematch/accept -> 201",
            "GET /v1/webhooks/{webhook_id}/deliveries -> 200",
            "GET /v1/players/{player_id}/export -> 200",
            "DELETE /v1/players/{player_id} -> 204",
            "DELETE /v1/players/{player_id} -> 404"} <= met, met  # fmt: skip
    distinct = Counter(mismatches)
    report = "\n".join(f"{count} x {text}" for text, count in distinct.most_common())
    assert mismatches == [], f"{len(mismatches)} mismatches:\n{report}"


def notices_file(flow: Flow, folder: Path) -> Path:
    path = folder / "notices.json"
    path.write_text(json.dumps([json.loads(got.body) for got in flow.notices]))
    return path


def every_kind_read(output: str, flow: Flow) -> None:
    read = dict(re.findall(r"^(\S+): (\d+)$", output, re.MULTILINE))
    assert sorted(read) == sorted(kind.value for kind in NoticeKind), output
    assert sum(map(int, read.values())) == len(flow.notices), output


def test_the_python_client_reads_every_notice_as_the_model_of_its_kind(
    flow, python_client, tmp_path
):
    program = CONTRACT / "python_notices.py"
    checked = run([str(BIN / "mypy"), "--strict", "--follow-imports=silent", "--no-incremental",
                   str(program)], cwd=python_client, MYPYPATH=str(python_client))  # fmt: skip
    assert "Success" in checked, checked
    output = run([sys.executable, str(program), str(notices_file(flow, tmp_path))],
                 cwd=python_client, PYTHONPATH=str(python_client))  # fmt: skip
    every_kind_read(output, flow)


def test_the_typescript_types_narrow_every_notice_to_its_kind(flow, npm_tools, tmp_path):
    shutil.copy(TS / "notices.ts", tmp_path / "notices.ts")
    (tmp_path / "package.json").write_text('{"type": "module"}\n')
    (tmp_path / "node_modules").symlink_to(npm_tools / "node_modules")
    tools = npm_tools / "node_modules" / ".bin"
    run([str(tools / "openapi-typescript"), str(OPENAPI_FILE), "-o", "schema.d.ts"], cwd=tmp_path)
    run([str(tools / "tsc"), "--strict", "--noUncheckedIndexedAccess",
         "--exactOptionalPropertyTypes", "--target", "ES2022", "--module", "NodeNext",
         "--moduleResolution", "NodeNext", "--outDir", "out", "notices.ts"], cwd=tmp_path)  # fmt: skip
    output = run(["node", "out/notices.js", str(notices_file(flow, tmp_path))], cwd=tmp_path)
    every_kind_read(output, flow)
