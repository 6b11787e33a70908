"""The archive on PostgreSQL is backed up with ``pg_dump`` and restored with ``pg_restore``
(docs/deployment.md): a restored database holds every game byte for byte, each month
in its partition, with its schema's migrations recorded, and takes new games."""

from __future__ import annotations

import subprocess
from pathlib import Path

import psycopg

from service.store.archive import ArchiveQuery
from service.store.archive_postgres import PostgresArchive
from service.store.migrations import migrations
from tests.store.whole_games import random_games
from tests.support.archive_records import month_ms, newest_first, played_record, record
from tests.support.postgres import fresh_database, program


def run(*command: str | Path) -> None:
    """Run a PostgreSQL program; its output is the failure's message."""
    done = subprocess.run(
        [str(part) for part in command], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, f"{command[0]} exited {done.returncode}:\n{done.stderr}"


def partitions(url: str) -> set[str]:
    with psycopg.connect(url) as db:
        return {
            name
            for (name,) in db.execute(
                "SELECT inhrelid::regclass::text FROM pg_inherits "
                "WHERE inhparent = 'games'::regclass"
            )
        }


def test_a_dump_restored_into_a_new_database_holds_the_same_games(
    postgres_url: str, tmp_path: Path
):
    played = [
        played_record(game, month_ms(2024, 1 + i % 3, 5, i), "client-a")
        for i, game in enumerate(random_games(seed=11, count=6))
    ]
    made = [record(f"{i:016x}", month_ms(2024, 4, 1 + i), client_id="client-b") for i in range(4)]
    rows = played + made
    dump = tmp_path / "archive.dump"
    with fresh_database(postgres_url) as source, fresh_database(postgres_url) as target:
        archive = PostgresArchive(source)
        try:
            for row in rows:
                archive.put(row)
        finally:
            archive.close()
        run(program("pg_dump"), "--format=custom", "--file", dump, "--dbname", source)
        run(program("pg_restore"), "--exit-on-error", "--dbname", target, dump)

        restored = PostgresArchive(target)
        try:
            assert restored.count() == len(rows)
            for row in rows:
                found = restored.get(row.game_id)
                assert found == row
                assert found is not None and found.data == row.data
            for client in ("client-a", "client-b"):
                query = ArchiveQuery(client)
                mine = [row for row in rows if row.client_id == client]
                assert list(restored.scan(query)) == newest_first(mine)
            assert partitions(target) == partitions(source)
            with psycopg.connect(target) as db:
                applied = [n for (n,) in db.execute("SELECT number FROM schema_migrations")]
            assert sorted(applied) == [m.number for m in migrations("postgres")]
            # The restored archive goes on: a game it holds is not written again, and a
            # game of a month it never had gets that month's partition.
            assert restored.put(rows[0]) is False
            assert restored.put(record("f" * 16, month_ms(2024, 9, 9))) is True
            assert len(partitions(target)) == len(partitions(source)) + 1
        finally:
            restored.close()
