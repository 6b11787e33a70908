"""Webhook fairness benchmark: a slow app's 1,000 redeliveries against another app's notices.

    python benchmarks/webhook_fairness.py [--redeliveries 1000] [--games 30] [--deadline 1]

Starts ``schnapsen-serve`` as a user runs it (embedded Redis in a temporary
``--data-dir``, its gunicorn, one general RQ worker and one for bot moves;
deliveries allowed to 127.0.0.1 only; the send deadline
``SCHNAPSEN_WEBHOOK_TIMEOUT_SECONDS`` set to ``--deadline``; a failed attempt's
retry an hour later, so only first attempts and redeliveries are sent while it
runs) and two receivers, HTTP servers in this process on 127.0.0.1:

1. app 1's receiver never answers in time (it sleeps ``SLOW_SECONDS``): app 1
   makes ``--slow-games`` games, so as many deliveries of ``game.started``,
   waits until each was attempted once, then asks ``--redeliveries`` times for
   one of them again, round the list (each answer is 202, or 429 past the app's
   cap of redeliveries waiting);
2. app 2's receiver answers 200 at once: app 2 starts ``--games`` games, one
   at a time while app 1's backlog is there: each once the last one's
   ``game.started`` arrived (so each notice is the only one in app 2's outbox,
   the case the bound is about), after a random pause of up to ``--pace``
   seconds (so its notices meet app 1's attempts at every phase, not in step
   with them).

It prints the latency of app 2's notices, from their making (``created``) to
their arrival, p50, p99 and the largest, beside the documented bound for two
apps with one worker: 2 x the deadline (docs/webhooks.md, "Fair shares"), and
how many of app 1's attempts arrived meanwhile. Every wait is bounded
(``HANG_SECONDS``); the last line repeats the figures as JSON. Loopback only.
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
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import requests

sys.path.insert(0, str(Path(__file__).resolve().parent))
from archive import client_key  # noqa: E402  (beside this script)
from bot_latency import NO_RATE_LIMITS, Service, percentile  # noqa: E402

HANG_SECONDS = 300.0
#: How long app 1's receiver sleeps before it answers: far past any deadline here.
SLOW_SECONDS = 30.0


class Receiver:
    """An HTTP server on 127.0.0.1 that records each notice's id, when it was made and when
    it arrived (ms), answering after ``delay`` seconds."""

    def __init__(self, delay: float) -> None:
        self.lock = threading.Lock()
        self.arrivals: list[tuple[str, float, float]] = []
        self.stopping = threading.Event()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 (http.server's name)
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                arrived = time.time() * 1000
                notice = json.loads(body)
                with receiver.lock:
                    receiver.arrivals.append((notice["id"], notice["created"], arrived))
                if delay and receiver.stopping.wait(delay):
                    return
                try:
                    self.send_response(200)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                except OSError:  # the delivery gave up at its deadline
                    return

            def log_message(self, *_args: object) -> None:
                return

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hooks"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def count(self) -> int:
        with self.lock:
            return len(self.arrivals)

    def stop(self) -> None:
        self.stopping.set()
        self.server.shutdown()


def wait_for(predicate, what: str):  # noqa: ANN001, ANN201 (a small loop of its own)
    deadline = time.monotonic() + HANG_SECONDS
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.1)
    raise SystemExit(f"gave up after {HANG_SECONDS:g} s waiting for {what}")


class App:
    """A client app with one endpoint for ``game.started`` and one player."""

    def __init__(self, url: str, data_dir: Path, receiver: Receiver, name: str) -> None:
        self.url, self.key = url, client_key(data_dir)
        self.headers = {"X-Client-Key": self.key}
        self.session = requests.Session()
        self.hook = self.session.post(
            f"{url}/v1/webhooks", json={"url": receiver.url, "events": ["game.started"]},
            headers=self.headers, timeout=30,
        ).json()["webhook_id"]  # fmt: skip
        self.token = self.session.post(
            f"{url}/v1/players", json={"app_player_id": name, "name": name.title()},
            headers=self.headers, timeout=30,
        ).json()["token"]  # fmt: skip

    def new_game(self) -> str:
        created = self.session.post(
            f"{self.url}/v1/games", json={"opponent": {"type": "bot", "level": "random"}},
            headers={"Authorization": f"Bearer {self.token}"}, timeout=30,
        )  # fmt: skip
        created.raise_for_status()
        return created.json()["game_id"]

    def deliveries(self) -> list[dict]:
        return self.session.get(
            f"{self.url}/v1/webhooks/{self.hook}/deliveries", params={"limit": 1000},
            headers=self.headers, timeout=30,
        ).json()["deliveries"]  # fmt: skip

    def redeliver(self, delivery_id: str) -> int:
        return self.session.post(
            f"{self.url}/v1/webhooks/{self.hook}/deliveries/{delivery_id}/redeliver",
            headers=self.headers, timeout=30,
        ).status_code  # fmt: skip


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--redeliveries", type=int, default=1000)
    parser.add_argument("--slow-games", type=int, default=60)
    parser.add_argument("--games", type=int, default=30)
    parser.add_argument("--pace", type=float, default=1.0)
    parser.add_argument("--deadline", type=float, default=1.0)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)

    data_dir = Path(tempfile.mkdtemp(prefix="schnapsen-fairness-bench-"))
    os.environ.update(NO_RATE_LIMITS)
    os.environ.update({
        "SCHNAPSEN_GAMES_PER_CLIENT_PER_HOUR": "0",
        "SCHNAPSEN_WEBHOOK_ALLOW_ADDRESSES": "127.0.0.1/32",
        "SCHNAPSEN_WEBHOOK_RETRY_SECONDS": "3600",
        "SCHNAPSEN_WEBHOOK_TIMEOUT_SECONDS": str(args.deadline),
        "SCHNAPSEN_WEBHOOK_DISABLE_AFTER": "1000000",
    })  # fmt: skip
    os.environ.pop("SCHNAPSEN_ARCHIVE_URL", None)
    slow, fast = Receiver(SLOW_SECONDS), Receiver(0)
    log = open(data_dir / "service.log", "w")  # noqa: SIM115 (open for the service's life)
    service = Service(data_dir, log)
    try:
        app1 = App(service.url, data_dir, slow, "slow")
        app2 = App(service.url, data_dir, fast, "fast")
        for _ in range(args.slow_games):
            app1.new_game()
        wait_for(lambda: slow.count() >= args.slow_games, "app 1's first attempts")
        ids = [d["delivery_id"] for d in app1.deliveries()]
        answers: Counter[int] = Counter()
        for n in range(args.redeliveries):
            answers[app1.redeliver(ids[n % len(ids)])] += 1
        slow_before = slow.count()
        started = time.time() * 1000
        games = []
        for _ in range(args.games):
            time.sleep(args.pace * rng.random())
            games.append(app2.new_game())
            wait_for(lambda: fast.count() >= len(games), "app 2's notice")
        with fast.lock:
            latencies = [arrived - created for _id, created, arrived in fast.arrivals]
        slow_during = slow.count() - slow_before
        figures = {
            "deadline_s": args.deadline,
            "redeliveries_asked": args.redeliveries,
            "redelivery_answers": {str(status): count for status, count in sorted(answers.items())},
            "app2_notices": len(latencies),
            "app2_latency_p50_ms": round(percentile(latencies, 0.5), 1),
            "app2_latency_p99_ms": round(percentile(latencies, 0.99), 1),
            "app2_latency_max_ms": round(max(latencies), 1),
            "bound_ms": round(2 * args.deadline * 1000, 1),
            "app2_within_bound": sum(1 for ms in latencies if ms <= 2 * args.deadline * 1000),
            "app1_attempts_meanwhile": slow_during,
            "seconds": round((time.time() * 1000 - started) / 1000, 1),
        }
        print(
            f"app 1 (receiver never in time): {args.redeliveries} redeliveries asked, answers "
            f"{figures['redelivery_answers']}; {slow_during} of its attempts arrived while "
            f"app 2 started {len(games)} games"
        )
        print(
            f"app 2: {len(latencies)} notices, made to arrival p50 "
            f"{figures['app2_latency_p50_ms']} ms, p99 {figures['app2_latency_p99_ms']} ms, "
            f"max {figures['app2_latency_max_ms']} ms; documented bound for 2 apps and one "
            f"worker: 2 x {args.deadline:g} s = {figures['bound_ms']} ms"
        )
        print(json.dumps(figures))
        return 0
    finally:
        service.stop()
        log.close()
        slow.stop()
        fast.stop()


if __name__ == "__main__":
    raise SystemExit(main())
