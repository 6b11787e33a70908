"""An action on a game this process holds at the log's head costs one round trip to
Redis: the rate limits, the version check and the append in one script. A process
whose game is behind the head (another process appended) learns what came after it
from its refused append, and appends again: two.

The app runs in this process with its rate limits on, against the tests' Redis;
every command the request's thread sends to Redis is counted (a pipeline or a
script call is one round trip).
"""

from __future__ import annotations

import random
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from redis.connection import AbstractConnection

from tests.support.games import two_seated
from tests.support.http import auth
from tests.support.paths import SECRET

LIMITS_ON = {"RATE_LIMIT_PER_IP": 100_000, "RATE_LIMIT_PER_TOKEN": 100_000}


class RoundTrips:
    """Round trips to Redis sent by this thread while counting."""

    def __init__(self) -> None:
        self.sent = 0
        self.thread: int | None = None

    @contextmanager
    def counting(self) -> Iterator[None]:
        original = AbstractConnection.send_packed_command
        counter = self

        def send_packed_command(connection, command, check_health=True):
            if threading.get_ident() == counter.thread:
                counter.sent += 1
            return original(connection, command, check_health)

        self.sent, self.thread = 0, threading.get_ident()
        AbstractConnection.send_packed_command = send_packed_command  # type: ignore[method-assign]
        try:
            yield
        finally:
            AbstractConnection.send_packed_command = original  # type: ignore[method-assign]


@pytest.fixture(scope="module")
def two_processes(redis_url: str):
    """Two API apps on one Redis, each with its own memory of games, as two processes."""
    from service.web.app import create_app

    config = {"REDIS_URL": redis_url, "SECRET_KEY": SECRET, **LIMITS_ON}
    return create_app(config).test_client(), create_app(config).test_client()


def to_move(client: Any, game: str, tokens: dict[int, str], rng: random.Random):
    seen = client.get(f"/v1/games/{game}", headers=auth(tokens[0])).json
    seat = seen["to_move"]
    mover = client.get(f"/v1/games/{game}", headers=auth(tokens[seat])).json
    return seat, rng.choice(mover["deal"]["legal_actions"])


def counted_action(
    client: Any, game: str, tokens: dict[int, str], rng: random.Random, reader: Any = None
) -> int:
    """The round trips of one action sent to ``client``, the move chosen from the seats'
    views read through ``reader`` (default: the same client)."""
    seat, action = to_move(reader or client, game, tokens, rng)
    trips = RoundTrips()
    with trips.counting():
        answer = client.post(f"/v1/games/{game}/actions", json=action, headers=auth(tokens[seat]))
    assert answer.status_code == 200, answer.json
    assert answer.headers["RateLimit-Policy"]  # the limits were counted
    return trips.sent


def test_an_action_on_a_game_the_process_holds_is_one_round_trip(two_processes):
    here, _elsewhere = two_processes
    rng = random.Random(5)
    game, tokens = two_seated(here)
    counted_action(here, game, tokens, rng)  # this process now holds the game at its head

    assert counted_action(here, game, tokens, rng) == 1


def test_an_action_on_a_game_another_process_moved_is_two_round_trips(two_processes):
    here, elsewhere = two_processes
    rng = random.Random(6)
    game, tokens = two_seated(here)
    counted_action(here, game, tokens, rng)
    counted_action(elsewhere, game, tokens, rng)  # the head moves on, elsewhere

    # This process's game is behind: its append is refused with what came after it,
    # and the action is decided again and appended.
    assert counted_action(here, game, tokens, rng, reader=elsewhere) == 2
    assert counted_action(here, game, tokens, rng, reader=elsewhere) == 1


def test_an_action_on_a_game_the_process_never_read_is_two_round_trips(two_processes):
    here, elsewhere = two_processes
    rng = random.Random(7)
    game, tokens = two_seated(here)
    counted_action(here, game, tokens, rng)

    assert counted_action(elsewhere, game, tokens, rng, reader=here) == 2


def test_an_action_past_its_limit_is_refused_by_its_append_and_changes_nothing(redis_url: str):
    from service.web.app import create_app

    quota = 4
    config = {"REDIS_URL": redis_url, "SECRET_KEY": SECRET, "RATE_LIMIT_PER_TOKEN": quota}
    client = create_app(config).test_client()
    game, tokens = two_seated(client)
    seat, action = to_move(client, game, tokens, random.Random(8))
    token = tokens[seat]
    spent = 1 if seat else 2  # to_move read seat 0's view, then the mover's
    for _ in range(quota - spent):  # the seat's token spends the rest of its quota
        assert client.get(f"/v1/games/{game}", headers=auth(token)).status_code == 200
    before = client.get(f"/v1/games/{game}", headers=auth(tokens[1 - seat])).json["version"]

    trips = RoundTrips()
    with trips.counting():
        refused = client.post(f"/v1/games/{game}/actions", json=action, headers=auth(token))

    assert refused.status_code == 429, refused.json
    assert refused.json["code"] == "rate_limited"
    assert int(refused.headers["Retry-After"]) >= 1
    assert trips.sent == 1  # counted and refused by the append script, nothing appended
    after = client.get(f"/v1/games/{game}", headers=auth(tokens[1 - seat])).json["version"]
    assert after == before


def counted_view(client: Any, game: str, token: str | None) -> tuple[Any, int]:
    trips = RoundTrips()
    headers = auth(token) if token else {}
    with trips.counting():
        answer = client.get(f"/v1/games/{game}", headers=headers)
    return answer, trips.sent


def test_a_view_of_a_game_the_process_holds_is_one_round_trip(two_processes):
    here, _elsewhere = two_processes
    rng = random.Random(9)
    game, tokens = two_seated(here)
    counted_action(here, game, tokens, rng)
    for token in (tokens[0], tokens[1], None):
        answer, sent = counted_view(here, game, token)
        assert answer.status_code == 200, answer.json
        assert answer.headers["RateLimit-Policy"]  # the limits were counted, by the read
        assert sent == 1


def test_a_view_past_its_limit_is_refused_and_its_read_counted_once(redis_url: str):
    from service.web.app import create_app

    quota = 3
    config = {"REDIS_URL": redis_url, "SECRET_KEY": SECRET, "RATE_LIMIT_PER_TOKEN": quota}
    client = create_app(config).test_client()
    game, tokens = two_seated(client)
    for left in range(quota - 1, -1, -1):
        answer, sent = counted_view(client, game, tokens[0])
        assert answer.status_code == 200 and sent == 1
        assert answer.headers["RateLimit"] == f'"token";r={left};t=60' or (
            answer.headers["RateLimit"].startswith(f'"token";r={left};')
        )
    refused, sent = counted_view(client, game, tokens[0])
    assert refused.status_code == 429, refused.json
    assert refused.json["code"] == "rate_limited"
    assert int(refused.headers["Retry-After"]) >= 1
    assert sent == 1
    # A game that does not exist is refused for the limit too: the caller is judged first.
    missing, sent = counted_view(client, "0" * 16, tokens[0])
    assert missing.status_code == 429 and sent == 1
