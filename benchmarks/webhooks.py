"""Webhooks benchmark: games played, every notice delivered to a real receiver on loopback.

    python benchmarks/webhooks.py [--games 30] [--clients 4]

Starts ``schnapsen-serve`` as a user runs it (embedded Redis and archive in a
temporary ``--data-dir``, its gunicorn and RQ workers; deliveries allowed to
127.0.0.1 only, ``SCHNAPSEN_WEBHOOK_ALLOW_ADDRESSES``; retries after a second),
a receiver (an HTTP server in this process, on 127.0.0.1), one client app with a
webhook for every kind, and one player; then twice:

1. a receiver that answers 200: ``--games`` games against the random bot played
   by ``--clients`` threads with the player's token; it prints deliveries per
   second (from the first append to the last receipt) and the latency from the
   notice's making (``created``, right after its append) to its receipt, p50 and
   p99;
2. a receiver that answers 500 to every other request: the same, and then it
   waits until every notice the app's delivery logs name has arrived with a 200,
   and prints the notices received, those missing (must be 0) and the
   duplicates (a notice answered 200 more than once).

Every wait is bounded (``HANG_SECONDS``). The last line repeats the figures as JSON.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import tempfile
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import requests

sys.path.insert(0, str(Path(__file__).resolve().parent))
from archive import client_key  # noqa: E402  (beside this script)
from bot_latency import NO_RATE_LIMITS, Service, percentile  # noqa: E402

HANG_SECONDS = 300.0


class Receiver:
    """An HTTP server on 127.0.0.1 that records each notice's id, its arrival and status."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.fail_odd = False
        self.count = 0
        self.arrivals: list[tuple[str, float, float, int]] = []  # id, created, received, status
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 (http.server's name)
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                received = time.time() * 1000
                notice = json.loads(body)
                with receiver.lock:
                    receiver.count += 1
                    status = 500 if receiver.fail_odd and receiver.count % 2 else 200
                    receiver.arrivals.append((notice["id"], notice["created"], received, status))
                self.send_response(status)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *_args: object) -> None:
                return

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hooks"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def reset(self, *, fail_odd: bool) -> None:
        with self.lock:
            self.fail_odd, self.count, self.arrivals = fail_odd, 0, []

    def delivered(self) -> Counter[str]:
        with self.lock:
            return Counter(notice for notice, _c, _r, status in self.arrivals if status == 200)


def play(url: str, token: str, seed: int) -> None:
    """One game against the random bot, seat 0 choosing at random, to its end."""
    rng = random.Random(seed)
    session = requests.Session()
    auth = {"Authorization": f"Bearer {token}"}
    created = session.post(
        f"{url}/v1/games", json={"opponent": {"type": "bot", "level": "random"}}, headers=auth,
        timeout=HANG_SECONDS,
    ).json()  # fmt: skip
    game, seat = (
        f"{url}/v1/games/{created['game_id']}",
        {"Authorization": f"Bearer {created['token']}"},
    )
    deadline = time.monotonic() + HANG_SECONDS
    while time.monotonic() < deadline:
        view = session.get(game, headers=seat, timeout=HANG_SECONDS).json()
        if view["status"] == "finished":
            return
        if view["to_move"] != 0:
            session.get(f"{game}/events", params={"after": view["version"], "wait": 5},
                        headers=seat, timeout=HANG_SECONDS)  # fmt: skip
            continue
        action = rng.choice(view["deal"]["legal_actions"])
        session.post(f"{game}/actions", json=action, headers=seat, timeout=HANG_SECONDS)


def logged_notices(url: str, key: str, hook: str, since_ms: float) -> set[str]:
    """The notices the endpoint's delivery log names, made since ``since_ms``."""
    found = requests.get(f"{url}/v1/webhooks/{hook}/deliveries", params={"limit": 1000},
                         headers={"X-Client-Key": key}, timeout=HANG_SECONDS).json()  # fmt: skip
    return {d["event_id"] for d in found["deliveries"] if d["created"] >= since_ms}


