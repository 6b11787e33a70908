"""A real PostgreSQL server for tests, started from the machine's own binaries.

``PostgresServer`` runs ``initdb`` into a fresh temporary folder and starts
``postgres`` on a Unix socket in that folder only (``listen_addresses=''``: no
TCP port at all), so it never meets a PostgreSQL that already runs on the
machine. Durability is off (``fsync``, ``synchronous_commit``,
``full_page_writes``): a test's data lives as long as the test.

The binaries are the newest of those found: ``initdb`` on PATH and Debian's
``/usr/lib/postgresql/<major>/bin``. ``initdb`` and ``postgres`` refuse to run
as root, so when this process is root they run as the ``postgres`` user
(which Debian's ``postgresql`` package creates) and the folder is handed to
it. ``pg_dump`` and the other client programs come from the same folder, so
a dump is made by the server's own version.
"""

from __future__ import annotations

import contextlib
import functools
import os
import pwd
import re
import shutil
import signal
import subprocess
import tempfile
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import psycopg

from tests.support.waiting import wait_until

#: The user the server runs as when the tests run as root.
SERVER_USER = "postgres"
#: Where Debian installs each major version's programs.
DEBIAN_BIN_DIRS = "/usr/lib/postgresql/*/bin"


@functools.cache
def postgres_bin_dir() -> Path:
    """The folder of the newest ``initdb`` that has a ``postgres`` beside it."""
    found: list[Path] = []
    for folder in os.get_exec_path():
        binary = shutil.which("initdb", path=folder) if folder else None
        if binary:
            found.append(Path(binary).resolve().parent)
    found += sorted(Path("/").glob(DEBIAN_BIN_DIRS.lstrip("/")))
    usable = [
        f for f in dict.fromkeys(found) if (f / "initdb").exists() and (f / "postgres").exists()
    ]
    if not usable:
        raise RuntimeError(
            "no PostgreSQL found (initdb on PATH or in /usr/lib/postgresql/*/bin): "
            "apt-get install postgresql"
        )
    return max(usable, key=_version)


