"""Matchmaking benchmark: many players seek at once, are paired, play and are rated.

    python benchmarks/matchmaking.py [--players 2000] [--wave 250] [--moves 4]

Starts ``schnapsen-serve`` as a user runs it (embedded Redis, the archive's
SQLite file in a temporary ``--data-dir``, its gunicorn and RQ workers,
loopback only; the rate limits off, since one process plays every player),
registers one client app and ``--players`` players, and then, in waves of
``--wave`` players seeking at the same moment (a thread each):

1. each player seeks a rated game (``POST /v1/seeks``) and waits on its seek
   (``GET /v1/seeks/{id}?wait=10``) until it is paired; the pairing latency is
   from the seek's request to the answer that says ``paired``;
2. each game is played ``--moves`` legal actions by its two seats (the seat to
   move picks at random), then the seat to move resigns: a rated game's end;
3. once the workers have rated every game: each player's rating history.

It prints pairs made, seeks left unpaired, pairing latency p50 and p99,
players paired twice and players paired with themselves (both must be 0),
and the rating updates per finished rated game (each player's history
entries for the game, a game's two players together: must be exactly 1 per
player, so 2 per game, reported per game per player). Every wait is bounded
(``HANG_SECONDS``). The last line repeats the figures as JSON.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import tempfile
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import requests

sys.path.insert(0, str(Path(__file__).resolve().parent))
from archive import client_key  # noqa: E402  (beside this script)
from bot_latency import NO_RATE_LIMITS, Service, percentile  # noqa: E402

HANG_SECONDS = 120.0


def _bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def register(url: str, key: str, number: int) -> str:
    answer = requests.post(
        f"{url}/v1/players",
        json={"app_player_id": f"bench-{number}", "name": f"Player {number}"},
        headers={"X-Client-Key": key},
        timeout=HANG_SECONDS,
    )
    answer.raise_for_status()
    return answer.json()["token"]


def seek_until_paired(url: str, token: str) -> dict:
    """The player's seek, waited on until paired (or ``HANG_SECONDS``), and its latency."""
    session = requests.Session()
    started = time.monotonic()
    seek = session.post(
        f"{url}/v1/seeks", json={"rated": True}, headers=_bearer(token), timeout=HANG_SECONDS
    ).json()
    while seek.get("status") == "waiting" and time.monotonic() - started < HANG_SECONDS:
        seek = session.get(
            f"{url}/v1/seeks/{seek['seek_id']}",
            params={"wait": 10},
            headers=_bearer(token),
            timeout=HANG_SECONDS,
        ).json()
    ms = (time.monotonic() - started) * 1000
    me = session.get(f"{url}/v1/players/me", headers=_bearer(token), timeout=HANG_SECONDS)
    me.raise_for_status()
    return {**seek, "player": me.json()["player_id"], "ms": ms}


