"""The event log in a real Redis: versions, atomic appends, idempotency, snapshots."""

from __future__ import annotations

import json
import random
import secrets

import pytest

from service.engine import (
    ActionTaken,
    DealStarted,
    GameCreated,
    SeatTaken,
    Variant,
    legal_actions,
    replay,
)
from service.engine.snapshot import ENGINE_VERSION, state_from_dict, state_to_dict
from service.game import dealing
from service.game.commands import GameService, NewGame
from service.game.transaction import SNAPSHOT_EVERY
from service.store.client_games import ClientGames
from service.store.events import Duplicate, EventStore, StaleVersionError, keys


@pytest.fixture
def store(redis_client) -> EventStore:
    return EventStore(redis_client)


@pytest.fixture
def games(store) -> GameService:
    return GameService(store, b"secret", listing=ClientGames(store.redis))


def opening_events(seed: int = 3) -> list:
    return [
        GameCreated(Variant.HEAD, 0),
        SeatTaken(0),
        SeatTaken(1),
        DealStarted(1, 0, dealing.seeded_deck(seed, 1)),
    ]


def new_id() -> str:
    return secrets.token_hex(8)


def test_versions_are_stream_entry_ids(store, redis_client):
    game = new_id()
    assert store.append(game, 0, opening_events()) == 4
    ids = [entry_id for entry_id, _ in redis_client.xrange(keys(game)["log"])]
    assert ids == [b"1-0", b"2-0", b"3-0", b"4-0"]
    assert keys(game)["log"] == f"sch:{{{game}}}:log"


def test_append_expects_the_version_and_writes_nothing_when_stale(store):
    game = new_id()
    store.append(game, 0, opening_events())
    state = replay(store.events(game))
    action = ActionTaken(state.to_move, legal_actions(state)[0])
    with pytest.raises(StaleVersionError) as stale:
        store.append(game, 3, [action])
    assert stale.value.actual == 4
    assert store.head(game) == 4
    assert store.append(game, 4, [action]) == 5


def test_all_events_of_a_command_or_none(store):
    game = new_id()
    store.append(game, 0, opening_events()[:2])
    with pytest.raises(StaleVersionError):
        store.append(game, 0, opening_events())
    assert store.head(game) == 2
    assert store.append(game, 2, opening_events()[2:]) == 4
    assert replay(store.events(game)).deal is not None


def test_an_idempotency_key_appends_once(store):
    game = new_id()
    assert store.append(game, 0, opening_events(), idempotency_key="k", fingerprint="f1") == 4
    again = store.append(game, 0, opening_events(), idempotency_key="k", fingerprint="f2")
    assert again == Duplicate("f1", 4)
    assert store.head(game) == 4


def test_load_reads_snapshot_plus_newer_events(store, games):
    created = games.create(NewGame(seed=11))
    games.join(created.current.game_id, created.invite)
    game = created.current.game_id
    loaded = store.load(game)
    assert loaded.snapshot_version == loaded.head == 4  # created (3 events), joined (1)
    assert loaded.events == []
    assert state_from_dict(loaded.snapshot) == replay(store.events(game))


def test_snapshot_is_a_cache_safe_to_delete(store, games, redis_client):
    created = games.create(NewGame(seed=12))
    game = created.current.game_id
    joined = games.join(game, created.invite)
    tokens = {0: created.token, 1: joined.token}
    rng = random.Random(5)
    for _ in range(30):
        current = games.current(game)
        if current.state.winner is not None:
            break
        seat = current.state.to_move
        games.act(game, tokens[seat], rng.choice(legal_actions(current.state)))
    before = games.current(game)
    redis_client.delete(keys(game)["snap"], keys(game)["snapidx"])
    after = games.current(game)
    assert after.state == before.state and after.version == before.version
    assert store.load(game).snapshot is None


def test_a_snapshot_of_another_engine_version_is_ignored(store, games, redis_client):
    created = games.create(NewGame(seed=13))
    game = created.current.game_id
    truth = games.current(game).state
    stale = state_to_dict(truth)
    stale["engine"] = ENGINE_VERSION + 1
    stale["game_points"] = [1, 1]  # a wrong state that must never be used
    redis_client.hset(keys(game)["snap"], "latest", json.dumps(stale))
    assert games.current(game).state == truth


def test_reads_of_the_past_start_from_the_deal_start_snapshot(store, games):
    created = games.create(NewGame(seed=14))
    game = created.current.game_id
    joined = games.join(game, created.invite)
    tokens = {0: created.token, 1: joined.token}
    rng = random.Random(9)
    while games.current(game).state.winner is None:
        state = games.current(game).state
        games.act(game, tokens[state.to_move], rng.choice(legal_actions(state)))
    log = store.events(game)
    deal_starts = [v for v, e in enumerate(log, start=1) if isinstance(e, DealStarted)]
    assert len(deal_starts) >= 2
    for version in range(1, len(log) + 1):
        loaded = store.load(game, version)
        assert loaded.version == version
        assert loaded.snapshot_version <= version
        # bounded work: never more events than since the last deal start (or the latest)
        last_start = max([v for v in deal_starts if v <= version], default=0)
        assert len(loaded.events) <= version - last_start
        assert games.current(game, version).state == replay(log[:version])


def test_the_newest_snapshot_is_written_every_few_versions_and_a_load_folds_the_rest(store, games):
    """Encoding the state at every append cost an action more than a load saves: the
    newest snapshot is kept every ``SNAPSHOT_EVERY`` versions (and at deal starts and
    the end), so a load folds fewer events than that after it, to the same state."""
    created = games.create(NewGame(seed=15))
    game = created.current.game_id
    joined = games.join(game, created.invite)
    tokens = {0: created.token, 1: joined.token}
    rng = random.Random(3)
    folded = []
    while games.current(game).state.winner is None:
        state = games.current(game).state
        games.act(game, tokens[state.to_move], rng.choice(legal_actions(state)))
        loaded = store.load(game)
        assert loaded.head - loaded.snapshot_version < SNAPSHOT_EVERY
        assert state_from_dict(loaded.snapshot) is not None
        assert replay(loaded.events, state_from_dict(loaded.snapshot)) == replay(store.events(game))
        folded.append(len(loaded.events))
    assert max(folded) == SNAPSHOT_EVERY - 1  # not written at every append
    assert folded[-1] == 0  # a finished game's snapshot is its end
