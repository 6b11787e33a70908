"""A replay export built by a worker from the archive is the export it built from Redis.

The API under gunicorn and a real RQ worker with an archive: games of both
variants end every way a game ends over HTTP; the worker archives each (its
grace is long, so Redis keeps it), and exports are made for both seats and a
spectator in every format. Then Redis forgets the games (the sweep, past
their grace), the stored exports are let go as if their week had passed, and
every export is asked for again: the worker builds it from the archive, and
its job's result, its bytes and their headers are the same.
"""

from __future__ import annotations

import random
import time
from typing import Any

import redis

from service.game.replay_export import CONTENT_TYPES
from service.store.archive import open_archive
from service.store.archiving import GameArchiver
from service.store.events import keys
from tests.support.games import create, new_game, play_random_game, to_move_view
from tests.support.http import Api, ok
from tests.support.lifecycle import archived_rows, game_keys
from tests.support.servers import LiveServer, WorkerProcess
from tests.support.waiting import wait_until

SEED = 20261208
ENDINGS = ("played", "resign", "abort_unjoined", "abort", "timeout")
TURN_TIMEOUT = 0.05
GRACE_SECONDS = 3600
HANG_BOUND = 60
#: Headers that say when an answer was made, not what it says.
CIRCUMSTANTIAL = frozenset({"date", "x-request-id", "server"})


def finish(api: Api, ending: str, variant: str, rng: random.Random) -> dict[Any, str | None]:
    """One game over HTTP to ``ending``: its ``id``, and the token of each reader (a seat,
    or None: a spectator)."""
    if ending == "abort_unjoined":
        created = create(api, {"variant": variant})
        ok(api.post(f"/v1/games/{created['game_id']}/abort", token=created["token"]))
        return {"id": created["game_id"], 0: created["token"], None: None}
    game = new_game(api, variant=variant)
    if ending == "abort":
        ok(api.post(f"{game.path}/abort", token=game.tokens[1]))
    elif ending == "played":
        play_random_game(api, game, rng)
    else:
        for _ in range(rng.randrange(3, 20)):
            seen = to_move_view(api, game)
            assert seen is not None
            action = rng.choice(seen["deal"]["legal_actions"])
            token = game.tokens[seen["seat"]]
            ok(api.post(f"{game.path}/actions", json_body=action, token=token))
        seen = to_move_view(api, game)
        assert seen is not None
        if ending == "resign":
            ok(api.post(f"{game.path}/resign", token=game.tokens[seen["seat"]]))
        else:
            time.sleep(TURN_TIMEOUT * 2)
            ok(api.post(f"{game.path}/claim-timeout", token=game.tokens[1 - seen["seat"]]))
    return {"id": game.game_id, 0: game.tokens[0], 1: game.tokens[1], None: None}


def export(api: Api, game_id: str, token: str | None, fmt: str) -> dict[str, Any]:
    """Ask for an export, wait for its job, download it: what each answer says."""
    asked = api.post(f"/v1/games/{game_id}/exports", json_body={"format": fmt}, token=token)
    job = ok(asked, 202)
    report = wait_until(
        lambda: _finished(api, job["id"]), HANG_BOUND, f"the {fmt} export of {game_id}"
    )
    download = api.get(job["export_url"], token=token)
    assert download.status == 200, download
    headers = {k.lower(): v for k, v in download.headers.items() if k.lower() not in CIRCUMSTANTIAL}
    return {
        "export_id": job["export_id"],
        "result": report["result"],
        "headers": headers,
        "body": download.text,
    }


def _finished(api: Api, job_id: str) -> dict[str, Any] | None:
    report = ok(api.get(f"/v1/jobs/{job_id}?wait=5"))
    assert report["status"] != "failed", report
    return report if report["status"] == "finished" else None


def test_an_export_built_from_the_archive_is_the_one_built_from_redis(own_redis, tmp_path):
    redis_url = own_redis
    url = f"sqlite:///{tmp_path / 'archive.sqlite3'}"
    env = {
        "SCHNAPSEN_ARCHIVE_URL": url,
        "SCHNAPSEN_ARCHIVE_GRACE_SECONDS": str(GRACE_SECONDS),
        "SCHNAPSEN_TURN_TIMEOUT_SECONDS": str(TURN_TIMEOUT),
    }
    client = redis.Redis.from_url(redis_url)
    server = LiveServer(redis_url, workers=1, env=env)
    worker = WorkerProcess(redis_url, **env)
    try:
        api = Api.live(server.url)
        rng = random.Random(SEED)
        games = [
            finish(api, ending, variant, random.Random(rng.randrange(2**63)))
            for ending in ENDINGS
            for variant in ("head", "tracked")
        ]
        ids = [game["id"] for game in games]
        wait_until(
            lambda: set(archived_rows(url, ids).values()) == {1}, HANG_BOUND, "the worker's archive"
        )
        readers = [
            (game["id"], seat, game[seat])
            for game in games
            for seat in (0, 1, None)
            if seat in game
        ]
        before = {
            (game_id, seat, fmt): export(api, game_id, token, fmt)
            for game_id, seat, token in readers
            for fmt in CONTENT_TYPES
        }
        assert all(keys(game_id)["log"] in game_keys(client, game_id) for game_id in ids)

        # Past the grace: Redis forgets the games; past their week, the exports go too.
        archiver = GameArchiver(client, open_archive(url), grace_seconds=GRACE_SECONDS)
        late = int((time.time() + 2 * GRACE_SECONDS) * 1000)
        assert archiver.sweep(now_ms=late).released == len(ids)
        assert not client.exists(*(keys(game_id)["log"] for game_id in ids))
        client.delete(*(f"sch:export:{{{made['export_id']}}}" for made in before.values()))

        for (game_id, seat, fmt), was in before.items():
            token = next(t for g, s, t in readers if (g, s) == (game_id, seat))
            assert export(api, game_id, token, fmt) == was, (game_id, seat, fmt)
    finally:
        worker.stop()
        server.stop()
