"""The API's pool checks an idle connection with the OS's ``poll`` and still replaces a
connection that is not ready: one the server closed, or one with a reply left unread."""

from __future__ import annotations

import select
import subprocess
import sys

import redis

from service.store.redis_clients import QuickCheckPool
from tests.support.paths import REPO


def _pool(redis_url: str) -> QuickCheckPool:
    return QuickCheckPool.from_url(redis_url, max_connections=1, timeout=1)


def test_an_idle_connection_is_handed_out_as_it_is(redis_url: str) -> None:
    pool = _pool(redis_url)
    client = redis.Redis(connection_pool=pool)
    assert client.ping()
    first = pool.get_connection()
    socket = first._sock
    pool.release(first)

    def slow_check(timeout: float = 0) -> bool:
        raise AssertionError("redis-py's own check (gevent's poll, under gevent) was asked")

    first.can_read = slow_check  # type: ignore[method-assign]
    again = pool.get_connection()
    assert again is first and again._sock is socket  # not connected again
    del first.can_read
    pool.release(again)
    assert client.ping()


def test_a_connection_the_server_closed_is_connected_again(redis_url: str) -> None:
    pool = _pool(redis_url)
    client = redis.Redis(connection_pool=pool)
    ours = client.client_id()
    idle = pool.get_connection()
    pool.release(idle)
    redis.Redis.from_url(redis_url).client_kill_filter(_id=ours)
    readable, _, _ = select.select([idle._sock], [], [], 5)  # the end has come
    assert readable
    connection = pool.get_connection()
    try:
        connection.send_command("CLIENT", "ID")
        assert connection.read_response() != ours
    finally:
        pool.release(connection)


def test_a_connection_with_a_reply_left_unread_is_connected_again(redis_url: str) -> None:
    pool = _pool(redis_url)
    connection = pool.get_connection()
    connection.send_command("ECHO", "left unread")
    readable, _, _ = select.select([connection._sock], [], [], 5)  # the reply has come
    assert readable
    pool.release(connection)
    connection = pool.get_connection()
    try:
        connection.send_command("ECHO", "its own answer")
        assert connection.read_response() == b"its own answer"
    finally:
        pool.release(connection)


def test_under_gevent_the_check_uses_the_os_poll_not_gevent() -> None:
    program = (
        "from gevent import monkey; monkey.patch_all()\n"
        "import select\n"
        "from service.store import redis_clients\n"
        "assert select.poll is not monkey.get_original('select', 'poll')\n"
        "assert redis_clients._OS_POLL is monkey.get_original('select', 'poll')\n"
    )
    subprocess.run([sys.executable, "-c", program], cwd=REPO, check=True, timeout=60)
