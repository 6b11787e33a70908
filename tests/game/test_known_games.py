"""A process that holds a game at the log's head takes it as it is; one whose game is
behind the head (another process appended) reads and folds the log as any other."""

from __future__ import annotations

import random

import pytest
import redis

from service.engine import Variant, legal_actions, replay
from service.game.commands import Current, GameService, NewGame
from service.live.memory import GameMemory
from service.store.client_games import ClientGames
from service.store.events import EventStore

SECRET = b"known games secret"


def service(redis_url: str, memory: GameMemory | None) -> GameService:
    client = redis.Redis.from_url(redis_url)
    store = EventStore(client)
    return GameService(
        store,
        SECRET,
        listing=ClientGames(client),
        listeners=[memory] if memory else (),
        known=memory,
    )


@pytest.fixture
def two_processes(redis_url: str) -> tuple[GameService, GameMemory, GameService]:
    """One process with a memory of games (as the API's), one without (another process)."""
    memory = GameMemory()
    return service(redis_url, memory), memory, service(redis_url, None)


def from_the_log(games: GameService, game_id: str) -> Current:
    """The game as the whole log says, folded from its first event."""
    log = games.store.events(game_id)
    seats = games.current(game_id).seats
    return Current(game_id, len(log), replay(log), seats)


def play_one(games: GameService, game_id: str, tokens: dict[int, str], rng: random.Random):
    current = games.current(game_id)
    seat = current.state.to_move
    return games.act(game_id, tokens[seat], rng.choice(legal_actions(current.state)))


def test_a_game_held_at_the_head_is_taken_as_it_is(two_processes):
    here, memory, _elsewhere = two_processes
    seated = here.create(NewGame(variant=Variant.HEAD))
    game_id = seated.current.game_id
    joined = here.join(game_id, seated.invite)
    held = memory.newest(game_id)
    assert held is not None and held.version == joined.current.version

    assert here.current(game_id) is held  # nothing read, nothing folded
    assert here.current(game_id) == from_the_log(here, game_id)


def test_a_game_behind_the_head_is_read_again_from_the_log(two_processes):
    here, memory, elsewhere = two_processes
    rng = random.Random(7)
    seated = here.create(NewGame(variant=Variant.TRACKED))
    game_id = seated.current.game_id
    tokens = {0: seated.token, 1: here.join(game_id, seated.invite).token}
    for _ in range(5):
        play_one(here, game_id, tokens, rng)
    held = memory.newest(game_id)
    assert held is not None

    play_one(elsewhere, game_id, tokens, rng)  # another process appends: the head moves on

    now = here.current(game_id)
    assert now.version > held.version
    assert now == from_the_log(here, game_id)
    assert memory.newest(game_id) == now  # and this process holds the new head from then on
