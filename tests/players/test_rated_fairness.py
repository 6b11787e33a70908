"""Rated games are fair (docs/rules.md, RX4-RX6): the server deals them, the service's
bots give no help in them, and a seat that has its hand cannot call one off for free.

Over HTTP against gunicorn, with a real RQ worker where a clock or a job is involved.
Every wait's timeout only bounds a hang.
"""

from __future__ import annotations

import secrets
from typing import Any

import requests

from service.game import glicko2
from tests.support.http import PROBLEM_JSON, Api
from tests.support.players import AppKey, bearer, new_app, register_over_http
from tests.support.rated_games import MIN_TRICKS, play_tricks, rated_game, resign
from tests.support.waiting import wait_until

#: Long past a few 5 s deadlines and a worker's start: only a clock that never fires fails.
HANG_BOUND = 120


def _post(url: str, path: str, token: str, body: dict[str, Any] | None = None, **params: Any):
    return requests.post(
        f"{url}{path}", json=body or {}, headers=bearer(token), params=params, timeout=30
    )


def _get(url: str, path: str, token: str, **params: Any):
    return requests.get(f"{url}{path}", headers=bearer(token), params=params, timeout=30)


def _refused(answer: requests.Response, status: int, code: str) -> dict[str, Any]:
    assert answer.status_code == status, (answer.status_code, answer.text)
    assert answer.headers["Content-Type"].split(";")[0] == PROBLEM_JSON, answer.headers
    body = answer.json()
    assert body["code"] == code, body
    return body


def _players(url: str, app: AppKey, count: int = 2) -> list[dict[str, Any]]:
    return [register_over_http(url, app.headers, f"P{n}") for n in range(count)]


def _my_games(url: str, player: dict[str, Any]) -> list[dict[str, Any]]:
    answer = _get(url, "/v1/players/me/games", player["token"])
    assert answer.status_code == 200, answer.text
    return answer.json()["games"]


def _rated_between(url: str, first: dict[str, Any], second: dict[str, Any], **body: Any):
    """A rated game of two players: (game id, seat 0's token, seat 1's token)."""
    created = _post(url, "/v1/games", first["token"], {"rated": True, **body})
    assert created.status_code == 201, created.text
    game = created.json()
    joined = _post(
        url, f"/v1/games/{game['game_id']}/join", second["token"], {"invite": game["invite"]}
    )
    assert joined.status_code in (200, 201), joined.text
    return game["game_id"], game["token"], joined.json()["token"]


# -- RX4: a rated game is dealt by the server ----------------------------------------


def test_rx4_a_rated_game_with_a_chosen_seed_is_refused_and_nothing_is_made(
    live_server, redis_client
):
    url = live_server.url
    (player,) = _players(url, new_app(redis_client), 1)
    answer = _post(
        url,
        "/v1/games",
        player["token"],
        {
            "rated": True,
            "seed": 424242,
            "opponent": {"type": "bot", "level": "expert"},
        },
    )
    body = _refused(answer, 422, "rated_dealing")
    assert "seed" in body["detail"]
    assert _my_games(url, player) == []


def test_rx4_a_rated_game_with_a_chosen_deck_or_first_dealer_is_refused(live_server, redis_client):
    url = live_server.url
    (player,) = _players(url, new_app(redis_client), 1)
    deck = [f"{rank}{suit}" for suit in "CDHS" for rank in "ATKQJ"]
    _refused(
        _post(url, "/v1/games", player["token"], {"rated": True, "deck": deck}),
        422,
        "rated_dealing",
    )
    _refused(
        _post(url, "/v1/games", player["token"], {"rated": True, "first_dealer": 1}),
        422,
        "rated_dealing",
    )
    assert _my_games(url, player) == []
    # The same choices in a casual game are a practice game's, as before.
    casual = _post(url, "/v1/games", player["token"], {"deck": deck, "first_dealer": 1})
    assert casual.status_code == 201, casual.text
    assert casual.json()["game"]["dealing"] == "fixed"


