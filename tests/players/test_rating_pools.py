"""Rating pools: a rated game moves only its pool's ratings (variant x speed by the clock),
a rating is provisional while its deviation is above 110 and the pool's leaderboard leaves
it out, and every call that names no pool reads the default pool, as before pools."""

from __future__ import annotations

from typing import Any

import requests
from redis import Redis

from service.devtools.embedded_redis import EmbeddedRedis
from service.store.players import PlayerStore
from service.store.ratings import RatedGames
from service.web.app import create_app
from service.web.services import services
from tests.support.http import Api, ok, problem
from tests.support.paths import SECRET
from tests.support.players import bearer, new_app, register_over_http
from tests.support.rated_games import MIN_TRICKS, play_tricks, resign
from tests.support.waiting import wait_until

POOL_NAMES = [
    f"{variant}-{speed}"
    for variant in ("head", "tracked")
    for speed in ("blitz", "rapid", "classical", "untimed")
]


def _rated_game_in(api: Api, body: dict[str, Any], winner: str, loser: str) -> str:
    """A rated game of ``body``'s variant and clock, played past its minimum (RX7), then
    resigned by the loser: its id."""
    created = ok(api.post("/v1/games", json_body={"rated": True, **body}, token=winner), 201)
    joined = ok(
        api.post(
            f"/v1/games/{created['game_id']}/join",
            json_body={"invite": created["invite"]},
            token=loser,
        ),
        (200, 201),
    )
    tokens = {0: created["token"], 1: joined["token"]}
    play_tricks(api, created["game_id"], tokens, MIN_TRICKS)
    resign(api, created["game_id"], tokens[1])
    return created["game_id"]


def _pools(url: str, token: str) -> dict[str, dict[str, Any]]:
    me = requests.get(f"{url}/v1/players/me", headers=bearer(token), timeout=10).json()
    return {row["pool"]: row for row in me["ratings"]}


def test_rated_games_in_two_pools_each_move_only_their_own_pools_ratings(
    live_server, worker, redis_client
):
    url, api = live_server.url, Api.live(live_server.url)
    app = new_app(redis_client)
    anna, ben = (register_over_http(url, app.headers, name) for name in ("Anna", "Ben"))
    before = _pools(url, anna["token"])
    assert sorted(before) == sorted(POOL_NAMES)  # every pool listed, rated or not
    assert all(row["games"] == 0 and row["provisional"] for row in before.values())

    head = _rated_game_in(api, {}, anna["token"], ben["token"])
    seen = ok(api.get(f"/v1/games/{head}"))  # a spectator reads it
    assert (seen["pool"], seen["rated"]) == ("head-untimed", True)
    wait_until(lambda: _pools(url, anna["token"])["head-untimed"]["games"] == 1, 60, "rating")
    after_head = _pools(url, anna["token"])
    assert after_head["head-untimed"]["rating"] > 1500
    assert {p: r for p, r in after_head.items() if p != "head-untimed"} == {
        p: r for p, r in before.items() if p != "head-untimed"
    }

    clocked = {"variant": "tracked", "clock": {"seconds_per_move": 30}}
    tracked = _rated_game_in(api, clocked, ben["token"], anna["token"])
    seen = ok(api.get(f"/v1/games/{tracked}"))
    assert (seen["pool"], seen["rated"]) == ("tracked-rapid", True)
    wait_until(lambda: _pools(url, anna["token"])["tracked-rapid"]["games"] == 1, 60, "rating")
    after_tracked = _pools(url, anna["token"])
    assert after_tracked["tracked-rapid"]["rating"] < 1500
    assert after_tracked["head-untimed"] == after_head["head-untimed"]
    ben_pools = _pools(url, ben["token"])
    assert ben_pools["tracked-rapid"]["rating"] > 1500 > ben_pools["head-untimed"]["rating"]

    # The rating of old calls is the default pool's; the history says each change's pool.
    me = requests.get(f"{url}/v1/players/me", headers=bearer(anna["token"]), timeout=10).json()
    default = after_tracked["head-untimed"]
    assert me["rating"] == {k: default[k] for k in me["rating"]}
    history = ok(
        api.get(f"/v1/players/{anna['player']['player_id']}/ratings", token=anna["token"])
    )["changes"]
    assert [(c["game_id"], c["pool"]) for c in history] == [
        (tracked, "tracked-rapid"),
        (head, "head-untimed"),
    ]
    for pool, game in (("tracked-rapid", tracked), ("head-untimed", head)):
        one_pool = ok(
            api.get(
                f"/v1/players/{anna['player']['player_id']}/ratings?pool={pool}",
                token=anna["token"],
            )
        )["changes"]
        assert [c["game_id"] for c in one_pool] == [game]
    bad = api.get(f"/v1/players/{anna['player']['player_id']}/ratings?pool=x", token=anna["token"])
    problem(bad, 422, "invalid_request")
    listed = ok(api.get("/v1/players/me/games", token=anna["token"]))["games"]
    assert {(g["game_id"], g["pool"], g["rated"]) for g in listed} == {
        (tracked, "tracked-rapid", True),
        (head, "head-untimed", True),
    }


