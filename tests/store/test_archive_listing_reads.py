"""A listing reads a row's ids and times and leaves its game's bytes alone: a row whose
digest is left to its bytes (every game the archiving job writes) is not decoded to be
listed, on either back end. Decoding is milliseconds a game, and a page lists dozens.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator

import psycopg
import pytest

from service.store.archive import ArchiveKey, ArchiveQuery, open_archive
from service.store.archive_codec import ArchiveDecodeError
from service.store.archive_keys import game_key
from tests.store.whole_games import random_games
from tests.support.archive_records import month_ms, played_record
from tests.support.postgres import fresh_database


@pytest.fixture(
    params=[
        pytest.param("sqlite", id="sqlite"),
        pytest.param("postgresql", id="postgresql", marks=pytest.mark.redis),
    ]
)
def archive_url(request: pytest.FixtureRequest, tmp_path) -> Iterator[str]:
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'archive.sqlite3'}"
        return
    with fresh_database(request.getfixturevalue("postgres_url")) as url:
        yield url


def spoil(url: str, game_id: str) -> None:
    """Write bytes that are no game over the row's, behind the archive's back."""
    sql = "UPDATE games SET data = {mark} WHERE game_id = {mark}"
    if url.startswith("sqlite:///"):
        with sqlite3.connect(url.removeprefix("sqlite:///")) as db:
            db.execute(sql.format(mark="?"), (b"\x02no game", game_key(game_id)))
        return
    with psycopg.connect(url, autocommit=True) as db:
        db.execute(sql.format(mark="%s"), (b"\x02no game", game_key(game_id)))


def test_a_listing_gives_ids_and_times_without_decoding_the_games(archive_url: str):
    games = list(random_games(seed=17, count=3))
    start = month_ms(2026, 5, 4)
    rows = [played_record(game, start + i, "cl_00000000000a") for i, game in enumerate(games)]
    archive = open_archive(archive_url)
    try:
        for row in rows:
            archive.put(row)
        spoil(archive_url, rows[1].game_id)
        listed = archive.page(ArchiveQuery("cl_00000000000a"), None, 10)
        assert [(r.game_id, r.created_ms) for r in listed] == [
            (row.game_id, row.created_ms) for row in reversed(rows)
        ]
        after = ArchiveKey(rows[2].created_ms, rows[2].game_id)
        assert [r.game_id for r in archive.page(ArchiveQuery("cl_00000000000a"), after, 1)] == [
            rows[1].game_id
        ]
        assert listed[0].digest == rows[2].digest
        with pytest.raises(ArchiveDecodeError):
            _ = listed[1].digest
    finally:
        archive.close()
