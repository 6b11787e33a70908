"""Games' analyses in the database of record, SQLite and PostgreSQL alike: a part is
kept once, read by any process, and a part written again keeps the first."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from service.store.analysis_records import AnalysisRecords
from service.store.records_db import open_records_database
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


def test_an_analysed_part_is_read_by_another_process_in_game_order_and_kept_once(database):
    first, second = open_records_database(database), open_records_database(database)
    try:
        writer, reader = AnalysisRecords(first), AnalysisRecords(second)
        parts = [(1, 0), (1, 1), (2, 0)]
        assert reader.missing("g1", parts) == parts
        assert reader.load("g1", parts) is None
        assert reader.load("g1", []) == []

        writer.save("g1", (1, 1), [{"version": 4, "seat": 1}, {"version": 8, "seat": 1}])
        writer.save("g1", (1, 0), [{"version": 3, "seat": 0}])
        writer.save("g1", (1, 0), [{"version": 3, "seat": 0, "again": True}])  # kept once
        writer.save("g2", (2, 0), [{"version": 30, "seat": 0}])  # another game's

        assert reader.missing("g1", parts) == [(2, 0)]
        assert reader.load("g1", parts) is None
        assert reader.load("g1", parts[:2]) == [
            {"version": 3, "seat": 0},
            {"version": 4, "seat": 1},
            {"version": 8, "seat": 1},
        ]
    finally:
        first.close()
        second.close()
