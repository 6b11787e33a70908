"""`GET /v1/games/export` over gunicorn: the answer is streamed, a line at a time.

An export may hold a hundred thousand games, so the server never builds it
whole: the answer is chunked (no Content-Length, which only a whole body
has), and a client can read its lines as they come, every game once across
the archive's pages.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import replace

import pytest
import requests

from service.engine import GameCreated, SeatTaken, Variant, replay
from service.engine.events import DealStarted, Resigned
from service.game.dealing import random_deck
from service.store import archive_postgres, archive_sqlite
from service.store.archive import Archive, open_archive
from service.store.archive_codec import ArchivedGame
from service.store.clients import ClientRegistry
from tests.support.archive_records import played_record
from tests.support.servers import LiveServer

#: More rows than one page of either back end's ``scan``.
SCAN_PAGE = max(archive_sqlite.SCAN_PAGE, archive_postgres.SCAN_PAGE)


@pytest.fixture(scope="module")
def archive_url(tmp_path_factory: pytest.TempPathFactory) -> str:
    return f"sqlite:///{tmp_path_factory.mktemp('archive') / 'archive.sqlite3'}"


@pytest.fixture(scope="module")
def archive(archive_url: str) -> Iterator[Archive]:
    opened = open_archive(archive_url)
    try:
        yield opened
    finally:
        opened.close()


@pytest.fixture(scope="module")
def server(redis_url: str, archive_url: str, archive: Archive) -> Iterator[LiveServer]:
    live = LiveServer(redis_url, workers=1, env={"SCHNAPSEN_ARCHIVE_URL": archive_url})
    try:
        yield live
    finally:
        live.stop()


def resigned_game(game_id: str) -> ArchivedGame:
    """A game against a bot that seat 0 resigned in its first deal, as its log holds it."""
    events = [GameCreated(Variant.HEAD, 0), SeatTaken(0), SeatTaken(1, "bot", "random")]
    events.append(DealStarted(1, 0, random_deck(), "ab" * 32))
    assert replay(events).to_move is not None
    events.append(Resigned(0))
    seats = {"player:0": "human", "player:1": "bot:random", "token:0": "0" * 64}
    return ArchivedGame.of(game_id, events, [1_000 + n for n in range(len(events))], seats)


def test_an_export_over_gunicorn_is_chunked_and_holds_every_game_once(
    server, archive, redis_client
):
    app, key = ClientRegistry(redis_client).create("Streaming")
    game = resigned_game("0" * 16)
    count = 2 * SCAN_PAGE + 3
    for number in range(count):
        row = replace(game, game_id=f"{0xB0000000 + number:016x}")
        assert archive.put(played_record(row, 1_700_000_000_000 + number, app.id))
    url = f"{server.url}/v1/games/export?client=me"
    with requests.get(url, headers={"X-Client-Key": key}, stream=True, timeout=30) as answer:
        assert answer.status_code == 200, answer.text
        assert answer.headers["Content-Type"] == "application/x-ndjson"
        assert answer.headers.get("Transfer-Encoding") == "chunked"
        assert "Content-Length" not in answer.headers
        lines = answer.iter_lines()
        first = json.loads(next(lines))
        assert first["game_id"] == f"{0xB0000000 + count - 1:016x}"
        assert first["replay"]["complete"] is True
        rest = [json.loads(line)["game_id"] for line in lines]
    assert len(rest) == count - 1
    assert rest[-1] == f"{0xB0000000:016x}"
