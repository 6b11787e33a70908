"""An arena at full size over HTTP, against a real gunicorn and real RQ workers.

Run from the repository root::

    python benchmarks/arena.py [--players 200] [--duration 300] [--seconds-per-move 60]
                               [--kill-at 0.4] [--seed 1] [--threads 32]

What it does: starts its own Redis, gunicorn (``--gunicorn-workers``, SQLite database of
record) and ``--rq-workers`` RQ workers; an app creates an arena of ``--duration``
seconds on a clock of ``--seconds-per-move``, ``--players`` new players enter it, and a
driver plays every board the arena makes (``tests/support/arenas.py``: up to
``--most-actions`` legal actions chosen at random, then a random seat resigns). At
``--kill-at`` of the arena's time the first worker is killed with ``kill -9`` and a
new one started; the driver holds its games until the arena is at rest (every ended
game counted, every player who could be paired paired), which is the first check.

Printed, as JSON lines: each check and whether it held (no player in two games at once,
no immediate rematch, every game made once, nobody paired while paused or after the
end, the stored standings equal to the recomputation from the games, the arena at rest
after the kill), then the figures: games played, pairings made, players, and the
pairing delay (from a game's resignation sent to its players' next pairing; a player
waiting for a partner counts in it) at p50 and p99. Exits 1 when a check fails.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from service.devtools.embedded_redis import EmbeddedRedis  # noqa: E402
from tests.support.arenas import at_rest, check_arena, driving, entered_arena, records_of  # noqa: E402
from tests.support.players import new_app  # noqa: E402
from tests.support.servers import LiveServer, WorkerProcess  # noqa: E402

#: One address plays every player here: the per-address limits would refuse it.
NO_RATE_LIMITS = {
    "SCHNAPSEN_RATE_LIMIT_PER_IP": "0",
    "SCHNAPSEN_RATE_LIMIT_PER_TOKEN": "0",
    "SCHNAPSEN_RATE_LIMIT_PER_CLIENT": "0",
    "SCHNAPSEN_GAMES_PER_ADDRESS_PER_HOUR": "0",
}
#: Bounds the wait for the arena at rest after the kill, and for its end (s).
BOUND = 300


def wait_for(predicate, bound: float, what: str):
    deadline = time.monotonic() + bound
    while time.monotonic() < deadline:
        found = predicate()
        if found:
            return found
        time.sleep(0.2)
    raise TimeoutError(what)


def run(args: argparse.Namespace, folder: Path) -> int:
    import requests
    from redis import Redis

    redis_server = EmbeddedRedis(folder / "redis").start()
    database = f"sqlite:///{folder / 'records.sqlite3'}"
    server = LiveServer(redis_server.url, workers=args.gunicorn_workers,
                        env={"SCHNAPSEN_ARCHIVE_URL": database, **NO_RATE_LIMITS})  # fmt: skip
    workers = [WorkerProcess(redis_server.url, SCHNAPSEN_ARCHIVE_URL=database)
               for _ in range(args.rq_workers)]  # fmt: skip
    records = records_of(database)
    checks: dict[str, bool] = {}
    try:
        app = new_app(Redis.from_url(redis_server.url))
        began = time.monotonic()
        arena = entered_arena(server.url, app, args.players, args.duration,
                              clock={"seconds_per_move": args.seconds_per_move},
                              starts_in=args.starts_in)  # fmt: skip
        print(json.dumps({"entered": args.players,
                          "seconds": round(time.monotonic() - began, 1)}), flush=True)  # fmt: skip
        tid = arena.tournament_id
        created = requests.get(f"{server.url}/v1/tournaments/{tid}", headers=app.headers,
                               timeout=30).json()  # fmt: skip
        kill_at = created["starts_at"] + args.kill_at * args.duration
        with driving(arena, args.seed, args.most_actions, args.threads) as driver:
            while time.time() < kill_at:
                time.sleep(0.2)
            killed = workers[0].kill()
            workers[0] = WorkerProcess(redis_server.url, SCHNAPSEN_ARCHIVE_URL=database)
            driver.hold()
            held = time.monotonic()
            try:
                why: list[str] = []
                last = [0.0]

                def rested():
                    found = at_rest(arena, records, why)
                    if found is None and time.monotonic() - last[0] > 5:
                        last[0] = time.monotonic()
                        print(json.dumps({"waiting_for": why}), flush=True)
                    return found

                waiting = wait_for(rested, BOUND, "the arena at rest")
                checks["at rest after the kill: every finished player paired or waiting"] = True
            except TimeoutError:
                waiting = None
                checks["at rest after the kill: every finished player paired or waiting"] = False
            print(json.dumps({"killed": sorted(killed), "boards_before_kill": len(driver.log.boards),
                              "rest_after_kill_s": round(time.monotonic() - held, 2),
                              "waiting_at_rest": None if waiting is None else len(waiting.waiting)}),
                  flush=True)  # fmt: skip
            driver.go()

            def over():
                read = requests.get(f"{server.url}/v1/tournaments/{tid}", headers=app.headers,
                                    timeout=30).json()  # fmt: skip
                return read if read["status"] == "finished" else None

            wait_for(over, args.duration + BOUND, "the arena's end")
        report = check_arena(arena, records, driver.log, {})
        for name, found in report.checks.items():
            checks[name] = not found
        for name, held_up in checks.items():
            print(json.dumps({"check": name, "ok": held_up}), flush=True)
        for failure in report.failures[:20]:
            print(json.dumps({"failure": failure}), flush=True)
        print(json.dumps(report.figures()), flush=True)
        return 0 if all(checks.values()) else 1
    finally:
        for each in workers:
            each.stop()
        server.stop()
        redis_server.stop()
        records.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=200)
    parser.add_argument("--duration", type=int, default=300, help="the arena's seconds")
    parser.add_argument("--seconds-per-move", type=int, default=60)
    parser.add_argument("--starts-in", type=int, default=30, help="s from creation to start")
    parser.add_argument("--kill-at", type=float, default=0.4, help="share of the arena's time")
    parser.add_argument("--most-actions", type=int, default=20)
    parser.add_argument("--threads", type=int, default=32)
    parser.add_argument("--gunicorn-workers", type=int, default=2)
    parser.add_argument("--rq-workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="arena-") as folder:
        return run(args, Path(folder))


if __name__ == "__main__":
    sys.exit(main())
