"""A finished game takes at most ``GAME_BYTES`` where the archive keeps it, on both back
ends: its row, its keys and its indexes, measured by the database itself.

The games are whole games as the service records them (``whole_games``: people
and bots, every ending, old entries without times), archived as the archiving
job archives them, all of one month, in the order they end.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from service.store.archive import open_archive
from tests.store.whole_games import random_games
from tests.support.archive_records import month_ms, played_record
from tests.support.archive_storage import footprint
from tests.support.postgres import fresh_database

#: The most bytes a finished game may take in the archive, table and indexes.
GAME_BYTES = 600
#: Games archived for the measure: enough that a table's first pages weigh little.
GAMES = 1_000
#: Client apps the games belong to (a few, interleaved, as several apps archive at once).
CLIENTS = 5


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


def test_a_finished_game_takes_at_most_its_bound_in_table_and_indexes(archive_url: str):
    archive = open_archive(archive_url)
    try:
        start = month_ms(2026, 11, 2)
        for i, game in enumerate(random_games(seed=11, count=GAMES)):
            row = played_record(game, start + 45_000 * i, f"cl_{i % CLIENTS:012x}")
            assert archive.put(row) is True
    finally:
        archive.close()
    measured = footprint(archive_url)
    assert measured.games == GAMES
    assert measured.per_game <= GAME_BYTES, (
        f"{measured.per_game:.0f} bytes a game stored "
        f"({measured.payload_per_game:.0f} of them the encoded game)"
    )
