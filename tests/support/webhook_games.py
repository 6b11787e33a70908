"""Playing over HTTP for the webhook tests: an app, a player, a game against a bot; the
documented verification snippet."""

from __future__ import annotations

import random
import re
import secrets
import time
from typing import Any

import requests
from redis import Redis

from service.store.clients import ClientRegistry
from tests.support.paths import REPO
from tests.support.players import register_over_http


def app_key(redis: Redis) -> str:
    _app, key = ClientRegistry(redis).create(f"hooks {secrets.token_hex(3)}")
    return key


def player_token(url: str, key: str, name: str = "anna") -> dict[str, Any]:
    return register_over_http(url, {"X-Client-Key": key}, name)


def register(url: str, key: str, hook_url: str, events: list[str] | None = None) -> dict[str, Any]:
    body: dict[str, Any] = {"url": hook_url}
    if events is not None:
        body["events"] = events
    answer = requests.post(
        f"{url}/v1/webhooks", json=body, headers={"X-Client-Key": key}, timeout=10
    )
    assert answer.status_code == 201, answer.text
    return answer.json()


def play_against_bot(
    url: str, player: str, seed: int, *, moves: int | None = None
) -> tuple[str, str, list[int]]:
    """A game against the random bot created with the player's token, played as seat 0 with
    random legal actions (``moves`` of them, or to the end): the game, its seat token and
    the versions at which seat 0 was to move."""
    created = requests.post(
        f"{url}/v1/games",
        json={"opponent": {"type": "bot", "level": "random"}, "seed": seed},
        headers={"Authorization": f"Bearer {player}"},
        timeout=10,
    )
    assert created.status_code == 201, created.text
    game_id, token = created.json()["game_id"], created.json()["token"]
    headers = {"Authorization": f"Bearer {token}"}
    rng = random.Random(seed)
    turns: list[int] = []
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        view = requests.get(f"{url}/v1/games/{game_id}", headers=headers, timeout=10).json()
        if view["status"] == "finished" or (moves is not None and len(turns) >= moves):
            return game_id, token, turns
        if view["to_move"] != 0:
            requests.get(
                f"{url}/v1/games/{game_id}/events",
                params={"after": view["version"], "wait": 5},
                headers=headers,
                timeout=20,
            )
            continue
        turns.append(view["version"])
        action = rng.choice(view["deal"]["legal_actions"])
        answer = requests.post(
            f"{url}/v1/games/{game_id}/actions", json=action, headers=headers, timeout=10
        )
        assert answer.status_code == 200, answer.text
    raise AssertionError("the game did not end within 120 s")


def documented_verify():
    """The Python snippet of docs/webhooks.md ("Verifying a delivery"), run as a user runs
    it, as ``(secret, headers, body, now) -> bool``: the tests check real deliveries with
    what the docs tell app developers to write. ``now`` must be the present: the snippet's
    library reads its own clock."""
    text = (REPO / "docs" / "webhooks.md").read_text()
    code = re.search(r"```python verify\n(.*?)```", text, re.S)
    assert code is not None, "docs/webhooks.md has no ```python verify block"
    namespace: dict[str, Any] = {}
    exec(compile(code.group(1), "docs/webhooks.md", "exec"), namespace)  # noqa: S102
    verify_delivery = namespace["verify_delivery"]

    def verify(secret: str, headers: dict[str, str], body: bytes, now: float) -> bool:
        assert abs(time.time() - now) < 60, "the snippet checks against its own clock"
        return verify_delivery(secret, headers, body) is not None

    return verify
