"""Webhook endpoints in the database of record, the same promises on both back ends
(SQLite in a file, PostgreSQL on a real server, a database of its own per test): an
endpoint is kept with its secret and read back by its app alone, the app's cap holds
when creations race, an update or a delete of an endpoint that is gone says so, and
an empty Redis loses none."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from dataclasses import replace

import pytest
import redis

from service.store.records_db import open_records_database
from service.store.webhook_records import WebhookRecords
from service.store.webhooks import TooManyEndpoints, UnknownEndpoint
from tests.support.postgres import fresh_database

BACK_ENDS = [
    pytest.param("sqlite", id="sqlite"),
    pytest.param("postgresql", id="postgresql", marks=pytest.mark.redis),
]
RACERS = 8
CAP = 3


@pytest.fixture(params=BACK_ENDS)
def database(request: pytest.FixtureRequest, tmp_path) -> Iterator[str]:
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'records.sqlite3'}"
        return
    with fresh_database(request.getfixturevalue("postgres_url")) as url:
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
