"""A player's erasure racing the jobs that copy its games: the archiving of a game that just
ended, and a webhook delivery's attempt. Each job reads what names the player before the
erasure and writes after it; what the job writes must not name the player.

A live gunicorn serves the erasure (``DELETE /v1/players/{id}``) on a Redis and a SQLite
database of their own; the job's step runs in this process on the same stores, as a
worker's would: the archiver (``GameArchiver``) and the webhook store (``WebhookStore``),
with the erasure arriving between its read and its write.
"""

from __future__ import annotations

import contextlib
import json
import secrets
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import redis
import requests

from service.devtools.embedded_redis import EmbeddedRedis
from service.store import archive_codec
from service.store.archive import open_archive
from service.store.archiving import GameArchiver
from service.store.records_db import open_records_database
from service.store.webhook_records import WebhookRecords
from service.store.webhooks import WebhookStore
from tests.support.http import auth
from tests.support.players import AppKey, new_app
from tests.support.servers import LiveServer
from tests.support.waiting import wait_until


@dataclass(frozen=True)
class Deployment:
    server: LiveServer
    redis: redis.Redis
    database_url: str | None


@contextlib.contextmanager
def deployed(where: Path, database_url: str | None) -> Iterator[Deployment]:
    """A Redis and a database of their own (``None``: none, Redis keeps the records),
    and a gunicorn on them; no worker: the test runs the job's steps itself."""
    redis_server = EmbeddedRedis(where / "redis").start()
    env = {"SCHNAPSEN_WEBHOOK_ALLOW_ADDRESSES": "127.0.0.1/32"}
    if database_url is not None:
        env["SCHNAPSEN_ARCHIVE_URL"] = database_url
    server = LiveServer(redis_server.url, workers=1, env=env)
    client = redis.Redis.from_url(redis_server.url)
    try:
        yield Deployment(server, client, database_url)
    finally:
        client.close()
        server.stop()
        redis_server.stop()


@pytest.fixture(scope="module")
def deployment(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Deployment]:
    where = tmp_path_factory.mktemp("erasure-races")
    with deployed(where, f"sqlite:///{where / 'records.sqlite3'}") as done:
        yield done


def call(server: LiveServer, method: str, path: str, key: str | None, **kwargs: Any) -> Any:
    headers = auth(key) if key else {}
    answer = requests.request(method, f"{server.url}{path}", headers=headers, timeout=30, **kwargs)
    assert answer.status_code < 300, f"{method} {path}: {answer.status_code} {answer.text}"
    return answer.json() if answer.content else None


def register(server: LiveServer, key: str, name: str) -> dict[str, Any]:
    body = {"app_player_id": f"user-{secrets.token_hex(5)}", "name": name}
    return call(server, "POST", "/v1/players", key, json=body)


def resigned_game(server: LiveServer, creator: dict, joiner: dict) -> str:
    """A game the creator made and the joiner joined, resigned by the joiner."""
    created = call(server, "POST", "/v1/games", creator["token"], json={})
    game_id = created["game_id"]
    joined = call(
        server,
        "POST",
        f"/v1/games/{game_id}/join",
        joiner["token"],
        json={"invite": created["invite"]},
    )
    call(server, "POST", f"/v1/games/{game_id}/resign", joined["token"])
    return game_id


class ErasedAfterTheRead(GameArchiver):
    """The archiving job, with the erasure served between its read of the game and its
    write of the row."""

    def __init__(self, *args: Any, erase: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.erase = erase

    def read(self, game_id: str) -> archive_codec.ArchivedGame | None:
        game = super().read(game_id)
        self.erase()
        return game


def test_a_game_archived_while_its_player_is_erased_is_archived_without_the_player(
    deployment: Deployment,
):
    server = deployment.server
    app = new_app(deployment.redis, "archive race")
    erased = register(server, app.key, "Zelda Archived")
    kept = register(server, app.key, "Bruno")
    erased_id = erased["player"]["player_id"]
    game_id = resigned_game(server, erased, kept)

    assert deployment.database_url is not None
    archive = open_archive(deployment.database_url)
    try:
        archiver = ErasedAfterTheRead(
            deployment.redis,
            archive,
            grace_seconds=600,
            erase=lambda: call(server, "DELETE", f"/v1/players/{erased_id}", app.key),
        )
        assert archiver.archive_game(game_id) is not None
        record = archive.get(game_id)
        assert record is not None
        fields = archive_codec.decode(record.data).seat_fields
    finally:
        archive.close()
    assert erased_id not in json.dumps(fields), fields
    assert fields.get("erased:0") == "1", fields
    assert fields.get("pid:1") == kept["player"]["player_id"], fields


@pytest.mark.parametrize("records", ["database", "redis"])
def test_a_webhook_attempt_in_flight_during_the_erasure_keeps_the_anonymised_body(
    records: str, deployment: Deployment, tmp_path: Path
):
    if records == "database":
        attempt_on(deployment)
        return
    with deployed(tmp_path, None) as redis_only:
        attempt_on(redis_only)


def attempt_on(deployment: Deployment) -> None:
    """An attempt reads a delivery naming the player, the player is erased, then the
    attempt records its outcome: the delivery's log names the player no more."""
    server = deployment.server
    app = new_app(deployment.redis, "delivery race")
    hook = call(server, "POST", "/v1/webhooks", app.key, json={"url": "http://127.0.0.1:9/hook"})
    erased = register(server, app.key, "Zelda Notified")
    kept = register(server, app.key, "Bruno")
    erased_id = erased["player"]["player_id"]
    resigned_game(server, erased, kept)
    path = f"/v1/webhooks/{hook['webhook_id']}/deliveries?limit=200"

    def naming() -> list[dict[str, Any]]:
        found = call(server, "GET", path, app.key)["deliveries"]
        return [d for d in found if erased_id in d["body"]]

    delivery_id = wait_until(naming, 30, "a delivery naming the player")[0]["delivery_id"]
    with contextlib.ExitStack() as stack:
        store = WebhookStore(deployment.redis)
        if deployment.database_url is not None:
            db = open_records_database(deployment.database_url)
            stack.callback(db.close)
            store = WebhookRecords(deployment.redis, db)
        attempt_across_the_erasure(store, server, app, delivery_id, erased_id)
    logged = call(server, "GET", path, app.key)["deliveries"]
    assert [d for d in logged if erased_id in d["body"]] == []
    attempted = next(d for d in logged if d["delivery_id"] == delivery_id)
    assert attempted["state"] == "delivered" and attempted["attempts"] == 1


def attempt_across_the_erasure(
    store: WebhookStore, server: LiveServer, app: AppKey, delivery_id: str, erased_id: str
) -> None:
    in_flight = store.delivery(app.id, delivery_id)  # the attempt reads its delivery
    assert erased_id in in_flight.body
    call(server, "DELETE", f"/v1/players/{erased_id}", app.key)
    store.record_attempt(  # ... and records how its post went, after the erasure
        app.id, in_flight, status=200, latency_ms=12.5, error=None, state="delivered"
    )
