"""Fixtures of the tournaments' requests in the app's own process, on top of
tests/conftest.py: one app per module with a SQLite database of record of its own, and a
test client of it for each test."""

from __future__ import annotations

import pytest

from service.web.app import create_app
from tests.support.servers import SECRET


@pytest.fixture(scope="module")
def database(tmp_path_factory: pytest.TempPathFactory) -> str:
    """The URL of the module's database of record (SQLite, in a folder of its own)."""
    return f"sqlite:///{tmp_path_factory.mktemp('records') / 'records.sqlite3'}"


@pytest.fixture(scope="module")
def with_records(redis_url: str, database: str):
    """The app with tournaments: without a database of record it has none."""
    return create_app({"REDIS_URL": redis_url, "SECRET_KEY": SECRET, "ARCHIVE_URL": database})


@pytest.fixture
def http(with_records):
    return with_records.test_client()
