"""Redis memory of a quiet service: what stays once games are archived and past grace.

    python benchmarks/redis_memory.py [--players 10000] [--games 10000] [--clients 4]
                                      [--grace 5] [--rated-every 5]

Redis holds what is live; the database is the store of record. This
benchmark checks it the way an operator would see it: Redis's own
``used_memory`` (``INFO memory``) of an idle service, then of the same
service once many players registered and many games finished and left.

Starts ``schnapsen-serve`` as a user runs it (embedded Redis, the archive's
SQLite file in a temporary ``--data-dir``, its gunicorn and RQ workers,
loopback only; the rate limits off, since a few clients do everything;
``SCHNAPSEN_ARCHIVE_GRACE_SECONDS`` = ``--grace``), registers one client app
with ``schnapsen-admin``, and then:

1. **empty**: ``used_memory`` and the keys Redis holds, once the service is
   up and idle;
2. ``--clients`` processes register ``--players`` players of the app over
   HTTP (``POST /v1/players``), then finish ``--games`` games: game ``i`` is
   created by player ``i`` and joined by player ``i + 1`` (every
   ``--rated-every``-th one rated, between a pair that never meets again),
   or, every fourth casual one, created with the app's key and joined
   anonymously; the creator resigns at once. The resign ends the game as any
   ending does: its archiving job, a rated game's rating job, the players'
   lists of games;
3. waits (bounded by ``HANG_SECONDS``) until every game has a row in the
   archive, Redis holds no game's log and the release set is empty (the
   grace period of each game over), then ``--settle`` seconds more;
4. **after**: ``used_memory`` again, its ratio to the empty one, and every
   key Redis holds, grouped by pattern (ids replaced by ``*``): count, bytes
   (``MEMORY USAGE``, sampled past ``SAMPLE`` keys of a pattern), how many
   have no TTL and the longest TTL; the RQ registries (jobs kept by their
   ``result_ttl`` / ``failure_ttl``) and the streams, by length.

The exit status is 1 when ``after / empty`` exceeds ``--bound`` (1.5), or a
game was lost on the way. The last line repeats the figures as JSON.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import random
import re
import sqlite3
import sys
import tempfile
import time
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import redis
import requests

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from archive import client_key, wait_for  # noqa: E402  (beside this script)
from bot_latency import NO_RATE_LIMITS, Service  # noqa: E402

#: Nothing the benchmark waits for takes longer, unless it hangs (or games pile up).
HANG_SECONDS = 900.0
#: Keys of one pattern whose bytes are measured one by one; past it, a sample.
SAMPLE = 300
#: Seconds the idle service is left alone before the empty figure is read.
IDLE_SECONDS = 5.0
#: What ``INFO memory`` says besides ``used_memory``: where the bytes are (keys, or
#: Redis's own: connections' buffers, scripts, the keyspace's tables).
PARTS = (
    "used_memory_dataset",
    "used_memory_overhead",
    "mem_clients_normal",
    "used_memory_scripts",
    "connected_clients",
)
#: A hash tag or a key segment that names one thing (a game, a player, a job): ``*``.
_ID = re.compile(r"^(?=.*\d)[A-Za-z0-9_.\-]{8,}$")


def pattern_of(key: str) -> str:
    """A key with each id in it replaced by ``*``: ``sch:{*}:archived``, ``rq:job:*``."""

    def segment(part: str) -> str:
        tagged = re.fullmatch(r"\{([^}]*)\}", part)
        if tagged:
            inner = tagged.group(1)
            name, _, rest = inner.partition(":")
            if rest:
                return "{" + name + ":" + ("*" if _ID.match(rest) else rest) + "}"
            return "{*}" if _ID.match(inner) else part
        return "*" if _ID.match(part) else part

    parts = re.split(r":(?![^{]*\})", key)
    return ":".join(segment(part) for part in parts)


@dataclass
class Group:
    """The keys of one pattern: how many, their bytes (measured or sampled), their TTLs."""

    count: int = 0
    measured: int = 0
    measured_bytes: int = 0
    no_ttl: int = 0
    longest_ttl: int = 0
    types: str = ""

    @property
    def bytes(self) -> int:
        return round(self.measured_bytes * self.count / max(self.measured, 1))


def census(client: redis.Redis, seed: int = 0) -> dict[str, Group]:
    """Every key Redis holds, grouped by pattern, with sampled bytes and TTLs."""
    by_pattern: dict[str, list[bytes]] = defaultdict(list)
    for key in client.scan_iter(count=1000):
        by_pattern[pattern_of(key.decode(errors="replace"))].append(key)
    rng = random.Random(seed)
    groups: dict[str, Group] = {}
    for name, found in by_pattern.items():
        group = Group(count=len(found))
        sample = found if len(found) <= SAMPLE else rng.sample(found, SAMPLE)
        with client.pipeline(transaction=False) as pipe:
            for key in sample:
                pipe.memory_usage(key, samples=0)
                pipe.ttl(key)
                pipe.type(key)
            answers = pipe.execute()
        kinds = set()
        for size, ttl, kind in zip(answers[0::3], answers[1::3], answers[2::3], strict=True):
            if size is None:  # gone between the scan and now
                continue
            group.measured += 1
            group.measured_bytes += size
            kinds.add(kind.decode())
            if ttl == -1:
                group.no_ttl += 1
            group.longest_ttl = max(group.longest_ttl, ttl)
        if len(sample) < len(found):  # a sample's keys without TTL stand for the rest
            group.no_ttl = round(group.no_ttl * len(found) / max(group.measured, 1))
        group.types = ",".join(sorted(kinds))
        groups[name] = group
    return groups


def registries(client: redis.Redis) -> dict[str, int]:
    """RQ's registries (sorted sets of job ids) and every stream, by their length."""
    found = {}
    for key in client.scan_iter(match="rq:*", count=1000, _type="zset"):
        found[key.decode()] = client.zcard(key)
    for key in client.scan_iter(count=1000, _type="stream"):
        found[key.decode()] = client.xlen(key)
    return dict(sorted(found.items()))


