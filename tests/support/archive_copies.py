"""Games archived by a running service, read back whole, and the operator's copies of
the archive (``schnapsen-admin backup`` and ``restore``) run as an operator runs them."""

from __future__ import annotations

import contextlib
import os
import random
import sqlite3
import subprocess
import sys
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from service.game.replay_export import CONTENT_TYPES
from service.store.archive_keys import game_id_of
from tests.support.games import create, new_game, play_random_game, to_move_view
from tests.support.http import Api, ok
from tests.support.paths import REPO
from tests.support.waiting import wait_until

#: How the games of a restore end, each in both variants.
ENDINGS = ("played", "resign", "abort_unjoined", "abort", "timeout")
#: The turn timeout (s) of the servers, so a timeout claim is allowed a few ms on.
TURN_TIMEOUT = 0.05
#: Long past what the work takes: only a hang fails here.
HANG_BOUND = 120
#: Headers that say when an answer was made, not what it says.
CIRCUMSTANTIAL = frozenset({"date", "x-request-id", "server"})


def archive_admin(env: Mapping[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    """``schnapsen-admin ARGS`` with the settings ``env`` and no ``REDIS_URL`` or archive
    setting of the test run's own."""
    environment = {
        k: v
        for k, v in os.environ.items()
        if k not in ("REDIS_URL", "SCHNAPSEN_ARCHIVE_URL", "SCHNAPSEN_DATA_DIR")
    }
    return subprocess.run(
        [sys.executable, "-m", "service.serve.admin", *args],
        cwd=REPO,
        env={**environment, **env},
        capture_output=True,
        text=True,
        timeout=HANG_BOUND,
    )


def resigned_game(api: Api) -> str:
    """A game against a bot, resigned at once: the quickest game that ends; its id."""
    body = {"opponent": {"type": "bot", "level": "random"}}
    created = ok(api.post("/v1/games", json_body=body), 201)
    ok(api.post(f"/v1/games/{created['game_id']}/resign", token=created["token"]))
    return created["game_id"]


def sqlite_game_ids(path: Path) -> set[str]:
    """The ids of the games a SQLite archive file holds, read with SQL (none when the file
    holds no table of games; the table keeps an id as its number, ``archive_keys``)."""
    with contextlib.closing(sqlite3.connect(path)) as db:
        tables = {name for (name,) in db.execute("SELECT name FROM sqlite_master")}
        if "games" not in tables:
            return set()
        return {game_id_of(key) for (key,) in db.execute("SELECT game_id FROM games")}


def integrity(path: Path) -> list[str]:
    """``PRAGMA integrity_check`` of a SQLite file: ``["ok"]`` when whole."""
    with contextlib.closing(sqlite3.connect(path)) as db:
        return [line for (line,) in db.execute("PRAGMA integrity_check")]


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
            ok(api.post(f"{game.path}/actions", json_body=action, token=game.tokens[seen["seat"]]))
        seen = to_move_view(api, game)
        assert seen is not None
        if ending == "resign":
            ok(api.post(f"{game.path}/resign", token=game.tokens[seen["seat"]]))
        else:
            time.sleep(TURN_TIMEOUT * 2)
            ok(api.post(f"{game.path}/claim-timeout", token=game.tokens[1 - seen["seat"]]))
    return {"id": game.game_id, 0: game.tokens[0], 1: game.tokens[1], None: None}


def every_read(api: Api, games: list[dict[Any, str | None]]) -> dict[tuple[Any, ...], str]:
    """What each reader of each game is answered, as its bytes: the view, the event feed,
    the replay whole and at its first versions, and the replay exports of seat 0 (built
    by a worker)."""
    answers: dict[tuple[Any, ...], str] = {}
    for game in games:
        game_id = str(game["id"])
        for seat in (0, 1, None):
            if seat not in game:
                continue
            token = game[seat]
            for path in ("", "/events", "/replay", "/replay?at=1", "/replay?at=3"):
                reply = api.get(f"/v1/games/{game_id}{path}", token=token)
                if "?at=" not in path:  # a short game may end before the version asked for
                    assert reply.status == 200, (game_id, seat, path, reply)
                answers[(game_id, seat, path)] = f"{reply.status}\n{reply.text}"
        for fmt in CONTENT_TYPES:
            answers[(game_id, 0, "export", fmt)] = export(api, game_id, game[0], fmt)
    return answers


def export(api: Api, game_id: str, token: str | None, fmt: str) -> str:
    """Ask for a replay export, wait for its job, download it: its headers and bytes."""
    job = ok(api.post(f"/v1/games/{game_id}/exports", json_body={"format": fmt}, token=token), 202)
    wait_until(lambda: _finished(api, job["id"]), HANG_BOUND, f"the {fmt} export of {game_id}")
    download = api.get(job["export_url"], token=token)
    assert download.status == 200, download
    headers = sorted(
        (k.lower(), v) for k, v in download.headers.items() if k.lower() not in CIRCUMSTANTIAL
    )
    return f"{job['export_id']}\n{headers}\n{download.text}"


def _finished(api: Api, job_id: str) -> bool:
    report = ok(api.get(f"/v1/jobs/{job_id}?wait=5"))
    assert report["status"] != "failed", report
    return report["status"] == "finished"
