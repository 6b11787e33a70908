"""Webhook endpoints in the database of record, the same promises on both back ends
(SQLite in a file, PostgreSQL on a real server, a database of its own per test): an
endpoint is kept with its secret and read back by its app alone, the app's cap holds
when creations race, an update or a delete of an endpoint that is gone says so, and
an empty Redis loses none; a delivery is kept once, logged newest first, and let go
by age."""

from __future__ import annotations

import contextlib
import json
import sqlite3
import threading
from collections.abc import Iterator
from dataclasses import replace

import psycopg
import pytest
import redis

from service.game.notices import Notice, NoticeKind
from service.store.records_db import open_records_database
from service.store.webhook_records import WebhookRecords
from service.store.webhooks import (
    Delivery,
    TooManyEndpoints,
    UnknownDelivery,
    UnknownEndpoint,
)
from tests.support.postgres import records_database

BACK_ENDS = [
    pytest.param("sqlite", id="sqlite"),
    pytest.param("postgresql", id="postgresql", marks=pytest.mark.redis),
]
RACERS = 8
CAP = 3


@pytest.fixture(params=BACK_ENDS)
def database(request: pytest.FixtureRequest, tmp_path) -> Iterator[str]:
    with records_database(
        request.param, lambda: request.getfixturevalue("postgres_url"), tmp_path
    ) as url:
        yield url


@contextlib.contextmanager
def endpoints(redis_url: str, database: str) -> Iterator[WebhookRecords]:
    """The endpoints as one process of the service sees them: its own connections."""
    db = open_records_database(database)
    try:
        yield WebhookRecords(redis.Redis.from_url(redis_url), db, endpoints_per_client=CAP)
    finally:
        db.close()


def test_an_endpoint_is_kept_with_its_secret_and_read_by_its_app_alone(
    database: str, redis_url: str
):
    with endpoints(redis_url, database) as store:
        made = store.create("app-a", "https://a.example/hook", ["game.finished"], "whsec_x", "A")
        redis.Redis.from_url(redis_url).delete("sch:{client:app-a}:webhooks")
    with endpoints(redis_url, database) as other:
        assert other.get("app-a", made.id) == made
        assert other.all("app-a") == [made]
        assert other.all("app-b") == []
        with pytest.raises(UnknownEndpoint):
            other.get("app-b", made.id)
        rotated = other.save("app-a", replace(made, secret="whsec_y", disabled=True))
        assert other.get("app-a", made.id) == rotated
        other.delete("app-a", made.id)
        with pytest.raises(UnknownEndpoint):
            other.save("app-a", rotated)
        with pytest.raises(UnknownEndpoint):
            other.delete("app-a", made.id)


def test_racing_creations_stay_within_the_apps_cap(database: str, redis_url: str):
    made, refused = [], []
    start = threading.Barrier(RACERS)

    def one(n: int) -> None:
        with endpoints(redis_url, database) as store:
            start.wait()
            try:
                made.append(store.create("app-a", f"https://a.example/{n}", ["game.turn"], "s"))
            except TooManyEndpoints:
                refused.append(n)

    threads = [threading.Thread(target=one, args=(n,)) for n in range(RACERS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(made) == CAP and len(refused) == RACERS - CAP
    with endpoints(redis_url, database) as store:
        assert {e.id for e in store.all("app-a")} == {e.id for e in made}


def _age(database: str, delivery_id: str) -> None:
    """A delivery past its age, as three days would leave it."""
    if database.startswith("sqlite:///"):
        with contextlib.closing(sqlite3.connect(database.removeprefix("sqlite:///"))) as db:
            db.execute(
                "UPDATE webhook_deliveries SET kept_until_ms = 0 WHERE delivery_id = ?",
                (delivery_id,),
            )
            db.commit()
        return
    with psycopg.connect(database) as db:
        db.execute(
            "UPDATE webhook_deliveries SET kept_until_ms = 0 WHERE delivery_id = %s",
            (delivery_id,),
        )


def _count(database: str) -> int:
    if database.startswith("sqlite:///"):
        with contextlib.closing(sqlite3.connect(database.removeprefix("sqlite:///"))) as db:
            return db.execute("SELECT count(*) FROM webhook_deliveries").fetchone()[0]
    with psycopg.connect(database) as db:
        return db.execute("SELECT count(*) FROM webhook_deliveries").fetchone()[0]


def _delivery(endpoint_id: str, n: int) -> Delivery:
    notice = Notice(NoticeKind.GAME_TURN, f"game{n}", n, 0)
    return Delivery.of(endpoint_id, notice, json.dumps({"n": n}), 1_800_000_000_000 + n)


def test_deliveries_are_kept_once_logged_newest_first_and_let_go_by_age(
    database: str, redis_url: str
):
    with endpoints(redis_url, database) as store:
        hook = store.create("app-a", "https://a.example/hook", ["game.turn"], "s")
        first, second = _delivery(hook.id, 1), _delivery(hook.id, 2)
        assert store.add_delivery("app-a", first) and store.add_delivery("app-a", second)
        assert not store.add_delivery("app-a", first)  # the same notice: one delivery
        tried = store.record_attempt(
            "app-a", first, status=500, latency_ms=12.3, error=None, state="failed"
        )
        assert store.delivery("app-a", first.id) == tried
        again = store.record_again("app-a", tried)
        assert store.delivery("app-a", first.id) == again and again.state == "pending"
        assert [d.id for d in store.log("app-a", hook.id, 10)] == [second.id, first.id]
        with pytest.raises(UnknownDelivery):
            store.delivery("app-b", first.id)
        _age(database, second.id)
        with pytest.raises(UnknownDelivery):
            store.delivery("app-a", second.id)
        assert [d.id for d in store.log("app-a", hook.id, 10)] == [first.id]
        assert store.add_delivery("app-a", _delivery(hook.id, 3))
        assert _count(database) == 2  # the aged one went when the next came
        store.delete("app-a", hook.id)
        assert _count(database) == 0
