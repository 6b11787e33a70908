"""Matchmaking, challenges and ratings on a Redis Cluster behind three API replicas:
the pool of one app lives in one slot, so a seek is paired once whichever replica
runs its script, and a rated game's end writes both ratings once."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest
import requests

from service.store.clients import ClientRegistry
from tests.support.http import Api
from tests.support.players import bearer, register_over_http
from tests.support.rated_games import MIN_TRICKS, play_tricks
from tests.support.waiting import wait_until

pytestmark = pytest.mark.cluster

PLAYERS = 60


def _register(url: str, key: str, number: int) -> dict:
    body = register_over_http(url, {"X-Client-Key": key}, f"Player {number}")
    return {"id": body["player"]["player_id"], "token": body["token"]}


def test_seeks_across_replicas_pair_everyone_once_and_rate_a_game_once(topology):
    _app, key = ClientRegistry(topology.log).create("cluster matchmaking")
    urls = topology.urls
    players = [_register(urls[n % len(urls)], key, n) for n in range(PLAYERS)]

    def seek(index: int) -> dict:
        token = players[index]["token"]
        url = urls[index % len(urls)]
        answer = requests.post(
            f"{url}/v1/seeks", json={"rated": True}, headers=bearer(token), timeout=30
        )
        assert answer.status_code == 201, answer.text
        found = answer.json()
        for turn in range(20):
            if found["status"] != "waiting":
                break
            found = requests.get(
                f"{urls[(index + turn) % len(urls)]}/v1/seeks/{found['seek_id']}",
                params={"wait": 3},
                headers=bearer(token),
                timeout=30,
            ).json()
        return {**found, "player": players[index]["id"], "token_of_player": token}

    with ThreadPoolExecutor(PLAYERS) as pool:
        seeks = list(pool.map(seek, range(PLAYERS)))
    assert all(s["status"] == "paired" for s in seeks), [s["status"] for s in seeks]
    games: dict[str, list[dict]] = {}
    for found in seeks:
        games.setdefault(found["game_id"], []).append(found)
    assert len(games) == PLAYERS // 2
    for pair in games.values():
        assert len(pair) == 2 and pair[0]["player"] != pair[1]["player"]
        assert {pair[0]["seat"], pair[1]["seat"]} == {0, 1}

    # one rated game ends: a worker writes both ratings, once
    game_id, pair = next(iter(games.items()))
    loser = pair[0]
    # Played past the minimum that makes a result count for both players (RX7).
    seat_tokens = {found["seat"]: found["token"] for found in pair}
    play_tricks(Api.live(urls[1]), game_id, seat_tokens, MIN_TRICKS)
    resigned = requests.post(
        f"{urls[0]}/v1/games/{game_id}/resign", headers=bearer(loser["token"]), timeout=30
    )
    assert resigned.status_code == 200, resigned.text

    def rated(found: dict) -> dict | None:
        me = requests.get(
            f"{urls[1]}/v1/players/me", headers=bearer(found["token_of_player"]), timeout=30
        ).json()
        return me if me["rating"]["games"] == 1 else None

    for found in pair:
        wait_until(lambda found=found: rated(found), 60, "the game's ratings")
        history = requests.get(
            f"{urls[2]}/v1/players/{found['player']}/ratings",
            headers=bearer(found["token_of_player"]),
            timeout=30,
        ).json()["changes"]
        assert [change["game_id"] for change in history] == [game_id]


def test_a_challenge_accepted_at_three_replicas_at_once_makes_one_game(topology):
    _app, key = ClientRegistry(topology.log).create("cluster challenges")
    urls = topology.urls
    anna, ben = _register(urls[0], key, 1000), _register(urls[1], key, 1001)
    made = requests.post(
        f"{urls[2]}/v1/challenges",
        json={"player_id": ben["id"]},
        headers=bearer(anna["token"]),
        timeout=30,
    )
    assert made.status_code == 201, made.text
    cid = made.json()["challenge_id"]
    with ThreadPoolExecutor(len(urls)) as pool:
        answers = list(
            pool.map(
                lambda url: requests.post(
                    f"{url}/v1/challenges/{cid}/accept", headers=bearer(ben["token"]), timeout=30
                ),
                urls,
            )
        )
    assert [a.status_code for a in answers] == [201] * len(urls), [a.text for a in answers]
    assert len({(a.json()["game_id"], a.json()["token"]) for a in answers}) == 1
    game_id = answers[0].json()["game_id"]
    view = requests.get(f"{urls[0]}/v1/games/{game_id}", timeout=30).json()
    assert view["version"] == 4  # created, two seats, the first deal: made once