# -- RX5: no help from the service's bots in a rated game ---------------------------


def test_rx5_the_seat_to_move_in_a_rated_game_gets_no_hint(live_server, redis_client):
    url = live_server.url
    first, second = _players(url, new_app(redis_client))
    game_id, token0, token1 = _rated_between(url, first, second)
    seen = _get(url, f"/v1/games/{game_id}", token0).json()
    to_move = token0 if seen["to_move"] == 0 else token1
    answer = _post(url, f"/v1/games/{game_id}/hint", to_move, {"level": "expert"}, wait=0)
    _refused(answer, 403, "rated_game_no_help")


def _clock_moves(url: str, game_id: str, token: str) -> list[dict[str, Any]]:
    answer = _get(url, f"/v1/games/{game_id}/events", token, after=0)
    assert answer.status_code == 200, answer.text
    return [event for event in answer.json()["events"] if event["type"] == "clock_moved"]


def test_rx5_the_clocks_bot_in_a_rated_game_plays_at_the_random_level(
    live_server, worker, redis_client
):
    url = live_server.url
    first, second = _players(url, new_app(redis_client))
    clock = {"seconds_per_move": 5, "bot_level": "expert", "bot_moves_limit": 20}
    game_id, token0, _token1 = _rated_between(url, first, second, clock=clock)
    played = wait_until(
        lambda: _clock_moves(url, game_id, token0), HANG_BOUND, "the clock's bot move"
    )
    assert played[0]["level"] == "random", played[0]
    seen = _get(url, f"/v1/games/{game_id}", token0).json()
    assert seen["clock"]["bot_level"] == "random", seen["clock"]


def test_rx5_bot_moves_limit_counts_every_bot_move_of_a_rated_game_not_only_a_run(
    live_server, worker, redis_client
):
    """With a limit of 1, a bot move for the idle seat, then a move of its own: in a casual
    game the count starts again, in a rated game the seat's next timeout loses."""
    url = live_server.url
    first, second = _players(url, new_app(redis_client))
    clock = {"seconds_per_move": 5, "bot_moves_limit": 1}
    game_id, token0, token1 = _rated_between(url, first, second, clock=clock)
    tokens = {0: token0, 1: token1}
    idle = _get(url, f"/v1/games/{game_id}", token0).json()["to_move"]
    wait_until(lambda: _clock_moves(url, game_id, token0), HANG_BOUND, "the clock's bot move")

    def mine_to_move() -> dict[str, Any] | None:
        seen = _get(url, f"/v1/games/{game_id}", tokens[idle]).json()
        return seen if seen["to_move"] == idle or seen["status"] == "finished" else None

    # The other seat keeps moving in time; the idle seat makes one move of its own.
    own_move_made = False
    for _ in range(40):
        seen = _get(url, f"/v1/games/{game_id}", tokens[idle]).json()
        if seen["status"] == "finished":
            break
        mover = seen["to_move"]
        if mover == idle and own_move_made:
            break  # its clock runs now: the next timeout is due
        if mover == idle:
            own_move_made = True
        mover_view = _get(url, f"/v1/games/{game_id}", tokens[mover]).json()
        action = mover_view["deal"]["legal_actions"][0]
        answer = _post(url, f"/v1/games/{game_id}/actions", tokens[mover], action)
        assert answer.status_code == 200, answer.text
    assert own_move_made

    ended = wait_until(
        lambda: (lambda seen: seen if seen["status"] == "finished" else None)(
            _get(url, f"/v1/games/{game_id}", token0).json()
        ),
        HANG_BOUND,
        "the idle seat's timeout",
    )
    assert len(_clock_moves(url, game_id, token0)) == 1
    assert ended["ending"] == {"reason": "timed_out", "seat": 1 - idle}, ended["ending"]
    assert ended["clock"]["bot_moves"][idle] == 1


