"""Bot reply benchmark: how long a player waits for a bot, per level.

    python benchmarks/bot_latency.py [--levels random,heuristic,expert] [--moves 40]
                                     [--service 40] [--url http://127.0.0.1:8000]

Starts ``schnapsen-serve`` as a user runs it (embedded Redis, its gunicorn and
RQ workers, a temporary ``--data-dir``, loopback only; only the rate limits are
off, since one client plays every game), or uses ``--url``, then per level:

- action -> bot move: one client plays games as seat 0 against that level
  (random legal actions) and, for every action after which the bot is to move,
  times from sending ``POST /v1/games/{id}/actions`` until the long-poll
  ``GET /v1/games/{id}/events?after=V&wait=10`` hands it the bot's move: what a
  player waits, enqueue, worker, thinking, append and delivery included;
- bot-move service: ``POST /v1/bot/moves?wait=10`` for positions from random
  play, timed from sending to the decision's answer; the decision's own
  ``elapsed_ms`` (the bot's thinking) is reported beside it, and the round trip
  minus the thinking is what the service adds.

``--moves`` and ``--service`` are the samples per level. Every wait is bounded
(``HANG_SECONDS``): a move that never arrives is counted as missing, not waited
for. The machine is shared and noisy: run it more than once. The last line
repeats the figures as JSON.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

import requests

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from service.engine import DECK, Variant, apply, legal_actions, new_game, start_deal, take_seat  # noqa: E402
from service.engine.knowledge import seat_view  # noqa: E402
from service.engine.position import position_from_view  # noqa: E402

#: One bot move or service answer longer than this is missing (only a hang gets here).
HANG_SECONDS = 30.0
#: Every limit that one client playing many games would run into.
NO_RATE_LIMITS = {
    "SCHNAPSEN_RATE_LIMIT_PER_IP": "0",
    "SCHNAPSEN_RATE_LIMIT_PER_TOKEN": "0",
    "SCHNAPSEN_RATE_LIMIT_PER_CLIENT": "0",
    "SCHNAPSEN_GAMES_PER_ADDRESS_PER_HOUR": "0",
    "SCHNAPSEN_BOT_MOVES_PER_CLIENT_PER_MINUTE": "0",
}


class Service:
    """``schnapsen-serve --port <free> --data-dir <data_dir>``; no REDIS_URL: embedded Redis."""

    def __init__(self, data_dir: Path, log: Any) -> None:
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        drop = ("REDIS_URL", "QUEUE_REDIS_URL", "SCHNAPSEN_SECRET_KEY")
        env = {k: v for k, v in os.environ.items() if k not in drop} | NO_RATE_LIMITS
        self.url = f"http://127.0.0.1:{port}"
        self.process = subprocess.Popen(
            [sys.executable, "-m", "service.serve.run", "--host", "127.0.0.1", "--port", str(port),
             "--data-dir", str(data_dir)],
            cwd=REPO, env=env, stdout=log, stderr=subprocess.STDOUT,
        )  # fmt: skip
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline and self.process.poll() is None:
            with (
                contextlib.suppress(OSError),
                urllib.request.urlopen(f"{self.url}/readyz", timeout=2) as answer,
            ):
                if answer.status == 200:
                    return
            time.sleep(0.2)
        self.stop()
        raise RuntimeError("schnapsen-serve did not become ready within 90 s")

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def percentile(values: list[float], fraction: float) -> float:
    """The nearest-rank percentile (with few samples p99 is the largest)."""
    ordered = sorted(values)
    rank = max(1, min(len(ordered), round(fraction * len(ordered) + 0.5)))
    return ordered[rank - 1]


def summary(values: list[float]) -> dict[str, float | int]:
    if not values:
        return {"n": 0}
    return {
        "n": len(values),
        "p50_ms": round(percentile(values, 0.50), 1),
        "p99_ms": round(percentile(values, 0.99), 1),
        "max_ms": round(max(values), 1),
        "mean_ms": round(statistics.fmean(values), 1),
    }


def bot_moves(session: requests.Session, url: str, level: str, count: int, seed: int) -> dict:
    """Play seat 0 against ``level`` until ``count`` bot replies were timed."""
    rng = random.Random(seed)
    timings: list[float] = []
    missing = 0
    games = 0
    while len(timings) < count and missing < 3:
        created = session.post(
            f"{url}/v1/games",
            json={"opponent": {"type": "bot", "level": level}, "seed": rng.randrange(2**31)},
        )
        created.raise_for_status()
        game, token = created.json()["game_id"], created.json()["token"]
        headers = {"Authorization": f"Bearer {token}"}
        games += 1
        view = session.get(f"{url}/v1/games/{game}", headers=headers).json()
        while view["status"] != "finished" and len(timings) < count:
            if view["to_move"] != 0:  # the bot leads (or moves again): wait, untimed
                view = _after_bot(session, url, game, headers, view["version"])
                if view is None:
                    missing += 1
                    break
                continue
            action = rng.choice(view["deal"]["legal_actions"])
            started = time.perf_counter()
            answer = session.post(f"{url}/v1/games/{game}/actions", json=action, headers=headers)
            if answer.status_code != 200:
                raise RuntimeError(f"action refused: {answer.status_code} {answer.text}")
            view = answer.json()
            if view["status"] == "finished" or view["to_move"] != 1:
                continue
            arrived = _bot_event(session, url, game, headers, view["version"])
            if arrived is None:
                missing += 1
                break
            timings.append((arrived - started) * 1000)
            view = session.get(f"{url}/v1/games/{game}", headers=headers).json()
    return {"level": level, "games": games, "missing": missing, **summary(timings)}


def _bot_event(
    session: requests.Session, url: str, game: str, headers: dict, after: int
) -> float | None:
    """When (perf_counter) the long-poll delivered the event after ``after``; None: never."""
    deadline = time.monotonic() + HANG_SECONDS
    while time.monotonic() < deadline:
        answer = session.get(
            f"{url}/v1/games/{game}/events", params={"after": after, "wait": 10}, headers=headers
        )
        answer.raise_for_status()
        if answer.json()["events"]:
            return time.perf_counter()
    return None


def _after_bot(
    session: requests.Session, url: str, game: str, headers: dict, version: int
) -> dict | None:
    """The view once the log passed ``version`` (the bot moved); None: it never did."""
    if _bot_event(session, url, game, headers, version) is None:
        return None
    return session.get(f"{url}/v1/games/{game}", headers=headers).json()


def positions(count: int, seed: int) -> list[dict[str, Any]]:
    """``count`` positions (as the seat to move sees them) from random play."""
    rng = random.Random(seed)
    found: list[dict[str, Any]] = []
    while len(found) < count:
        state = take_seat(take_seat(new_game(Variant.HEAD, 0), 0), 1)
        deck = list(DECK)
        rng.shuffle(deck)
        state = start_deal(state, deck)
        while state.deal.result is None and len(found) < count:
            if rng.random() < 0.3:
                found.append(position_from_view(seat_view(state, state.to_move)))
            choices = legal_actions(state)
            calm = [a for a in choices if a.type.value != "claim"] or choices
            state = apply(state, rng.choice(calm))
    return found


def service_moves(session: requests.Session, url: str, level: str, count: int, seed: int) -> dict:
    """``count`` round trips of ``POST /v1/bot/moves?wait=10`` at ``level``."""
    round_trips: list[float] = []
    thinking: list[float] = []
    added: list[float] = []
    missing = 0
    for position in positions(count, seed):
        started = time.perf_counter()
        answer = session.post(
            f"{url}/v1/bot/moves",
            params={"wait": 10},
            json={"position": position, "level": level},
            timeout=HANG_SECONDS,
        )
        took = (time.perf_counter() - started) * 1000
        body = answer.json()
        if answer.status_code != 200 or body.get("status") != "finished":
            missing += 1
            continue
        round_trips.append(took)
        thinking.append(body["result"]["elapsed_ms"])
        added.append(took - body["result"]["elapsed_ms"])
    return {
        "level": level,
        "missing": missing,
        **summary(round_trips),
        "thinking": summary(thinking),
        "added": summary(added),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--levels", default="random,heuristic,expert")
    parser.add_argument("--moves", type=int, default=40, help="bot replies timed per level")
    parser.add_argument("--service", type=int, default=40, help="service calls per level")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--url", default=None, help="a running server instead of our own")
    args = parser.parse_args()
    levels = [level.strip() for level in args.levels.split(",") if level.strip()]

    with tempfile.TemporaryDirectory(prefix="bot-latency-") as folder:
        service = None
        log_path = Path(folder) / "serve.log"
        with open(log_path, "wb") as log:
            if args.url is None:
                service = Service(Path(folder) / "data", log)
            url = args.url or service.url
            session = requests.Session()
            figures: dict[str, Any] = {"replies": [], "service": []}
            try:
                # Warm up: a worker's first job loads the bots; not what a player waits.
                for level in levels:
                    service_moves(session, url, level, 2, args.seed + 99)
                    bot_moves(session, url, level, 2, args.seed + 99)
                for n, level in enumerate(levels):
                    figures["replies"].append(
                        bot_moves(session, url, level, args.moves, args.seed + n)
                    )
                    figures["service"].append(
                        service_moves(session, url, level, args.service, args.seed + n)
                    )
            finally:
                if service is not None:
                    service.stop()
        odd = [
            line for line in log_path.read_text(errors="replace").splitlines()
            if "Traceback" in line or '"level": "ERROR"' in line
        ]  # fmt: skip
    figures["errors_in_log"] = len(odd)
    print_table(figures)
    print(json.dumps(figures))
    return 0


def print_table(figures: dict[str, Any]) -> None:
    print("action -> bot move appended and delivered (ms)")
    print(f"  {'level':<10} {'n':>4} {'p50':>8} {'p99':>8} {'max':>8} {'missing':>8}")
    for row in figures["replies"]:
        print(
            f"  {row['level']:<10} {row.get('n', 0):>4} {row.get('p50_ms', '-'):>8} "
            f"{row.get('p99_ms', '-'):>8} {row.get('max_ms', '-'):>8} {row['missing']:>8}"
        )
    print("POST /v1/bot/moves?wait round trip (ms); thinking = the decision's elapsed_ms")
    print(
        f"  {'level':<10} {'n':>4} {'p50':>8} {'p99':>8} {'think p50':>10} "
        f"{'added p50':>10} {'added p99':>10} {'missing':>8}"
    )
    for row in figures["service"]:
        print(
            f"  {row['level']:<10} {row.get('n', 0):>4} {row.get('p50_ms', '-'):>8} "
            f"{row.get('p99_ms', '-'):>8} {row['thinking'].get('p50_ms', '-'):>10} "
            f"{row['added'].get('p50_ms', '-'):>10} {row['added'].get('p99_ms', '-'):>10} "
            f"{row['missing']:>8}"
        )
    print(f"errors in the service's log: {figures['errors_in_log']}")


if __name__ == "__main__":
    sys.exit(main())
