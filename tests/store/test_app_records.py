"""Client apps in the database, Redis a cache of them: the same promises on both back
ends (SQLite in a file, PostgreSQL on a real server, a database of its own per test).

An empty cache is a miss, never a loss; a revocation holds at once for every
process that shares the Redis, and a cache fill from an older read of the
database never undoes it; only a key's hash is stored.
"""

from __future__ import annotations

import contextlib
import hashlib
import sqlite3
from collections.abc import Iterator

import psycopg
import pytest
import redis

from service.store.app_records import AppRecords, open_app_records
from service.store.clients import ClientRegistry, UnknownClient
from tests.support.postgres import records_database

BACK_ENDS = [
    pytest.param("sqlite", id="sqlite"),
    pytest.param("postgresql", id="postgresql", marks=pytest.mark.redis),
]


@pytest.fixture(params=BACK_ENDS)
def database(request: pytest.FixtureRequest, tmp_path) -> Iterator[str]:
    with records_database(
        request.param, lambda: request.getfixturevalue("postgres_url"), tmp_path
    ) as url:
        yield url


@contextlib.contextmanager
def process(redis_url: str, database: str) -> Iterator[ClientRegistry]:
    """The registry one process of the service builds: its own connections."""
    records: AppRecords = open_app_records(database)
    try:
        yield ClientRegistry(redis.Redis.from_url(redis_url), records)
    finally:
        records.close()


def forget_cache(redis_url: str, fingerprint: str, client_id: str) -> None:
    """What Redis caches of one app, gone (a flushed or new Redis)."""
    client = redis.Redis.from_url(redis_url)
    client.delete(f"sch:{{clients}}:key:{fingerprint}")
    client.hdel("sch:{clients}:ids", client_id)


def rows(database: str) -> list[tuple]:
    if database.startswith("sqlite:///"):
        with contextlib.closing(sqlite3.connect(database.removeprefix("sqlite:///"))) as db:
            return db.execute("SELECT * FROM client_apps").fetchall()
    with psycopg.connect(database) as db:
        return db.execute("SELECT * FROM client_apps").fetchall()


def test_an_app_is_found_by_its_key_and_its_id_once_redis_has_forgotten_it(
    database: str, redis_url: str
):
    with process(redis_url, database) as one, process(redis_url, database) as other:
        app, key = one.create("found again")
        fingerprint = hashlib.sha256(key.encode()).hexdigest()
        forget_cache(redis_url, fingerprint, app.id)
        assert other.identify(key) == app
        forget_cache(redis_url, fingerprint, app.id)
        assert other.get(app.id) == app
        assert other.identify(key + "x") is None and other.get("cl_000000000000") is None
        assert [found.id for found in other.list()] == [app.id]


def test_a_revocation_holds_at_once_for_every_process_sharing_the_redis(
    database: str, redis_url: str
):
    with process(redis_url, database) as one, process(redis_url, database) as other:
        app, key = one.create("revoked")
        found = other.identify(key)
        assert found is not None and not found.revoked  # now cached as active
        assert one.revoke(app.id).revoked
        found = other.identify(key)
        assert found is not None and found.revoked
        again = other.get(app.id)
        assert again is not None and again.revoked
        with pytest.raises(UnknownClient):
            one.revoke("cl_000000000000")


def test_a_cache_fill_read_before_a_revocation_does_not_undo_it(database: str, redis_url: str):
    with process(redis_url, database) as one:
        app, key = one.create("fill races revoke")
        assert one.records is not None
        stale = one.records.by_id(app.id)  # read by a request just before the revocation
        assert stale is not None and not stale.app.revoked
        one.revoke(app.id)
        one._cached(stale)  # that request's fill lands after the revocation's cache write
        found = one.identify(key)
        assert found is not None and found.revoked


def test_the_database_holds_a_key_only_as_its_hash(database: str, redis_url: str):
    with process(redis_url, database) as one:
        apps = [one.create(f"app {n}") for n in range(3)]
    kept = rows(database)
    assert len(kept) == 3
    for app, key in apps:
        assert not any(key in str(value) for row in kept for value in row)
        assert (app.id, hashlib.sha256(key.encode()).hexdigest()) in {
            (row[0], row[2]) for row in kept
        }
    with process(redis_url, database) as other:
        listed = other.list()
    assert {app for app in listed} == {app for app, _ in apps}
    assert [app.created for app in listed] == sorted(app.created for app in listed)
