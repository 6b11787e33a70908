"""Matchmaking over HTTP against the real server: seeks are paired once, never with
their own player, a cancelled seek never, and never across apps."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import requests

from tests.support.players import AppKey, bearer, new_app, register_over_http


def _player(url: str, app: AppKey) -> str:
    return register_over_http(url, app.headers)["token"]


def _seek(url: str, token: str, **body) -> dict:
    answer = requests.post(f"{url}/v1/seeks", json=body, headers=bearer(token), timeout=10)
    assert answer.status_code == 201, answer.text
    return answer.json()


def _wait(url: str, token: str, seek_id: str, seconds: float = 5) -> dict:
    answer = requests.get(
        f"{url}/v1/seeks/{seek_id}", params={"wait": seconds}, headers=bearer(token), timeout=40
    )
    assert answer.status_code == 200, answer.text
    return answer.json()


def test_two_devices_are_paired_into_one_game_and_a_third_gets_the_next_partner(
    live_server, redis_client
):
    url = live_server.url
    app = new_app(redis_client)
    anna, ben, cleo, dan = (_player(url, app) for _ in range(4))
    first = _seek(url, anna)
    assert first["status"] == "waiting" and first["game_id"] is None
    second = _seek(url, ben)
    assert second["status"] == "paired"
    first = _wait(url, anna, first["seek_id"])
    assert first["status"] == "paired" and first["game_id"] == second["game_id"]
    assert {first["seat"], second["seat"]} == {0, 1}
    # each seat's token opens its own seat of that game
    for seek in (first, second):
        view = requests.get(
            f"{url}/v1/games/{seek['game_id']}", headers=bearer(seek["token"]), timeout=10
        ).json()
        assert view["seat"] == seek["seat"]
        assert view["status"] == "active"
    third = _seek(url, cleo)
    assert third["status"] == "waiting"  # anna and ben are paired: nobody else waits
    fourth = _seek(url, dan)
    assert fourth["status"] == "paired" and fourth["game_id"] != first["game_id"]
    assert _wait(url, cleo, third["seek_id"])["game_id"] == fourth["game_id"]


def test_a_cancelled_seek_is_never_paired(live_server, redis_client):
    url = live_server.url
    app = new_app(redis_client)
    anna, ben = _player(url, app), _player(url, app)
    seek = _seek(url, anna)
    cancelled = requests.delete(
        f"{url}/v1/seeks/{seek['seek_id']}", headers=bearer(anna), timeout=10
    )
    assert cancelled.status_code == 200 and cancelled.json()["status"] == "cancelled"
    other = _seek(url, ben)
    assert other["status"] == "waiting"
    assert _wait(url, ben, other["seek_id"], 1)["status"] == "waiting"
    assert _wait(url, anna, seek["seek_id"], 0)["status"] == "cancelled"


def test_a_player_waits_on_one_seek_and_sees_only_its_own(live_server, redis_client):
    url = live_server.url
    app = new_app(redis_client)
    anna, ben = _player(url, app), _player(url, app)
    seek = _seek(url, anna)
    again = requests.post(f"{url}/v1/seeks", json={}, headers=bearer(anna), timeout=10)
    assert again.status_code == 409 and again.json()["code"] == "seek_exists"
    theirs = requests.get(f"{url}/v1/seeks/{seek['seek_id']}", headers=bearer(ben), timeout=10)
    assert theirs.status_code == 404 and theirs.json()["code"] == "seek_not_found"
    gone = requests.delete(f"{url}/v1/seeks/{seek['seek_id']}", headers=bearer(ben), timeout=10)
    assert gone.status_code == 404
    assert _wait(url, anna, seek["seek_id"], 0)["status"] == "waiting"


def test_seeks_of_two_apps_are_never_paired_with_each_other(live_server, redis_client):
    url = live_server.url
    client = redis_client
    anna = _player(url, new_app(client))
    eve = _player(url, new_app(client))
    seek = _seek(url, anna)
    assert _seek(url, eve)["status"] == "waiting"
    assert _wait(url, anna, seek["seek_id"], 1)["status"] == "waiting"


def test_two_hundred_concurrent_seeks_pair_everyone_at_most_once_and_never_with_itself(
    live_server, redis_client
):
    url = live_server.url
    app = new_app(redis_client)
    with ThreadPoolExecutor(32) as pool:
        tokens = list(pool.map(lambda _: _player(url, app), range(200)))

    def seek_until_paired(token: str) -> dict:
        seek = _seek(url, token)
        for _ in range(12):
            if seek["status"] != "waiting":
                break
            seek = _wait(url, token, seek["seek_id"], 5)
        me = requests.get(f"{url}/v1/players/me", headers=bearer(token), timeout=10).json()
        return {**seek, "player": me["player_id"]}

    with ThreadPoolExecutor(100) as pool:
        seeks = list(pool.map(seek_until_paired, tokens))
    assert all(seek["status"] == "paired" for seek in seeks), [s["status"] for s in seeks]
    games: dict[str, list[dict]] = {}
    for seek in seeks:
        games.setdefault(seek["game_id"], []).append(seek)
    assert len(games) == 100  # every player in exactly one game
    for game_id, pair in games.items():
        assert len(pair) == 2 and pair[0]["player"] != pair[1]["player"]
        assert {pair[0]["seat"], pair[1]["seat"]} == {0, 1}
        view = requests.get(f"{url}/v1/games/{game_id}", timeout=10).json()
        assert sorted(p["player_id"] for p in view["players"]) == sorted(s["player"] for s in pair)


def test_seeks_pair_only_with_the_same_time_control_and_the_game_keeps_it(
    live_server, redis_client
):
    url = live_server.url
    app = new_app(redis_client)
    anna, ben, cleo = (_player(url, app) for _ in range(3))
    quick = {"seconds_per_move": 30, "on_timeout": "lose"}
    first = _seek(url, anna, clock=quick)
    assert first["status"] == "waiting" and first["clock"]["seconds_per_move"] == 30
    assert _seek(url, ben)["status"] == "waiting"  # no clock: not the same kind
    third = _seek(url, cleo, clock=quick)
    assert third["status"] == "paired"
    view = requests.get(
        f"{url}/v1/games/{third['game_id']}", headers=bearer(third["token"]), timeout=10
    ).json()
    assert view["clock"]["seconds_per_move"] == 30 and view["clock"]["on_timeout"] == "lose"
    assert view["clock"]["deadline"] is not None
