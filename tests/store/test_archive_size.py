"""A finished game takes at most ``GAME_BYTES`` where the archive keeps it, on both back
ends: its row, its keys and its indexes, measured by the database itself.

The games are whole games as the service records them (``whole_games``: people
and bots, every ending, old entries without times), archived as the archiving
job archives them, all of one month, in the order they end. What an archive
takes grows with its games: the measure is what a second thousand games adds
to the first, so a table's first pages (a fixed few KiB, a third of a
SQLite page) do not count for or against the bound. ``benchmarks/archive.py
--storage`` measures the whole of an archive of 10,000 games.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from service.store.archive import ArchiveRecord, open_archive
from tests.store.whole_games import random_games
from tests.support.archive_records import month_ms, played_record
from tests.support.archive_storage import footprint
from tests.support.postgres import fresh_database

#: The most bytes a finished game may take in the archive, table and indexes.
GAME_BYTES = 600
#: Games archived before the measure, and then measured.
GAMES = 1_000
#: Client apps the games belong to (a few, interleaved, as several apps archive at once).
CLIENTS = 5


@pytest.fixture(
    params=[
        pytest.param("sqlite", id="sqlite"),
        pytest.param("postgresql", id="postgresql"),  # heavy, as the test is (below)
    ]
)
def archive_url(request: pytest.FixtureRequest, tmp_path) -> Iterator[str]:
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'archive.sqlite3'}"
        return
    with fresh_database(request.getfixturevalue("postgres_url")) as url:
        yield url


@pytest.fixture(scope="module")
def rows() -> list[ArchiveRecord]:
    start = month_ms(2026, 11, 2)
    return [
        played_record(game, start + 45_000 * i, f"cl_{i % CLIENTS:012x}")
        for i, game in enumerate(random_games(seed=11, count=2 * GAMES))
    ]


@pytest.mark.heavy  # two thousand whole games made and archived on each back end
def test_a_finished_game_takes_at_most_its_bound_in_table_and_indexes(
    archive_url: str, rows: list[ArchiveRecord]
):
    archive = open_archive(archive_url)
    try:
        for row in rows[:GAMES]:
            assert archive.put(row) is True
        first = footprint(archive_url)
        for row in rows[GAMES:]:
            assert archive.put(row) is True
    finally:
        archive.close()
    both = footprint(archive_url)
    assert both.games == 2 * GAMES
    added = (both.stored_bytes - first.stored_bytes) / GAMES
    payload = (both.payload_bytes - first.payload_bytes) / GAMES
    assert added <= GAME_BYTES, (
        f"{added:.0f} bytes a game stored ({payload:.0f} of them the encoded game)"
    )
