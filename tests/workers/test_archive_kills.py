"""Archiving workers killed with ``kill -9`` at random moments lose no game and write none
twice: every game is in the archive exactly once, Redis forgets it, and it is still served.

The API under gunicorn and real RQ workers (each game's archiving job runs in
the worker's own process) on a Redis of the test's own, with an archive, a
grace of a second or two and a sweep every second. Players finish games over
HTTP (played out, resigned, aborted, claimed on time) while a killer starts a
worker, waits a random while (half the time until an archiving job is running,
then a few ms more) and kills it with everything below it, again and again; a
last worker then finishes the work. The waits only bound a hang.
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
import redis
from rq import Worker
from rq.serializers import JSONSerializer

from service.store.archiving import ENDED, RELEASE
from service.store.events import keys
from tests.support.games import Game, act, create, new_game, play_random_game, to_move_view
from tests.support.http import Api, ok
from tests.support.lifecycle import archived_rows
from tests.support.postgres import fresh_database
from tests.support.processes import alive
from tests.support.servers import LiveServer, WorkerProcess
from tests.support.waiting import wait_until

SEED = 20261207
GAMES = 56
#: How the games end, in turn (played out ones take the longest: one in four).
PLAN = ("played", "resign", "abort_unjoined", "timeout", "resign", "abort", "timeout", "resign")
PLAYERS = 4
KILLS = 6
#: The turn timeout of the server (s): a claim is allowed a few ms after the last move.
TURN_TIMEOUT = 0.05
#: Long past what the work takes: only a hang fails here.
HANG_BOUND = 120


@pytest.fixture(
    params=[
        pytest.param("sqlite", id="sqlite"),
        pytest.param("postgresql", id="postgresql"),
    ]
)
def archive_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'archive.sqlite3'}"
        return
    with fresh_database(request.getfixturevalue("postgres_url")) as url:
        yield url


def play(api: Api, ending: str, rng: random.Random) -> str:
    """One game over HTTP to ``ending``; its id."""
    if ending == "abort_unjoined":
        created = create(api, {"variant": rng.choice(["head", "tracked"])})
        ok(api.post(f"/v1/games/{created['game_id']}/abort", token=created["token"]))
        return created["game_id"]
    game = new_game(api, variant=rng.choice(["head", "tracked"]))
    if ending == "abort":
        ok(api.post(f"{game.path}/abort", token=game.tokens[rng.randrange(2)]))
    elif ending == "played":
        play_random_game(api, game, rng)
    else:
        for _ in range(rng.randrange(1, 12)):
            seen = to_move_view(api, game)
            if seen is None:
                return game.game_id
            act(api, game, seen["seat"], rng.choice(seen["deal"]["legal_actions"]))
        end(api, game, ending)
    return game.game_id


def end(api: Api, game: Game, ending: str) -> None:
    seen = to_move_view(api, game)
    if seen is None:  # the deals ended it first
        return
    if ending == "resign":
        ok(api.post(f"{game.path}/resign", token=game.tokens[seen["seat"]]))
        return
    time.sleep(TURN_TIMEOUT * 2)
    ok(api.post(f"{game.path}/claim-timeout", token=game.tokens[1 - seen["seat"]]))


class Killer:
    """Starts a worker, kills it at a random moment, and again, until told to stop."""

    def __init__(self, redis_url: str, env: dict[str, str], rng: random.Random):
        self.redis_url, self.env, self.rng = redis_url, env, rng
        self.connection = redis.Redis.from_url(redis_url)
        self.kills: list[dict[str, Any]] = []
        self.stopped = threading.Event()
        self.thread = threading.Thread(target=self._run, name="killer", daemon=True)

    def _archiving(self, pid: int) -> bool:
        """Whether the worker ``pid`` is running an archiving job (or a sweep) now."""
        for worker in Worker.all(connection=self.connection, serializer=JSONSerializer):
            if worker.pid == pid:
                job_id = worker.get_current_job_id()
                return job_id is not None and job_id.startswith(("archive-", "sweep-"))
        return False

    def _run(self) -> None:
        while not self.stopped.is_set():
            worker = WorkerProcess(self.redis_url, **self.env)
            pid = worker.process.pid
            try:
                if self.rng.random() < 0.5:
                    deadline = time.monotonic() + 10
                    while not self._archiving(pid) and time.monotonic() < deadline:
                        if self.stopped.wait(0.002):
                            break
                    time.sleep(self.rng.uniform(0, 0.02))
                else:
                    self.stopped.wait(self.rng.uniform(0.3, 3.0))
                busy = self._archiving(pid)
            finally:
                killed = worker.kill()
            self.kills.append({"killed": killed, "during_a_job": busy})

    def __enter__(self) -> Killer:
        self.thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self.stopped.set()
        self.thread.join(timeout=60)


def test_archiving_workers_killed_at_random_lose_no_game_and_write_none_twice(
    own_redis: str, archive_url: str
):
    env = {
        "SCHNAPSEN_ARCHIVE_URL": archive_url,
        "SCHNAPSEN_ARCHIVE_GRACE_SECONDS": "2",
        "SCHNAPSEN_SWEEP_SECONDS": "1",
        "SCHNAPSEN_STRAY_SCAN_SECONDS": "2",
        "SCHNAPSEN_TURN_TIMEOUT_SECONDS": str(TURN_TIMEOUT),
    }
    client = redis.Redis.from_url(own_redis)
    server = LiveServer(own_redis, workers=2, env=env)
    last: WorkerProcess | None = None
    rng = random.Random(SEED)
    try:
        plan = [(PLAN[n % len(PLAN)], random.Random(rng.randrange(2**63))) for n in range(GAMES)]

        def one(step: tuple[str, random.Random]) -> tuple[str, dict[str, Any]]:
            api = Api.live(server.url)
            game_id = play(api, *step)
            # Its replay as the game ended: from Redis, within its grace.
            return game_id, ok(api.get(f"/v1/games/{game_id}/replay"))

        with Killer(own_redis, env, random.Random(rng.randrange(2**63))) as killer:
            with ThreadPoolExecutor(PLAYERS) as players:
                replays = dict(players.map(one, plan))
            wait_until(lambda: len(killer.kills) >= KILLS, HANG_BOUND, f"{KILLS} kills")
        kills = killer.kills
        assert len(replays) == GAMES
        for kill in kills:
            assert not any(alive(pid) for pid in kill["killed"])

        last = WorkerProcess(own_redis, **env)
        ids = list(replays)

        def all_moved() -> bool:
            """Every game archived, forgotten by Redis, and nothing left to do: a killed
            job's retry that finds its game gone already takes it off the ended list."""
            if client.exists(*(keys(game_id)["log"] for game_id in ids)):
                return False
            if client.zcard(ENDED) or client.zcard(RELEASE):
                return False
            return set(archived_rows(archive_url, ids).values()) == {1}

        wait_until(all_moved, HANG_BOUND, "every game archived and forgotten by Redis")
        rows = archived_rows(archive_url, ids)
        assert rows == dict.fromkeys(ids, 1), "every game exactly once"
        assert client.zcard(ENDED) == 0 and client.zcard(RELEASE) == 0
        api = Api.live(server.url)
        for game_id, replay in replays.items():
            assert ok(api.get(f"/v1/games/{game_id}/replay")) == replay, game_id
        during = sum(kill["during_a_job"] for kill in kills)
        print(f"{len(kills)} kills of the archiving worker, {during} with a job running")
    finally:
        if last is not None:
            last.stop()
        server.stop()
