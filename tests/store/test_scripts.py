"""The store's scripts on a pooled connection keep the client's policy: loaded when
Redis forgot them, one retry on a lost connection, none after a timeout."""

from __future__ import annotations

import redis
from redis.backoff import NoBackoff
from redis.retry import Retry

from service.store.scripts import Script

_COUNT = "return redis.call('INCR', KEYS[1])"


def _client(redis_url: str, **options: object) -> redis.Redis:
    pool = redis.BlockingConnectionPool.from_url(redis_url, max_connections=4, **options)
    return redis.Redis(connection_pool=pool, retry=Retry(NoBackoff(), 1))


def test_a_script_redis_forgot_is_loaded_again_and_runs_once(redis_url: str) -> None:
    client = _client(redis_url)
    script = Script(client, _COUNT)
    client.delete("script-test:forgot")
    assert script(keys=["script-test:forgot"]) == 1
    client.script_flush()
    assert script(keys=["script-test:forgot"]) == 2
    assert client.get("script-test:forgot") == b"2"


def test_a_lost_connection_is_replaced_and_the_call_answers(redis_url: str) -> None:
    client = _client(redis_url)
    script = Script(client, _COUNT)
    client.delete("script-test:lost")
    assert script(keys=["script-test:lost"]) == 1
    # Every connection of the pool is closed by the server, as a restart would.
    killer = redis.Redis.from_url(redis_url)
    ours = [c for c in killer.client_list() if c["id"] != str(killer.client_id())]
    for connection in ours:
        killer.client_kill_filter(_id=connection["id"])
    assert script(keys=["script-test:lost"]) == 2


def test_an_error_of_the_script_reaches_the_caller_and_the_connection_serves_on(
    redis_url: str,
) -> None:
    client = _client(redis_url)
    failing = Script(client, "return redis.error_reply('NOPE refused')")
    counting = Script(client, _COUNT)
    client.delete("script-test:after-error")
    try:
        failing()
    except redis.exceptions.ResponseError as error:
        assert "refused" in str(error)
    else:
        raise AssertionError("the script's error did not reach the caller")
    assert counting(keys=["script-test:after-error"]) == 1


def test_a_timeout_is_not_retried(redis_url: str) -> None:
    client = _client(redis_url, socket_timeout=0.2)
    slow = Script(
        client,
        "local function now() local t = redis.call('TIME') "
        "return tonumber(t[1]) + tonumber(t[2]) / 1e6 end "
        "redis.call('INCR', KEYS[1]); local start = now() "
        "while now() < start + 1 do end return 1",
    )
    client.delete("script-test:slow")
    try:
        slow(keys=["script-test:slow"])
    except redis.exceptions.TimeoutError:
        pass
    else:
        raise AssertionError("a call slower than the socket timeout answered")
    # Redis finishes the script it started (other clients wait for it): it ran once.
    assert redis.Redis.from_url(redis_url).get("script-test:slow") == b"1"


_ECHO = "return ARGV"


def test_a_script_is_sent_as_the_connections_own_packer_packs_it(redis_url: str) -> None:
    """Packed by hiredis at once, a call's bytes are the client's: text as UTF-8, numbers
    in decimal, bytes as they are; and Redis reads back every argument as sent."""
    client = _client(redis_url)
    script = Script(client, _ECHO)
    args = ["plain", "caf\u00e9 \u2660", b"\x00\xffraw", 0, -7, 2**62, ""]
    echoed = script(keys=["script-test:key"], args=args)  # loads the script too
    assert echoed == [b"plain", "caf\u00e9 \u2660".encode(), b"\x00\xffraw", b"0", b"-7",
                      str(2**62).encode(), b""]  # fmt: skip
    connection = client.connection_pool.get_connection()
    try:
        command = ("EVALSHA", script.sha, 1, "script-test:key", *args)
        sent: list[bytes] = []
        send_packed = connection.send_packed_command

        def recorded(packed: list[bytes], check_health: bool = True) -> None:
            sent.append(b"".join(packed))
            send_packed(packed, check_health)

        connection.send_packed_command = recorded  # type: ignore[method-assign]
        Script._send(connection, command)
        assert sent == [b"".join(connection.pack_command(*command))]
        assert connection.read_response() == echoed
    finally:
        del connection.send_packed_command
        client.connection_pool.release(connection)


def test_an_argument_redis_cannot_take_is_refused_as_the_client_refuses_it(
    redis_url: str,
) -> None:
    client = _client(redis_url)
    script = Script(client, _ECHO)
    for wrong in (None, True):
        try:
            script(keys=["script-test:key"], args=["fine", wrong])
        except redis.exceptions.DataError:
            pass
        else:
            raise AssertionError(f"{wrong!r} was sent")
    assert script(keys=["script-test:key"], args=["still serves"]) == [b"still serves"]
