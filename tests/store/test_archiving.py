"""A finished game's move from Redis to the archive, step by step, on a real Redis and a
real archive (a SQLite file, and PostgreSQL where the archive's side matters).

Archiving writes a game's row once however often it runs, and refuses a game
still in play; Redis forgets an archived game's keys all at once, only with
its mark and only while its log is the length the mark names; the sweep
forgets only games past their grace and archives the games whose job was
lost; the scan of stray games finds an ended game nobody noted; an abandoned
game is ended by the rule a player could have invoked; and a client app's
listing keeps its game when Redis forgets it. Each test has the Redis to
itself (emptied first), so the lifecycle's sets hold its games alone.
"""

from __future__ import annotations

import random
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis

from service.devtools.embedded_redis import EmbeddedRedis
from service.engine import Variant, replay
from service.engine.state import GameEndReason
from service.game.commands import NewGame, Opponent
from service.ops.composition import Services
from service.store.archive import ArchiveRecord, open_archive
from service.store.archive_codec import digest, encode
from service.store.archiving import (
    ENDED,
    LATE_MS,
    RELEASE,
    GameArchiver,
    NotEnded,
    archived_key,
)
from service.store.client_games import index_key
from service.store.events import IDEMPOTENCY_TTL, keys
from service.store.stats import GameStats
from tests.support.lifecycle import archived_rows, finish, game_keys, moves, table
from tests.support.postgres import fresh_database

#: The back ends where the archive's side of a step matters (PostgreSQL needs a server:
#: the redis lane, as tests/store/test_archive.py).
BACK_ENDS = [
    pytest.param("sqlite", id="sqlite"),
    pytest.param("postgresql", id="postgresql", marks=pytest.mark.redis),
]
GRACE_SECONDS = 600.0
CLIENT = "cl_lifecycle"