def _version(folder: Path) -> tuple[int, ...]:
    """``initdb --version``'s ``initdb (PostgreSQL) 15.8`` as (15, 8); () when it does not say."""
    try:
        answer = subprocess.run(
            [str(folder / "initdb"), "--version"], capture_output=True, text=True, timeout=10
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return ()
    match = re.search(r"(\d+(?:\.\d+)*)", answer)
    return tuple(int(part) for part in match.group(1).split(".")) if match else ()


def program(name: str) -> str:
    """A PostgreSQL program (``pg_dump``, ``pg_restore``, ``psql``) of the server's version."""
    return str(postgres_bin_dir() / name)


class PostgresServer:
    """A ``postgres`` child process with its cluster and its socket in a temporary folder.

    ``url`` names the superuser ``postgres`` and the database ``postgres``,
    through the socket: ``postgresql://postgres@/postgres?host=<folder>``.
    """

    def __init__(self) -> None:
        self.folder: Path | None = None
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        if self.folder is None:
            raise RuntimeError("the server is not started")
        return f"postgresql://postgres@/postgres?host={self.folder}"

    def start(self, timeout: float = 60.0) -> PostgresServer:
        bin_dir = postgres_bin_dir()
        # Not under pytest's own temporary folder: that one is root's alone (0700),
        # and the server's user must reach its cluster and its socket.
        self.folder = Path(tempfile.mkdtemp(prefix="schnapsen-pg-"))
        run_as = _server_user()
        if run_as is not None:
            os.chown(self.folder, run_as.pw_uid, run_as.pw_gid)
        data = self.folder / "data"
        log = self.folder / "postgres.log"
        try:
            subprocess.run(
                [
                    str(bin_dir / "initdb"),
                    "--pgdata", str(data),
                    "--username", "postgres",
                    "--auth", "trust",
                    "--encoding", "UTF8",
                    "--locale", "C",
                    "--no-sync",
                ],
                check=True, capture_output=True, timeout=timeout, cwd=self.folder,
                **_as_user(run_as),
            )  # fmt: skip
            with log.open("wb") as out:
                self.process = subprocess.Popen(
                    [
                        str(bin_dir / "postgres"),
                        "-D", str(data),
                        "-c", "listen_addresses=",
                        "-c", f"unix_socket_directories={self.folder}",
                        "-c", "fsync=off",
                        "-c", "synchronous_commit=off",
                        "-c", "full_page_writes=off",
                        "-c", "max_connections=100",
                    ],
                    stdout=out, stderr=subprocess.STDOUT, cwd=self.folder,
                    start_new_session=True, **_as_user(run_as),
                )  # fmt: skip
            wait_until(self._answers, timeout, "PostgreSQL to accept connections")
        except BaseException as error:
            tail = log.read_text(errors="replace")[-2000:] if log.exists() else ""
            output = getattr(error, "stderr", b"") or b""
            self.stop()
            raise RuntimeError(
                f"PostgreSQL did not start: {error}\n{output.decode(errors='replace')}{tail}"
            ) from error
        return self

    def _answers(self) -> bool:
        if self.process is not None and self.process.poll() is not None:
            raise RuntimeError(f"postgres exited with {self.process.returncode}")
        try:
            with psycopg.connect(self.url, connect_timeout=2):
                return True
        except psycopg.OperationalError:
            return False

    def stop(self, timeout: float = 30.0) -> None:
        """A fast shutdown (SIGINT: open sessions are ended, not waited for), then the folder goes."""
        if self.process is not None:
            if self.process.poll() is None:
                self.process.send_signal(signal.SIGINT)
            try:
                self.process.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
            self.process = None
        if self.folder is not None:
            shutil.rmtree(self.folder, ignore_errors=True)
            self.folder = None

    def __enter__(self) -> PostgresServer:
        return self.start()

    def __exit__(self, *_: object) -> None:
        self.stop()


def _server_user() -> pwd.struct_passwd | None:
    """Whom ``initdb`` and ``postgres`` run as: the ``postgres`` user when this process is
    root (both refuse root), else this process's own user (None: no change)."""
    if os.geteuid() != 0:
        return None
    try:
        return pwd.getpwnam(SERVER_USER)
    except KeyError:
        raise RuntimeError(
            f"running as root, and PostgreSQL refuses root: no {SERVER_USER!r} user to run it as "
            "(Debian's postgresql package creates one)"
        ) from None


def _as_user(user: pwd.struct_passwd | None) -> dict[str, Any]:
    """``subprocess`` arguments that run a program as ``user`` (nothing when None)."""
    if user is None:
        return {}
    environment = dict(os.environ, HOME=user.pw_dir, USER=user.pw_name, LOGNAME=user.pw_name)
    return {"user": user.pw_uid, "group": user.pw_gid, "extra_groups": [], "env": environment}


def with_database(url: str, name: str) -> str:
    """``url`` with its database replaced by ``name`` (the rest, host and user, kept)."""
    parts = urlsplit(url)
    return urlunsplit(parts._replace(path=f"/{name}"))


@contextlib.contextmanager
def fresh_database(url: str) -> Iterator[str]:
    """A new, empty database on the server of ``url`` for one test (its URL), dropped after,
    so tests on one server never see each other's rows, tables or locks."""
    name = f"test_{uuid.uuid4().hex[:16]}"
    with psycopg.connect(url, autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    try:
        yield with_database(url, name)
    finally:
        with psycopg.connect(url, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@contextlib.contextmanager
def records_database(back_end: str, postgres_url: Callable[[], str], folder: Path) -> Iterator[str]:
    """The URL of an empty records database on ``back_end``, for one test.

    ``"sqlite"`` is a file in ``folder``; ``"postgresql"`` a fresh database on the
    server ``postgres_url()`` gives (called only then, so a SQLite test never starts
    a PostgreSQL server), dropped after the test.
    """
    if back_end == "sqlite":
        yield f"sqlite:///{folder / 'records.sqlite3'}"
        return
    with fresh_database(postgres_url()) as url:
        yield url