def round_of(url: str, key: str, hook: str, token: str, receiver: Receiver, args, *, fail_odd: bool,
             seed: int) -> dict:  # fmt: skip
    receiver.reset(fail_odd=fail_odd)
    started = time.time() * 1000
    with ThreadPoolExecutor(args.clients) as pool:
        list(pool.map(lambda n: play(url, token, seed + n), range(args.games)))
    deadline = time.monotonic() + HANG_SECONDS
    wanted: set[str] = set()
    while time.monotonic() < deadline:
        wanted = logged_notices(url, key, hook, started)
        if wanted <= set(receiver.delivered()):
            break
        time.sleep(1)
    delivered = receiver.delivered()
    with receiver.lock:
        firsts: dict[str, tuple[float, float]] = {}
        for notice, created, received, status in receiver.arrivals:
            if status == 200 and notice not in firsts:
                firsts[notice] = (created, received)
    latencies = [received - created for created, received in firsts.values()]
    last = max((received for _c, received in firsts.values()), default=started)
    return {
        "notices": len(wanted),
        "received": len(set(delivered) & wanted),
        "missing": len(wanted - set(delivered)),
        "duplicates": sum(count - 1 for count in delivered.values() if count > 1),
        "deliveries_per_second": round(len(firsts) / max((last - started) / 1000, 1e-9), 1),
        "latency_p50_ms": round(percentile(latencies, 0.5), 1) if latencies else None,
        "latency_p99_ms": round(percentile(latencies, 0.99), 1) if latencies else None,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    # about 25 notices a game: the delivery log (the last 1000) holds a round of 30
    parser.add_argument("--games", type=int, default=30)
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()

    data_dir = Path(tempfile.mkdtemp(prefix="schnapsen-webhooks-bench-"))
    os.environ.update(NO_RATE_LIMITS)
    os.environ.update({
        "SCHNAPSEN_GAMES_PER_CLIENT_PER_HOUR": "0",
        "SCHNAPSEN_WEBHOOK_ALLOW_ADDRESSES": "127.0.0.1/32",
        "SCHNAPSEN_WEBHOOK_RETRY_SECONDS": ",".join(["1"] * 20),
    })  # fmt: skip
    os.environ.pop("SCHNAPSEN_ARCHIVE_URL", None)
    receiver = Receiver()
    log = open(data_dir / "service.log", "w")  # noqa: SIM115 (open for the service's life)
    service = Service(data_dir, log)
    url = service.url
    try:
        key = client_key(data_dir)
        hook = requests.post(f"{url}/v1/webhooks", json={"url": receiver.url},
                             headers={"X-Client-Key": key}, timeout=30).json()["webhook_id"]  # fmt: skip
        token = requests.post(f"{url}/v1/players", json={"app_player_id": "bench", "name": "Bench"},
                              headers={"X-Client-Key": key}, timeout=30).json()["token"]  # fmt: skip
        healthy = round_of(url, key, hook, token, receiver, args, fail_odd=False, seed=args.seed)
        failing = round_of(url, key, hook, token, receiver, args, fail_odd=True,
                           seed=args.seed + 10_000)  # fmt: skip
        figures = {"games": args.games, "clients": args.clients, "healthy": healthy,
                   "failing_half": failing}  # fmt: skip
        for name, run in (("receiver answering 200", healthy),
                          ("receiver failing every other request", failing)):  # fmt: skip
            print(f"{name}: {run['notices']} notices, {run['received']} received, "
                  f"{run['missing']} missing, {run['duplicates']} duplicates; "
                  f"{run['deliveries_per_second']} deliveries/s; append to receipt "
                  f"p50 {run['latency_p50_ms']} ms, p99 {run['latency_p99_ms']} ms")  # fmt: skip
        print(json.dumps(figures))
        return 0 if healthy["missing"] == 0 and failing["missing"] == 0 else 1
    finally:
        service.stop()
        log.close()
        receiver.server.shutdown()


if __name__ == "__main__":
    raise SystemExit(main())
