"""Ratings: a rated game's end changes both players' Glicko-2 ratings exactly once."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import requests
from redis import Redis
from rq import Queue
from rq.serializers import JSONSerializer

from service.devtools.embedded_redis import EmbeddedRedis
from service.game import glicko2
from service.jobs.queues import ARCHIVE, enqueue_rating, rating_job_id
from service.store.players import PlayerStore
from service.store.ratings import RatedGames
from service.web.app import create_app
from service.web.services import services
from tests.support.http import Api
from tests.support.paths import SECRET
from tests.support.players import AppKey, bearer, new_app
from tests.support.rated_games import MIN_TRICKS, play_tricks, rated_game, resign
from tests.support.waiting import wait_until


def _player(url: str, app: AppKey, name: str) -> dict:
    answer = requests.post(
        f"{url}/v1/players",
        json={"app_player_id": name, "name": name},
        headers=app.headers,
        timeout=10,
    )
    assert answer.status_code == 201, answer.text
    return answer.json()


def _me(url: str, token: str) -> dict:
    return requests.get(f"{url}/v1/players/me", headers=bearer(token), timeout=10).json()


def _rated_game_resigned(url: str, winner: dict, loser: dict) -> str:
    """A rated game played past its minimum (RX7), then resigned by ``loser``."""
    api = Api.live(url)
    game_id, tokens = rated_game(api, winner["token"], loser["token"])
    play_tricks(api, game_id, tokens, MIN_TRICKS)
    resign(api, game_id, tokens[1])
    return game_id


def test_a_rated_games_end_updates_both_ratings_once_even_when_its_job_runs_twice(
    live_server, worker, redis_client
):
    url = live_server.url
    app = new_app(redis_client)
    anna, ben = _player(url, app, "anna"), _player(url, app, "ben")
    game_id = _rated_game_resigned(url, anna, ben)
    rated = wait_until(
        lambda: _me(url, anna["token"])["rating"]["games"] == 1 and _me(url, anna["token"]),
        60,
        "the winner's rating",
    )
    expected_a, expected_b = glicko2.rate_game(glicko2.Rating(), glicko2.Rating(), 1.0)
    assert abs(rated["rating"]["rating"] - expected_a.rating) < 0.01
    loser = _me(url, ben["token"])
    assert loser["rating"]["games"] == 1
    assert abs(loser["rating"]["rating"] - expected_b.rating) < 0.01
    # The ending's job again, on the real worker: it finds the game rated and writes nothing.
    queues = Redis.from_url(live_server_queue_url(redis_client))
    wait_until(
        lambda: (
            Queue(ARCHIVE, connection=queues, serializer=JSONSerializer).fetch_job(
                rating_job_id(game_id)
            )
            is None
            or Queue(ARCHIVE, connection=queues, serializer=JSONSerializer)
            .fetch_job(rating_job_id(game_id))
            .is_finished
        ),
        60,
        "the first rating job to end",
    )
    enqueue_rating(queues, game_id)
    job = Queue(ARCHIVE, connection=queues, serializer=JSONSerializer).fetch_job(
        rating_job_id(game_id)
    )
    wait_until(lambda: job.refresh() or job.is_finished, 60, "the second rating job")
    assert job.return_value()["rated"] is False  # rated before: nothing written
    assert _me(url, anna["token"])["rating"] == rated["rating"]
    assert _me(url, ben["token"])["rating"] == loser["rating"]
    history = requests.get(
        f"{url}/v1/players/{anna['player']['player_id']}/ratings",
        headers=bearer(anna["token"]),
        timeout=10,
    ).json()["changes"]
    assert [change["game_id"] for change in history] == [game_id]
    # One rated game of the LEADERBOARD_MIN_GAMES a player needs to be ranked (RX8).
    board = requests.get(f"{url}/v1/leaderboard", headers=app.headers, timeout=10).json()
    assert board["players"] == []


def live_server_queue_url(redis_client: Redis) -> str:
    """The live server and its worker queue on the tests' Redis (no QUEUE_REDIS_URL)."""
    kwargs = redis_client.connection_pool.connection_kwargs
    if "path" in kwargs:
        return f"unix://{kwargs['path']}"
    return f"redis://{kwargs.get('host', '127.0.0.1')}:{kwargs.get('port', 6379)}"


def test_rating_one_game_from_many_threads_at_once_writes_it_once(tmp_path):
    """The job run eight times at the same moment: one write, the others find the game
    rated. On a Redis of its own, where no worker rates the game first."""
    with EmbeddedRedis(tmp_path / "redis") as server:
        redis_client = Redis.from_url(server.url)
        app = create_app({"REDIS_URL": server.url, "SECRET_KEY": SECRET})
        client = app.test_client()
        key = new_app(redis_client)
        tokens = []
        for name in ("cleo", "dan"):
            answer = client.post(
                "/v1/players", json={"app_player_id": name, "name": name}, headers=key.headers
            )
            tokens.append(answer.json["token"])
        api = Api(client)
        game_id, seats = rated_game(api, tokens[0], tokens[1])
        play_tricks(api, game_id, seats, MIN_TRICKS)  # a result for both players (RX7)
        resign(api, game_id, seats[1])
        current = services(app).games.current(game_id)
        ratings = RatedGames(PlayerStore(redis_client), {})
        with ThreadPoolExecutor(8) as pool:
            written = list(pool.map(lambda _: ratings.rate(current), range(8)))
        assert written.count(True) == 1 and written.count(False) == 7
        for token in tokens:
            assert client.get("/v1/players/me", headers=bearer(token)).json["rating"]["games"] == 1
        services(app).watcher.close()
        services(app).job_watcher.close()


def test_a_rated_game_against_a_bot_moves_the_players_rating_against_the_levels_fixed_one(
    tmp_path,
):
    """The bot stands at its level's ladder Elo plus 1000 (deviation 50); only the player's
    rating moves, and the history names the bot's level as the opponent."""
    with EmbeddedRedis(tmp_path / "redis") as server:
        redis_client = Redis.from_url(server.url)
        app = create_app({"REDIS_URL": server.url, "SECRET_KEY": SECRET})
        client = app.test_client()
        key = new_app(redis_client)
        token = client.post(
            "/v1/players", json={"app_player_id": "eve", "name": "Eve"}, headers=key.headers
        ).json["token"]
        created = client.post(
            "/v1/games",
            json={"rated": True, "opponent": {"type": "bot", "level": "random"}},
            headers=bearer(token),
        ).json
        client.post(f"/v1/games/{created['game_id']}/resign", headers=bearer(created["token"]))
        current = services(app).games.current(created["game_id"])
        ratings = RatedGames(PlayerStore(redis_client), {"random": 0.0})
        assert ratings.rate(current) is True
        me = client.get("/v1/players/me", headers=bearer(token)).json
        expected, _bot = glicko2.rate_game(glicko2.Rating(), glicko2.fixed(1000.0), 0.0)
        assert me["rating"]["games"] == 1
        assert abs(me["rating"]["rating"] - expected.rating) < 0.01
        history = client.get(f"/v1/players/{me['player_id']}/ratings", headers=bearer(token)).json[
            "changes"
        ]
        assert [(c["opponent"], c["score"]) for c in history] == [("bot:random", 0.0)]
        services(app).watcher.close()
        services(app).job_watcher.close()
