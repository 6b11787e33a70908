"""Players of a client app: registered by the app's backend, identified by their tokens."""

from __future__ import annotations

import pytest

from tests.support.players import bearer, new_app


def _register(client, app, app_player_id: str, name: str):
    return client.post(
        "/v1/players", json={"app_player_id": app_player_id, "name": name}, headers=app.headers
    )


def test_an_app_registers_a_player_and_the_token_shows_who_it_is(client, redis_client):
    app = new_app(redis_client)
    answer = _register(client, app, "user-1", "  Jörg Maier ")
    assert answer.status_code == 201, answer.json
    body = answer.json
    assert body["token"].startswith("spt_")
    assert body["player"]["name"] == "Jörg Maier"
    assert body["player"]["rating"] == {
        "rating": 1500.0, "deviation": 350.0, "volatility": 0.06, "games": 0,
        "provisional": True,
    }  # fmt: skip
    me = client.get("/v1/players/me", headers=bearer(body["token"]))
    assert me.status_code == 200 and me.json == body["player"]


def test_registering_again_renames_the_player_and_only_the_new_token_works(client, redis_client):
    app = new_app(redis_client)
    first = _register(client, app, "user-2", "Anna").json
    second = _register(client, app, "user-2", "Anna B").json
    assert second["player"]["player_id"] == first["player"]["player_id"]
    assert client.get("/v1/players/me", headers=bearer(second["token"])).json["name"] == "Anna B"
    old = client.get("/v1/players/me", headers=bearer(first["token"]))
    assert old.status_code == 401 and old.json["code"] == "invalid_player_token"


@pytest.mark.parametrize(
    "name",
    ["", " ", "x" * 33, "<b>bold</b>", "a\u202eb", "two  spaces", "tab\there", "zero\u200bwidth"],
)
def test_a_display_name_that_breaks_a_rule_is_refused_and_registers_nobody(
    client, redis_client, name
):
    app = new_app(redis_client)
    answer = _register(client, app, "user-3", name)
    assert answer.status_code == 422, answer.json
    assert answer.content_type == "application/problem+json"
    assert redis_client.hlen(f"sch:{{client:{app.id}}}:players") == 0


def test_registering_a_player_needs_the_apps_key(client):
    answer = client.post("/v1/players", json={"app_player_id": "u", "name": "Anna"})
    assert answer.status_code == 401 and answer.json["code"] == "client_key_required"


def test_a_player_token_creates_and_joins_games_that_record_the_players(client, redis_client):
    app = new_app(redis_client)
    anna = _register(client, app, "anna", "Anna").json
    ben = _register(client, app, "ben", "Ben").json
    created = client.post("/v1/games", json={}, headers=bearer(anna["token"]))
    assert created.status_code == 201, created.json
    game = created.json["game_id"]
    joined = client.post(
        f"/v1/games/{game}/join",
        json={"invite": created.json["invite"]},
        headers=bearer(ben["token"]),
    )
    assert joined.status_code == 201, joined.json
    players = joined.json["game"]["players"]
    assert [p.get("player_id") for p in players] == [
        anna["player"]["player_id"],
        ben["player"]["player_id"],
    ]
    for who in (anna, ben):
        games = client.get("/v1/players/me/games", headers=bearer(who["token"])).json["games"]
        assert [g["game_id"] for g in games] == [game]


def test_a_rated_game_seats_players_only(client, redis_client):
    app = new_app(redis_client)
    anna = _register(client, app, "anna", "Anna").json
    anonymous = client.post("/v1/games", json={"rated": True})
    assert anonymous.status_code == 403 and anonymous.json["code"] == "player_required"
    created = client.post("/v1/games", json={"rated": True}, headers=bearer(anna["token"])).json
    stranger = client.post(
        f"/v1/games/{created['game_id']}/join", json={"invite": created["invite"]}
    )
    assert stranger.status_code == 403 and stranger.json["code"] == "player_required"


def test_a_player_of_another_app_cannot_join_and_cannot_read_the_players(client, redis_client):
    app_a, app_b = new_app(redis_client), new_app(redis_client)
    anna = _register(client, app_a, "anna", "Anna").json
    eve = _register(client, app_b, "eve", "Eve").json
    created = client.post("/v1/games", json={}, headers=bearer(anna["token"])).json
    refused = client.post(
        f"/v1/games/{created['game_id']}/join",
        json={"invite": created["invite"]},
        headers=bearer(eve["token"]),
    )
    assert refused.status_code == 403, refused.json
    pid = anna["player"]["player_id"]
    for headers in (bearer(eve["token"]), app_b.headers):
        assert client.get(f"/v1/players/{pid}", headers=headers).status_code == 404
        assert client.get(f"/v1/players/{pid}/ratings", headers=headers).status_code == 404
        board = client.get("/v1/leaderboard", headers=headers).json["players"]
        assert pid not in [row["player"]["player_id"] for row in board]
    assert client.get(f"/v1/players/{pid}", headers=app_a.headers).json["name"] == "Anna"


def test_a_rematch_of_a_players_game_seats_the_same_players_and_lists_the_game_for_both(
    client, redis_client
):
    app = new_app(redis_client)
    anna = _register(client, app, "re-anna", "Anna").json
    ben = _register(client, app, "re-ben", "Ben").json
    created = client.post("/v1/games", json={}, headers=bearer(anna["token"])).json
    game = created["game_id"]
    joined = client.post(
        f"/v1/games/{game}/join", json={"invite": created["invite"]}, headers=bearer(ben["token"])
    ).json
    client.post(f"/v1/games/{game}/resign", headers=bearer(joined["token"]))
    assert (
        client.post(f"/v1/games/{game}/rematch", headers=bearer(created["token"])).status_code
        == 200
    )
    accepted = client.post(f"/v1/games/{game}/rematch/accept", headers=bearer(joined["token"]))
    assert accepted.status_code == 201, accepted.json
    new_game = accepted.json["game_id"]
    players = client.get(f"/v1/games/{new_game}").json["players"]
    assert [p.get("player_id") for p in players] == [
        anna["player"]["player_id"],
        ben["player"]["player_id"],
    ]
    for who in (anna, ben):
        listed = client.get("/v1/players/me/games", headers=bearer(who["token"])).json["games"]
        assert new_game in [g["game_id"] for g in listed]


@pytest.mark.parametrize("app_player_id", ["anna@example.com", "", "x" * 65, "two words", "é"])
def test_an_app_player_id_that_is_no_opaque_id_is_refused(client, redis_client, app_player_id):
    """An e-mail address is personal data the service does not keep: '@' is refused."""
    app = new_app(redis_client)
    answer = _register(client, app, app_player_id, "Anna")
    assert answer.status_code == 422, answer.json
    assert redis_client.hlen(f"sch:{{client:{app.id}}}:players") == 0
