"""Client apps and their players for tests: a key, then players registered with it."""

from __future__ import annotations

import secrets
import time
from dataclasses import dataclass

import redis
import requests
from flask.testing import FlaskClient

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


def register_over_http(url: str, headers: dict[str, str], name: str = "Player") -> dict:
    """A new player of the app whose key ``headers`` carry, registered over HTTP: the
    answer's body (``player`` and its ``token``)."""
    answer = requests.post(
        f"{url}/v1/players",
        json={"app_player_id": f"p-{secrets.token_hex(6)}", "name": name},
        headers=headers,
        timeout=30,
    )
    assert answer.status_code == 201, answer.text
    return answer.json()


def register_in_process(http: FlaskClient, app: AppKey, name: str = "Anna") -> tuple[str, str]:
    """A new player of ``app``, registered through the app's test client ``http``: its id
    and its token (the ``app_player_id`` is new each time, so a name may be used twice)."""
    answer = http.post(
        "/v1/players",
        json={"app_player_id": f"p-{name}-{time.time_ns()}", "name": name},
        headers=app.headers,
    )
    assert answer.status_code == 201, answer.get_data(as_text=True)
    return answer.json["player"]["player_id"], answer.json["token"]
