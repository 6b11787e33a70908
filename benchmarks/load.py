"""Load benchmark: many clients play full games against the whole service.

    python benchmarks/load.py [--clients 16] [--seconds 30] [--bot-share 0.5]

Starts Redis (REDIS_URL, or an embedded redis-server), the API under
gunicorn (gevent, 2 workers) and two RQ worker processes, then
``--clients`` client processes play whole games for ``--seconds``: a share
of them against the random bot (its moves come from the workers), the rest
human against human. Prints actions/s, p50/p95/p99 latency of an action,
errors (which must be 0), and the same server's rate on a trivial endpoint
(GET /healthz) with the same clients in the same run.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import random
import subprocess
import sys
import time
from pathlib import Path

import requests

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

from api import benchmark_redis, percentile, play_game, start_server, trivial_worker  # noqa: E402


def play_bot_game(session: requests.Session, url: str, rng: random.Random) -> list[float]:
    """A game against the random bot; the latencies of the human's actions."""
    created = session.post(f"{url}/v1/games", json={"opponent": {"type": "bot", "level": "random"}})
    created = created.json()
    game, headers = created["game_id"], {"Authorization": f"Bearer {created['token']}"}
    view = created["game"]
    latencies = []
    while view["status"] != "finished":
        if view["to_move"] != 0:
            session.get(f"{url}/v1/games/{game}/events?after={view['version']}&wait=10",
                        headers=headers)  # fmt: skip
            view = session.get(f"{url}/v1/games/{game}", headers=headers).json()
            continue
        action = rng.choice(view["deal"]["legal_actions"])
        started = time.perf_counter()
        response = session.post(f"{url}/v1/games/{game}/actions", json=action, headers=headers)
        latencies.append(time.perf_counter() - started)
        if response.status_code != 200:
            raise RuntimeError(f"action refused: {response.status_code} {response.text}")
        view = response.json()
    return latencies


def client(args: tuple[str, float, int, float]) -> dict:
    url, seconds, seed, bot_share = args
    rng = random.Random(seed)
    session = requests.Session()
    deadline = time.monotonic() + seconds
    latencies: list[float] = []
    games = errors = 0
    while time.monotonic() < deadline:
        try:
            if rng.random() < bot_share:
                latencies += play_bot_game(session, url, rng)
            else:
                latencies += [t for _version, t in play_game(session, url, rng)]
            games += 1
        except (RuntimeError, requests.RequestException, KeyError, ValueError) as error:
            errors += 1
            print(f"client {seed}: {error}", file=sys.stderr)
    return {"games": games, "latencies": latencies, "errors": errors}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--bot-share", type=float, default=0.5)
    parser.add_argument("--port", type=int, default=8932)
    args = parser.parse_args()

    embedded, redis_url = benchmark_redis("schnapsen-load-")
    server = start_server(redis_url, args.port)
    env = dict(os.environ, REDIS_URL=redis_url, SCHNAPSEN_SECRET_KEY="benchmark",
               SCHNAPSEN_LOG_LEVEL="WARNING")  # fmt: skip
    workers = [
        subprocess.Popen(
            [sys.executable, "-m", "workers", "--log-level", "WARNING"], cwd=REPO, env=env
        )  # fmt: skip
        for _ in range(2)
    ]
    url = f"http://127.0.0.1:{args.port}"
    try:
        print("Schnapsen load benchmark (benchmarks/load.py)")
        print(f"server: gunicorn gevent x2, 2 RQ workers, Redis at {redis_url}")
        print(f"clients: {args.clients} processes for {args.seconds:.0f} s, "
              f"{args.bot_share:.0%} of games against the random bot\n")  # fmt: skip
        with multiprocessing.Pool(args.clients) as pool:
            started = time.perf_counter()
            jobs = [(url, args.seconds, seed, args.bot_share) for seed in range(args.clients)]
            results = pool.map(client, jobs)
            elapsed = time.perf_counter() - started
            latencies = [t for r in results for t in r["latencies"]]
            errors = sum(r["errors"] for r in results)
            rate = len(latencies) / elapsed
            print(f"games:     {sum(r['games'] for r in results)} finished")
            print(f"actions:   {len(latencies)} ({rate:,.0f} actions/s, bot moves not counted)")
            print(f"latency:   p50 {percentile(latencies, 0.5) * 1000:.1f} ms, "
                  f"p95 {percentile(latencies, 0.95) * 1000:.1f} ms, "
                  f"p99 {percentile(latencies, 0.99) * 1000:.1f} ms")  # fmt: skip
            print(f"errors:    {errors}")
            started = time.perf_counter()
            answers = pool.map(trivial_worker, [(url, args.seconds / 2)] * args.clients)
            trivial_rate = sum(a[0] for a in answers) / (time.perf_counter() - started)
            print(f"trivial:   {trivial_rate:,.0f} GET /healthz per s with the same clients "
                  f"({sum(a[1] for a in answers)} errors)")  # fmt: skip
            print(f"ratio:     actions/s = {rate / trivial_rate:.2f} x trivial requests/s")
        return 1 if errors else 0
    finally:
        for worker in workers:
            worker.terminate()
        server.terminate()
        for process in (*workers, server):
            process.wait(timeout=30)
        if embedded is not None:
            embedded.stop()


if __name__ == "__main__":
    sys.exit(main())
