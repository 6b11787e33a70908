"""A player with 2,000 rated games lists all of them, and all 2,000 rating changes, a page
at a time over HTTP against a live gunicorn, on both back ends of the database of
record (SQLite in a file, PostgreSQL in a database of its own): nothing is capped.

How the history is made. A handful of the games are played over HTTP as any
app's player plays them (create a rated game against a bot, resign), and a
real RQ worker rates and archives them. Playing 2,000 games that way would
take minutes, so the rest are made in this process by the very code the
service runs, wired by the same composition root (``build``) on the
same Redis and the same database: ``GameService.create`` deals each game
through the engine and ``PlayerRecords.played`` lists it, as ``POST /v1/games``
does; ``GameService.resign`` ends it; then the body of the worker's
``archive_game`` job (``workers.jobs``): ``RatedGames.rate`` on the game as
``games.current`` reads it, then ``GameArchiver.archive_game``. Two threads
do it at once, each with services of its own, as two worker processes rate
one player's games (a rating that moved meanwhile is computed again). Only
the queue those services enqueue on is a Redis of its own, so the worker
does not run 2,000 jobs again (running them again would write nothing: a
game is rated once). Each game is resigned by the player before any play, so
only its rating moves (RX7), against the fixed rating of the bot's level.

What the pages must show: exactly the 2,000 games, each once, newest first,
each rated; exactly 2,000 rating changes, each once, in the order they were
written (each change's ``rating_before`` is the rating of the change before
it), the newest one's rating the player's current rating.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis
import requests

from service.devtools.embedded_redis import EmbeddedRedis
from service.game.bot_levels import LEVELS
from service.game.values import NewGame, Opponent
from service.ops.composition import RedisClients, Services, build
from service.ops.settings import from_env
from service.store.archive import open_archive
from service.store.players import GAMES_CAP, HISTORY_CAP
from service.store.records_db import open_records_database
from tests.support.http import auth
from tests.support.paths import SECRET
from tests.support.players import new_app, register_over_http
from tests.support.postgres import records_database
from tests.support.servers import LiveServer, WorkerProcess
from tests.support.waiting import wait_until

#: Both runs start gunicorn and workers: the system lane (tests/conftest.py), both alike.
BACK_ENDS = ["sqlite", "postgresql"]
#: The player's rated games: four times the games, and ten times the changes, Redis kept.
GAMES = 2_000
#: Of them, the games played over HTTP and rated by the worker.
OVER_HTTP = 5
#: The processes of the service rating the other games at once.
WORKERS = 2
#: The largest page either list gives.
PAGE = 200


@contextlib.contextmanager
def own_redis(folder: Path) -> Iterator[tuple[str, redis.Redis]]:
    """A Redis of its own for the test: its URL and a client."""
    server = EmbeddedRedis(folder).start()
    try:
        yield server.url, redis.Redis.from_url(server.url)
    finally:
        server.stop()


@contextlib.contextmanager
def in_process(log: redis.Redis, queue: redis.Redis, url: str) -> Iterator[Services]:
    """The service as a worker process wires it, on the server's Redis and database."""
    archive, records = open_archive(url), open_records_database(url)
    try:
        settings = from_env({}).overridden({"SECRET_KEY": SECRET})
        yield build(settings, RedisClients(log, queue), archive=archive, records=records)
    finally:
        records.close()
        archive.close()


def play_and_rate(services: Services, app: str, player: str, level: str) -> str:
    """One rated game against a bot, made, ended and rated as the service makes, ends and
    rates one (see the module's docstring): its id."""
    seated = services.games.create(
        NewGame(opponent=Opponent("bot", level), rated=True), owner=app, player=player
    )
    game_id = seated.current.game_id
    assert services.players is not None and services.ratings is not None
    assert services.archiver is not None
    services.players.played(app, [player], game_id, int(time.time() * 1000))
    services.games.resign(game_id, seated.token)
    assert services.ratings.rate(services.games.current(game_id)) is True
    assert services.archiver.archive_game(game_id) is not None
    return game_id


