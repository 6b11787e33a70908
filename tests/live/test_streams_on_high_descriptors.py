"""SSE streams whose sockets have descriptors past 1024 live as long as any other.

A gevent server process holding thousands of waiting clients gives their
sockets descriptors far above 1024, where ``select.select`` cannot look
(``ValueError: filedescriptor out of range``). The look for a client that
left must work there too: a stream ends only for its documented reasons,
never because its descriptor is a large number. Against a real gunicorn
(one gevent process) and a real Redis, the streams from 24 loopback
addresses within the default shares, read by one epoll loop in the test.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest

from tests.support.games import Game, act, new_game, to_move_view
from tests.support.http import Api
from tests.support.raw_streams import RawStreams
from tests.support.servers import LiveServer
from tests.support.waiting import wait_until

#: Streams held at once: with the process's own descriptors, about 200 of them past 1024.
STREAMS = 1200
#: Games the streams wait on (300 each, within SCHNAPSEN_MAX_WAITING_PER_GAME's 500).
GAMES = 4
#: Streams per loopback address (within SCHNAPSEN_MAX_WAITING_PER_ADDRESS's 100).
PER_ADDRESS = 50
#: Bounds a hang only.
HANG = 60


@pytest.fixture(scope="module")
def server(redis_url) -> Iterator[LiveServer]:
    """One gevent process with room for the streams, a heartbeat every second (a stream
    looks whether its client left after each quiet heartbeat), default shares."""
    env = {"SCHNAPSEN_SSE_HEARTBEAT_SECONDS": "1", "SCHNAPSEN_MAX_WAITING": "2000"}
    live = LiveServer(redis_url, workers=1, connections=2400, env=env)
    try:
        yield live
    finally:
        live.stop()


def test_streams_on_descriptors_past_1024_stay_open_through_heartbeats_and_wake(server):
    api = Api.live(server.url)
    games: list[Game] = [new_game(api) for _ in range(GAMES)]
    streams = RawStreams(server.port)
    try:
        for i in range(STREAMS):
            game = games[i % GAMES]
            source = f"127.0.0.{2 + i // PER_ADDRESS}"
            streams.open(game.game_id, source, last_event_id=game.version)

        def all_answered() -> bool:
            streams.pump()
            return all(s.answered for s in streams.streams)

        wait_until(all_answered, HANG, f"{STREAMS} streams to be answered")
        refused = [s for s in streams.streams if s.status != 200]
        assert not refused, f"{len(refused)} refused, e.g. {refused[0].received[:300]!r}"

        def all_past_a_heartbeat() -> bool:
            streams.pump()
            return all(s.ended or s.saw(b"\n: keep-alive\n") for s in streams.streams)

        # Every stream has had a quiet heartbeat, so it has looked whether its client left.
        wait_until(all_past_a_heartbeat, HANG, "a heartbeat on every stream")
        heads = {}
        for game in games:
            mover = to_move_view(api, game)
            assert mover is not None
            heads[game.game_id] = act(api, game, mover["seat"], mover["deal"]["legal_actions"][0])[
                "version"
            ]

        def woken(stream) -> bool:
            return stream.saw(f"id: {heads[stream.game_id]}\n".encode())

        def all_woken_or_ended() -> bool:
            streams.pump()
            return all(s.ended or woken(s) for s in streams.streams)

        wait_until(all_woken_or_ended, HANG, "every stream to get its game's action")
        ended = [s for s in streams.streams if not woken(s)]
        bodies = {re.sub(r"\s+", " ", s.body()) for s in ended}
        assert len(ended) == 0, (
            f"{len(ended)} of {STREAMS} streams ended without their game's action; "
            f"what they carried: {sorted(bodies)[:3]}"
        )
    finally:
        streams.close()
