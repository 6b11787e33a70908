"""``schnapsen-admin backup DEST`` and ``schnapsen-admin restore SRC``: the archive's copies.

The archive is ``SCHNAPSEN_ARCHIVE_URL``, else the run command's own SQLite file,
``<SCHNAPSEN_DATA_DIR>/archive.sqlite3``. On SQLite both commands do the work
(``service.store.archive_backup``). On PostgreSQL ``backup`` runs ``pg_dump`` when
one is on the PATH, with the password (if the URL has one) in ``PGPASSWORD``
rather than on its command line, and otherwise prints the command to run; a
restore is ``pg_restore`` into a fresh database, whose steps ``restore`` prints.

Exit status: 0 done, 1 refused (nothing written), 2 nothing to do it with.
"""

from __future__ import annotations

import argparse
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from service.ops.settings import Settings
from service.store.archive_backup import (
    BackupRefused,
    back_up_sqlite,
    password,
    pg_dump_command,
    restore_sqlite,
    sqlite_path,
    without_password,
)

#: Exit statuses.
DONE, REFUSED, UNAVAILABLE = 0, 1, 2
#: The database the printed restore steps make.
RESTORED_DATABASE = "archive_restored"


def add_commands(groups: Any) -> None:
    """The ``backup`` and ``restore`` commands on ``schnapsen-admin``'s parser."""
    backup = groups.add_parser(
        "backup", help="a consistent copy of the archive of finished games, while it serves"
    )
    backup.add_argument("destination", type=Path, help="the file to write (must not exist)")
    restore = groups.add_parser(
        "restore", help="put a backup back as the archive (SQLite; stop the service first)"
    )
    restore.add_argument("source", type=Path, help="a file `schnapsen-admin backup` wrote")
    restore.add_argument(
        "--force",
        action="store_true",
        help="restore even while another process (a running service) has the archive open",
    )


def archive_url(settings: Settings) -> str:
    """The archive the service uses: ``ARCHIVE_URL``, else the run command's SQLite file."""
    if settings.archive_url:
        return settings.archive_url
    return f"sqlite:///{(Path(settings.data_dir) / 'archive.sqlite3').resolve()}"


def run(args: argparse.Namespace, settings: Settings) -> int:
    url = archive_url(settings)
    path = sqlite_path(url)
    try:
        if args.group == "backup":
            if path is None:
                return _pg_dump(url, args.destination)
            made = back_up_sqlite(path, args.destination)
            print(f"backed up {made.games} games from {path} to {made.path}")
            if not made.log_truncated:
                print("the write-ahead log was busy: the service checkpoints it itself")
            return DONE
        if path is None:
            print(_pg_restore_steps(url, args.source), file=sys.stderr)
            return UNAVAILABLE
        restored = restore_sqlite(args.source, path, force=args.force)
        print(f"restored {restored.games} games from {args.source} into {restored.path}")
        return DONE
    except BackupRefused as refusal:
        print(str(refusal), file=sys.stderr)
        return REFUSED


def _pg_dump(url: str, destination: Path) -> int:
    """``pg_dump`` of the archive, run when on the PATH, else printed."""
    command = pg_dump_command(url, destination)
    if destination.exists():
        print(f"{destination} exists already: remove it or name another file", file=sys.stderr)
        return REFUSED
    found = shutil.which(command[0])
    if found is None:
        print(
            "the archive is on PostgreSQL and pg_dump (of the server's major version or newer) "
            "is not on the PATH; run, with the password in PGPASSWORD or ~/.pgpass:",
            file=sys.stderr,
        )
        print(shlex.join(command))
        return UNAVAILABLE
    env = dict(os.environ)
    secret = password(url)
    if secret is not None:
        env["PGPASSWORD"] = secret
    done = subprocess.run([found, *command[1:]], env=env, check=False)
    if done.returncode != 0:
        print(f"pg_dump exited with {done.returncode}", file=sys.stderr)
        return REFUSED
    print(f"backed up the archive at {without_password(url)} to {destination} (pg_dump)")
    return DONE


def _pg_restore_steps(url: str, source: Path) -> str:
    """What restores a ``pg_dump`` of the PostgreSQL archive: into a fresh database."""
    fresh = urlunsplit(urlsplit(without_password(url))._replace(path=f"/{RESTORED_DATABASE}"))
    return "\n".join(
        [
            "the archive is on PostgreSQL: restore a dump with its own tools into a fresh "
            "database, then point SCHNAPSEN_ARCHIVE_URL at it (docs/deployment.md):",
            f"  createdb {RESTORED_DATABASE}   # on the same server, as the archive's user",
            f"  pg_restore --exit-on-error --dbname {shlex.quote(fresh)} "
            f"{shlex.quote(str(source))}",
        ]
    )


__all__ = ["add_commands", "archive_url", "run"]
