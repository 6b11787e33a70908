"""Playing games over HTTP against the API replicas of a topology, request by request.

Every request goes to the next replica (``Topology.next_url``), and every POST
carries an Idempotency-Key and is sent again with it until it has an answer,
as a client behind a load balancer does while a Redis node fails over.
"""

from __future__ import annotations

import random
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import requests

from service.live.cluster import channel
from service.store.events import keys
from tests.support.http import auth

#: Statuses after which a client sends the same request again (same key).
RETRIED = (502, 503, 504)


def send(
    url: Callable[[], str],
    method: str,
    path: str,
    *,
    session: requests.Session,
    deadline: float = 60.0,
    **kwargs: Any,
) -> requests.Response:
    """One request, retried (to the next replica) on 5xx or a lost connection until
    ``deadline`` seconds have passed; the last answer, whatever it is."""
    until = time.monotonic() + deadline
    while True:
        try:
            answer = session.request(method, url() + path, timeout=30, **kwargs)
            if answer.status_code not in RETRIED or time.monotonic() > until:
                return answer
        except (requests.ConnectionError, requests.exceptions.ChunkedEncodingError):
            if time.monotonic() > until:
                raise
        time.sleep(0.05)


@dataclass
class HumanGame:
    """A game between two people, both seats played by one client."""

    game_id: str
    tokens: tuple[str, str]
    #: (seat, action) of every action the service acknowledged, in order.
    acknowledged: list[tuple[int, dict[str, Any]]] = field(default_factory=list)
    finished: bool = False


def new_human_game(url: Callable[[], str], session: requests.Session) -> HumanGame:
    key = {"Idempotency-Key": str(uuid.uuid4())}
    created = send(url, "POST", "/v1/games", session=session, json={}, headers=key)
    assert created.status_code == 201, created.text
    game = created.json()
    invite = {"invite": game["invite"]}
    joined = send(
        url,
        "POST",
        f"/v1/games/{game['game_id']}/join",
        session=session,
        json=invite,
        headers={"Idempotency-Key": str(uuid.uuid4())},
    )
    assert joined.status_code in (200, 201), joined.text
    return HumanGame(game["game_id"], (game["token"], joined.json()["token"]))


def view(url: Callable[[], str], session: requests.Session, game: HumanGame, seat: int) -> dict:
    answer = send(
        url, "GET", f"/v1/games/{game.game_id}", session=session, headers=auth(game.tokens[seat])
    )
    assert answer.status_code == 200, answer.text
    return answer.json()


def play_one(
    url: Callable[[], str], session: requests.Session, game: HumanGame, rng: random.Random
) -> requests.Response | None:
    """The seat to move takes a random legal action (retried with its key until answered);
    None when the game is over."""
    seen = view(url, session, game, 0)
    if seen["status"] == "finished":
        game.finished = True
        return None
    seat = seen["to_move"]
    mine = view(url, session, game, seat)
    action = rng.choice(mine["deal"]["legal_actions"])
    answer = send(
        url,
        "POST",
        f"/v1/games/{game.game_id}/actions",
        session=session,
        json=action,
        headers={**auth(game.tokens[seat]), "Idempotency-Key": str(uuid.uuid4())},
    )
    if answer.status_code == 200:
        game.acknowledged.append((seat, action))
        game.finished = answer.json().get("status") == "finished"
    return answer


def shard_subscribers(topology, game_id: str) -> int:
    """Subscribers of the game's shard channel on the primary that holds its slot."""
    primary = topology.cluster.node_of(keys(game_id)["log"])
    _channel, count = primary.client().execute_command("PUBSUB", "SHARDNUMSUB", channel(game_id))
    return int(count)
