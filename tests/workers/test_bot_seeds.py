"""A bot's seed for a position cannot be computed from outside, and is the same each time.

If an opponent could compute the seed, the bot-move service (any position,
any seed) would replay the bot's very search for it: its evaluations, and so
its move, before the bot makes it.
"""

from __future__ import annotations

import hashlib
from typing import Any

import requests

from service.game.seeds import bot_seed
from tests.support.games import position_of
from tests.support.http import auth
from tests.support.paths import SECRET


def public_seed(game_id: str, version: int) -> int:
    """What anyone can compute from a game's id and version alone."""
    digest = hashlib.sha256(f"{game_id}:{version}".encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1


def decision(base: str, path: str, body: dict[str, Any], token: str | None = None) -> dict:
    answer = requests.post(
        f"{base}{path}?wait=30", json=body, headers=auth(token) if token else {}, timeout=60
    )
    assert answer.status_code == 200, answer.text
    job = answer.json()
    assert job["status"] == "finished", job
    return job["result"]


def test_the_seed_of_a_hint_cannot_be_replayed_with_the_bot_move_service(live_server, worker):
    base = live_server.url
    created = requests.post(f"{base}/v1/games", json={"seed": 41}, timeout=10).json()
    joined = requests.post(
        f"{base}/v1/games/{created['game_id']}/join", json={"invite": created["invite"]}, timeout=10
    ).json()
    tokens = {0: created["token"], 1: joined["token"]}
    game_id = created["game_id"]
    view = requests.get(f"{base}/v1/games/{game_id}", headers=auth(tokens[0]), timeout=10).json()
    token = tokens[view["to_move"]]
    view = requests.get(f"{base}/v1/games/{game_id}", headers=auth(token), timeout=10).json()
    ask = {"level": "expert", "budget_ms": 40}

    hint = decision(base, f"/v1/games/{game_id}/hint", ask, token)
    assert hint["evaluations"], hint
    # The same position gets the same seed: the same search, the same values.
    again = decision(base, f"/v1/games/{game_id}/hint", ask, token)
    assert again["evaluations"] == hint["evaluations"]

    # The opponent's replay with the seed it can compute finds other values.
    replay = decision(
        base,
        "/v1/bot/moves",
        {"position": position_of(view), **ask, "seed": public_seed(game_id, view["version"])},
    )
    assert replay["evaluations"] != hint["evaluations"]


def test_the_seed_depends_on_the_server_secret_and_not_only_on_the_position():
    secret = SECRET.encode()
    seed = bot_seed("3f2a9c1d00aa11bb", 7, secret)
    assert seed == bot_seed("3f2a9c1d00aa11bb", 7, secret)
    assert seed != public_seed("3f2a9c1d00aa11bb", 7)
    assert seed != bot_seed("3f2a9c1d00aa11bb", 7, b"another server's secret")
    assert seed != bot_seed("3f2a9c1d00aa11bb", 8, secret)
    assert 0 <= seed < 2**63
