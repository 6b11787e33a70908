"""Games over HTTP: created, joined, viewed and played through ``Api``, as a client does.

Each function asserts the status of each answer, so a test reads as the game's
story; ``play_random_game`` is the one random player of whole games over HTTP.
``two_seated`` and ``random_move`` do the same on Flask's bare test client, for
the tests that read its answers as they are.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from tests.support.http import Api, auth, ok

#: The fields of the view's `deal` a bot-move Position takes as they are.
DEAL_FIELDS = (
    "dealer",
    "hand",
    "trump_card",
    "turn_up",
    "talon_size",
    "closed_by",
    "tricks",
    "current_trick",
    "marriages",
    "declared_marriage",
    "exchange",
)


@dataclass
class Game:
    """A game created over HTTP: its id and the two seats' tokens."""

    game_id: str
    tokens: dict[int, str]
    invite: str | None = None
    version: int = 0
    sent: list[tuple[int, dict[str, Any]]] = field(default_factory=list)

    @property
    def path(self) -> str:
        return f"/v1/games/{self.game_id}"


def create(
    api: Api, body: Mapping[str, Any] | None = None, *, key: str | None = None, status: int = 201
) -> dict[str, Any]:
    headers = {"Idempotency-Key": key} if key else None
    return ok(api.post("/v1/games", json_body=dict(body or {}), headers=headers), status)


def join(api: Api, game_id: str, invite: str, *, key: str | None = None) -> dict[str, Any]:
    headers = {"Idempotency-Key": key} if key else None
    reply = api.post(f"/v1/games/{game_id}/join", json_body={"invite": invite}, headers=headers)
    return ok(reply, (200, 201))


def new_game(api: Api, **body: Any) -> Game:
    """A game with both human seats taken."""
    created = create(api, body)
    joined = join(api, created["game_id"], created["invite"])
    assert joined["seat"] == 1 and created["seat"] == 0
    return Game(
        created["game_id"],
        {0: created["token"], 1: joined["token"]},
        created["invite"],
        joined["version"],
    )


def view(api: Api, game_id: str, token: str | None = None) -> dict[str, Any]:
    return ok(api.get(f"/v1/games/{game_id}", token=token))


def act(
    api: Api,
    game: Game,
    seat: int,
    action: Mapping[str, Any],
    *,
    expected_version: int | None = None,
    if_match: str | None = None,
    key: str | None = None,
) -> dict[str, Any]:
    """One successful action for ``seat``: its new view."""
    body = dict(action)
    if expected_version is not None:
        body["expected_version"] = expected_version
    headers = {}
    if if_match is not None:
        headers["If-Match"] = if_match
    if key is not None:
        headers["Idempotency-Key"] = key
    reply = api.post(
        f"{game.path}/actions", json_body=body, token=game.tokens[seat], headers=headers
    )
    answer = ok(reply, (200, 201))
    assert answer["seat"] == seat
    assert reply.headers.get("ETag") == f'"{answer["version"]}"'
    game.sent.append((seat, dict(action)))
    game.version = answer["version"]
    return answer


def to_move_view(api: Api, game: Game) -> dict[str, Any] | None:
    """The view of the seat to move (None once the game is over)."""
    seen = view(api, game.game_id, game.tokens[0])
    if seen["status"] == "finished":
        return None
    seat = seen["to_move"]
    assert seat in (0, 1), seen
    return seen if seat == 0 else view(api, game.game_id, game.tokens[1])


def play_random_game(
    api: Api,
    game: Game,
    rng: random.Random,
    *,
    after_each: Callable[[Game, dict[str, Any]], None] | None = None,
    max_actions: int = 2000,
) -> dict[str, Any]:
    """Play to the end, each seat choosing uniformly among the legal actions it is shown."""
    for _ in range(max_actions):
        seen = to_move_view(api, game)
        if seen is None:
            return view(api, game.game_id, game.tokens[0])
        legal = seen["deal"]["legal_actions"]
        assert legal, seen
        answer = act(api, game, seen["seat"], rng.choice(legal))
        if after_each is not None:
            after_each(game, answer)
    raise AssertionError(f"game {game.game_id} did not end in {max_actions} actions")


def position_of(view: dict[str, Any]) -> dict[str, Any]:
    """The Position of a seat's view: copied fields only."""
    deal = view["deal"]
    return {
        "variant": view["variant"],
        "seat": view["seat"],
        "game_points": view["game_points"],
        **{name: deal[name] for name in DEAL_FIELDS},
    }


def two_seated(client: Any, **body: Any) -> tuple[str, dict[int, str]]:
    """A game created and joined through Flask's test client: its id and both seats' tokens."""
    created = client.post("/v1/games", json=body).json
    game = created["game_id"]
    joined = client.post(f"/v1/games/{game}/join", json={"invite": created["invite"]}).json
    return game, {0: created["token"], 1: joined["token"]}


def random_move(
    client: Any, game: str, tokens: Mapping[int, str], rng: random.Random
) -> tuple[int, dict[str, Any], Any] | None:
    """The seat to move takes a random legal action through Flask's test client.

    Returns the seat, the action and the answer (asserted 200); None once the game
    is over. Seat 0's view says who is to move, the mover's view lists its actions.
    """
    view = client.get(f"/v1/games/{game}", headers=auth(tokens[0])).json
    if view["status"] == "finished":
        return None
    seat = view["to_move"]
    mover = client.get(f"/v1/games/{game}", headers=auth(tokens[seat])).json
    action = rng.choice(mover["deal"]["legal_actions"])
    response = client.post(f"/v1/games/{game}/actions", json=action, headers=auth(tokens[seat]))
    assert response.status_code == 200, response.json
    return seat, action, response
