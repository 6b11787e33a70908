"""Archive benchmark: finished games leave Redis for the archive, and what that saves.

    python benchmarks/archive.py [--games 2000] [--clients 4] [--grace 60] [--samples 200]
    python benchmarks/archive.py --storage [--games 10000] [--clients 5]

``--storage`` measures what a finished game takes where the archive keeps
it, on both back ends: ``--games`` whole games as the service records them
(``tests/store/whole_games.py``: people and bots, every ending), archived
through the archive's own ``put`` into a SQLite file and into a PostgreSQL
started for the run (``tests/support/postgres.py``, on a Unix socket only),
all of one month, ``--clients`` client apps interleaved, in the order they
end. Each database measures itself (``tests/support/archive_storage.py``:
``dbstat``, ``pg_total_relation_size`` of every partition): bytes a game of
table and indexes together, of the indexes, and of the encoded game alone.
The exit status is 1 when a back end takes more than ``GAME_BYTES`` a game.

Without ``--storage``, the benchmark runs the service:

Starts ``schnapsen-serve`` as a user runs it (embedded Redis, the archive's
SQLite file in a temporary ``--data-dir``, its gunicorn and RQ workers,
loopback only; the rate limits off, since a few clients play every game),
registers one client app, and then, in one run:

1. Redis memory (``used_memory``) before any game;
2. ``--clients`` processes play ``--games`` whole games over HTTP with the
   client's key (each client holds both seats, uniform random legal
   actions; every ending the rules allow: played out, claims, closed talons,
   false claims). Right after a game ends, and before its grace period is
   over, the bytes Redis holds for it (``MEMORY USAGE`` of each of its keys);
3. replay latency from Redis: ``GET /v1/games/{id}/replay`` of ``--samples``
   games still in their grace period;
4. the archive: games archived (rows), each row's bytes (median, p99), the
   ratio of a game's Redis bytes to its archived bytes (median of the ratios
   game by game), games archived per second while the games were played,
   games missing and games doubled;
5. once every game's keys are gone (the grace period, ``--grace`` seconds,
   over): Redis memory again, and the replay latency of the same sample, now
   from the archive; the replays must be byte for byte the ones Redis gave;
6. export throughput: the client's NDJSON export of every game, in games a
   second.

Every wait is bounded (``HANG_SECONDS``): what never comes is reported as
missing. The last line repeats the figures as JSON.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import random
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import redis
import requests

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from bot_latency import NO_RATE_LIMITS, Service, percentile  # noqa: E402  (beside this script)

from service.store.archive_keys import game_id_of  # noqa: E402
from service.store.events import keys as game_keys  # noqa: E402

#: Nothing the benchmark waits for takes longer, unless it hangs.
HANG_SECONDS = 300.0
#: The client's NDJSON export of its games.
EXPORT_PATH = "/v1/games/export"
#: The most a finished game may take in the archive, table and indexes (``--storage``).
GAME_BYTES = 600


def play_game(session: requests.Session, url: str, key: str, rng: random.Random) -> str:
    """One human-vs-human game to its end, both seats played here; its id."""
    client = {"X-Client-Key": key}
    created = session.post(f"{url}/v1/games", json={}, headers=client).json()
    game = created["game_id"]
    joined = session.post(f"{url}/v1/games/{game}/join", json={"invite": created["invite"]})
    tokens = {0: created["token"], 1: joined.json()["token"]}
    view = joined.json()["game"]
    while view["status"] != "finished":
        seat = view["to_move"]
        headers = {"Authorization": f"Bearer {tokens[seat]}"}
        if view["seat"] != seat:
            view = session.get(f"{url}/v1/games/{game}", headers=headers).json()
        action = rng.choice(view["deal"]["legal_actions"])
        answer = session.post(f"{url}/v1/games/{game}/actions", json=action, headers=headers)
        if answer.status_code != 200:
            raise RuntimeError(f"action refused: {answer.status_code} {answer.text}")
        view = answer.json()
    return game


def redis_bytes(client: redis.Redis, game_id: str) -> int:
    """What Redis holds for one game: every key of its hash tag that exists."""
    total = 0
    for name in (*game_keys(game_id).values(), f"sch:{{{game_id}}}:analysis"):
        total += client.memory_usage(name, samples=0) or 0
    return total


def _player(args: tuple[str, str, str, int, int]) -> list[tuple[str, int, float]]:
    """A client process: ``count`` games; (game id, Redis bytes, end time) of each."""
    url, key, redis_url, count, seed = args
    rng = random.Random(seed)
    session = requests.Session()
    store = redis.Redis.from_url(redis_url)
    played = []
    for _ in range(count):
        game = play_game(session, url, key, rng)
        played.append((game, redis_bytes(store, game), time.time()))
    return played


def client_key(data_dir: Path) -> str:
    """A new client app's key, from ``schnapsen-admin`` on the run command's Redis."""
    env = {k: v for k, v in os.environ.items() if k != "REDIS_URL"}
    env["SCHNAPSEN_DATA_DIR"] = str(data_dir)
    out = subprocess.run(
        [sys.executable, "-m", "service.serve.admin", "clients", "create", "bench", "--json"],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return json.loads(out)["key"]


def timed_replays(session: requests.Session, url: str, games: list[str]) -> tuple[list, dict]:
    """Latencies (ms) and bodies of each game's public replay."""
    latencies, bodies = [], {}
    for game in games:
        started = time.perf_counter()
        answer = session.get(f"{url}/v1/games/{game}/replay")
        latencies.append((time.perf_counter() - started) * 1000)
        answer.raise_for_status()
        bodies[game] = answer.content
    return latencies, bodies