# -- RX6: no free abort in a rated game once the hands are dealt ---------------------


def test_rx6_a_seat_of_a_rated_game_that_has_its_hand_cannot_abort_it(live_server, redis_client):
    url = live_server.url
    first, second = _players(url, new_app(redis_client))
    game_id, _token0, token1 = _rated_between(url, first, second)
    hand = _get(url, f"/v1/games/{game_id}", token1).json()["deal"]["hand"]
    assert len(hand) == 5
    body = _refused(_post(url, f"/v1/games/{game_id}/abort", token1), 409, "abort_not_allowed")
    assert body.get("rule") == "RX6", body
    assert _get(url, f"/v1/games/{game_id}", token1).json()["status"] == "active"


def test_rx6_a_rated_game_nobody_joined_yet_is_still_called_off(live_server, redis_client):
    url = live_server.url
    (player,) = _players(url, new_app(redis_client), 1)
    created = _post(url, "/v1/games", player["token"], {"rated": True}).json()
    aborted = _post(url, f"/v1/games/{created['game_id']}/abort", created["token"])
    assert aborted.status_code == 200, aborted.text
    assert aborted.json()["ending"]["reason"] == "aborted"


# -- a player's token reads its own games, never its app's ---------------------------


def test_a_player_token_neither_lists_nor_exports_the_apps_games(live_server, redis_client):
    url = live_server.url
    app = new_app(redis_client)
    first, second, third = _players(url, app, 3)
    game_id, _token0, _token1 = _rated_between(url, first, second)
    for path in ("/v1/games", "/v1/games/export"):
        answer = _get(url, path, third["token"], client="me")
        assert answer.status_code in (401, 403), (path, answer.status_code, answer.text)
        assert game_id not in answer.text
        assert first["player"]["player_id"] not in answer.text
    # The app's own key still lists them.
    listed = requests.get(
        f"{url}/v1/games", params={"client": "me"}, headers=app.headers, timeout=30
    )
    assert game_id in listed.text


def test_rated_is_in_every_answer_about_a_game(live_server, redis_client):
    url = live_server.url
    app = new_app(redis_client)
    first, second = _players(url, app)
    created = _post(url, "/v1/games", first["token"], {"rated": True})
    assert created.json()["game"]["rated"] is True, created.json()["game"]
    joined = _post(
        url,
        f"/v1/games/{created.json()['game_id']}/join",
        second["token"],
        {"invite": created.json()["invite"]},
    )
    assert joined.json()["game"]["rated"] is True
    game_id = created.json()["game_id"]
    assert _get(url, f"/v1/games/{game_id}", joined.json()["token"]).json()["rated"] is True
    listed = requests.get(
        f"{url}/v1/games", params={"client": "me"}, headers=app.headers, timeout=30
    ).json()["games"]
    assert [game["rated"] for game in listed if game["game_id"] == game_id] == [True]
    own = _get(url, "/v1/players/me/games", second["token"]).json()["games"]
    assert [game["rated"] for game in own if game["game_id"] == game_id] == [True]
    casual = _post(url, "/v1/games", first["token"], {}).json()
    assert casual["game"]["rated"] is False


def test_a_keyed_create_sent_again_as_rated_is_refused_as_another_request(
    live_server, redis_client
):
    url = live_server.url
    (player,) = _players(url, new_app(redis_client), 1)
    key = secrets.token_hex(16)
    headers = {**bearer(player["token"]), "Idempotency-Key": key}
    casual = requests.post(f"{url}/v1/games", json={}, headers=headers, timeout=30)
    assert casual.status_code == 201, casual.text
    rated = requests.post(f"{url}/v1/games", json={"rated": True}, headers=headers, timeout=30)
    _refused(rated, 422, "idempotency_key_reused")


# -- RX7, RX8: ratings that cannot be farmed cheaply ---------------------------------


