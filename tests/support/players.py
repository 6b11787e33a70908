"""Client apps and their players for tests: a key, then players registered with it."""

from __future__ import annotations

import secrets
from dataclasses import dataclass

import redis

from service.store.clients import ClientRegistry


@dataclass(frozen=True)
class AppKey:
    """A client app made for a test, and its key."""

    id: str
    key: str

    @property
    def headers(self) -> dict[str, str]:
        return {"X-Client-Key": self.key}


def new_app(client: redis.Redis, name: str = "test app") -> AppKey:
    app, key = ClientRegistry(client).create(f"{name} {secrets.token_hex(3)}")
    return AppKey(app.id, key)


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}