def play(url: str, game_id: str, tokens: dict[int, str], moves: int, seed: int) -> None:
    """``moves`` random legal actions by the seat to move, then that seat resigns."""
    rng = random.Random(seed)
    session = requests.Session()
    game_url = f"{url}/v1/games/{game_id}"
    for _ in range(moves):
        seat_views = {
            seat: session.get(game_url, headers=_bearer(token), timeout=HANG_SECONDS).json()
            for seat, token in tokens.items()
        }
        to_move = next((s for s, v in seat_views.items() if v.get("legal_actions")), None)
        if to_move is None:
            break
        action = rng.choice(seat_views[to_move]["legal_actions"])
        session.post(
            f"{game_url}/actions",
            json=action,
            headers=_bearer(tokens[to_move]),
            timeout=HANG_SECONDS,
        )
    view = session.get(game_url, headers=_bearer(tokens[0]), timeout=HANG_SECONDS).json()
    if view["status"] == "active":
        session.post(f"{game_url}/resign", headers=_bearer(tokens[0]), timeout=HANG_SECONDS)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=2000)
    parser.add_argument("--wave", type=int, default=250, help="players seeking at once")
    parser.add_argument("--moves", type=int, default=4, help="actions played before a resign")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()

    data_dir = Path(tempfile.mkdtemp(prefix="schnapsen-matchmaking-bench-"))
    os.environ.update(NO_RATE_LIMITS)
    os.environ["SCHNAPSEN_GAMES_PER_CLIENT_PER_HOUR"] = "0"
    # every player's connections come from this one address
    os.environ["SCHNAPSEN_CONNECTIONS_PER_ADDRESS"] = str(4 * args.wave + 64)
    os.environ.pop("SCHNAPSEN_ARCHIVE_URL", None)
    log = open(data_dir / "service.log", "w")  # noqa: SIM115 (open for the service's life)
    service = Service(data_dir, log)
    url = service.url
    try:
        key = client_key(data_dir)
        with ThreadPoolExecutor(32) as pool:
            tokens = list(pool.map(lambda n: register(url, key, n), range(args.players)))
        seeks: list[dict] = []
        started = time.monotonic()
        for first in range(0, len(tokens), args.wave):
            wave = tokens[first : first + args.wave]
            with ThreadPoolExecutor(len(wave)) as pool:
                seeks += list(pool.map(lambda token: seek_until_paired(url, token), wave))
        pairing_seconds = time.monotonic() - started
        by_token = dict(zip(tokens, seeks, strict=True))
        paired = [s for s in seeks if s.get("status") == "paired"]
        games: dict[str, list[tuple[str, dict]]] = {}
        for token, seek in by_token.items():
            if seek.get("status") == "paired":
                games.setdefault(seek["game_id"], []).append((token, seek))
        per_player = Counter(seek["player"] for seek in paired)
        twice = sum(1 for count in per_player.values() if count > 1)
        with_itself = sum(
            1 for pair in games.values() if len({seek["player"] for _t, seek in pair}) < len(pair)
        )
        with ThreadPoolExecutor(32) as pool:
            list(
                pool.map(
                    lambda item: play(
                        url,
                        item[0],
                        {seek["seat"]: seek["token"] for _token, seek in item[1]},
                        args.moves,
                        args.seed,
                    ),
                    games.items(),
                )
            )
        # every rated game's end rated: each player's history holds each of its games once
        deadline = time.monotonic() + HANG_SECONDS
        histories: dict[str, list[dict]] = {}
        while time.monotonic() < deadline:
            with ThreadPoolExecutor(32) as pool:
                found = list(
                    pool.map(
                        lambda token: requests.get(
                            f"{url}/v1/players/{by_token[token]['player']}/ratings",
                            headers=_bearer(token),
                            timeout=HANG_SECONDS,
                        ).json()["changes"],
                        [t for t, s in by_token.items() if s.get("status") == "paired"],
                    )
                )
            histories = dict(zip([s["player"] for s in paired], found, strict=True))
            if all(histories.values()):
                break
            time.sleep(1)
        updates = Counter()
        for player, changes in histories.items():
            for change in changes:
                updates[(change["game_id"], player)] += 1
        expected = {(gid, seek["player"]) for gid, pair in games.items() for _t, seek in pair}
        missing = len(expected - set(updates))
        per_game = sum(updates[key] for key in expected) / len(expected) if expected else 0.0
        latencies = [seek["ms"] for seek in paired]
        figures = {
            "players": args.players,
            "wave": args.wave,
            "pairs_made": len(games),
            "unpaired": args.players - len(paired),
            "pairing_p50_ms": round(percentile(latencies, 0.5), 1) if latencies else None,
            "pairing_p99_ms": round(percentile(latencies, 0.99), 1) if latencies else None,
            "pairing_seconds": round(pairing_seconds, 1),
            "paired_twice": twice,
            "paired_with_itself": with_itself,
            "rating_updates_per_player_per_game": round(per_game, 3),
            "ratings_missing": missing,
        }
        print(f"players {args.players} in waves of {args.wave}: {len(games)} pairs made, "
              f"{figures['unpaired']} unpaired, in {figures['pairing_seconds']} s")  # fmt: skip
        print(f"pairing latency: p50 {figures['pairing_p50_ms']} ms, "
              f"p99 {figures['pairing_p99_ms']} ms")  # fmt: skip
        print(f"paired twice: {twice}; paired with itself: {with_itself}")
        print(f"rating updates per finished rated game and player: {figures['rating_updates_per_player_per_game']} "
              f"(missing {missing})")  # fmt: skip
        print(json.dumps(figures))
        ok = twice == 0 and with_itself == 0 and per_game == 1.0 and missing == 0
        return 0 if ok else 1
    finally:
        service.stop()
        log.close()


if __name__ == "__main__":
    raise SystemExit(main())