@pytest.fixture(scope="module")
def lifecycle_redis(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    server = EmbeddedRedis(tmp_path_factory.mktemp("redis")).start()
    try:
        yield server.url
    finally:
        server.stop()


@pytest.fixture
def client(lifecycle_redis: str) -> redis.Redis:
    connection = redis.Redis.from_url(lifecycle_redis)
    connection.flushall()
    return connection


def _archive_url(back_end: str, tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[str]:
    if back_end == "sqlite":
        yield f"sqlite:///{tmp_path / 'archive.sqlite3'}"
        return
    with fresh_database(request.getfixturevalue("postgres_url")) as url:
        yield url


@pytest.fixture(params=BACK_ENDS)
def archive_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    yield from _archive_url(request.param, tmp_path, request)


@pytest.fixture
def sqlite_url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'archive.sqlite3'}"


def _table(client: redis.Redis, url: str, grace: float = GRACE_SECONDS) -> Iterator[Services]:
    archive = open_archive(url)
    try:
        yield table(client, archive, grace_seconds=grace)
    finally:
        archive.close()


@pytest.fixture
def both(client: redis.Redis, archive_url: str) -> Iterator[Services]:
    """The service with an archive of each back end."""
    yield from _table(client, archive_url)


@pytest.fixture
def lite(client: redis.Redis, sqlite_url: str) -> Iterator[Services]:
    """The service with a SQLite archive: for the steps that are Redis's alone."""
    yield from _table(client, sqlite_url)


def _finished(services: Services, seed: int, ending: str = "played", **kw):
    return finish(services.games, random.Random(seed), ending, Variant.HEAD, **kw)


def _running(services: Services, seed: int, actions: int = 5) -> tuple[str, dict[int, str]]:
    rng = random.Random(seed)
    created = services.games.create(NewGame(Variant.HEAD, Opponent(), seed=seed))
    game_id = created.current.game_id
    assert created.invite is not None
    tokens = {0: created.token, 1: services.games.join(game_id, created.invite).token}
    moves(services.games, game_id, tokens, actions, rng, "patient")
    return game_id, tokens


def _snapshot(client: redis.Redis, game_id: str) -> dict[str, object]:
    """What Redis holds of the game: every key and what is in it."""
    held: dict[str, object] = {}
    for name in sorted(game_keys(client, game_id)):
        kind = client.type(name).decode()
        if kind == "stream":
            held[name] = client.xrange(name)
        elif kind == "hash":
            held[name] = client.hgetall(name)
        elif kind == "zset":
            held[name] = client.zrange(name, 0, -1, withscores=True)
        else:
            held[name] = client.get(name)
    return held


def _finished_count(client: redis.Redis) -> int:
    return int(client.get(GameStats.FINISHED) or 0)


# -- step 2: archived once ------------------------------------------------------------


def test_archiving_writes_a_game_once_and_a_second_run_writes_nothing(both, client, archive_url):
    game = _finished(both, 1)
    assert client.zscore(ENDED, game.game_id) is not None, "the ending append noted it"
    archiver = both.archiver
    assert archiver is not None
    before = _finished_count(client)

    first = archiver.archive_game(game.game_id)
    assert first is not None and first.written and first.size > 0
    again = archiver.archive_game(game.game_id)
    assert again is not None and not again.written and again.size == first.size

    assert archived_rows(archive_url, [game.game_id]) == {game.game_id: 1}
    assert _finished_count(client) == before + 1, "a finish is counted when its row is written"
    head = both.store.live.head(game.game_id)
    mark = client.get(archived_key(game.game_id)).decode()
    assert mark.startswith(f"{head}:")
    assert client.zscore(ENDED, game.game_id) is None
    record = both.archive.get(game.game_id)
    assert record is not None
    due = client.zscore(RELEASE, game.game_id)
    assert due == record.ended_ms + GRACE_SECONDS * 1000, "its grace runs from its end"
    # The log is still in Redis, whole: nothing goes before the grace is over.
    assert keys(game.game_id)["log"] in game_keys(client, game.game_id)


def test_a_game_still_in_play_is_refused_and_stays_in_redis(both, client, archive_url):
    game_id, _tokens = _running(both, 2)
    held = _snapshot(client, game_id)
    archiver = both.archiver
    assert archiver is not None

    with pytest.raises(NotEnded):
        archiver.archive_game(game_id)

    assert archived_rows(archive_url, [game_id]) == {game_id: 0}
    assert _snapshot(client, game_id) == held
    assert client.get(archived_key(game_id)) is None
    assert client.zscore(RELEASE, game_id) is None
    assert archiver.release(game_id) is False
    assert _snapshot(client, game_id) == held


def test_a_game_redis_no_longer_holds_is_not_archived_and_leaves_the_ended_list(lite, client):
    archiver = lite.archiver
    assert archiver is not None
    archiver.note_ended("0123456789abcdef", 1)
    assert archiver.archive_game("0123456789abcdef") is None
    assert client.zscore(ENDED, "0123456789abcdef") is None


# -- step 3: forgotten ------------------------------------------------------------------


def test_release_forgets_every_key_of_an_archived_game_and_only_once(lite, client):
    game = _finished(lite, 3)
    archiver = lite.archiver
    assert archiver is not None
    was = lite.games.current(game.game_id)
    archiver.archive_game(game.game_id)
    assert game_keys(client, game.game_id) >= set(keys(game.game_id).values()) - {
        keys(game.game_id)["idem"]
    }

    assert archiver.release(game.game_id) is True

    assert game_keys(client, game.game_id) == set()
    assert client.zscore(RELEASE, game.game_id) is None
    assert lite.games.current(game.game_id) == was, "it reads the same from the archive"
    assert archiver.release(game.game_id) is False, "nothing is left to forget"
    assert game_keys(client, game.game_id) == set()


def test_release_leaves_a_game_that_was_never_archived(lite, client):
    game = _finished(lite, 4)
    held = _snapshot(client, game.game_id)
    archiver = lite.archiver
    assert archiver is not None
    client.zadd(RELEASE, {game.game_id: 0})  # due, but never marked

    assert archiver.release(game.game_id) is False
    assert archiver.sweep().released == 0

    assert _snapshot(client, game.game_id) == held
    assert client.zscore(RELEASE, game.game_id) is None


def test_release_leaves_a_game_whose_log_is_longer_than_its_mark_and_archives_it_again(
    lite, client
):
    game = _finished(lite, 5)
    archiver = lite.archiver
    assert archiver is not None
    archiver.archive_game(game.game_id)
    head, digest = client.get(archived_key(game.game_id)).decode().split(":")
    # A mark made when the log was one entry shorter than it is now.
    client.set(archived_key(game.game_id), f"{int(head) - 1}:{digest}")
    held = {k: v for k, v in _snapshot(client, game.game_id).items() if "archived" not in k}

    assert archiver.release(game.game_id) is False

    assert _snapshot(client, game.game_id) == held, "every key but the stale mark stays"
    assert client.zscore(ENDED, game.game_id) is not None, "noted to be archived again"
    archiver.archive_game(game.game_id)
    assert archiver.release(game.game_id) is True
    assert game_keys(client, game.game_id) == set()


# -- the sweep ----------------------------------------------------------------------------


def test_the_sweep_forgets_only_the_games_whose_grace_is_over(lite, client):
    archiver = lite.archiver
    assert archiver is not None
    games = [_finished(lite, seed, ending) for seed, ending in ((6, "resigned"), (7, "aborted"))]
    for game in games:
        archiver.archive_game(game.game_id)
    due = {game.game_id: int(client.zscore(RELEASE, game.game_id)) for game in games}
    first, second = sorted(due, key=due.__getitem__)
    if due[first] == due[second]:  # ended in the same ms: move one's due time on
        due[second] += 1
        client.zadd(RELEASE, {second: due[second]})

    assert archiver.sweep(now_ms=due[first] - 1).released == 0
    assert all(keys(g)["log"] in game_keys(client, g) for g in due)
    assert archiver.sweep(now_ms=due[first]).released == 1
    assert game_keys(client, first) == set()
    assert keys(second)["log"] in game_keys(client, second)
    assert archiver.sweep(now_ms=due[second]).released == 1
    assert game_keys(client, second) == set()
    assert client.zcard(RELEASE) == 0


def test_one_sweep_forgets_every_game_whose_grace_is_over_however_many_ended_since(lite, client):
    """Games that end faster than one batch a sweep (``SWEEP_BATCH`` a minute) must not
    pile up in Redis past their grace: one sweep forgets every game that is due, batch
    after batch. The batch is made small here, so that two batches and one more game are
    21 games rather than 1,001."""
    assert lite.archiver is not None
    archiver = GameArchiver(
        client, lite.archiver.archive, grace_seconds=lite.archiver.grace_ms / 1000, sweep_batch=10
    )
    games = [_finished(lite, seed, "resigned") for seed in range(2 * archiver.sweep_batch + 1)]
    for game in games:
        archiver.archive_game(game.game_id)
    late = max(int(client.zscore(RELEASE, game.game_id)) for game in games)

    assert archiver.sweep(now_ms=late).released == len(games)
    assert client.zcard(RELEASE) == 0
    assert not any(client.exists(keys(game.game_id)["log"]) for game in games)


def test_the_sweep_archives_the_games_noted_long_ago_whose_job_was_lost(both, client, archive_url):
    archiver = both.archiver
    assert archiver is not None
    games = [_finished(both, 8, "timed_out"), _finished(both, 9, "aborted_unjoined")]
    ids = [game.game_id for game in games]
    noted = {game_id: int(client.zscore(ENDED, game_id)) for game_id in ids}
    # A game noted as ended by mistake while it is still in play.
    running, _tokens = _running(both, 10)
    archiver.note_ended(running, min(noted.values()))
    latest = max(noted.values())

    too_soon = archiver.sweep(now_ms=min(noted.values()) + LATE_MS - 1)
    assert too_soon.archived == 0
    assert archived_rows(archive_url, ids) == dict.fromkeys(ids, 0)

    late = archiver.sweep(now_ms=latest + LATE_MS)
    assert late.archived == 2
    assert archived_rows(archive_url, [*ids, running]) == {**dict.fromkeys(ids, 1), running: 0}
    assert client.zcard(ENDED) == 0, "archived, or refused as still in play"
    assert keys(running)["log"] in game_keys(client, running)
    # Their grace runs from their end: a sweep after it forgets them.
    after_grace = latest + int(GRACE_SECONDS * 1000) + LATE_MS
    assert archiver.sweep(now_ms=after_grace).released == 2
    assert all(game_keys(client, game_id) == set() for game_id in ids)
    assert keys(running)["log"] in game_keys(client, running)


def test_a_game_the_archive_refuses_is_left_and_the_sweep_archives_the_others(lite, client):
    """One game the archive refuses (here: its id is taken by another game's row) must not
    stop every later sweep: the sweep leaves it noted, logs it, and goes on."""
    archiver = lite.archiver
    assert archiver is not None
    refused, fine = _finished(lite, 11, "resigned"), _finished(lite, 12, "resigned")
    other = archiver.read(fine.game_id)
    assert other is not None
    archiver.archive.put(
        ArchiveRecord(refused.game_id, None, "head", "finished", 1, 2, encode(other), digest(other))
    )
    # The refused game is noted first, so a sweep that stops at it archives nothing.
    client.zadd(ENDED, {refused.game_id: 1, fine.game_id: 2})
    swept = archiver.sweep(now_ms=2 + LATE_MS)
    assert swept.archived == 1
    assert client.exists(archived_key(fine.game_id))
    assert not client.exists(archived_key(refused.game_id)), "Redis keeps the refused game"
    assert client.zscore(ENDED, refused.game_id) is not None, "still noted, for a later sweep"


# -- the scan for strays ------------------------------------------------------------------


def test_the_scan_finds_an_ended_game_nobody_noted(lite, client):
    # Played by a process with no archive: its ending was neither noted nor sent to a job.
    unnoted = _finished(table(client, None), 11)
    assert client.zcard(ENDED) == 0
    services = lite
    archiver = services.archiver
    assert archiver is not None
    archived = _finished(services, 12, "resigned")
    archiver.archive_game(archived.game_id)
    running, _tokens = _running(services, 13)

    assert set(archiver.strays()) == {unnoted.game_id, running}

    # An archived game that lost its place in the release set gets it back from the scan.
    client.zrem(RELEASE, archived.game_id)
    assert archived.game_id not in set(archiver.strays())
    assert client.zscore(RELEASE, archived.game_id) is not None
    # The sweep's job archives the ended stray (workers.jobs.sweep): archive_game.
    assert archiver.archive_game(unnoted.game_id) is not None
    assert set(archiver.strays()) == {running}


# -- abandoned games ------------------------------------------------------------------------


def _abandon(services: Services, game_id: str, idle: float = 0.001):
    """The sweep's call for a game it found standing still (``idle`` s, tiny here)."""
    clock = services.store.clock(game_id)
    if clock.waited_ms is not None and clock.waited_ms < idle * 1000 + 2:
        time.sleep(idle + 0.003)
    return services.games.abandon(game_id, idle_seconds=idle)


def test_an_abandoned_game_nobody_joined_is_aborted(lite, client):
    created = lite.games.create(NewGame(Variant.TRACKED, Opponent(), seed=14))
    game_id = created.current.game_id

    ended = _abandon(lite, game_id)

    assert ended is not None
    state = lite.games.current(game_id).state
    assert state.over and state.ending is not None
    assert state.ending.reason is GameEndReason.ABORTED and state.winner is None
    assert client.zscore(ENDED, game_id) is not None, "its ending asks for its archiving"


def test_an_abandoned_game_nobody_moved_in_is_aborted(lite):
    game_id, _tokens = _running(lite, 15, actions=0)

    assert _abandon(lite, game_id) is not None

    state = lite.games.current(game_id).state
    assert state.ending is not None and state.ending.reason is GameEndReason.ABORTED
    assert state.game_points == (7, 7)


def test_rx6_an_abandoned_rated_game_both_seats_joined_is_not_called_off(lite):
    """Both seats of a rated game have their hands: the sweep ends it as a running game
    (RX3, the seat waiting wins), never as an abort that dodges the result."""
    created = lite.games.create(NewGame(rated=True), owner="cl_sweep", player="pl_anna")
    game_id = created.current.game_id
    lite.games.join(game_id, created.invite or "", player=("cl_sweep", "pl_ben"))
    before = lite.games.current(game_id).state
    assert before.to_move is not None

    assert _abandon(lite, game_id) is not None

    state = lite.games.current(game_id).state
    assert state.ending is not None and state.ending.reason is GameEndReason.TIMED_OUT
    assert state.winner == 1 - before.to_move


def test_an_abandoned_running_game_goes_to_the_seat_waiting_for_the_other(lite):
    game_id, _tokens = _running(lite, 16, actions=7)
    before = lite.games.current(game_id).state
    assert before.to_move is not None
    waiting = 1 - before.to_move

    assert _abandon(lite, game_id) is not None

    state = lite.games.current(game_id).state
    assert state.ending is not None and state.ending.reason is GameEndReason.TIMED_OUT
    assert state.ending.seat == waiting and state.winner == waiting
    assert state.game_points[before.to_move] == before.game_points[before.to_move]


def test_a_game_that_moved_recently_is_not_abandoned(lite, client):
    game_id, _tokens = _running(lite, 17, actions=3)
    unjoined = lite.games.create(NewGame(Variant.HEAD, Opponent(), seed=18)).current.game_id
    held = {g: _snapshot(client, g) for g in (game_id, unjoined)}

    for g in (game_id, unjoined):
        assert lite.games.abandon(g, idle_seconds=3600) is None

    assert {g: _snapshot(client, g) for g in (game_id, unjoined)} == held
    assert client.zcard(ENDED) == 0


def test_a_finished_game_is_not_abandoned_again(lite):
    game = _finished(lite, 19, "resigned")
    head = lite.store.head(game.game_id)

    assert _abandon(lite, game.game_id) is None
    assert lite.store.head(game.game_id) == head


# -- a client app's listing ------------------------------------------------------------------


def test_release_takes_the_game_off_its_client_index_and_the_listing_still_shows_it(both, client):
    archiver = both.archiver
    assert archiver is not None
    games = [_finished(both, seed, owner=CLIENT) for seed in (20, 21, 22)]
    listed = both.games.list_games(CLIENT, status=None, after=None, limit=10)
    before = [(entry.game_id, entry.created_ms, current) for entry, current in listed.games]
    assert {g for g, _ms, _c in before} == {game.game_id for game in games}
    gone = games[1].game_id

    archiver.archive_game(gone)
    assert client.zscore(index_key(CLIENT), gone) is not None, "listed from Redis in its grace"
    assert archiver.release(gone)

    assert client.zscore(index_key(CLIENT), gone) is None
    assert client.zcard(index_key(CLIENT)) == 2
    again = both.games.list_games(CLIENT, status=None, after=None, limit=10)
    assert [(e.game_id, e.created_ms, c) for e, c in again.games] == before
    # Page by page, across Redis and the archive, the same games in the same order.
    paged, after = [], None
    while True:
        page = both.games.list_games(CLIENT, status=None, after=after, limit=1)
        paged += [(e.game_id, e.created_ms, c) for e, c in page.games]
        if page.next_cursor is None:
            break
        after = page.next_cursor
    assert paged == before


def test_a_game_is_read_the_same_from_the_archive(both):
    archiver = both.archiver
    assert archiver is not None
    game = _finished(both, 23, "timed_out")
    events = both.store.events(game.game_id)
    was = both.games.current(game.game_id)
    clock = both.store.clock(game.game_id)

    archiver.archive_game(game.game_id)
    assert archiver.release(game.game_id)

    assert both.store.live.head(game.game_id) == 0
    assert both.store.events(game.game_id) == events
    assert both.store.events(game.game_id, 3, 9) == events[3:9]
    assert replay(both.store.events(game.game_id)) == was.state
    assert both.games.current(game.game_id) == was
    assert both.store.head(game.game_id) == was.version
    after = both.store.clock(game.game_id)
    assert (after.head, after.last_ms) == (clock.head, clock.last_ms)


# -- keyed requests ---------------------------------------------------------------------------


def test_a_keyed_ending_retried_after_redis_forgot_the_game_answers_its_first_answer(lite, client):
    archiver = lite.archiver
    assert archiver is not None
    game_id, tokens = _running(lite, 24, actions=4)
    resigned = lite.games.resign(game_id, tokens[1], idempotency_key="resign-once")
    assert not resigned.replayed
    archiver.archive_game(game_id)
    assert archiver.release(game_id)
    assert lite.store.live.head(game_id) == 0

    # Only the idempotency record is left, to expire by itself.
    assert game_keys(client, game_id) == {keys(game_id)["idem"]}
    assert 0 < client.ttl(keys(game_id)["idem"]) <= IDEMPOTENCY_TTL
    # Keys are remembered a day (openapi.yaml): the retry is answered as the first was.
    again = lite.games.resign(game_id, tokens[1], idempotency_key="resign-once")

    assert again.replayed
    assert (again.current, again.seat) == (resigned.current, resigned.seat)


def test_a_create_key_used_again_after_its_game_left_redis_never_takes_the_games_id(lite, client):
    archiver = lite.archiver
    assert archiver is not None
    new = NewGame(Variant.HEAD, Opponent(), seed=25)
    created = lite.games.create(new, idempotency_key="create-once", scope="address:10.0.0.1")
    game_id = created.current.game_id
    aborted = lite.games.abort(game_id, created.token)
    archiver.archive_game(game_id)
    assert archiver.release(game_id)

    # Within the key's day the retry is answered as the first create was.
    retried = lite.games.create(new, idempotency_key="create-once", scope="address:10.0.0.1")
    assert retried.replayed and retried.current == created.current
    assert retried.token == created.token
    # Once the key is forgotten it is new again, and so is its game: never the old id.
    client.delete(keys(game_id)["idem"])
    fresh = lite.games.create(new, idempotency_key="create-once", scope="address:10.0.0.1")
    assert fresh.current.game_id != game_id
    assert lite.games.current(game_id) == aborted.current
    assert lite.store.live.head(game_id) == 0


def test_a_game_whose_row_a_killed_run_wrote_is_counted_once_when_archived_again(lite, client):
    archiver = lite.archiver
    assert archiver is not None
    game = _finished(lite, 26, "resigned")
    held = archiver.read(game.game_id)
    assert held is not None
    # What a run killed between writing the row and marking the game left behind.
    lite.archive.put(
        ArchiveRecord(
            game_id=game.game_id,
            client_id=None,
            variant="head",
            status="finished",
            created_ms=held.times[0],
            ended_ms=held.times[-1],
            data=encode(held),
            digest=digest(held),
        )
    )
    before = _finished_count(client)

    again = archiver.archive_game(game.game_id)
    assert again is not None and not again.written
    archiver.archive_game(game.game_id)

    assert _finished_count(client) == before + 1, "counted once, by the run that marked it"