def show(title: str, groups: dict[str, Group], top: int) -> None:
    total = sum(g.bytes for g in groups.values())
    keys = sum(g.count for g in groups.values())
    print(f"{title}: {keys} keys, {total} bytes by MEMORY USAGE")
    ordered = sorted(groups.items(), key=lambda item: (-item[1].bytes, item[0]))
    for name, group in ordered[:top]:
        ttl = "no TTL" if group.no_ttl == group.count else f"TTL <= {group.longest_ttl} s"
        if 0 < group.no_ttl < group.count:
            ttl = f"{group.no_ttl} without TTL, others <= {group.longest_ttl} s"
        print(f"  {group.count:7d} {group.bytes:10d} B  {name}  ({group.types}; {ttl})")
    if len(ordered) > top:
        print(f"  ... {len(ordered) - top} more patterns")


def _register(args: tuple[str, str, int, int]) -> list[tuple[str, str]]:
    """A client process: ``count`` players of the app, from ``first`` on; (id, token) each."""
    url, key, first, count = args
    session = requests.Session()
    made = []
    for n in range(first, first + count):
        answer = session.post(
            f"{url}/v1/players",
            json={"app_player_id": f"bench-{n}", "name": f"Player {n}"},
            headers={"X-Client-Key": key},
            timeout=60,
        )
        if answer.status_code != 201:
            raise RuntimeError(f"registration refused: {answer.status_code} {answer.text}")
        body = answer.json()
        made.append((body["player"]["player_id"], body["token"]))
    return made


def _post(session: requests.Session, url: str, body: Any = None, **headers: str) -> dict:
    answer = session.post(url, json=body if body is not None else {}, headers=headers, timeout=60)
    if answer.status_code not in (200, 201):
        raise RuntimeError(f"POST {url}: {answer.status_code} {answer.text}")
    return answer.json()


def _finish(args: tuple[str, str, list[tuple[int, str, str, str]]]) -> list[str]:
    """A client process: each game made, joined and resigned at once; the games' ids."""
    url, key, games = args
    session = requests.Session()
    done = []
    for _n, kind, creator, joiner in games:
        if kind == "app":
            created = _post(session, f"{url}/v1/games", **{"X-Client-Key": key})
            _post(session, f"{url}/v1/games/{created['game_id']}/join",
                  {"invite": created["invite"]})  # fmt: skip
        else:
            body = {"rated": True} if kind == "rated" else {}
            created = _post(session, f"{url}/v1/games", body, Authorization=f"Bearer {creator}")
            _post(session, f"{url}/v1/games/{created['game_id']}/join",
                  {"invite": created["invite"]}, Authorization=f"Bearer {joiner}")  # fmt: skip
        game = created["game_id"]
        _post(session, f"{url}/v1/games/{game}/resign", Authorization=f"Bearer {created['token']}")
        done.append(game)
    return done


def plan(games: int, players: list[tuple[str, str]], rated_every: int) -> list[tuple]:
    """Game ``i``: its kind and the tokens of its creator and joiner (see the docstring).

    A rated game ``j`` (the ``j``-th rated one) seats players ``2j`` and ``2j + 1``,
    so no pair meets twice (RX8 would leave the ratings alone).
    """
    made, rated = [], 0
    n = len(players)
    for i in range(games):
        if rated_every and i % rated_every == 0:
            a, b = (2 * rated) % n, (2 * rated + 1) % n
            rated += 1
            made.append((i, "rated", players[a][1], players[b][1]))
        elif i % 4 == 3:
            made.append((i, "app", "", ""))
        else:
            made.append((i, "casual", players[i % n][1], players[(i + 1) % n][1]))
    return made


def archived_rows(path: Path) -> int:
    if not path.exists():
        return 0
    with sqlite3.connect(path) as db:
        return db.execute("SELECT count(*) FROM games").fetchone()[0]


