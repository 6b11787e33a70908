"""The feed's reads after a version (service.live.feed), against a real store and no app:
a reader that was not woken reads the log; a woken waiter takes what this process
already holds up to the announced version, and reads once more when that is behind."""

from __future__ import annotations

import random

import pytest
import redis

from service.engine import legal_actions
from service.game.commands import Current, GameService, NewGame
from service.live.feed import FeedReads
from service.live.memory import GameMemory, Since
from service.live.watcher import LogWatcher, OneRead
from service.store.client_games import ClientGames
from service.store.events import EventStore, announced_events


@pytest.fixture
def games(redis_client: redis.Redis) -> GameService:
    store = EventStore(redis_client)
    return GameService(store, b"secret", listing=ClientGames(store.redis))


@pytest.fixture
def reads(redis_client: redis.Redis) -> FeedReads:
    # Never listening: the tests announce themselves, as the listener would.
    return FeedReads(LogWatcher(lambda: redis_client), GameMemory(), OneRead())


class CountedRead:
    """The views' read of the log (``GameService.events_since``), counted."""

    def __init__(self, games: GameService, known: Current):
        self.games, self.known, self.calls = games, known, 0

    def __call__(self, news: bytes | None) -> Since:
        self.calls += 1
        brought = None if news is None else announced_events(news)
        return self.games.events_since(self.known, brought)


def game_with_moves(games: GameService, moves: int) -> tuple[str, dict[int, str]]:
    created = games.create(NewGame(seed=21))
    game = created.current.game_id
    tokens = {0: created.token, 1: games.join(game, created.invite).token}
    play(games, game, tokens, moves)
    return game, tokens


def play(games: GameService, game: str, tokens: dict[int, str], moves: int) -> None:
    rng = random.Random(moves)
    for _ in range(moves):
        state = games.current(game).state
        games.act(game, tokens[state.to_move], rng.choice(legal_actions(state)))


def test_a_reader_that_was_not_woken_reads_the_log_and_remembers_what_it_read(games, reads):
    game, _ = game_with_moves(games, 3)
    known = games.current(game, 4)
    read = CountedRead(games, known)
    events, latest = reads.since(known, read, shared=False)
    assert read.calls == 1
    assert (len(events), latest.version) == (3, 7)
    assert reads.memory.since(game, 4) == (events, latest)
    # Not woken, it reads again: only a registered waiter knows nothing newer was appended.
    reads.since(known, read, shared=False)
    assert read.calls == 2


def test_a_woken_waiter_takes_what_this_process_holds_up_to_the_announced_version(games, reads):
    game, _ = game_with_moves(games, 2)
    known = games.current(game, 4)
    first = CountedRead(games, known)
    held = reads.since(known, first, shared=False)
    reads.watcher.notify(game, 6)  # the announcement of the append that led to version 6
    woken = CountedRead(games, known)
    assert reads.since(known, woken, shared=True) == held
    assert woken.calls == 0


def test_a_woken_waiter_whose_memory_is_behind_the_announcement_reads_the_log_once(games, reads):
    game, tokens = game_with_moves(games, 2)
    known = games.current(game, 4)
    reads.since(known, CountedRead(games, known), shared=False)  # holds up to version 6
    play(games, game, tokens, 1)
    reads.watcher.notify(game, 7)
    woken = CountedRead(games, known)
    events, latest = reads.since(known, woken, shared=True)
    assert woken.calls == 1
    assert (len(events), latest.version) == (3, 7)
    assert reads.memory.since(game, 4) == (events, latest)
