"""HTTP benchmark: full games against the real server and a real Redis.

    python benchmarks/api.py [--clients 4] [--seconds 20] [--long-games 2]

Starts Redis (REDIS_URL, or an embedded redis-server in a temporary folder)
and the API under gunicorn (gevent, 2 workers, as in
production), then, in one run:

1. throughput: ``--clients`` processes play whole human-vs-human games
   (each client holds both seats; uniform random legal actions) for
   ``--seconds``; prints actions/s and the p50/p99 latency of an action;
2. the same server's throughput on a trivial endpoint (GET /healthz) with
   the same clients, and the ratio of the two;
3. flat cost: one client plays long games (no claims, no closing, so every
   deal runs to its last trick) and compares the latency of actions at
   version 250 or more with those near version 10.

Figures are ratios within one run; the machine is shared and noisy.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import requests

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from gunicorns import start_api  # noqa: E402  (a module beside this script)

from service.devtools.embedded_redis import EmbeddedRedis  # noqa: E402


def start_server(redis_url: str, port: int) -> subprocess.Popen[bytes]:
    settings = {"REDIS_URL": redis_url, "SCHNAPSEN_BOT_MOVES_PER_CLIENT_PER_MINUTE": "0"}
    return start_api(port, settings, connections=5000)[0]


def play_game(
    session: requests.Session,
    url: str,
    rng: random.Random,
    *,
    patient: bool = False,
    variant: str = "head",
) -> list[tuple[int, float]]:
    """Play one game to its end; return (version before, seconds) of every action."""
    created = session.post(f"{url}/v1/games", json={"variant": variant}).json()
    game = created["game_id"]
    joined = session.post(f"{url}/v1/games/{game}/join", json={"invite": created["invite"]}).json()
    tokens = {0: created["token"], 1: joined["token"]}
    view = joined["game"]
    timings = []
    while view["status"] != "finished":
        seat = view["to_move"]
        headers = {"Authorization": f"Bearer {tokens[seat]}"}
        if view["seat"] != seat:
            view = session.get(f"{url}/v1/games/{game}", headers=headers).json()
        choices = view["deal"]["legal_actions"]
        if patient:
            calm = [a for a in choices if a["type"] not in ("claim", "close_talon")]
            choices = calm or choices
        action = rng.choice(choices)
        started = time.perf_counter()
        response = session.post(f"{url}/v1/games/{game}/actions", json=action, headers=headers)
        timings.append((view["version"], time.perf_counter() - started))
        if response.status_code != 200:
            raise RuntimeError(f"action refused: {response.status_code} {response.text}")
        view = response.json()
    return timings


def _games_worker(args: tuple[str, float, int]) -> tuple[int, int, list[float], int]:
    url, seconds, seed = args
    rng = random.Random(seed)
    session = requests.Session()
    deadline = time.monotonic() + seconds
    latencies: list[float] = []
    games = 0
    errors = 0
    while time.monotonic() < deadline:
        try:
            latencies += [t for _v, t in play_game(session, url, rng)]
            games += 1
        except (RuntimeError, requests.RequestException):
            errors += 1
    return games, len(latencies), latencies, errors


def trivial_worker(args: tuple[str, float]) -> tuple[int, int]:
    """GET /healthz for ``seconds``: the same server's rate on a trivial endpoint."""
    url, seconds = args
    session = requests.Session()
    deadline = time.monotonic() + seconds
    count = errors = 0
    while time.monotonic() < deadline:
        if session.get(f"{url}/healthz").ok:
            count += 1
        else:
            errors += 1
    return count, errors


def benchmark_redis(prefix: str) -> tuple[EmbeddedRedis | None, str]:
    """REDIS_URL when set, else an embedded redis-server in a temporary folder."""
    if os.environ.get("REDIS_URL"):
        return None, os.environ["REDIS_URL"]
    embedded = EmbeddedRedis(tempfile.mkdtemp(prefix=prefix)).start()
    return embedded, embedded.url


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--long-games", type=int, default=3)
    parser.add_argument("--port", type=int, default=8931)
    args = parser.parse_args()

    embedded, redis_url = benchmark_redis("schnapsen-bench-")
    server = start_server(redis_url, args.port)
    url = f"http://127.0.0.1:{args.port}"
    try:
        print("Schnapsen API benchmark (benchmarks/api.py)")
        print(f"server: gunicorn gevent x2 on {url}, Redis at {redis_url}")
        print(f"clients: {args.clients} processes, {args.seconds:.0f} s per phase\n")
        with multiprocessing.Pool(args.clients) as pool:
            started = time.perf_counter()
            jobs = [(url, args.seconds, seed) for seed in range(args.clients)]
            results = pool.map(_games_worker, jobs)
            elapsed = time.perf_counter() - started
            games = sum(r[0] for r in results)
            actions = sum(r[1] for r in results)
            latencies = [t for r in results for t in r[2]]
            errors = sum(r[3] for r in results)
            action_rate = actions / elapsed
            print(f"full games:      {games} games, {actions} actions, {errors} errors")
            print(f"actions:         {action_rate:,.0f} actions/s")
            print(
                f"action latency:  p50 {percentile(latencies, 0.5) * 1000:.1f} ms, "
                f"p99 {percentile(latencies, 0.99) * 1000:.1f} ms"
            )
            started = time.perf_counter()
            trivial = pool.map(trivial_worker, [(url, args.seconds / 2)] * args.clients)
            elapsed = time.perf_counter() - started
            trivial_rate = sum(r[0] for r in trivial) / elapsed
            print(
                f"GET /healthz:    {trivial_rate:,.0f} requests/s (trivial endpoint, same clients)"
            )
            print(f"ratio:           an action costs {trivial_rate / action_rate:.1f}x a trivial request "
                  f"(actions/s = {action_rate / trivial_rate:.2f} x trivial/s)\n")  # fmt: skip

        session = requests.Session()
        rng = random.Random(7)
        early: list[float] = []
        late: list[float] = []
        longest = 0
        for _ in range(args.long_games * 10):
            timings = play_game(session, url, rng, patient=True)
            longest = max(longest, timings[-1][0] + 1)
            early += [t for v, t in timings if 5 <= v <= 15]
            late += [t for v, t in timings if v >= 250]
            if len(late) >= 20 * args.long_games:
                break
        if not late:
            print(f"flat cost:       no game reached version 250 (longest: {longest})")
            return 1
        ratio = statistics.median(late) / statistics.median(early)
        print(
            f"flat cost:       median action at version 5-15: {statistics.median(early) * 1000:.2f} ms "
            f"({len(early)} actions); at version >= 250: {statistics.median(late) * 1000:.2f} ms "
            f"({len(late)} actions); ratio {ratio:.2f} (longest game: {longest} versions)"
        )
    finally:
        server.terminate()
        server.wait(timeout=15)
        if embedded is not None:
            embedded.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
