"""The operator's command: client keys, and copies of the archive of finished games.

    schnapsen-admin clients create "My App"   # prints the key once
    schnapsen-admin clients list [--json]
    schnapsen-admin clients revoke cl_0123abcd
    schnapsen-admin records import              # once, when a server first gets a database
    schnapsen-admin backup archive-backup.sqlite3   # while the service runs
    schnapsen-admin restore archive-backup.sqlite3  # with the service stopped

``clients`` talks to the Redis of ``REDIS_URL``; without it, to the embedded Redis
of ``schnapsen-serve`` in ``SCHNAPSEN_DATA_DIR`` (``var``) when that one runs.
The apps live in the database of ``SCHNAPSEN_ARCHIVE_URL`` (Redis caches
them); without it, in the run command's SQLite file beside its embedded
Redis, or, with neither, in Redis alone (``service.store.clients``).
``backup`` and ``restore`` work on the archive (``service.serve.archive_admin``).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from service.ops.settings import SettingError, Settings, from_env
from service.serve import archive_admin
from service.store.app_records import open_app_records
from service.store.clients import ClientApp, ClientRegistry, UnknownClient
from service.store.records_db import open_records_database
from service.store.records_import import import_from_redis
from service.store.redis_clients import connect


def redis_url(settings: Settings) -> str | None:
    """REDIS_URL, else the socket of the run command's embedded Redis if it is there."""
    if settings.redis_url:
        return settings.redis_url
    socket = Path(settings.data_dir) / "redis" / "redis.sock"
    return f"unix://{socket.resolve()}" if socket.exists() else None


def database_url(settings: Settings) -> str | None:
    """ARCHIVE_URL, else the run command's SQLite file when its embedded Redis is the one
    used (the run command names that file so: ``service.serve.run``), else None."""
    if settings.archive_url:
        return settings.archive_url
    if settings.redis_url:
        return None
    archive = Path(settings.data_dir) / "archive.sqlite3"
    return f"sqlite:///{archive.resolve()}" if archive.exists() else None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="schnapsen-admin", description=__doc__.splitlines()[0])
    groups = parser.add_subparsers(dest="group", required=True)
    clients = groups.add_parser("clients", help="client apps and their API keys")
    commands = clients.add_subparsers(dest="command", required=True)
    create = commands.add_parser("create", help="register a client app and print its key")
    create.add_argument("name")
    create.add_argument("--json", action="store_true", help="print JSON")
    listing = commands.add_parser("list", help="every client app (never the keys)")
    listing.add_argument("--json", action="store_true", help="print JSON")
    revoke = commands.add_parser("revoke", help="revoke a client's key at once")
    revoke.add_argument("client_id")
    revoke.add_argument("--json", action="store_true", help="print JSON")
    records = groups.add_parser("records", help="what must last, in the database")
    records_commands = records.add_subparsers(dest="command", required=True)
    records_commands.add_parser(
        "import", help="copy apps, players and webhook endpoints kept in Redis alone into it"
    )
    archive_admin.add_commands(groups)
    args = parser.parse_args(argv)

    try:
        settings = from_env()
    except SettingError as error:
        print(error, file=sys.stderr)
        return 2
    if args.group in ("backup", "restore"):
        return archive_admin.run(args, settings)
    url = redis_url(settings)
    if url is None:
        print(
            "set REDIS_URL (or run schnapsen-serve, whose Redis is found in ./var)", file=sys.stderr
        )
        return 2
    database = database_url(settings)
    if args.group == "records":
        return _import(url, database)
    records = open_app_records(database) if database else None
    registry = ClientRegistry(connect(url, socket_timeout=10), records)
    if args.command == "create":
        app, key = registry.create(args.name)
        if args.json:
            print(json.dumps({**app.to_dict(), "key": key}))
        else:
            print(f"client {app.id} ({app.name}) created. Its key, shown this once:")
            print(key)
            print("Send it as 'Authorization: Bearer <key>' (or 'X-Client-Key: <key>').")
        return 0
    if args.command == "list":
        apps = registry.list()
        if args.json:
            print(json.dumps([app.to_dict() for app in apps]))
        else:
            for app in apps:
                print(_line(app))
        return 0
    try:
        app = registry.revoke(args.client_id)
    except UnknownClient:
        print(f"there is no client {args.client_id!r}", file=sys.stderr)
        return 1
    print(json.dumps(app.to_dict()) if args.json else f"revoked: {_line(app)}")
    return 0


def _import(url: str, database: str | None) -> int:
    """``records import``: what Redis alone kept, copied into the database (once: rows
    already there are left as they are). Prints how many rows each table gained."""
    if database is None:
        print("set SCHNAPSEN_ARCHIVE_URL: there is no database to import into", file=sys.stderr)
        return 2
    db = open_records_database(database)
    try:
        imported = import_from_redis(connect(url, socket_timeout=60), db)
    finally:
        db.close()
    print(json.dumps(imported.to_dict()))
    return 0


def _line(app: ClientApp) -> str:
    created = time.strftime("%Y-%m-%d %H:%M", time.gmtime(app.created))
    status = "revoked" if app.revoked else "active"
    return f"{app.id}  {status:<7}  created {created} UTC  {app.name}"


if __name__ == "__main__":
    sys.exit(main())
