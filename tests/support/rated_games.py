"""Rated games between players for tests: made, played to a given number of tricks, ended.

Through ``Api``, so the same steps run against a live server or Flask's test client.
"""

from __future__ import annotations

import random
from typing import Any

from tests.support.http import Api, ok

#: The tricks a rated game needs before its result counts for both players (RX7).
MIN_TRICKS = 3


def rated_game(api: Api, first: str, second: str) -> tuple[str, dict[int, str]]:
    """A rated game created by the player of token ``first`` and joined by ``second``'s:
    its id and its seats' tokens."""
    created = ok(api.post("/v1/games", json_body={"rated": True}, token=first), 201)
    joined = ok(
        api.post(
            f"/v1/games/{created['game_id']}/join",
            json_body={"invite": created["invite"]},
            token=second,
        ),
        (200, 201),
    )
    return created["game_id"], {0: created["token"], 1: joined["token"]}


def play_tricks(
    api: Api, game_id: str, tokens: dict[int, str], tricks: int, rng: random.Random | None = None
) -> dict[str, Any]:
    """Play until ``tricks`` tricks of the game are complete (or a deal has ended, or the
    game), each seat playing a card when it may: the last view of seat 0."""
    rng = rng or random.Random(0)
    plays = 0
    for _ in range(200):
        seen = ok(api.get(f"/v1/games/{game_id}", token=tokens[0]))
        if seen["status"] == "finished" or plays >= 2 * tricks or seen["deals"]:
            return seen
        seat = seen["to_move"]
        mover = ok(api.get(f"/v1/games/{game_id}", token=tokens[seat]))
        legal = mover["deal"]["legal_actions"]
        cards = [action for action in legal if action["type"] == "play"]
        action = rng.choice(cards or legal)
        ok(api.post(f"/v1/games/{game_id}/actions", json_body=action, token=tokens[seat]))
        plays += action["type"] == "play"
    raise AssertionError(f"game {game_id}: {tricks} tricks were not played")


def resign(api: Api, game_id: str, token: str) -> dict[str, Any]:
    return ok(api.post(f"/v1/games/{game_id}/resign", token=token))
