"""An event stream ends only for a reason it logs: the game ended, the client left, its
time ran out (and, tested with the store's faults, the store stayed away).

Against a real gunicorn (one gevent process) whose log lines the test reads
from the process's own output, and a real Redis.
"""

from __future__ import annotations

import json
import random
import socket
import threading
from collections.abc import Iterator

import pytest
import requests

from tests.support.games import new_game, play_random_game
from tests.support.http import Api
from tests.support.servers import LiveServer
from tests.support.waiting import wait_until

#: Bounds a hang only.
HANG = 30


@pytest.fixture
def server(redis_url, tmp_path) -> Iterator[LiveServer]:
    """One gevent process whose streams live 2 s, with a heartbeat every second; its log
    lines go to ``server.log``."""
    env = {"SCHNAPSEN_SSE_MAX_SECONDS": "2", "SCHNAPSEN_SSE_HEARTBEAT_SECONDS": "1"}
    live = LiveServer(redis_url, workers=1, env=env, log=tmp_path / "server.log")
    try:
        yield live
    finally:
        live.stop()


def stream_ends(output: str) -> dict[str, str]:
    """Each game's logged stream end, from the server's JSON log lines."""
    ends = {}
    for line in output.splitlines():
        if '"stream_end"' in line:
            entry = json.loads(line)
            ends[entry["game_id"]] = entry["stream_end"]
    return ends


def test_every_stream_end_is_logged_with_its_reason(server):
    api = Api.live(server.url)
    finished, timed, left = (new_game(api) for _ in range(3))
    # The game that ends: its stream is read to its close while the game is played out.
    finished_stream = requests.get(
        f"{server.url}{finished.path}/stream", params={"after": finished.version},
        stream=True, timeout=HANG,
    )  # fmt: skip
    reader = threading.Thread(target=lambda: finished_stream.content, daemon=True)
    reader.start()
    # The stream nobody acts on: it reaches its 2 s and ends.
    timed_stream = requests.get(f"{server.url}{timed.path}/stream", stream=True, timeout=HANG)
    timed_reader = threading.Thread(target=lambda: timed_stream.content, daemon=True)
    timed_reader.start()
    # The client that leaves without a word.
    client = socket.create_connection(("127.0.0.1", server.port), timeout=HANG)
    client.sendall(f"GET {left.path}/stream HTTP/1.1\r\nHost: x\r\n\r\n".encode())
    assert b"200 OK" in client.recv(4096)
    client.close()
    play_random_game(api, finished, random.Random(3))
    reader.join(HANG)
    timed_reader.join(HANG)
    assert not reader.is_alive() and not timed_reader.is_alive(), "a stream did not end"

    def logged() -> dict[str, str]:
        assert server.log is not None
        ends = stream_ends(server.log.read_text(errors="replace"))
        return ends if len(ends) == 3 else {}

    ends = wait_until(logged, HANG, "a logged end for each of the 3 streams")
    assert ends == {
        finished.game_id: "game_over",
        timed.game_id: "deadline",
        left.game_id: "client_left",
    }
