"""The store's Lua scripts, kept as ``.lua`` files beside this module.

Each script runs atomically on the Redis (or the cluster shard) that holds a
game's keys; as files they read as Lua, with their own comments, rather than
as strings inside Python.
"""

from __future__ import annotations

from functools import cache
from importlib.resources import files


@cache
def lua_script(name: str) -> str:
    """The text of ``lua/<name>.lua``."""
    return (files("service.store") / "lua" / f"{name}.lua").read_text()
