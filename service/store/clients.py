"""Client apps and their API keys: made by an operator, stored only hashed, revocable.

Third-party apps call the service from their own backends with a key
(``Authorization: Bearer <key>`` or ``X-Client-Key: <key>``, wherever an
operation declares it: ``service.web.callers``). A key is 256 random bits; Redis
keeps only its SHA-256, so a copy of the database opens no app's account.
Per client: the idempotency scope, the rate limits and the games cap.

Redis keys (hash tag ``{clients}``: one Redis Cluster slot):

- ``sch:{clients}:key:<sha256 of the key>``  a hash: id, name, created, revoked
- ``sch:{clients}:ids``                      a hash: client id -> sha256 of its key
"""

from __future__ import annotations

import hashlib
import secrets
import time
from dataclasses import dataclass

import redis

#: Every key starts so, so a leaked one is easy to recognise (and to search for).
KEY_PREFIX = "sck_"
_TAG = "sch:{clients}"


@dataclass(frozen=True, slots=True)
class ClientApp:
    """A registered client app; never holds its key."""

    id: str
    name: str
    created: float
    revoked: bool = False

    def to_dict(self) -> dict[str, object]:
        return {"id": self.id, "name": self.name, "created": self.created, "revoked": self.revoked}


class UnknownClient(LookupError):
    """No client app has this id."""


def _fingerprint(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


def _record_key(fingerprint: str) -> str:
    return f"{_TAG}:key:{fingerprint}"


class ClientRegistry:
    """The client apps in Redis: create, list, revoke, and identify a presented key."""

    def __init__(self, client: redis.Redis):
        self.redis = client

    def create(self, name: str) -> tuple[ClientApp, str]:
        """A new client app and its key; the key is shown here once and never stored."""
        key = KEY_PREFIX + secrets.token_urlsafe(32)
        app = ClientApp(id="cl_" + secrets.token_hex(6), name=name, created=round(time.time(), 3))
        fingerprint = _fingerprint(key)
        # MULTI/EXEC: both or neither (one slot, {clients}, so a cluster runs it too).
        with self.redis.pipeline(transaction=True) as pipe:
            pipe.hset(
                _record_key(fingerprint),
                mapping={"id": app.id, "name": name, "created": app.created, "revoked": 0},
            )
            pipe.hset(f"{_TAG}:ids", app.id, fingerprint)
            pipe.execute()
        return app, key

    def list(self) -> list[ClientApp]:
        """Every client app, oldest first."""
        fingerprints = self.redis.hgetall(f"{_TAG}:ids")
        with self.redis.pipeline(transaction=False) as pipe:
            for fingerprint in fingerprints.values():
                pipe.hgetall(_record_key(fingerprint.decode()))
            records = pipe.execute()
        apps = [_app(record) for record in records if record]
        return sorted(apps, key=lambda app: app.created)

    def revoke(self, client_id: str) -> ClientApp:
        """Revoke a client's key: from the next request on it answers 401."""
        fingerprint = self.redis.hget(f"{_TAG}:ids", client_id)
        if fingerprint is None:
            raise UnknownClient(client_id)
        record_key = _record_key(fingerprint.decode())
        self.redis.hset(record_key, mapping={"revoked": 1, "revoked_at": round(time.time(), 3)})
        return _app(self.redis.hgetall(record_key))

    def get(self, client_id: str) -> ClientApp | None:
        """The client app with this id (revoked ones too); None if there is none."""
        fingerprint = self.redis.hget(f"{_TAG}:ids", client_id)
        if fingerprint is None:
            return None
        record = self.redis.hgetall(_record_key(fingerprint.decode()))
        return _app(record) if record else None

    def identify(self, key: str) -> ClientApp | None:
        """The client app a presented key belongs to (revoked ones too); None if unknown."""
        record = self.redis.hgetall(_record_key(_fingerprint(key)))
        return _app(record) if record else None


def _app(record: dict[bytes, bytes]) -> ClientApp:
    return ClientApp(
        id=record[b"id"].decode(),
        name=record[b"name"].decode(),
        created=float(record[b"created"]),
        revoked=record.get(b"revoked", b"0") == b"1",
    )