def wait_for(condition, what: str, hang_seconds: float = HANG_SECONDS) -> float:
    """Seconds until ``condition()`` holds; raises after ``hang_seconds``."""
    started = time.monotonic()
    while not condition():
        if time.monotonic() - started > hang_seconds:
            raise RuntimeError(f"{what}: not after {hang_seconds} s")
        time.sleep(0.25)
    return time.monotonic() - started


def live_logs(client: redis.Redis) -> int:
    return sum(1 for _ in client.scan_iter(match="sch:{*}:log", count=1000))


def rows(archive_path: Path) -> list[tuple[str, int]]:
    """Each archived game's id and its bytes (the table keeps an id as its number)."""
    with sqlite3.connect(archive_path) as db:
        found = db.execute("SELECT game_id, length(data) FROM games").fetchall()
    return [(game_id_of(key), size) for key, size in found]


def ms(values: list[float]) -> str:
    return f"p50 {percentile(values, 0.5):.1f} ms, p99 {percentile(values, 0.99):.1f} ms"


def storage(games: int, clients: int, seed: int) -> int:
    """Bytes a game where each back end keeps it (``--storage``); 1 when over the bound."""
    from service.store.archive import open_archive
    from tests.store.whole_games import random_games
    from tests.support.archive_records import month_ms, played_record
    from tests.support.archive_storage import footprint
    from tests.support.postgres import PostgresServer, fresh_database

    started = time.perf_counter()
    start = month_ms(2026, 11, 2)
    rows = [
        played_record(game, start + 200 * i, f"cl_{i % clients:012x}")
        for i, game in enumerate(random_games(seed=seed, count=games))
    ]
    print(f"{games} whole games encoded in {time.perf_counter() - started:.0f} s")

    def fill(url: str) -> None:
        archive = open_archive(url)
        try:
            for row in rows:
                archive.put(row)
        finally:
            archive.close()

    measured = {}
    folder = Path(tempfile.mkdtemp(prefix="schnapsen-archive-storage-"))
    sqlite_url = f"sqlite:///{folder / 'archive.sqlite3'}"
    fill(sqlite_url)
    measured["sqlite"] = footprint(sqlite_url)
    with PostgresServer() as server, fresh_database(server.url) as url:
        fill(url)
        measured["postgresql"] = footprint(url)
    figures: dict[str, Any] = {"games": games, "clients": clients}
    for name, found in measured.items():
        print(
            f"{name:<11} {found.per_game:6.1f} bytes a game, table and indexes "
            f"({found.index_bytes / found.games:5.1f} of indexes); "
            f"the encoded game alone {found.payload_per_game:5.1f}"
        )
        figures[f"{name}_bytes_per_game"] = round(found.per_game, 1)
        figures[f"{name}_index_bytes_per_game"] = round(found.index_bytes / found.games, 1)
        figures[f"{name}_payload_bytes_per_game"] = round(found.payload_per_game, 1)
    print(json.dumps(figures))
    return 0 if all(found.per_game <= GAME_BYTES for found in measured.values()) else 1


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--storage", action="store_true", help="bytes a game, both back ends")
    parser.add_argument("--games", type=int, default=None, help="2000; --storage: 10000")
    parser.add_argument("--clients", type=int, default=None, help="4; --storage: 5")
    parser.add_argument("--grace", type=int, default=60, help="seconds a game stays in Redis")
    parser.add_argument("--samples", type=int, default=200, help="replays timed each way")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    if args.storage:
        return storage(args.games or 10_000, args.clients or 5, args.seed)
    args.games = args.games or 2000
    args.clients = args.clients or 4

    data_dir = Path(tempfile.mkdtemp(prefix="schnapsen-archive-bench-"))
    os.environ.update(NO_RATE_LIMITS)
    os.environ["SCHNAPSEN_GAMES_PER_CLIENT_PER_HOUR"] = "0"
    os.environ["SCHNAPSEN_ARCHIVE_GRACE_SECONDS"] = str(args.grace)
    os.environ.pop("SCHNAPSEN_ARCHIVE_URL", None)  # the run command's default: SQLite
    log = open(data_dir / "service.log", "w")  # noqa: SIM115 (open for the service's life)
    service = Service(data_dir, log)
    redis_url = f"unix://{data_dir / 'redis' / 'redis.sock'}"
    store = redis.Redis.from_url(redis_url)
    try:
        key = client_key(data_dir)
        before = store.info("memory")["used_memory"]
        started = time.time()
        shares = [args.games // args.clients + (i < args.games % args.clients)
                  for i in range(args.clients)]  # fmt: skip
        jobs = [(service.url, key, redis_url, n, args.seed + i) for i, n in enumerate(shares)]
        with multiprocessing.Pool(args.clients) as pool:
            played = [game for share in pool.map(_player, jobs) for game in share]
        play_seconds = time.time() - started
        live = {game: size for game, size, _ended in played}
        session = requests.Session()
        sample = random.Random(args.seed).sample(sorted(live), min(args.samples, len(live)))
        from_redis, redis_bodies = timed_replays(session, service.url, sample)

        archive_path = data_dir / "archive.sqlite3"
        wait_for(lambda: len(rows(archive_path)) >= len(live), "every game archived")
        archived_at = time.time()
        kept = rows(archive_path)
        ids = [game for game, _size in kept]
        sizes = {game: size for game, size in kept}
        missing = len(set(live) - set(ids))
        doubled = len(ids) - len(set(ids))
        drained = wait_for(lambda: live_logs(store) == 0, "every game's keys gone")
        after = store.info("memory")["used_memory"]
        from_archive, archive_bodies = timed_replays(session, service.url, sample)
        differ = sum(redis_bodies[game] != archive_bodies[game] for game in sample)

        export_started = time.perf_counter()
        exported = 0
        with session.get(
            f"{service.url}{EXPORT_PATH}",
            params={"client": "me", "max": len(live)},
            headers={"X-Client-Key": key},
            stream=True,
        ) as answer:
            answer.raise_for_status()
            exported = sum(1 for line in answer.iter_lines() if line)
        export_seconds = time.perf_counter() - export_started
    finally:
        service.stop()
        log.close()

    archived_sizes = sorted(sizes[game] for game in live if game in sizes)
    ratios = [live[game] / sizes[game] for game in live if game in sizes]
    figures: dict[str, Any] = {
        "games": len(live),
        "redis_bytes_per_live_game_median": statistics.median(live.values()),
        "archived_bytes_median": statistics.median(archived_sizes),
        "archived_bytes_p99": percentile(archived_sizes, 0.99),
        "ratio_redis_to_archive_median": round(statistics.median(ratios), 1),
        "games_archived_per_second": round(len(ids) / (archived_at - started), 1),
        "missing": missing,
        "doubled": doubled,
        "redis_used_memory_before": before,
        "redis_used_memory_after": after,
        "redis_memory_after_over_before": round(after / before, 3),
        "replay_from_redis_ms_p50": round(percentile(from_redis, 0.5), 1),
        "replay_from_redis_ms_p99": round(percentile(from_redis, 0.99), 1),
        "replay_from_archive_ms_p50": round(percentile(from_archive, 0.5), 1),
        "replay_from_archive_ms_p99": round(percentile(from_archive, 0.99), 1),
        "replays_that_differ": differ,
        "exported": exported,
        "export_games_per_second": round(exported / export_seconds, 1),
    }
    print(f"games played:        {len(live)} in {play_seconds:.0f} s by {args.clients} clients")
    print(f"Redis per live game: median {figures['redis_bytes_per_live_game_median']:.0f} bytes")
    print(
        f"archived game:       median {figures['archived_bytes_median']:.0f} bytes, "
        f"p99 {figures['archived_bytes_p99']} bytes; "
        f"Redis/archive median {figures['ratio_redis_to_archive_median']}x"
    )
    print(
        f"archive:             {len(ids)} rows, {missing} missing, {doubled} doubled, "
        f"{figures['games_archived_per_second']} games/s while playing; "
        f"keys gone {drained:.0f} s after the last archive"
    )
    print(
        f"Redis used_memory:   {before} bytes before the games, {after} after the archive "
        f"({figures['redis_memory_after_over_before']}x)"
    )
    print(f"replay from Redis:   {ms(from_redis)} ({len(sample)} games)")
    print(f"replay from archive: {ms(from_archive)}; {differ} of {len(sample)} differ")
    print(f"NDJSON export:       {exported} games, {figures['export_games_per_second']} games/s")
    print(json.dumps(figures))
    return 0 if missing == doubled == differ == 0 and exported == len(live) else 1


if __name__ == "__main__":
    sys.exit(main())
