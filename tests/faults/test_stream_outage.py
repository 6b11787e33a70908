"""An event stream rides out a short store outage: it ends only if the store stays away."""

from __future__ import annotations

import random

import requests

from tests.support.cluster_games import new_human_game, play_one
from tests.support.http import auth
from tests.support.servers import LiveServer
from tests.support.streams import start_watching, woke_with_an_action
from tests.support.waiting import wait_until

#: Bounds a hang only: the stream's own heartbeat (15 s) keeps its connection busy.
STREAM_TIMEOUT = 120


def test_an_event_stream_waits_across_a_redis_restart_and_delivers_the_next_action(
    persistent_redis,
):
    """The stream's process loses its subscription when Redis goes away and wakes its
    waiters to look again while the store cannot answer: the stream waits the outage out
    instead of ending, and the action played once Redis is back reaches it."""
    server = LiveServer(persistent_redis.url, workers=1)
    try:
        session = requests.Session()
        url = server.url
        game = new_human_game(lambda: url, session)
        watcher, seen = start_watching(url, session, game, STREAM_TIMEOUT)
        wait_until(lambda: "retry: 1000" in seen.get("lines", ()), 30, "the stream to start")

        def answers() -> int:
            return requests.get(f"{url}/v1/games/{game.game_id}", timeout=5,
                                headers=auth(game.tokens[0])).status_code  # fmt: skip

        persistent_redis.stop()  # a graceful stop: the append-only file is flushed
        wait_until(lambda: answers() == 503, 30, "the server to see the store gone")
        persistent_redis.start()  # same folder and socket: the game is back
        wait_until(lambda: answers() == 200, 60, "the server to read the game again")

        assert play_one(lambda: url, session, game, random.Random(3)) is not None
        woke_with_an_action(watcher, seen, game, STREAM_TIMEOUT + 30)
    finally:
        server.stop()