def test_the_pools_are_listed_and_a_leaderboard_of_an_unknown_pool_is_refused(
    live_server, redis_client
):
    url = live_server.url
    app = new_app(redis_client)
    api = Api.live(url)
    listed = ok(api.get("/v1/pools", headers=app.headers))["pools"]
    assert [row["pool"] for row in listed] == POOL_NAMES
    assert {row["speed"] for row in listed} == {"blitz", "rapid", "classical", "untimed"}
    assert ok(api.get("/v1/leaderboard?pool=tracked-blitz", headers=app.headers)) == {
        "pool": "tracked-blitz",
        "players": [],
    }
    assert ok(api.get("/v1/leaderboard", headers=app.headers))["pool"] == "head-untimed"
    for bad in ("bullet", "head", "head-", "HEAD-blitz", "head-blitz-x"):
        refused = api.get(f"/v1/leaderboard?pool={bad}", headers=app.headers)
        assert "pool" in problem(refused, 422, "invalid_request")["detail"]


def test_a_rating_is_provisional_and_off_the_board_until_its_deviation_falls_to_110(tmp_path):
    """Rated games against a bot level standing at 1500: the player's deviation falls game
    by game; it is provisional (and off its pool's leaderboard) exactly while above 110."""
    with EmbeddedRedis(tmp_path / "redis") as server:
        redis_client = Redis.from_url(server.url)
        flask_app = create_app({"REDIS_URL": server.url, "SECRET_KEY": SECRET})
        client = flask_app.test_client()
        key = new_app(redis_client)
        token = client.post(
            "/v1/players", json={"app_player_id": "eve", "name": "Eve"}, headers=key.headers
        ).json["token"]
        ratings = RatedGames(PlayerStore(redis_client), {"random": 500.0})
        seen: list[tuple[float, bool, bool]] = []
        for _game in range(60):
            created = client.post(
                "/v1/games",
                json={"rated": True, "variant": "tracked", "clock": {"seconds_per_move": 10},
                      "opponent": {"type": "bot", "level": "random"}},
                headers=bearer(token),
            ).json  # fmt: skip
            client.post(f"/v1/games/{created['game_id']}/resign", headers=bearer(created["token"]))
            assert ratings.rate(services(flask_app).games.current(created["game_id"])) is True
            me = client.get("/v1/players/me", headers=bearer(token)).json
            blitz = next(row for row in me["ratings"] if row["pool"] == "tracked-blitz")
            board = client.get("/v1/leaderboard?pool=tracked-blitz", headers=key.headers).json
            seen.append((blitz["deviation"], blitz["provisional"], bool(board["players"])))
            if not blitz["provisional"]:
                break
        assert all(provisional == (dev > 110) for dev, provisional, _ in seen), seen
        assert all(on_board == (not provisional) for _, provisional, on_board in seen), seen
        assert seen[0][1] and not seen[-1][1], seen  # provisional at first, no longer at last
        assert me["rating"]["games"] == 0  # the default pool never moved
        services(flask_app).watcher.close()
        services(flask_app).job_watcher.close()
