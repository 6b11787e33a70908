"""The store's Lua scripts, kept as ``.lua`` files beside this module.

Each script runs atomically on the Redis (or the cluster shard) that holds a
game's keys; as files they read as Lua, with their own comments, rather than
as strings inside Python.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from importlib.resources import files
from typing import Any

import redis
from redis.cluster import RedisCluster
from redis.connection import HiredisRespSerializer

try:
    from hiredis import pack_command as _hiredis_pack
except ImportError:  # redis-py packs without hiredis too
    _hiredis_pack = None


@cache
def lua_script(name: str) -> str:
    """The text of ``lua/<name>.lua``."""
    return (files("service.store") / "lua" / f"{name}.lua").read_text()


class Script:
    """A Lua script of one Redis, called on a pooled connection without the client's layers.

    redis-py's client passes each command through its retry, event and
    metrics layers, which cost a plain Redis about a third of a script call's
    CPU; the scripts here run on every action, so a call goes straight to a
    connection of the client's own pool, with the client's own policy kept:
    one retry at once, on a fresh connection, when the connection was lost
    (a Redis restart leaves pooled connections dead), never after a timeout;
    the script is loaded when Redis does not know it. On a Redis Cluster, and
    in a pipeline (``client=``), redis-py's ``Script`` runs it as always.
    """

    def __init__(self, client: redis.Redis | RedisCluster, text: str):
        self._script = client.register_script(text)
        self._text = text
        self.sha = self._script.sha
        self._pool = None if isinstance(client, RedisCluster) else client.connection_pool

    def __call__(
        self,
        keys: Sequence[Any] = (),
        args: Sequence[Any] = (),
        client: Any = None,
    ) -> Any:
        if client is not None or self._pool is None:
            return self._script(keys=keys, args=args, client=client)
        for attempt in (1, 2):
            connection = self._pool.get_connection()
            try:
                return self._run(connection, keys, args)
            except redis.exceptions.ConnectionError:
                connection.disconnect()
                if attempt == 2:
                    raise
            except redis.exceptions.TimeoutError:
                connection.disconnect()
                raise
            finally:
                self._pool.release(connection)
        raise AssertionError("unreachable")

    def _run(self, connection: Any, keys: Sequence[Any], args: Sequence[Any]) -> Any:
        self._send(connection, ("EVALSHA", self.sha, len(keys), *keys, *args))
        try:
            return connection.read_response()
        except redis.exceptions.NoScriptError:
            connection.send_command("SCRIPT", "LOAD", self._text)
            connection.read_response()
            self._send(connection, ("EVALSHA", self.sha, len(keys), *keys, *args))
            return connection.read_response()

    @staticmethod
    def _send(connection: Any, command: tuple[Any, ...]) -> None:
        """Send ``command`` packed by hiredis at once, as the connection's own packer would
        pack it (str as UTF-8, ints in decimal, bytes as they are), without its check of
        every argument's type on the way (a script call has a dozen or more); anything
        hiredis does not take (None, a bool) goes through the connection's packer, which
        refuses it as it always did."""
        packer = getattr(connection, "_command_packer", None)
        if _hiredis_pack is not None and type(packer) is HiredisRespSerializer:
            try:
                packed = _hiredis_pack(command)
            except TypeError:
                pass
            else:
                connection.send_packed_command([packed])
                return
        connection.send_command(*command)
