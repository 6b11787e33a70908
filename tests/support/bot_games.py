"""Games against a bot over HTTP through Flask's test client, a worker playing the bot."""

from __future__ import annotations

import random
import time
from typing import Any

from tests.support.http import auth


def create_bot_game(client, level: str, **options: Any) -> dict[str, Any]:
    response = client.post(
        "/v1/games", json={"opponent": {"type": "bot", "level": level}, **options}
    )
    assert response.status_code == 201, response.json
    return response.json


def wait_for_turn(client, game_id: str, token: str, timeout: float = 60) -> dict[str, Any]:
    """Long-poll until the human (seat 0) is to move or the game is over; the view then."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        view = client.get(f"/v1/games/{game_id}", headers=auth(token)).json
        if view["status"] == "finished" or view["to_move"] == 0:
            return view
        client.get(
            f"/v1/games/{game_id}/events?after={view['version']}&wait=5", headers=auth(token)
        )
    raise AssertionError(f"the bot did not move within {timeout} s")


def play_against_bot(client, level: str, seed: int, **options: Any) -> tuple[str, dict[str, Any]]:
    """Play a whole game as seat 0 with random legal actions; the game id and final view."""
    created = create_bot_game(client, level, seed=seed, **options)
    game_id, token = created["game_id"], created["token"]
    rng = random.Random(seed)
    while True:
        view = wait_for_turn(client, game_id, token)
        if view["status"] == "finished":
            return game_id, view
        action = rng.choice(view["deal"]["legal_actions"])
        response = client.post(f"/v1/games/{game_id}/actions", json=action, headers=auth(token))
        assert response.status_code == 200, response.json
