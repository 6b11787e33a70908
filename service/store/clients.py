"""Client apps and their API keys: made by an operator, stored only hashed, revocable.

Third-party apps call the service from their own backends with a key
(``Authorization: Bearer <key>`` or ``X-Client-Key: <key>``, wherever an
operation declares it: ``service.web.callers``). A key is 256 random bits; only
its SHA-256 is stored, so a copy of the database or of Redis opens no app's
account. Per client: the idempotency scope, the rate limits and the games cap.

Where the apps live:

- with a database (``records``: ``service.store.app_records``, the archive's
  database) the apps live there, and Redis is a cache of them: a record read
  from the database is cached for ``CACHE_SECONDS``, a cache miss reads the
  database again, so an empty Redis costs one read per app and loses nothing.
  A revocation is committed to the database, then written over the cached
  record, which every process reads: it takes effect at once everywhere. A
  fill never writes over a cached record (``lua/client_cache.lua``), so a fill
  that read the database just before a revocation cannot undo it.
- without one (a server with no ``SCHNAPSEN_ARCHIVE_URL``; the run command
  always has its SQLite file) Redis alone keeps them, as the records below
  with no expiry.

Redis keys (hash tag ``{clients}``: one Redis Cluster slot):

- ``sch:{clients}:key:<sha256 of the key>``  a hash: id, name, created, revoked
- ``sch:{clients}:ids``                      a hash: client id -> sha256 of its key
  (an app's key never changes, so this map never goes stale)
"""

from __future__ import annotations

import hashlib
import secrets
import time
from typing import TYPE_CHECKING

import redis

from service.store.client_apps import ClientApp, StoredApp
from service.store.scripts import Script, lua_script

if TYPE_CHECKING:
    from service.store.app_records import AppRecords

#: Every key starts so, so a leaked one is easy to recognise (and to search for).
KEY_PREFIX = "sck_"
_TAG = "sch:{clients}"
_IDS = f"{_TAG}:ids"
#: Seconds a record read from the database stays cached in Redis. A revocation is
#: written to the cache at once, so this bounds only the memory of apps not in use.
CACHE_SECONDS = 3600


class UnknownClient(LookupError):
    """No client app has this id."""


def _fingerprint(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


def _record_key(fingerprint: str) -> str:
    return f"{_TAG}:key:{fingerprint}"


class ClientRegistry:
    """The client apps: create, list, revoke, and identify a presented key.

    ``records``: the database that keeps them (Redis then caches them); None:
    Redis alone keeps them.
    """

    def __init__(self, client: redis.Redis, records: AppRecords | None = None):
        self.redis = client
        self.records = records
        self._fill = Script(client, lua_script("client_cache")) if records is not None else None

    def create(self, name: str) -> tuple[ClientApp, str]:
        """A new client app and its key; the key is shown here once and never stored."""
        key = KEY_PREFIX + secrets.token_urlsafe(32)
        app = ClientApp(id="cl_" + secrets.token_hex(6), name=name, created=round(time.time(), 3))
        fingerprint = _fingerprint(key)
        if self.records is not None:
            # Committed before the key is shown: the first request finds it, in the
            # cache or, on a miss, in the database.
            self.records.add(StoredApp(app, fingerprint))
            return app, key
        # MULTI/EXEC: both or neither (one slot, {clients}, so a cluster runs it too).
        with self.redis.pipeline(transaction=True) as pipe:
            pipe.hset(_record_key(fingerprint), mapping=_fields(app))
            pipe.hset(_IDS, app.id, fingerprint)
            pipe.execute()
        return app, key

    def list(self) -> list[ClientApp]:
        """Every client app, oldest first."""
        if self.records is not None:
            return [stored.app for stored in self.records.every()]
        fingerprints = self.redis.hgetall(_IDS)
        with self.redis.pipeline(transaction=False) as pipe:
            for fingerprint in fingerprints.values():
                pipe.hgetall(_record_key(fingerprint.decode()))
            records = pipe.execute()
        apps = [_app(record) for record in records if record]
        return sorted(apps, key=lambda app: app.created)

    def revoke(self, client_id: str) -> ClientApp:
        """Revoke a client's key: from the next request on it answers 401, on every process.

        Revoking a revoked app writes its cached record again: a revocation whose
        cache write failed (Redis away) is finished by running it again.
        """
        now = round(time.time(), 3)
        if self.records is not None:
            stored = self.records.revoke(client_id, now)
            if stored is None:
                raise UnknownClient(client_id)
            with self.redis.pipeline(transaction=True) as pipe:
                pipe.hset(_record_key(stored.fingerprint), mapping=_fields(stored.app))
                pipe.expire(_record_key(stored.fingerprint), CACHE_SECONDS)
                pipe.hset(_IDS, stored.app.id, stored.fingerprint)
                pipe.execute()
            return stored.app
        fingerprint = self.redis.hget(_IDS, client_id)
        if fingerprint is None:
            raise UnknownClient(client_id)
        record_key = _record_key(fingerprint.decode())
        self.redis.hset(record_key, mapping={"revoked": 1, "revoked_at": now})
        return _app(self.redis.hgetall(record_key))

    def get(self, client_id: str) -> ClientApp | None:
        """The client app with this id (revoked ones too); None if there is none."""
        fingerprint = self.redis.hget(_IDS, client_id)
        if fingerprint is not None:
            record = self.redis.hgetall(_record_key(fingerprint.decode()))
            if record:
                return _app(record)
        if self.records is None:
            return None
        stored = self.records.by_id(client_id)
        return None if stored is None else self._cached(stored)

    def identify(self, key: str) -> ClientApp | None:
        """The client app a presented key belongs to (revoked ones too); None if unknown."""
        fingerprint = _fingerprint(key)
        record = self.redis.hgetall(_record_key(fingerprint))
        if record:
            return _app(record)
        if self.records is None:
            return None
        stored = self.records.by_fingerprint(fingerprint)
        return None if stored is None else self._cached(stored)

    def _cached(self, stored: StoredApp) -> ClientApp:
        """``stored``, read from the database, put in the cache unless a record is there."""
        assert self._fill is not None
        fields = [part for pair in _fields(stored.app).items() for part in pair]
        self._fill(keys=[_record_key(stored.fingerprint)], args=[CACHE_SECONDS, *fields])
        self.redis.hset(_IDS, stored.app.id, stored.fingerprint)
        return stored.app


def _fields(app: ClientApp) -> dict[str, str | float | int]:
    """A cached record's fields."""
    return {"id": app.id, "name": app.name, "created": app.created, "revoked": int(app.revoked)}


def _app(record: dict[bytes, bytes]) -> ClientApp:
    return ClientApp(
        id=record[b"id"].decode(),
        name=record[b"name"].decode(),
        created=float(record[b"created"]),
        revoked=record.get(b"revoked", b"0") == b"1",
    )
