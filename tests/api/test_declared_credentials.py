"""The server reads a credential only where the operation declares its scheme.

The same ``Authorization: Bearer`` header is a client app's key on the app's
operations (``clientKey``), a player on a player's (``playerToken``) and a
seat's token on a seat's (``bearerAuth``); ``X-Client-Key`` counts where
``clientKeyHeader`` is named. Over a live gunicorn, as clients send them.
"""

from __future__ import annotations

import uuid

import pytest
import requests
from flask import Flask
from flask_smorest import Blueprint

from service.store.clients import ClientRegistry
from service.web.callers import check_declared
from service.web.operations import ANYONE, V1, operation
from tests.support.players import bearer, new_app, register_over_http


def test_a_player_operation_reads_the_players_token_and_no_client_key(live_server, redis_client):
    app = new_app(redis_client)
    player = register_over_http(live_server.url, app.headers, "Anna")
    # A key the player's operations do not declare is not read: not even a made-up one.
    headers = {**bearer(player["token"]), "X-Client-Key": "sck_not_a_key_of_anybody"}
    answer = requests.get(f"{live_server.url}/v1/players/me", headers=headers, timeout=30)
    assert answer.status_code == 200, answer.text
    assert answer.json()["player_id"] == player["player"]["player_id"]


def test_two_players_behind_one_address_seek_on_their_own_with_the_same_idempotency_key(
    live_server, redis_client
):
    # Where the player's token is declared the caller is the player, so a key is the
    # player's own: another player's same key (same app, same address) is a new seek.
    app = new_app(redis_client)
    players = [register_over_http(live_server.url, app.headers, f"P {n}") for n in range(2)]
    key = {"Idempotency-Key": str(uuid.uuid4())}
    seeks = [
        requests.post(
            f"{live_server.url}/v1/seeks",
            json={"min_rating": 3000},  # nobody is paired: each waits on its own seek
            headers={**bearer(p["token"]), **key},
            timeout=30,
        )
        for p in players
    ]
    assert [s.status_code for s in seeks] == [201, 201], [s.text for s in seeks]
    assert seeks[0].json()["seek_id"] != seeks[1].json()["seek_id"]
    for player, seek in zip(players, seeks, strict=True):
        mine = requests.get(
            f"{live_server.url}/v1/seeks/{seek.json()['seek_id']}",
            headers=bearer(player["token"]),
            timeout=30,
        )
        assert mine.status_code == 200, mine.text


def test_a_client_key_as_a_bearer_token_is_no_seat_on_a_seat_operation(live_server, redis_client):
    app = new_app(redis_client)
    created = requests.post(
        f"{live_server.url}/v1/games", json={}, headers=bearer(app.key), timeout=30
    )
    assert created.status_code == 201, created.text
    game = f"{live_server.url}/v1/games/{created.json()['game_id']}"
    resigned = requests.post(f"{game}/resign", headers=bearer(app.key), timeout=30)
    assert resigned.status_code in (401, 403), resigned.text
    view = requests.get(game, timeout=30)  # a spectator: the game goes on
    assert view.status_code == 200, view.text
    assert view.json()["status"] == "waiting"


def test_a_revoked_key_as_a_bearer_token_is_refused_as_revoked_where_a_key_is_declared(
    live_server, redis_client
):
    registry = ClientRegistry(redis_client)
    revoked_app, revoked_key = registry.create("revoked before asking")
    registry.revoke(revoked_app.id)
    for path in ("/v1/webhooks", "/v1/leaderboard", "/v1/players/p_0/ratings"):
        # A made-up key is no key: the caller is anonymous, and the app's operations
        # need a key.
        unknown = requests.get(
            live_server.url + path, headers=bearer("sck_made_up_by_a_stranger"), timeout=30
        )
        assert unknown.status_code == 401, unknown.text
        assert unknown.json()["code"] == "client_key_required", unknown.text
        revoked = requests.get(live_server.url + path, headers=bearer(revoked_key), timeout=30)
        assert revoked.status_code == 401, revoked.text
        assert revoked.json()["code"] == "client_key_revoked", revoked.text


def test_an_api_route_that_declares_no_security_stops_the_app_from_starting():
    # Deny by default would make such a route silently anonymous: it is refused instead.
    app = Flask(__name__)
    app.add_url_rule("/v1/forgotten", "forgotten", lambda: "")
    with pytest.raises(TypeError, match="/v1/forgotten"):
        check_declared(app)
    declared = Flask(__name__)
    view = operation(Blueprint("declared", __name__), "getDeclared", security=ANYONE, problems=V1)(
        lambda: ""
    )
    declared.add_url_rule("/v1/declared", "declared", view)
    check_declared(declared)