def _rating(url: str, player: dict[str, Any]) -> dict[str, Any]:
    return _get(url, "/v1/players/me", player["token"]).json()["rating"]


def _rated_once(url: str, player: dict[str, Any]) -> dict[str, Any] | None:
    rating = _rating(url, player)
    return rating if rating["games"] >= 1 else None


def test_rx7_a_resign_before_three_tricks_costs_the_resigner_and_gives_the_winner_nothing(
    live_server, worker, redis_client
):
    url = live_server.url
    api = Api.live(url)
    winner, loser = _players(url, new_app(redis_client))
    game_id, tokens = rated_game(api, winner["token"], loser["token"])
    resign(api, game_id, tokens[1])
    lost = wait_until(lambda: _rated_once(url, loser), HANG_BOUND, "the resigner's rating")
    _expected_winner, expected_loser = glicko2.rate_game(glicko2.Rating(), glicko2.Rating(), 1.0)
    assert abs(lost["rating"] - expected_loser.rating) < 0.01
    # The winner's rating is written by the same job, before the loser's is seen.
    assert _rating(url, winner) == {
        "rating": 1500.0,
        "deviation": 350.0,
        "volatility": 0.06,
        "games": 0,
        "provisional": True,
    }


def test_rx8_a_pairs_fourth_rated_game_within_a_day_changes_no_rating(
    live_server, worker, redis_client
):
    url = live_server.url
    api = Api.live(url)
    anna, ben, cleo = _players(url, new_app(redis_client), 3)
    expected = [glicko2.Rating(), glicko2.Rating()]
    for number in range(4):
        game_id, tokens = rated_game(api, anna["token"], ben["token"])
        play_tricks(api, game_id, tokens, MIN_TRICKS)
        resign(api, game_id, tokens[1])
        if number < 3:
            expected = list(glicko2.rate_game(expected[0], expected[1], 1.0))
            wait_until(
                lambda count=number + 1: _rating(url, ben)["games"] == count,
                HANG_BOUND,
                "the pair's rated game",
            )
    # Another pair's game, rated after the fourth on the one worker: by then the fourth's
    # job has run.
    game_id, tokens = rated_game(api, cleo["token"], ben["token"])
    resign(api, game_id, tokens[0])
    wait_until(lambda: _rated_once(url, cleo), HANG_BOUND, "the other pair's game")
    assert _rating(url, anna)["games"] == 3
    assert abs(_rating(url, anna)["rating"] - expected[0].rating) < 0.01
    history = _get(url, f"/v1/players/{anna['player']['player_id']}/ratings", anna["token"])
    assert len(history.json()["changes"]) == 3


def test_rx8_the_leaderboard_shows_only_players_with_enough_rated_games(
    live_server, worker, redis_client
):
    url = live_server.url
    api = Api.live(url)
    app = new_app(redis_client)
    anna, ben = _players(url, app)
    game_id, tokens = rated_game(api, anna["token"], ben["token"])
    play_tricks(api, game_id, tokens, MIN_TRICKS)
    resign(api, game_id, tokens[1])
    wait_until(lambda: _rated_once(url, anna), HANG_BOUND, "the game's ratings")
    board = requests.get(f"{url}/v1/leaderboard", headers=app.headers, timeout=30).json()
    assert board["players"] == [], board


def test_rx5_a_seat_of_a_running_rated_game_gets_no_analysis_of_its_finished_deals(
    live_server, redis_client
):
    url = live_server.url
    api = Api.live(url)
    first, second = _players(url, new_app(redis_client))
    game_id, tokens = rated_game(api, first["token"], second["token"])
    seen = play_tricks(api, game_id, tokens, 11)  # past 10 tricks: until the deal is over
    assert seen["deals"] and seen["status"] == "active", seen
    answer = _post(url, f"/v1/games/{game_id}/analysis", tokens[0], {"deals": [1]})
    _refused(answer, 403, "rated_game_no_help")
