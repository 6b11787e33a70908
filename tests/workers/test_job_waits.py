"""Job waits (``GET /v1/jobs/{id}?wait``) hold no Redis connection while they wait.

150 waits from one address on a job no worker has taken yet: none of them
blocks a connection in Redis (no client of the test's own Redis is blocked),
another caller's job wait still answers at once, and when a worker ends the
job every held wait wakes with its result. The timeouts only bound a hang.
"""

from __future__ import annotations

import random
import select
import socket

import pytest
import redis
import requests

from service.engine import DECK, Variant, new_game, start_deal, take_seat
from service.engine.knowledge import seat_view
from service.engine.position import position_from_view
from tests.support.http import session_from
from tests.support.rawhttp import RawReply
from tests.support.servers import LiveServer, WorkerProcess

HELD = 150
#: The held waits ask for this long; the job ends well before (a worker starts).
HELD_WAIT_SECONDS = 30
#: Another caller's one-second wait answers long before the held waits' time runs out;
#: only a wait that queues behind them for a connection takes this long.
OTHER_CALLER_HANG_BOUND = 12
HANG_BOUND = 60


def a_position() -> dict:
    state = take_seat(take_seat(new_game(Variant.HEAD, 0), 0), 1)
    deck = list(DECK)
    random.Random(3).shuffle(deck)
    state = start_deal(state, deck)
    return position_from_view(seat_view(state, state.to_move))


def blocked_clients(client: redis.Redis) -> int:
    """Connections of this Redis blocked in a command (XREAD BLOCK, BLPOP...) right now."""
    return sum(1 for c in client.client_list() if "b" in c["flags"])


def send_wait(port: int, job_id: str) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", port), timeout=HANG_BOUND)
    sock.sendall(
        f"GET /v1/jobs/{job_id}?wait={HELD_WAIT_SECONDS} HTTP/1.1\r\n"
        f"Host: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n".encode()
    )
    return sock


def read_reply(sock: socket.socket) -> RawReply:
    data = b""
    with sock:
        while chunk := sock.recv(65536):
            data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    status_line, *lines = head.decode("latin-1").split("\r\n")
    headers = {k.strip().lower(): v.strip() for k, _, v in (line.partition(":") for line in lines)}
    _, status, reason = status_line.split(" ", 2)
    return RawReply(int(status), reason, headers, body)


def test_held_job_waits_hold_no_redis_connection_and_wake_when_the_job_ends(own_redis):
    watcher = redis.Redis.from_url(own_redis)
    # One gunicorn process: its 64 pooled connections are what held waits could exhaust.
    server = LiveServer(own_redis, workers=1)
    worker: WorkerProcess | None = None
    held: list[socket.socket] = []
    try:
        queued = requests.post(
            f"{server.url}/v1/bot/moves", json={"position": a_position(), "level": "random"}
        )
        assert queued.status_code == 202, queued.text
        job_id = queued.json()["id"]
        held = [send_wait(server.port, job_id) for _ in range(HELD)]

        # Sent after the held waits, so the server takes it after them.
        other = session_from("127.0.0.2")
        try:
            answer = other.get(
                f"{server.url}/v1/jobs/{job_id}?wait=1", timeout=OTHER_CALLER_HANG_BOUND
            )
        except requests.exceptions.Timeout:
            pytest.fail(
                f"another caller's 1 s job wait got no answer within {OTHER_CALLER_HANG_BOUND} s "
                f"behind {HELD} held waits"
            )
        assert answer.status_code == 200, answer.text
        assert answer.json()["status"] == "queued"
        readable, _, _ = select.select(held, [], [], 0)
        assert not readable, "a held job wait was answered before its job ended"
        blocked = blocked_clients(watcher)
        print(f"{HELD} held job waits; Redis connections blocked: {blocked}")
        assert blocked == 0, f"{blocked} Redis connections blocked by held job waits"

        worker = WorkerProcess(own_redis)
        replies = [read_reply(sock) for sock in held]
        statuses = [(r.status, r.json()["status"]) for r in replies]
        assert statuses == [(200, "finished")] * HELD
        assert {r.json()["result"]["level"] for r in replies} == {"random"}
    finally:
        for sock in held:
            sock.close()
        if worker is not None:
            worker.stop()
        server.stop()
