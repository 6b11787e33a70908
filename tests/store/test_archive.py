"""The archive of finished games, the same promises on both back ends: SQLite in a file,
PostgreSQL on a real server (a database of its own per test).

A game is written once, whoever archives it and however often; a listing is
one client's games, newest first, page by page, with no game repeated or
hidden at a page's edge; the schema is applied once however many processes
open the archive; on PostgreSQL each month of games is a partition of its own.
"""

from __future__ import annotations

import contextlib
import itertools
import sqlite3
import threading
from collections.abc import Callable, Iterator
from dataclasses import replace
from typing import TypeVar

import psycopg
import pytest

from service.store import archive_postgres, archive_sqlite
from service.store.archive import (
    Archive,
    ArchiveConflict,
    ArchiveKey,
    ArchiveQuery,
    ArchiveRecord,
    open_archive,
)
from service.store.archive_codec import decode
from service.store.archive_keys import game_id_of
from service.store.migrations import migrations
from tests.store.whole_games import random_games
from tests.support.archive_records import (
    key,
    matches,
    month_ms,
    newest_first,
    played_record,
    record,
    with_other_bytes,
)
from tests.support.postgres import fresh_database

T = TypeVar("T")

#: The back ends, each test runs on both. PostgreSQL's runs need a server: the redis lane
#: (tests/conftest.py), which holds the tests that need a real server of any kind.
BACK_ENDS = [
    pytest.param("sqlite", id="sqlite"),
    pytest.param("postgresql", id="postgresql", marks=pytest.mark.redis),
]
#: More rows than one page of either back end's ``scan``.
SCAN_PAGE = max(archive_sqlite.SCAN_PAGE, archive_postgres.SCAN_PAGE)
#: Processes (here threads, each with its own connections) racing for one thing.
RACERS = 8
JANUARY = month_ms(2024, 1, 10)


@pytest.fixture(params=BACK_ENDS)
def archive_url(request: pytest.FixtureRequest, tmp_path) -> Iterator[str]:
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'archive.sqlite3'}"
        return
    with fresh_database(request.getfixturevalue("postgres_url")) as url:
        yield url


@pytest.fixture
def archive(archive_url: str) -> Iterator[Archive]:
    with opened(archive_url) as archive:
        yield archive


@pytest.fixture
def postgres_archive_url(postgres_url: str) -> Iterator[str]:
    with fresh_database(postgres_url) as url:
        yield url


def applied_migrations(url: str) -> list[int]:
    """The numbers in the archive's ``schema_migrations``, as many times as recorded."""
    sql = "SELECT number FROM schema_migrations ORDER BY number"
    if url.startswith("sqlite:///"):
        with sqlite3.connect(url.removeprefix("sqlite:///")) as db:
            return [n for (n,) in db.execute(sql)]
    with psycopg.connect(url) as db:
        return [n for (n,) in db.execute(sql)]


@contextlib.contextmanager
def opened(url: str) -> Iterator[Archive]:
    """The archive at ``url``, closed after."""
    archive = open_archive(url)
    try:
        yield archive
    finally:
        archive.close()


@contextlib.contextmanager
def racers(url: str) -> Iterator[list[Archive]]:
    """``RACERS`` archives at ``url``, each with connections of its own, as processes have."""
    with contextlib.ExitStack() as stack:
        yield [stack.enter_context(opened(url)) for _ in range(RACERS)]


def listing(archive: Archive, query: ArchiveQuery, count: int) -> list[ArchiveRecord]:
    """Every game of ``query``, walked page by page of ``count``."""
    found: list[ArchiveRecord] = []
    after: ArchiveKey | None = None
    while True:
        page = archive.page(query, after, count)
        assert len(page) <= count
        found += page
        if len(page) < count:
            return found
        after = key(page[-1])


