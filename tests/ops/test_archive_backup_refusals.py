"""``schnapsen-admin backup`` and ``restore`` refuse what they cannot do as asked, say
why, and write nothing: a destination that exists, an archive that is not there, a file
that is no archive; on PostgreSQL without ``pg_dump`` the backup prints the command to
run, without the URL's password."""

from __future__ import annotations

from pathlib import Path

from service.store.archive_sqlite import SqliteArchive
from tests.support.archive_copies import archive_admin, integrity, sqlite_game_ids
from tests.support.archive_records import month_ms, record

GAMES = 3


def archive_of(path: Path, games: int = GAMES) -> set[str]:
    """A SQLite archive at ``path`` with ``games`` games; their ids."""
    archive = SqliteArchive(path)
    try:
        for n in range(games):
            archive.put(record(f"{n:016x}", month_ms(2026, 3, 1, n)))
    finally:
        archive.close()
    return sqlite_game_ids(path)


def test_a_backup_never_overwrites_a_file_that_exists(tmp_path: Path):
    live = tmp_path / "var" / "archive.sqlite3"
    archive_of(live)
    kept = tmp_path / "older-backup.sqlite3"
    kept.write_bytes(b"an older backup")
    made = archive_admin({"SCHNAPSEN_DATA_DIR": str(tmp_path / "var")}, "backup", str(kept))
    assert made.returncode == 1, made
    assert "exists already" in made.stderr
    assert kept.read_bytes() == b"an older backup"


def test_a_backup_of_an_archive_that_is_not_there_writes_nothing(tmp_path: Path):
    copy = tmp_path / "backup.sqlite3"
    made = archive_admin({"SCHNAPSEN_DATA_DIR": str(tmp_path / "var")}, "backup", str(copy))
    assert made.returncode == 1, made
    assert "there is no archive at" in made.stderr
    assert not copy.exists() and not (tmp_path / "var").exists()


def test_a_backup_of_the_run_commands_archive_is_whole_and_self_contained(tmp_path: Path):
    data_dir = tmp_path / "data dir #1?"  # a name a URI would misread
    games = archive_of(data_dir / "archive.sqlite3")
    copy = tmp_path / "backups" / "backup.sqlite3"
    made = archive_admin({"SCHNAPSEN_DATA_DIR": str(data_dir)}, "backup", str(copy))
    assert made.returncode == 0, made.stderr
    assert f"backed up {GAMES} games" in made.stdout
    assert sqlite_game_ids(copy) == games and integrity(copy) == ["ok"]
    assert [p.name for p in copy.parent.iterdir()] == [copy.name], "one file, no log beside it"


def test_a_restore_of_a_file_that_is_no_archive_leaves_the_archive_as_it_was(tmp_path: Path):
    live = tmp_path / "var" / "archive.sqlite3"
    games = archive_of(live)
    env = {"SCHNAPSEN_DATA_DIR": str(tmp_path / "var")}
    junk = tmp_path / "junk.sqlite3"
    junk.write_bytes(b"not a database at all" * 300)
    with_no_tables = tmp_path / "plain.sqlite3"
    with_no_tables.touch()
    for source, says in ((junk, "not a SQLite archive"), (with_no_tables, "holds no archive")):
        refused = archive_admin(env, "restore", str(source))
        assert refused.returncode == 1, refused
        assert says in refused.stderr, refused.stderr
        assert sqlite_game_ids(live) == games
    missing = archive_admin(env, "restore", str(tmp_path / "nowhere.sqlite3"))
    assert missing.returncode == 1 and "there is no backup at" in missing.stderr
    assert sqlite_game_ids(live) == games


def test_on_postgresql_without_pg_dump_the_backup_prints_the_command_without_the_password(
    tmp_path: Path,
):
    nothing = tmp_path / "no-programs"
    nothing.mkdir()
    url = "postgresql://archive:s3cret@db.example:5432/archive"
    dump = tmp_path / "archive.dump"
    env = {"SCHNAPSEN_ARCHIVE_URL": url, "PATH": str(nothing)}
    made = archive_admin(env, "backup", str(dump))
    assert made.returncode == 2, made
    assert made.stdout == (
        f"pg_dump --format=custom --file {dump} "
        "--dbname postgresql://archive@db.example:5432/archive\n"
    )
    assert "PGPASSWORD" in made.stderr
    assert "s3cret" not in made.stdout + made.stderr
    assert not dump.exists()
    steps = archive_admin(env, "restore", str(dump))
    assert steps.returncode == 2, steps
    assert "pg_restore --exit-on-error --dbname postgresql://archive@db.example:5432/" in (
        steps.stderr
    )
    assert "s3cret" not in steps.stdout + steps.stderr