def live_games(client: redis.Redis) -> int:
    logs = sum(1 for _ in client.scan_iter(match="sch:{*}:log", count=1000))
    return logs + client.zcard("sch:{lifecycle}:release") + client.zcard("sch:{lifecycle}:ended")


def shares(total: int, parts: int) -> list[int]:
    return [total // parts + (i < total % parts) for i in range(parts)]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=10_000)
    parser.add_argument("--games", type=int, default=10_000)
    parser.add_argument("--clients", type=int, default=4, help="client processes")
    parser.add_argument("--grace", type=int, default=5, help="seconds a game stays in Redis")
    parser.add_argument("--rated-every", type=int, default=5, help="every n-th game rated")
    parser.add_argument("--settle", type=float, default=5.0, help="seconds idle before 'after'")
    parser.add_argument("--bound", type=float, default=1.5, help="most after/empty allowed")
    parser.add_argument("--top", type=int, default=25, help="patterns shown")
    args = parser.parse_args()

    data_dir = Path(tempfile.mkdtemp(prefix="schnapsen-redis-memory-"))
    os.environ.update(NO_RATE_LIMITS)
    os.environ["SCHNAPSEN_GAMES_PER_CLIENT_PER_HOUR"] = "0"
    os.environ["SCHNAPSEN_ARCHIVE_GRACE_SECONDS"] = str(args.grace)
    os.environ.pop("SCHNAPSEN_ARCHIVE_URL", None)  # the run command's default: SQLite
    log = open(data_dir / "service.log", "w")  # noqa: SIM115 (open for the service's life)
    service = Service(data_dir, log)
    store = redis.Redis.from_url(f"unix://{data_dir / 'redis' / 'redis.sock'}")
    try:
        key = client_key(data_dir)
        time.sleep(IDLE_SECONDS)
        empty_info = store.info("memory") | store.info("clients")
        empty = empty_info["used_memory"]
        empty_keys = census(store)

        started = time.time()
        firsts = [sum(shares(args.players, args.clients)[:i]) for i in range(args.clients)]
        jobs = [(service.url, key, first, count)
                for first, count in zip(firsts, shares(args.players, args.clients), strict=True)]  # fmt: skip
        with multiprocessing.Pool(args.clients) as pool:
            players = [made for share in pool.map(_register, jobs) for made in share]
        registered = time.time() - started

        games = plan(args.games, players, args.rated_every)
        chunks = [games[i :: args.clients] for i in range(args.clients)]
        started = time.time()
        with multiprocessing.Pool(args.clients) as pool:
            finished = [g for part in pool.map(_finish, [(service.url, key, c) for c in chunks])
                        for g in part]  # fmt: skip
        played = time.time() - started

        archive = data_dir / "archive.sqlite3"
        archiving = wait_for(
            lambda: archived_rows(archive) >= len(finished), "every game archived", HANG_SECONDS
        )
        leaving = wait_for(
            lambda: live_games(store) == 0, "every game past its grace and forgotten", HANG_SECONDS
        )
        time.sleep(args.settle)
        after_info = store.info("memory") | store.info("clients")
        after = after_info["used_memory"]
        after_keys = census(store)
        queues = registries(store)
        rows = archived_rows(archive)
    finally:
        service.stop()
        log.close()

    ratio = after / empty
    load = os.getloadavg()
    print(f"players registered:  {len(players)} in {registered:.0f} s")
    print(f"games finished:      {len(finished)} in {played:.0f} s "
          f"({sum(g[1] == 'rated' for g in games)} rated); {rows} archived")  # fmt: skip
    print(f"after the last game: every game archived {archiving:.0f} s later, "
          f"every game's keys gone {leaving:.0f} s after that (grace {args.grace} s)")  # fmt: skip
    print(f"Redis used_memory:   empty {empty} B, after {after} B, after/empty {ratio:.3f}")
    for part in PARTS:
        print(f"  {part + ':':<22} empty {empty_info[part]}, after {after_info[part]}")
    print(f"load average:        {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} (1, 5, 15 min)")
    show("keys when empty", empty_keys, args.top)
    show("keys after", after_keys, args.top)
    print("RQ registries and streams after (length):")
    for name, length in queues.items():
        print(f"  {length:7d}  {name}")
    figures = {
        "players": len(players),
        "games": len(finished),
        "archived": rows,
        "used_memory_empty": empty,
        "used_memory_after": after,
        "after_over_empty": round(ratio, 3),
        "keys_empty": sum(g.count for g in empty_keys.values()),
        "keys_after": sum(g.count for g in after_keys.values()),
        "patterns_after": {name: g.count for name, g in sorted(after_keys.items())},
        "load_average": [round(x, 2) for x in load],
        "archived_after_s": round(archiving),
        "gone_after_s": round(leaving),
        **{f"{part}_empty": empty_info[part] for part in PARTS},
        **{f"{part}_after": after_info[part] for part in PARTS},
    }
    print(json.dumps(figures))
    return 0 if ratio <= args.bound and rows >= len(finished) == args.games else 1


if __name__ == "__main__":
    sys.exit(main())