def at_once(work: Callable[[int], T], racers: int = RACERS) -> list[T | BaseException]:
    """``work(i)`` for each racer in a thread of its own, all let go together: what each
    returned, or raised."""
    start = threading.Barrier(racers)
    results: list[T | BaseException] = [RuntimeError("did not finish")] * racers

    def run(i: int) -> None:
        start.wait(timeout=30)
        try:
            results[i] = work(i)
        except BaseException as error:  # noqa: BLE001 - handed back to the test
            results[i] = error

    threads = [threading.Thread(target=run, args=(i,)) for i in range(racers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    return results


# -- written once -----------------------------------------------------------------------


def test_a_played_game_comes_back_byte_for_byte(archive: Archive):
    games = list(random_games(seed=7, count=5))
    rows = [played_record(g, JANUARY + i, f"client-{i % 2}") for i, g in enumerate(games)]
    assert [archive.put(row) for row in rows] == [True] * 5
    for row, game in zip(rows, games, strict=True):
        found = archive.get(row.game_id)
        assert found == row
        assert decode(found.data) == game


def test_a_game_never_archived_is_not_found(archive: Archive):
    archive.put(record("0000000000000001", JANUARY))
    assert archive.get("0000000000000002") is None


def test_the_same_game_put_again_writes_nothing(archive: Archive):
    row = record("00000000000000aa", JANUARY, client_id=None)
    assert archive.put(row) is True
    assert archive.put(row) is False
    assert archive.count() == 1
    assert archive.get(row.game_id) == row


def test_the_same_game_with_other_bytes_is_refused_and_the_first_kept(archive: Archive):
    row = record("00000000000000ab", JANUARY)
    archive.put(row)
    with pytest.raises(ArchiveConflict) as refused:
        archive.put(with_other_bytes(row))
    assert refused.value.game_id == row.game_id
    assert archive.get(row.game_id) == row
    assert archive.count() == 1


def test_the_same_game_offered_with_another_creation_time_stays_one_game(archive: Archive):
    """The creation time places a row (a month's partition on PostgreSQL); a game offered
    again under another time is still the one game, written once."""
    row = record("00000000000000ac", JANUARY)
    archive.put(row)
    moved = replace(row, created_ms=month_ms(2024, 3, 5))
    assert archive.put(moved) is False
    with pytest.raises(ArchiveConflict):
        archive.put(with_other_bytes(moved))
    assert archive.count() == 1
    assert archive.get(row.game_id) == row
    assert listing(archive, ArchiveQuery("client-a"), 10) == [row]


def test_racing_puts_of_one_game_write_it_once(archive_url: str):
    row = record("00000000000000ad", JANUARY)

    with racers(archive_url) as archives:
        results = at_once(lambda i: archives[i].put(row))
    assert sorted(results, key=repr) == [False] * (RACERS - 1) + [True], results
    with opened(archive_url) as archive:
        assert archive.count() == 1
        assert archive.get(row.game_id) == row


def test_racing_puts_of_one_game_with_other_bytes_keep_one(archive_url: str):
    """Even offered under other creation times (other months), one of them is kept, and
    every other racer is told the game is archived with other contents."""
    rows = [
        record("00000000000000ae", month_ms(2024, 1 + i, 3), salt=bytes([i])) for i in range(RACERS)
    ]
    with opened(archive_url) as archive:  # the months are there before the race
        for i, row in enumerate(rows):
            archive.put(record(f"00000000000003{i:02x}", row.created_ms))
    with racers(archive_url) as archives:
        results = at_once(lambda i: archives[i].put(rows[i]))
    assert results.count(True) == 1, results
    assert all(isinstance(r, ArchiveConflict) for r in results if r is not True), results
    with opened(archive_url) as archive:
        assert archive.count() == 1 + RACERS
        assert archive.get(rows[0].game_id) == rows[results.index(True)]


def test_racing_puts_of_the_first_games_of_a_month_keep_them_all(archive_url: str):
    """The first games of a month open its partition on PostgreSQL: racers doing it at
    once all succeed."""
    rows = [record(f"00000000000001{i:02x}", month_ms(2024, 6, 1 + i)) for i in range(RACERS)]

    with racers(archive_url) as archives:
        assert at_once(lambda i: archives[i].put(rows[i])) == [True] * RACERS
    with opened(archive_url) as archive:
        assert listing(archive, ArchiveQuery("client-a"), 3) == newest_first(rows)


# -- listing ---------------------------------------------------------------------------


def test_a_listing_walks_a_client_s_games_newest_first_page_by_page(archive: Archive):
    rows = [record(f"{i:016x}", JANUARY + 1000 * ((i * 7) % 11)) for i in range(11)]
    for row in rows:
        archive.put(row)
    expected = newest_first(rows)
    assert archive.page(ArchiveQuery("client-a"), None, 4) == expected[:4]
    assert archive.page(ArchiveQuery("client-a"), key(expected[3]), 4) == expected[4:8]
    assert archive.page(ArchiveQuery("client-a"), key(expected[7]), 4) == expected[8:]
    assert archive.page(ArchiveQuery("client-a"), key(expected[-1]), 4) == []


def test_a_page_edge_among_games_created_in_the_same_ms_repeats_and_hides_none(
    archive: Archive,
):
    same = [record(f"{i:016x}", JANUARY) for i in range(7)]
    around = [record("a" * 16, JANUARY + 1), record("b" * 16, JANUARY - 1)]
    for row in same + around:
        archive.put(row)
    for count in (1, 2, 3):
        assert listing(archive, ArchiveQuery("client-a"), count) == newest_first(same + around)


def test_a_game_archived_between_two_pages_neither_repeats_nor_hides_one(archive: Archive):
    rows = [record(f"{i:016x}", JANUARY + i) for i in range(6)]
    for row in rows:
        archive.put(row)
    first = archive.page(ArchiveQuery("client-a"), None, 3)
    newer, older = record("f" * 16, JANUARY + 100), record("e" * 16, JANUARY - 100)
    archive.put(newer)
    archive.put(older)
    rest = archive.page(ArchiveQuery("client-a"), key(first[-1]), 10)
    assert first + rest == newest_first(rows) + [older]


def test_every_query_and_every_cursor_gives_the_client_s_games_and_no_other_s(
    archive: Archive,
):
    """Three clients' games (and games of no client), mixed statuses, variants and times,
    many of the same ms: each filter, each page size, and a cursor taken from any row,
    another client's too, gives exactly the games the rules of a listing give."""
    clients = ["client-a", "client-b", "client-ab", None]
    rows = [
        record(
            f"{(i * 2654435761) % 2**64:016x}",
            JANUARY + 60_000 * (i % 9),
            client_id=clients[i % 4],
            variant=("head", "tracked")[i // 4 % 2],
            status=("finished", "aborted", "finished")[i % 3],
        )
        for i in range(72)
    ]
    for row in rows:
        archive.put(row)
    times = (None, JANUARY + 60_000 * 2, JANUARY + 60_000 * 6)
    for client, status, variant, since, until in itertools.product(
        ["client-a", "client-b", "client-c"],
        [None, "finished", "aborted"],
        [None, "head", "tracked"],
        times,
        times,
    ):
        query = ArchiveQuery(client, status, variant, since, until)
        mine = newest_first([r for r in rows if matches(query, r)])
        assert all(r.client_id == client for r in mine)
        for count in (1, 5, 100):
            assert listing(archive, query, count) == mine, (query, count)
        for cursor in rows[::7]:
            after = key(cursor)
            expected = [r for r in mine if matches(query, r, after)]
            assert archive.page(query, after, 100) == expected, (query, after)


def test_games_of_different_months_and_years_are_all_listed(archive: Archive):
    rows = [
        record(f"{i:016x}", ms)
        for i, ms in enumerate(
            [
                month_ms(2023, 12, 31, 86_399_999),
                month_ms(2024, 1, 1),
                month_ms(2024, 1, 31, 86_399_999),
                month_ms(2024, 2, 1),
                month_ms(2024, 2, 29),
                month_ms(2025, 7, 15),
            ]
        )
    ]
    for row in rows:
        assert archive.put(row) is True
    assert listing(archive, ArchiveQuery("client-a"), 2) == newest_first(rows)
    february = ArchiveQuery(
        "client-a", since_ms=month_ms(2024, 2, 1), until_ms=month_ms(2024, 3, 1)
    )
    assert listing(archive, february, 10) == newest_first(rows[3:5])
    assert all(archive.get(row.game_id) == row for row in rows)


def test_a_scan_reads_every_game_past_one_page_and_stops_at_its_limit(archive: Archive):
    total = 2 * SCAN_PAGE + 50
    rows = [record(f"{i:016x}", JANUARY + 1000 * (i // 3)) for i in range(total)]
    for row in rows:
        archive.put(row)
    archive.put(record("f" * 16, JANUARY, client_id="client-b"))
    expected = newest_first(rows)
    query = ArchiveQuery("client-a")
    assert list(archive.scan(query)) == expected
    assert list(archive.scan(query, limit=SCAN_PAGE + 1)) == expected[: SCAN_PAGE + 1]
    assert list(archive.scan(query, limit=SCAN_PAGE)) == expected[:SCAN_PAGE]
    assert list(archive.scan(query, limit=3)) == expected[:3]
    assert list(archive.scan(query, limit=0)) == []
    assert list(archive.scan(query, limit=10 * total)) == expected
    assert list(archive.scan(ArchiveQuery("client-a", status="aborted"))) == []


def test_count_is_every_game_of_every_client(archive: Archive):
    assert archive.count() == 0
    for i, client in enumerate(["client-a", "client-b", None, "client-a"]):
        archive.put(record(f"{i:016x}", month_ms(2024, 1 + i), client_id=client))
    assert archive.count() == 4


# -- the schema ------------------------------------------------------------------------


def test_reopening_the_archive_applies_no_migration_twice(archive_url: str):
    dialect = "sqlite" if archive_url.startswith("sqlite") else "postgres"
    every = [m.number for m in migrations(dialect)]
    row = record("00000000000000af", JANUARY)
    with opened(archive_url) as archive:
        archive.put(row)
    assert applied_migrations(archive_url) == every
    for _ in range(2):
        with opened(archive_url) as archive:
            assert archive.get(row.game_id) == row
    assert applied_migrations(archive_url) == every


def test_archives_opened_at_once_on_a_new_store_apply_each_migration_once(archive_url: str):
    dialect = "sqlite" if archive_url.startswith("sqlite") else "postgres"
    rows = [record(f"00000000000002{i:02x}", JANUARY + i) for i in range(RACERS)]

    def open_and_put(i: int) -> bool:
        with opened(archive_url) as mine:
            return mine.put(rows[i])

    assert at_once(open_and_put) == [True] * RACERS
    assert applied_migrations(archive_url) == [m.number for m in migrations(dialect)]


# -- PostgreSQL's own ------------------------------------------------------------------


def test_each_month_s_games_live_in_a_partition_of_their_own(postgres_archive_url: str):
    months = [(2024, 1), (2024, 2), (2024, 12), (2025, 1)]
    rows = [
        record(f"{i:016x}", month_ms(year, month, 1 + i % 28, i))
        for i, (year, month) in enumerate(months * 3)
    ]
    with opened(postgres_archive_url) as archive:
        for row in rows:
            archive.put(row)
        listed = listing(archive, ArchiveQuery("client-a"), 5)
    assert listed == newest_first(rows)
    with psycopg.connect(postgres_archive_url) as db:
        where = {
            game_id_of(key): table
            for key, table in db.execute("SELECT game_id, tableoid::regclass::text FROM games")
        }
        children = {
            name
            for (name,) in db.execute(
                "SELECT inhrelid::regclass::text FROM pg_inherits "
                "WHERE inhparent = 'games'::regclass"
            )
        }
    by_month: dict[tuple[int, int], set[str]] = {}
    for row, month in zip(rows, months * 3, strict=True):
        by_month.setdefault(month, set()).add(where[row.game_id])
    assert all(len(names) == 1 for names in by_month.values()), by_month
    partitions = set().union(*by_month.values())
    assert len(partitions) == len(months)
    assert partitions <= children
    assert "games" not in partitions


def test_reads_by_id_and_by_client_walk_indexes_not_whole_months(postgres_archive_url: str):
    """With sequential scans priced out, a read that has no index to walk still scans:
    each read below has one, on every month."""
    with opened(postgres_archive_url) as archive:
        for i in range(6):
            archive.put(record(f"{i:016x}", month_ms(2024, 1 + i % 3, 2)))
    with psycopg.connect(postgres_archive_url) as db:
        db.execute("SET enable_seqscan = off")
        for sql, args in [
            ("SELECT data FROM games WHERE game_id = %s", ("0000000000000001",)),
            (
                "SELECT game_id FROM games WHERE client_id = %s "
                "AND (created_ms, game_id) < (%s, %s) "
                "ORDER BY created_ms DESC, game_id DESC LIMIT 10",
                ("client-a", month_ms(2024, 3, 1), "0"),
            ),
        ]:
            plan = "\n".join(r for (r,) in db.execute(f"EXPLAIN {sql}", args))
            assert "Seq Scan" not in plan, plan


def test_an_archive_opens_and_reads_on_a_read_only_database_already_migrated(
    postgres_archive_url: str,
):
    """A read replica (a hot standby) takes no write: an archive that only reads opens
    there once the primary's schema is current, and lists and finds its games."""
    rows = [record(f"{i:016x}", month_ms(2024, 1 + i, 2)) for i in range(3)]
    with opened(postgres_archive_url) as archive:
        for row in rows:
            archive.put(row)
    name = postgres_archive_url.split("?")[0].rsplit("/", 1)[1]
    with psycopg.connect(postgres_archive_url, autocommit=True) as db:
        db.execute(f'ALTER DATABASE "{name}" SET default_transaction_read_only = on')
    with opened(postgres_archive_url) as replica:
        assert replica.get(rows[1].game_id) == rows[1]
        assert listing(replica, ArchiveQuery("client-a"), 2) == newest_first(rows)
        assert replica.count() == 3
        with pytest.raises(psycopg.errors.ReadOnlySqlTransaction):
            replica.put(record("f" * 16, month_ms(2024, 1, 3)))


def test_a_detached_month_is_not_read_nor_written_until_attached_again(
    postgres_archive_url: str,
):
    """An old month's partition detached (to be dumped and stored elsewhere) takes its
    games out of every read; a game of that month is refused rather than kept apart
    from them; attached again, the month is whole again."""
    january = [record(f"0{i:015x}", month_ms(2024, 1, 1 + i)) for i in range(3)]
    february = [record(f"1{i:015x}", month_ms(2024, 2, 1 + i)) for i in range(3)]
    start, end = month_ms(2024, 1), month_ms(2024, 2)
    with opened(postgres_archive_url) as archive:
        for row in january + february:
            archive.put(row)
        with psycopg.connect(postgres_archive_url, autocommit=True) as db:
            db.execute("ALTER TABLE games DETACH PARTITION games_y2024m01")
        assert listing(archive, ArchiveQuery("client-a"), 2) == newest_first(february)
        assert archive.get(january[0].game_id) is None
        late = record("2" + "0" * 15, month_ms(2024, 1, 20))
        with pytest.raises(archive_postgres.MonthDetached) as refused:
            archive.put(late)
        assert "games_y2024m01" in str(refused.value)
        with opened(postgres_archive_url) as fresh, pytest.raises(archive_postgres.MonthDetached):
            fresh.put(late)
        with psycopg.connect(postgres_archive_url, autocommit=True) as db:
            db.execute(
                f"ALTER TABLE games ATTACH PARTITION games_y2024m01 "
                f"FOR VALUES FROM ({start}) TO ({end})"
            )
        assert archive.put(late) is True
        assert listing(archive, ArchiveQuery("client-a"), 2) == newest_first(
            january + february + [late]
        )
