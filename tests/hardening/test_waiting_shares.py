"""Shares of the waiting slots, against a live gunicorn: no one caller or game takes them all.

A server process holds at most ``SCHNAPSEN_MAX_WAITING`` long-polls and SSE
streams. Without shares, one address that opens that many streams on one game
leaves every other player a 503. Each anonymous address, each client app (by
its key) and each game may hold only its share; past it, 429 (the caller's
share) or 503 (the game's) with ``Retry-After``, while other callers and games
still find slots. Slots come back when the clients leave.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import pytest
import requests

from service.store.clients import ClientRegistry
from tests.support.http import session_from
from tests.support.servers import LiveServer
from tests.support.waiting import wait_until

#: Bounds a hang only: every answer here should take milliseconds.
HANG = 10


def is_problem(answer: requests.Response, status: int, code: str) -> bool:
    return (
        answer.status_code == status
        and answer.headers.get("Content-Type") == "application/problem+json"
        and answer.json()["code"] == code
        and int(answer.headers["Retry-After"]) >= 1
    )


def said(answer: requests.Response) -> str:
    """An answer's status, and its body unless it is a stream held open."""
    return f"{answer.status_code}" + ("" if answer.status_code == 200 else f" {answer.text}")


@contextmanager
def server_with(redis_url: str, **settings: int) -> Iterator[LiveServer]:
    """One gevent process (the counts are per process) with these waiting settings."""
    env = {f"SCHNAPSEN_{name.upper()}": str(value) for name, value in settings.items()}
    # Heartbeats an hour apart: a stream stays open until its client leaves.
    env["SCHNAPSEN_SSE_HEARTBEAT_SECONDS"] = "3600"
    live = LiveServer(redis_url, workers=1, env=env)
    try:
        yield live
    finally:
        live.stop()


def new_game(url: str) -> str:
    """A new game waiting for its second player: nothing happens on it meanwhile."""
    return requests.post(f"{url}/v1/games", json={}, timeout=HANG).json()["game_id"]


class Streams:
    """SSE streams held open, each on its own connection; closed at the end."""

    def __init__(self, url: str):
        self.url = url
        self.held: list[requests.Response] = []

    def open(self, game_id: str, source: str, **headers: str) -> requests.Response:
        """Open a stream on ``game_id`` from address ``source``; its answer (held if 200)."""
        answer = session_from(source).get(
            f"{self.url}/v1/games/{game_id}/stream",
            headers=headers,
            stream=True,
            timeout=HANG,
        )
        if answer.status_code == 200:
            self.held.append(answer)
        return answer

    def close(self, answers: list[requests.Response] | None = None) -> None:
        """The clients leave: their connections close."""
        for answer in answers if answers is not None else list(self.held):
            answer.close()
            self.held.remove(answer)


@pytest.fixture
def streams() -> Iterator[list[Streams]]:
    opened: list[Streams] = []
    yield opened
    for each in opened:
        each.close()


def long_poll(url: str, game_id: str, source: str, **headers: str) -> requests.Response:
    """A long-poll of one second from ``source`` past the game's version: admitted, it waits
    (nothing happens) and answers 200 with no events."""
    version = requests.get(f"{url}/v1/games/{game_id}", timeout=HANG).json()["version"]
    return session_from(source).get(
        f"{url}/v1/games/{game_id}/events?after={version}&wait=1", headers=headers, timeout=HANG
    )


def test_one_address_holding_its_share_leaves_waiting_slots_for_another_address(redis_url, streams):
    with server_with(redis_url, max_waiting=8, max_waiting_per_address=3) as server:
        held = Streams(server.url)
        streams.append(held)
        game = new_game(server.url)
        # One address tries to take every slot of the process on one game.
        answers = [held.open(game, "127.0.0.2") for _ in range(8)]
        assert [a.status_code for a in answers] == [200] * 3 + [429] * 5
        assert all(is_problem(a, 429, "too_many_waiting_from_caller") for a in answers[3:])
        assert is_problem(
            long_poll(server.url, game, "127.0.0.2"), 429, "too_many_waiting_from_caller"
        )
        # Another address still waits, on a long-poll and on a stream.
        polled = long_poll(server.url, game, "127.0.0.3")
        assert polled.status_code == 200 and polled.json()["events"] == [], said(polled)
        assert held.open(game, "127.0.0.3").status_code == 200


def test_streams_past_the_per_game_cap_are_refused_and_other_games_still_wait(redis_url, streams):
    settings = {"max_waiting": 20, "max_waiting_per_address": 2, "max_waiting_per_game": 3}
    with server_with(redis_url, **settings) as server:
        held = Streams(server.url)
        streams.append(held)
        crowded, other = new_game(server.url), new_game(server.url)
        first = [held.open(crowded, "127.0.0.2") for _ in range(2)]
        assert [a.status_code for a in first] == [200, 200]
        assert held.open(crowded, "127.0.0.3").status_code == 200  # the game's third
        refused = held.open(crowded, "127.0.0.3")  # the address's second, the game's fourth
        assert is_problem(refused, 503, "too_many_waiting_on_game"), said(refused)
        assert is_problem(
            long_poll(server.url, crowded, "127.0.0.4"), 503, "too_many_waiting_on_game"
        )
        # Another game is not crowded.
        assert held.open(other, "127.0.0.4").status_code == 200
        # One stream of the crowded game ends: its slot is the game's again.
        held.close(first[:1])
        wait_until(
            lambda: held.open(crowded, "127.0.0.4").status_code == 200,
            HANG,
            "the crowded game's slot to come back",
        )


def test_an_addresss_share_comes_back_when_its_clients_disconnect(redis_url, streams):
    with server_with(redis_url, max_waiting=8, max_waiting_per_address=2) as server:
        held = Streams(server.url)
        streams.append(held)
        game = new_game(server.url)
        assert [held.open(game, "127.0.0.2").status_code for _ in range(2)] == [200, 200]
        assert held.open(game, "127.0.0.2").status_code == 429
        held.close()  # the address's clients leave, without a word
        wait_until(
            lambda: held.open(game, "127.0.0.2").status_code == 200,
            HANG,
            "the address's share to come back",
        )
        assert held.open(game, "127.0.0.2").status_code == 200
        assert held.open(game, "127.0.0.2").status_code == 429
        # A long-poll that was answered gives its slot back too: one after another,
        # more long-polls than the share all wait.
        held.close()
        wait_until(
            lambda: long_poll(server.url, game, "127.0.0.3").status_code == 200,
            HANG,
            "a long-poll to be admitted",
        )
        assert all(long_poll(server.url, game, "127.0.0.3").status_code == 200 for _ in range(4))


def test_a_client_apps_share_spans_its_addresses_and_is_its_own(redis_url, redis_client, streams):
    _, key = ClientRegistry(redis_client).create("waiting share test")
    settings = {"max_waiting": 20, "max_waiting_per_address": 1, "max_waiting_per_client": 3}
    with server_with(redis_url, **settings) as server:
        held = Streams(server.url)
        streams.append(held)
        game = new_game(server.url)
        keyed = {"X-Client-Key": key}
        # The client app's streams count against its share, wherever they come from.
        opened = [held.open(game, f"127.0.0.{n}", **keyed) for n in (2, 2, 3)]
        assert [a.status_code for a in opened] == [200, 200, 200]
        refused = held.open(game, "127.0.0.4", **keyed)
        assert is_problem(refused, 429, "too_many_waiting_from_caller"), said(refused)
        # The same addresses without the key have their own shares.
        assert held.open(game, "127.0.0.2").status_code == 200
        assert held.open(game, "127.0.0.2").status_code == 429
