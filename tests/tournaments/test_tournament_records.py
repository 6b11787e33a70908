"""Tournaments in the database of record, SQLite and PostgreSQL alike: a round is
claimed once, a result is kept once, the standings are replaced whole."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import replace

import pytest

from service.store.records_db import open_records_database
from service.store.tournament_records import (
    Board,
    StandingRow,
    Tournament,
    TournamentRecords,
    TournamentStatus,
)
from tests.support.postgres import records_database

BACK_ENDS = [
    pytest.param("sqlite", id="sqlite"),
    pytest.param("postgresql", id="postgresql", marks=pytest.mark.redis),
]


@pytest.fixture(params=BACK_ENDS)
def database(request: pytest.FixtureRequest, tmp_path) -> Iterator[str]:
    with records_database(
        request.param, lambda: request.getfixturevalue("postgres_url"), tmp_path
    ) as url:
        yield url


@pytest.fixture
def records(database) -> Iterator[tuple[TournamentRecords, TournamentRecords]]:
    """Two processes' views of one database."""
    first, second = open_records_database(database), open_records_database(database)
    try:
        yield TournamentRecords(first), TournamentRecords(second)
    finally:
        first.close()
        second.close()


def swiss(tid: str = "t1", starts_ms: int = 5_000) -> Tournament:
    """A Swiss of three rounds, as an app would have made it."""
    return Tournament(
        id=tid,
        app="app1",
        kind="swiss",
        name="Friday Swiss",
        variant="head",
        clock={"seconds_per_move": 30, "on_timeout": "lose"},
        rounds=3,
        starts_ms=starts_ms,
        created_ms=1_000,
    )


def arena(tid: str = "a1", ends_ms: int = 60_000) -> Tournament:
    """An arena of the same app, made as the Swiss is: no rounds, an end instead."""
    return replace(
        swiss(tid),
        kind="arena",
        name="Evening arena",
        clock={"seconds_per_move": 60, "on_timeout": "lose"},
        rounds=0,
        ends_ms=ends_ms,
    )


def test_a_tournament_and_its_entries_are_read_back_by_another_process(records):
    writer, reader = records
    writer.create(swiss())
    assert reader.get("t1") == swiss()
    assert reader.get("nope") is None

    writer.join("t1", "p1", 1600.0, 2_000)
    writer.join("t1", "p2", 1500.0, 2_001)
    assert writer.withdraw("t1", "p2", 2_002).withdrawn_ms == 2_002
    assert writer.withdraw("t1", "p9", 2_003) is None
    rejoined = writer.join("t1", "p2", 1450.0, 2_004)
    assert (rejoined.playing, rejoined.joined_ms, rejoined.rating) == (True, 2_001, 1500.0)
    assert [(e.player, e.playing) for e in reader.entries("t1")] == [("p1", True), ("p2", True)]
    assert [t.id for t in reader.of_player("p2")] == ["t1"]
    assert reader.of_player("p9") == []


def test_a_round_is_claimed_once_and_a_second_claim_writes_nothing(records):
    writer, reader = records
    writer.create(swiss())
    first = [Board(1, 1, "g1", "p1", "p2"), Board(1, 2, "g2", "p3", "p4")]
    assert writer.claim_round("t1", 1, "seed-a", 6_000, first, "p5")
    other = [Board(1, 1, "g9", "p2", "p1")]
    assert not reader.claim_round("t1", 1, "seed-b", 6_001, other, None)

    paired = reader.paired_round("t1", 1)
    assert (paired.seed, paired.bye, paired.boards) == ("seed-a", "p5", tuple(first))
    assert not paired.over
    assert reader.board_of_game("g9") is None
    assert reader.get("t1").round == 1
    assert reader.get("t1").status is TournamentStatus.STARTED
    assert reader.byes("t1") == [(1, "p5")]


def test_a_result_is_kept_once_and_the_round_is_over_when_every_board_has_one(records):
    writer, reader = records
    writer.create(swiss())
    writer.claim_round(
        "t1", 1, "s", 6_000, [Board(1, 1, "g1", "p1", "p2"), Board(1, 2, "g2", "p3", "p4")], None
    )
    assert reader.board_of_game("g2") == ("t1", Board(1, 2, "g2", "p3", "p4"))
    assert writer.record_result("g1", "p2")
    assert not reader.record_result("g1", "p1")
    assert not reader.record_result("g-none", "p1")
    assert not reader.paired_round("t1", 1).over
    assert writer.record_result("g2", "p3")
    assert reader.paired_round("t1", 1).over
    assert [b.winner for b in reader.every_board("t1")] == ["p2", "p3"]


