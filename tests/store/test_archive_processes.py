"""A new SQLite archive opened by several processes at the same instant opens in every one,
as the API's processes open it when the run command first starts.

Each round forks processes that wait for one shared instant, then open the same
new file (``SqliteArchive``: WAL mode, then the migrations) and report what
happened. Rounds repeat, because a collision needs the processes to meet within
microseconds; the schema is applied once all the same.
"""

from __future__ import annotations

import multiprocessing
import sqlite3
import time
from pathlib import Path

from service.store.archive_sqlite import SqliteArchive
from service.store.migrations import migrations

ROUNDS = 40
PROCESSES = 6


def _open(path: Path, start: float, answers) -> None:
    while time.time() < start:
        pass
    try:
        SqliteArchive(path).close()
        answers.put("opened")
    except Exception as error:  # what a process met is the test's answer
        answers.put(repr(error))


def test_a_new_sqlite_archive_opened_by_processes_at_once_opens_in_every_one(tmp_path: Path):
    forks = multiprocessing.get_context("fork")
    answers = forks.Queue()
    met: list[str] = []
    for number in range(ROUNDS):
        path = tmp_path / f"archive-{number}.sqlite3"
        start = time.time() + 0.05
        processes = [
            forks.Process(target=_open, args=(path, start, answers)) for _ in range(PROCESSES)
        ]
        for process in processes:
            process.start()
        for process in processes:
            process.join(timeout=60)
            assert process.exitcode == 0
        met += [answers.get(timeout=10) for _ in processes]
        with sqlite3.connect(path) as db:
            applied = [n for (n,) in db.execute("SELECT number FROM schema_migrations")]
            (mode,) = db.execute("PRAGMA journal_mode").fetchone()
        assert sorted(applied) == [m.number for m in migrations("sqlite")]
        assert mode == "wal"
    assert set(met) == {"opened"}, {answer: met.count(answer) for answer in set(met)}
