"""An archive written before its rows were compact (migration 0001: text keys, a digest
in every row) opens with its games as they were: every game reads back identical, is
listed in the same order, and is written once still.
"""

from __future__ import annotations

import dataclasses
import sqlite3
from collections.abc import Iterator

import psycopg
import pytest

from service.store import archive_postgres
from service.store.archive import ArchiveQuery, ArchiveRecord, open_archive
from service.store.migrations import migrations
from tests.store.whole_games import random_games
from tests.support.archive_records import month_ms, newest_first, played_record, record
from tests.support.postgres import fresh_database

_COLUMNS = "game_id, client_id, variant, status, created_ms, ended_ms, data, digest"


def old_rows() -> list[ArchiveRecord]:
    """Played games of two clients over two months, rows of bytes that are no game, an
    aborted game and one of the tracked variant, some created in the same ms."""
    start = month_ms(2024, 3, 30)
    rows = [
        played_record(game, start + 3_600_000 * 24 * (i // 4) + i % 2, f"cl_{i % 2:012x}")
        for i, game in enumerate(random_games(seed=5, count=8))
    ]
    rows += [
        record("00000000000000aa", start, client_id="cl_000000000000", status="aborted"),
        record("ffffffffffffffff", start, client_id="cl_000000000000", variant="tracked"),
        record("8000000000000000", start + 1, client_id=None),
        record("0123456789abcdef", start + 2, client_id="client-β"),
    ]
    return rows


def test_a_sqlite_row_of_an_id_that_is_no_hex_reads_back_after_the_migration(tmp_path):
    """SQLite took any text as an id; such a row, from before ids were numbers, stays
    and is found by its id (PostgreSQL's ids were always the service's hex)."""
    row = record("0000000000000001", month_ms(2024, 3, 30), client_id="cl_000000000000")
    odd = dataclasses.replace(row, game_id="game-Ω-1")
    path = tmp_path / "archive.sqlite3"
    write_sqlite(str(path), [row, odd])
    archive = open_archive(f"sqlite:///{path}")
    try:
        assert archive.get("game-Ω-1") == odd
        assert archive.get(row.game_id) == row
    finally:
        archive.close()


def write_sqlite(path: str, rows: list[ArchiveRecord]) -> None:
    first = migrations("sqlite")[0]
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE schema_migrations (number INTEGER PRIMARY KEY)")
        db.executescript(first.sql)
        db.execute("INSERT INTO schema_migrations (number) VALUES (?)", (first.number,))
        db.executemany(
            f"INSERT INTO games ({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            [_values(row) for row in rows],
        )


def write_postgres(url: str, rows: list[ArchiveRecord]) -> None:
    first = migrations("postgres")[0]
    with psycopg.connect(url, autocommit=True) as db:
        db.execute(
            "CREATE TABLE schema_migrations (number integer PRIMARY KEY, name text NOT NULL,"
            " applied_at timestamptz NOT NULL DEFAULT now())"
        )
        db.execute(first.sql.encode())
        db.execute(
            "INSERT INTO schema_migrations (number, name) VALUES (%s, %s)",
            (first.number, first.name),
        )
        for month in sorted({archive_postgres._month(row.created_ms) for row in rows}):
            start, end = archive_postgres._month_bounds(month)
            name = archive_postgres._partition(month)
            db.execute(
                f"CREATE TABLE {name} PARTITION OF games FOR VALUES FROM ({start}) TO ({end})"
            )
        with db.cursor() as cursor:
            cursor.executemany(
                f"INSERT INTO games ({_COLUMNS}) VALUES (%s, %s, %s, %s, %s, %s, %s, %s)",
                [_values(row) for row in rows],
            )


def _values(row: ArchiveRecord) -> tuple[object, ...]:
    return (
        row.game_id,
        row.client_id,
        row.variant,
        row.status,
        row.created_ms,
        row.ended_ms,
        row.data,
        row.digest,
    )


@pytest.fixture(
    params=[
        pytest.param("sqlite", id="sqlite"),
        pytest.param("postgresql", id="postgresql", marks=pytest.mark.redis),
    ]
)
def old_archive(request: pytest.FixtureRequest, tmp_path) -> Iterator[tuple[str, list]]:
    rows = old_rows()
    if request.param == "sqlite":
        path = tmp_path / "archive.sqlite3"
        write_sqlite(str(path), rows)
        yield f"sqlite:///{path}", rows
        return
    with fresh_database(request.getfixturevalue("postgres_url")) as url:
        write_postgres(url, rows)
        yield url, rows


def test_an_archive_of_text_keys_reads_every_game_back_identical_once_compact(old_archive):
    url, rows = old_archive
    archive = open_archive(url)
    try:
        assert archive.count() == len(rows)
        for row in rows:
            assert archive.get(row.game_id) == row
            assert archive.put(row) is False
        for client in ("cl_000000000000", "cl_000000000001", "client-β"):
            mine = [row for row in rows if row.client_id == client]
            assert list(archive.scan(ArchiveQuery(client))) == newest_first(mine)
        aborted = list(archive.scan(ArchiveQuery("cl_000000000000", status="aborted")))
        assert aborted == [rows[8]]
    finally:
        archive.close()
