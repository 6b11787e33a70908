"""The truth of a game, read from its Redis log, to judge what the API shows.

These functions rebuild the game from its events (``EventStore.events``), so a
test compares the API's answers with what was really recorded.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

import redis

from service.engine import ActionTaken, DealStarted, GameState, replay
from service.engine.observation import observe
from service.store.events import EventStore

#: Fields the API adds to the engine's observation of a game.
API_FIELDS = ("game_id", "version", "players", "invite", "rematch", "rematch_of", "rated", "pool")


def log_events(redis_client: redis.Redis, game_id: str) -> list[Any]:
    return EventStore(redis_client).events(game_id)


def log_head(redis_client: redis.Redis, game_id: str) -> int:
    return EventStore(redis_client).head(game_id)


def truth(redis_client: redis.Redis, game_id: str) -> GameState:
    return replay(log_events(redis_client, game_id))


def log_decks(events: Iterable[Any]) -> list[list[str]]:
    return [[card.value for card in e.deck] for e in events if isinstance(e, DealStarted)]


def logged_actions(events: Iterable[Any]) -> list[tuple[int, dict[str, Any]]]:
    return [(e.seat, e.action.to_dict()) for e in events if isinstance(e, ActionTaken)]


def deal_start_version(events: list[Any]) -> int:
    """The version of the newest deal_started event."""
    return max(i + 1 for i, e in enumerate(events) if isinstance(e, DealStarted))


def engine_view(state: GameState, seat: int | None) -> dict[str, Any]:
    """What the engine says ``seat`` sees; the API's view minus the fields it adds."""
    return observe(state, seat)


def without_api_fields(body: Mapping[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in body.items() if key not in API_FIELDS}


@contextlib.contextmanager
def log_unchanged(redis_client: redis.Redis, *game_ids: str) -> Iterator[None]:
    """The logs of these games, and the set of games, are the same after the block."""
    heads = {gid: log_head(redis_client, gid) for gid in game_ids}
    logs = {gid: redis_client.xlen(f"sch:{{{gid}}}:log") for gid in game_ids}
    games = set(redis_client.scan_iter(match="sch:{*}:log", count=1000))
    yield
    assert {gid: log_head(redis_client, gid) for gid in game_ids} == heads
    assert {gid: redis_client.xlen(f"sch:{{{gid}}}:log") for gid in game_ids} == logs
    assert set(redis_client.scan_iter(match="sch:{*}:log", count=1000)) == games
