"""The run command: ``schnapsen-serve`` (or ``python -m service.serve.run``).

Starts the API under gunicorn at http://127.0.0.1:8000 and RQ workers
beside it: ``--workers`` for every queue (bot moves first, then the
bot-move service and hints, then exports, then the archive's jobs) and one for
bot opponents' moves alone. Finished games move to the archive
(``SCHNAPSEN_ARCHIVE_URL``; without it, a SQLite file in ``--data-dir``). With ``REDIS_URL`` set it uses that Redis; without, it starts an
embedded real Redis whose data (append-only file) lives in ``--data-dir``
and survives a restart, within ``SCHNAPSEN_REDIS_MAXMEMORY`` (past it, writes
answer 503 ``store_full``; nothing is evicted). A worker or gunicorn that
dies is started again (a line on stderr says which, and its exit code);
Ctrl-C or SIGTERM stops every process it started.
"""

from __future__ import annotations

import argparse
import os
import secrets
import signal
import sys
import time
from pathlib import Path

from service.client.addresses import visit_url
from service.devtools.embedded_redis import EmbeddedRedis
from service.ops.build import pure_python_warning
from service.ops.settings import SettingError, from_env, redis_maxmemory
from service.ops.shares import overreaching_connection_shares, overreaching_shares
from service.serve.gunicorn_workers import gunicorn_command
from service.serve.supervisor import Supervisor
from service.serve.worker_commands import run_command_workers

#: The run command's counts: option, environment variable, default, help.
_COUNTS = (
    ("--web-workers", "SCHNAPSEN_WEB_WORKERS", 2, "gunicorn (gevent) processes"),
    (
        "--web-connections",
        "SCHNAPSEN_WEB_CONNECTIONS",
        5000,
        "connections one gunicorn (gevent) process holds at once",
    ),
    (
        "--workers",
        "SCHNAPSEN_QUEUE_WORKERS",
        1,
        "general RQ worker processes, plus one for bot opponents' moves alone (0: none)",
    ),
)


def _env_int(variable: str, default: int) -> int:
    """An option's default: the environment variable's number, else ``default``."""
    return int(os.environ.get(variable, str(default)))


def main(argv: list[str] | None = None) -> int:
    try:
        # The settings, read once; the options below are the run command's own.
        config = from_env()
    except SettingError as error:
        print(f"schnapsen-serve: error: {error}", file=sys.stderr)
        return 2
    parser = argparse.ArgumentParser(prog="schnapsen-serve", description=__doc__)
    parser.add_argument("--host", default=os.environ.get("SCHNAPSEN_HOST", "127.0.0.1"))
    parser.add_argument("--port", type=int, default=_env_int("SCHNAPSEN_PORT", 8000))
    parser.add_argument(
        "--data-dir",
        type=Path,
        default=Path(config.data_dir),
        help="where the embedded Redis keeps its data and the secret key is kept",
    )
    for option, variable, default, what in _COUNTS:
        parser.add_argument(option, type=int, default=_env_int(variable, default), help=what)
    args = parser.parse_args(argv)

    args.data_dir.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ)
    shares = overreaching_shares(config)
    shares += overreaching_connection_shares(config, args.web_connections)
    for warning in shares:  # said once here; each server process logs its own as well
        print(f"warning: {warning}", file=sys.stderr, flush=True)
    embedded = None
    if not config.redis_url:
        try:
            maxmemory = redis_maxmemory(config)
        except ValueError as error:
            parser.error(str(error))
        embedded = EmbeddedRedis(
            args.data_dir / "redis", persistent=True, maxmemory=maxmemory
        ).start()
        env["REDIS_URL"] = embedded.url
        print(
            f"embedded Redis at {embedded.url} (data in {args.data_dir / 'redis'}, "
            f"{_memory_limit(maxmemory)})",
            flush=True,
        )
    env.setdefault("SCHNAPSEN_SECRET_KEY", _secret_key(args.data_dir))
    if not config.archive_url:  # the embedded archive: no database to install
        archive = (args.data_dir / "archive.sqlite3").resolve()
        env["SCHNAPSEN_ARCHIVE_URL"] = f"sqlite:///{archive}"
        print(f"archive of finished games in {archive} (SQLite)", flush=True)

    supervisor = Supervisor(env, prog="schnapsen-serve")
    supervisor.add("gunicorn", _gunicorn_command(args))
    workers = run_command_workers(args.workers)
    for name, command in workers:
        supervisor.add(name, command)
    stop_signal: int | None = None

    def stop(signum: int, _frame: object) -> None:
        nonlocal stop_signal
        stop_signal = signum

    for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, stop)
    try:
        supervisor.start()
        base = visit_url(args.host, args.port)
        print(
            f"API at {base} with {len(workers)} RQ worker(s), "
            "one of them for bot moves alone  (Ctrl-C stops)"
            if workers
            else f"API at {base}, no RQ worker  (Ctrl-C stops)",
            flush=True,
        )
        if (pure := pure_python_warning()) is not None:
            print(f"WARNING: {pure}", flush=True)
        print(f"Play in a browser: {base}/play/", flush=True)
        print(f"The API's docs:    {base}/docs", flush=True)
        # A child that dies is restarted (see service/serve/supervisor.py); only a signal stops.
        while stop_signal is None:
            supervisor.check()
            time.sleep(0.2)
    finally:
        # Ctrl-C is passed on as SIGINT (quick), anything else as SIGTERM (graceful).
        supervisor.stop(signal.SIGINT if stop_signal == signal.SIGINT else signal.SIGTERM)
        if embedded is not None:
            embedded.stop()
    return 0


def _gunicorn_command(args: argparse.Namespace) -> list[str]:
    return gunicorn_command(
        f"{args.host}:{args.port}", workers=args.web_workers, connections=args.web_connections
    )


def _memory_limit(maxmemory: int) -> str:
    """How the start banner names the embedded Redis's memory limit."""
    if maxmemory == 0:
        return "no memory limit"
    return f"at most {maxmemory / 1024**2:.0f} MiB, then 503 store_full"


def _secret_key(data_dir: Path) -> str:
    """The secret that signs tokens, kept in the data folder so restarts keep tokens valid."""
    path = data_dir / "secret_key"
    if not path.exists():
        path.write_text(secrets.token_hex(32))
        path.chmod(0o600)
    return path.read_text().strip()


if __name__ == "__main__":
    sys.exit(main())