def test_the_standings_are_replaced_whole_and_read_by_pages(records):
    writer, reader = records
    writer.create(swiss())
    rows = [StandingRow(f"p{i}", i, 9 - i, 0, 0, 0, 1, 0) for i in range(1, 8)]
    writer.save_standings("t1", rows[::-1])
    page, total = reader.standings("t1", offset=2, limit=3)
    assert (total, [r.player for r in page]) == (7, ["p3", "p4", "p5"])
    writer.save_standings("t1", rows[:2])
    assert reader.standings("t1") == (rows[:2], 2)


def test_a_tournament_is_due_from_its_start_and_finishes_once(records):
    writer, reader = records
    writer.create(swiss("early", 5_000))
    writer.create(swiss("late", 9_000))
    assert [t.id for t in reader.due(6_000)] == ["early"]
    assert writer.finish("early")
    assert not reader.finish("early")
    assert reader.get("early").status is TournamentStatus.FINISHED
    assert [t.id for t in reader.due(10_000)] == ["late"]


@contextmanager
def opened(database: str) -> Iterator[TournamentRecords]:
    """The records on a connection of their own, closed after."""
    db = open_records_database(database)
    try:
        yield TournamentRecords(db)
    finally:
        db.close()


def all_at_once(database: str, claim: Callable[[TournamentRecords, int], bool]) -> list[bool]:
    """``claim(records, index)`` made by six threads, each on a connection of its own, let
    go together (a barrier), so the claims race: their answers by index."""
    start = threading.Barrier(6)

    def one(index: int) -> bool:
        with opened(database) as records:
            start.wait()
            return claim(records, index)

    with ThreadPoolExecutor(6) as pool:
        return list(pool.map(one, range(6)))


def test_of_many_claims_of_one_round_at_once_exactly_one_is_kept(database):
    with opened(database) as records:
        records.create(swiss())

    claimed = all_at_once(
        database,
        lambda records, index: records.claim_round(
            "t1", 1, f"seed-{index}", 6_000, [Board(1, 1, f"g{index}", "p1", "p2")], None
        ),
    )
    assert claimed.count(True) == 1
    with opened(database) as records:
        kept = records.paired_round("t1", 1)
    winner = claimed.index(True)
    assert (kept.seed, [b.game_id for b in kept.boards]) == (f"seed-{winner}", [f"g{winner}"])


def test_of_many_arena_pairings_of_one_player_at_once_one_is_kept(database):
    """Each arena pairing is a round of its own number, so no key stops two of them: the
    claim's turn-taking does (SQLite's one writer, PostgreSQL's advisory lock), and the
    claim that comes second sees the player on a board still played."""
    with opened(database) as records:
        records.create(arena())
        for player in ("p1", *[f"q{i}" for i in range(6)]):
            records.join("a1", player, 1500.0, 2_000)

    claimed = all_at_once(
        database,
        lambda records, index: records.claim_round(
            "a1",
            index + 1,
            f"seed-{index}",
            6_000,
            [Board(index + 1, 1, f"g{index}", "p1", f"q{index}")],
            None,
            entered_only=True,
        ),
    )
    assert claimed.count(True) == 1
    with opened(database) as records:
        boards = records.every_board("a1")
    assert [b.game_id for b in boards] == [f"g{claimed.index(True)}"]


def test_an_arena_pairing_after_its_end_or_of_a_paused_player_is_refused(records):
    writer, reader = records
    writer.create(arena(ends_ms=60_000))
    for player in ("p1", "p2", "p3"):
        writer.join("a1", player, 1500.0, 2_000)
    writer.withdraw("a1", "p3", 3_000)  # paused

    paused = [Board(1, 1, "g1", "p1", "p3")]
    assert not writer.claim_round("a1", 1, "s1", 6_000, paused, None, entered_only=True)
    late = [Board(1, 1, "g2", "p1", "p2")]
    assert not reader.claim_round("a1", 1, "s2", 60_000, late, None, entered_only=True)
    assert reader.every_board("a1") == []
    assert reader.claim_round("a1", 1, "s3", 59_999, late, None, entered_only=True)
    assert [b.game_id for b in writer.every_board("a1")] == ["g2"]
