"""Fixtures of the API tests, on top of tests/conftest.py."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack

import pytest

from service.web.app import create_app
from service.web.services import services
from tests.support.archived_games import ARCHIVE_GRACE_SECONDS, ArchivingApp
from tests.support.http import Api
from tests.support.paths import SECRET
from tests.support.postgres import fresh_database
from tests.support.servers import LiveServer


@pytest.fixture(scope="module")
def sse_live_server(redis_url: str) -> Iterator[LiveServer]:
    """The app under gunicorn with short-lived SSE streams (1 s, keep-alive every 0.2 s),
    so a stream the test stops reading ends on the server soon after."""
    server = LiveServer(
        redis_url,
        workers=1,
        env={"SCHNAPSEN_SSE_MAX_SECONDS": "1", "SCHNAPSEN_SSE_HEARTBEAT_SECONDS": "0.2"},
    )
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="session")
def sse_app(redis_url: str):
    """An app whose SSE streams end after 1 s, with a keep-alive every 0.2 s."""
    return create_app(
        {
            "REDIS_URL": redis_url,
            "SECRET_KEY": SECRET,
            "SSE_MAX_SECONDS": 1,
            "SSE_HEARTBEAT_SECONDS": 0.2,
        }
    )


#: The archive's back ends: SQLite in a file, and a PostgreSQL database of its own. The
#: PostgreSQL runs carry their lane (a real server: redis) on the parameter, as in
#: tests/store/test_archive.py.
ARCHIVE_BACK_ENDS = [
    pytest.param("sqlite", id="sqlite"),
    pytest.param("postgresql", id="postgresql", marks=pytest.mark.redis),
]


@pytest.fixture(scope="module", params=ARCHIVE_BACK_ENDS)
def archiving(
    request: pytest.FixtureRequest,
    redis_url: str,
    redis_client,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[ArchivingApp]:
    """An app whose finished games move to an archive, on each back end, with the archiver
    that moves them (tests/support/archived_games.py)."""
    with ExitStack() as stack:
        if request.param == "sqlite":
            url = f"sqlite:///{tmp_path_factory.mktemp('archive') / 'archive.sqlite3'}"
        else:
            url = stack.enter_context(fresh_database(request.getfixturevalue("postgres_url")))
        app = create_app(
            {
                "REDIS_URL": redis_url,
                "SECRET_KEY": SECRET,
                "ARCHIVE_URL": url,
                "ARCHIVE_GRACE_SECONDS": ARCHIVE_GRACE_SECONDS,
            }
        )
        archive = services(app).archive
        assert archive is not None
        stack.callback(archive.close)
        yield ArchivingApp(Api(app.test_client()), redis_client, archive)
