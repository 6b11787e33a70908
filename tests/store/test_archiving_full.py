"""On a full store the sweep makes room: archived games are forgotten before their grace,
ended games are archived and forgotten at once, games in play stay.

A real Redis of the test's own, held full (its limit below what it uses,
``tests/support/full_store.py``): every write is refused, deletions are not.
The archive is a SQLite file.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis

from service.devtools.embedded_redis import EmbeddedRedis
from service.engine import Variant
from service.game.commands import NewGame, Opponent
from service.ops.composition import Services
from service.store.archive import open_archive
from service.store.archiving import ENDED, RELEASE, archived_key
from service.store.events import keys
from service.store.full import room
from tests.support.full_store import hold_full, make_room
from tests.support.lifecycle import archived_rows, finish, game_keys, moves, table

GRACE_SECONDS = 600.0


@pytest.fixture
def client(tmp_path: Path) -> Iterator[redis.Redis]:
    server = EmbeddedRedis(tmp_path / "redis").start()
    try:
        yield redis.Redis.from_url(server.url)
    finally:
        server.stop()


@pytest.fixture
def archive_url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'archive.sqlite3'}"


@pytest.fixture
def services(client: redis.Redis, archive_url: str) -> Iterator[Services]:
    archive = open_archive(archive_url)
    try:
        yield table(client, archive, grace_seconds=GRACE_SECONDS)
    finally:
        archive.close()


def _finished(services: Services, seed: int, ending: str) -> str:
    return finish(services.games, random.Random(seed), ending, Variant.HEAD).game_id


def _running(services: Services, seed: int) -> str:
    created = services.games.create(NewGame(Variant.HEAD, Opponent(), seed=seed))
    game_id = created.current.game_id
    assert created.invite is not None
    tokens = {0: created.token, 1: services.games.join(game_id, created.invite).token}
    moves(services.games, game_id, tokens, 5, random.Random(seed), "patient")
    return game_id


def test_on_a_full_store_the_sweep_forgets_archived_and_ended_games_at_once(
    services, client, archive_url
):
    archiver = services.archiver
    assert archiver is not None
    in_grace = _finished(services, 1, "resigned")
    archiver.archive_game(in_grace)  # archived, marked, kept for its grace
    ended = _finished(services, 2, "aborted")  # noted just now: its job has not run
    running = _running(services, 3)
    before = services.games.current(ended)
    assert client.zscore(ENDED, ended) is not None
    client.config_set("maxmemory", 64 * 1024 * 1024)
    hold_full(client)
    assert room(client).full

    # Not full, the sweep would leave both: one in its grace, one noted a moment ago.
    swept = archiver.sweep(full=True)

    assert (swept.released, swept.archived) == (1, 1)
    assert game_keys(client, in_grace) == set()
    assert game_keys(client, ended) == set(), "archived and forgotten without its mark"
    assert archived_rows(archive_url, [in_grace, ended]) == {in_grace: 1, ended: 1}
    assert client.zcard(ENDED) == 0 and client.zcard(RELEASE) == 0
    assert keys(running)["log"] in game_keys(client, running)
    # Read from the archive now, the ended game is the same game.
    after = services.games.current(ended)
    assert (after.version, after.state) == (before.version, before.state)
    make_room(client)


def test_on_a_full_store_a_game_whose_log_grew_after_its_row_is_kept(services, client):
    """The row is checked at one head; a log longer than that is not forgotten."""
    archiver = services.archiver
    assert archiver is not None
    ended = _finished(services, 4, "aborted")
    client.config_set("maxmemory", 64 * 1024 * 1024)
    hold_full(client)
    forgotten = archiver._forget_checked(ended, head=1, owner=None)  # the log is longer
    assert not forgotten
    assert keys(ended)["log"] in game_keys(client, ended)
    assert not client.exists(archived_key(ended))
    make_room(client)