def rated_by_workers(
    log: redis.Redis, queue: redis.Redis, url: str, app: str, player: str, games: int
) -> list[str]:
    """``games`` rated games of the player, made and rated by ``WORKERS`` processes of the
    service at once (here threads, each with its own services and connections), as the
    workers of a deployment rate one player's games: their ids, in the order they ended."""
    numbers = iter(range(games))
    take = threading.Lock()
    made: list[str] = []
    errors: list[BaseException] = []

    def work() -> None:
        try:
            with in_process(log, queue, url) as services:
                while True:
                    with take:
                        n = next(numbers, None)
                    if n is None:
                        return
                    made.append(play_and_rate(services, app, player, LEVELS[n % len(LEVELS)]))
        except BaseException as error:  # noqa: BLE001 (reported below)
            errors.append(error)

    threads = [threading.Thread(target=work) for _ in range(WORKERS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors, errors
    return made


def rated_over_http(url: str, token: str, level: str) -> str:
    created = requests.post(
        f"{url}/v1/games",
        json={"rated": True, "opponent": {"type": "bot", "level": level}},
        headers=auth(token),
        timeout=30,
    )
    assert created.status_code == 201, created.text
    game = created.json()
    resigned = requests.post(
        f"{url}/v1/games/{game['game_id']}/resign", headers=auth(game["token"]), timeout=30
    )
    assert resigned.status_code == 200, resigned.text
    return game["game_id"]


def me(url: str, token: str) -> dict:
    answer = requests.get(f"{url}/v1/players/me", headers=auth(token), timeout=30)
    assert answer.status_code == 200, answer.text
    return answer.json()


def every_page(url: str, path: str, token: str, items: str) -> tuple[list[dict], int]:
    """All of a list, following ``next_cursor`` with the largest page: its items and how
    many pages it took."""
    listed: list[dict] = []
    cursor, pages = None, 0
    while True:
        params = {"limit": PAGE, **({"cursor": cursor} if cursor else {})}
        answer = requests.get(f"{url}{path}", params=params, headers=auth(token), timeout=60)
        assert answer.status_code == 200, answer.text
        page = answer.json()
        pages += 1
        assert len(page[items]) == PAGE or page["next_cursor"] is None
        listed += page[items]
        cursor = page["next_cursor"]
        if cursor is None:
            return listed, pages
        assert pages <= GAMES // PAGE + 1, "the cursor goes round"


@pytest.mark.parametrize("back_end", BACK_ENDS)
def test_a_player_with_2000_rated_games_lists_every_game_and_every_rating_change(
    back_end: str, request: pytest.FixtureRequest, tmp_path: Path
):
    assert GAMES >= 4 * GAMES_CAP and GAMES >= 10 * HISTORY_CAP
    with (
        records_database(
            back_end, lambda: request.getfixturevalue("postgres_url"), tmp_path
        ) as url,
        own_redis(tmp_path / "redis") as (log_url, log),
        own_redis(tmp_path / "queue") as (_queue_url, queue),
    ):
        server = LiveServer(
            log_url, workers=1, env={"SCHNAPSEN_ARCHIVE_URL": url}, log=tmp_path / "server.log"
        )
        worker = WorkerProcess(log_url, SCHNAPSEN_ARCHIVE_URL=url)
        try:
            app = new_app(log)
            player = register_over_http(server.url, app.headers, "Long")
            token, player_id = player["token"], player["player"]["player_id"]
            made = rated_by_workers(log, queue, url, app.id, player_id, GAMES - OVER_HTTP)
            for n in range(OVER_HTTP):  # the newest games, end to end
                made.append(rated_over_http(server.url, token, LEVELS[n % len(LEVELS)]))
                wait_until(
                    lambda n=n: (
                        me(server.url, token)["rating"]["games"] == GAMES - OVER_HTTP + n + 1
                    ),
                    60,
                    "the worker's rating of a game played over HTTP",
                )

            games, game_pages = every_page(server.url, "/v1/players/me/games", token, "games")
            changes, change_pages = every_page(
                server.url, f"/v1/players/{player_id}/ratings", token, "changes"
            )
            current = me(server.url, token)["rating"]
        finally:
            worker.stop()
            server.stop()
    print(f"{back_end}: {len(games)} games in {game_pages} pages, "
          f"{len(changes)} changes in {change_pages} pages")  # fmt: skip

    listed = [game["game_id"] for game in games]
    assert len(listed) == len(set(listed)) == GAMES
    assert set(listed) == set(made)
    keys = [(game["started"], game["game_id"]) for game in games]
    assert keys == sorted(keys, reverse=True)
    assert all(game["rated"] is True for game in games)

    rated = [change["game_id"] for change in changes]
    assert len(rated) == len(set(rated)) == GAMES
    assert set(rated) == set(made)
    # newest first: the games played over HTTP were rated last, one after another
    assert rated[:OVER_HTTP] == list(reversed(made[-OVER_HTTP:]))
    for newer, older in zip(changes, changes[1:], strict=False):
        assert newer["rating_before"] == older["rating"], (newer, older)
    assert changes[-1]["rating_before"] == 1500.0
    assert current["games"] == GAMES
    assert changes[0]["rating"] == round(current["rating"], 2)
