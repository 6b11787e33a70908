"""Tournament requests in the app's own process: bad input is a 4xx problem+json that
changes nothing, another app's tournament does not exist, entries open and close with
the rounds, and a server with no database of record says so."""

from __future__ import annotations

import time

import pytest

from service.engine import Variant
from service.game.clock import TimeControl
from service.game.players import Rated
from service.game.pools import DEFAULT_POOL, pool_of
from service.store.players import RatingChange
from service.store.records_db import open_records_database
from service.store.tournament_records import MAX_UNFINISHED_PER_APP as MAX_OPEN_TOURNAMENTS
from service.store.tournament_records import Board, TournamentRecords
from service.web.services import services
from tests.support.http import auth
from tests.support.players import new_app, register_in_process


def create(http, app, **body) -> dict:
    answer = http.post(
        "/v1/tournaments",
        json={"name": "Swiss", "rounds": 2, "starts_in": 3600, **body},
        headers=app.headers,
    )
    assert answer.status_code == 201, answer.get_data(as_text=True)
    return answer.json


@pytest.mark.parametrize(
    "body",
    [
        {"name": "S", "rounds": 0, "starts_in": 0},
        {"name": "S", "rounds": 21, "starts_in": 0},
        {"name": "", "rounds": 3, "starts_in": 0},
        {"name": "S", "starts_in": 0},
        {"name": "S", "rounds": 3, "starts_in": -1},
        {"name": "S", "rounds": 3, "starts_in": 1.5},
        {"name": "S", "rounds": 2.5},
        {"name": "S", "rounds": "3"},
        {"name": "S", "rounds": 3, "starts_at": 1796515200},
        {"name": "S", "rounds": 3, "starts_in": 0, "kind": "arena"},
        {"name": "S", "rounds": 3, "starts_in": 0, "variant": "blitz"},
        {"name": "S", "rounds": 3, "starts_in": 0, "seed": 4},
        {"name": "S", "rounds": 3, "starts_in": 0, "clock": {"seconds_per_move": -1}},
        {"name": "S", "rounds": 3, "starts_in": 10**9},
        {"name": "S", "rounds": "three", "starts_in": 0},
    ],
)
def test_a_bad_tournament_is_refused_as_a_problem_and_makes_nothing(http, redis_client, body):
    app = new_app(redis_client)
    answer = http.post("/v1/tournaments", json=body, headers=app.headers)
    assert 400 <= answer.status_code < 500, answer.get_data(as_text=True)
    assert answer.headers["Content-Type"] == "application/problem+json"
    _player, token = register_in_process(http, app)
    assert http.get("/v1/players/me/tournaments", headers=auth(token)).json == {"tournaments": []}


def test_only_an_apps_key_creates_and_only_its_own_callers_see_it(http, redis_client):
    app, other = new_app(redis_client), new_app(redis_client)
    _player, token = register_in_process(http, app)
    refused = http.post("/v1/tournaments", json={"name": "S", "rounds": 1, "starts_in": 0},
                        headers=auth(token))  # fmt: skip
    assert refused.status_code == 401
    tid = create(http, app)["tournament_id"]
    assert http.get(f"/v1/tournaments/{tid}", headers=app.headers).json["status"] == "created"
    for path in ("", "/standings", "/boards"):
        hidden = http.get(f"/v1/tournaments/{tid}{path}", headers=other.headers)
        assert hidden.status_code == 404
        assert hidden.json["code"] == "tournament_not_found"
    _stranger, stranger_token = register_in_process(http, other, "Bert")
    assert (
        http.post(f"/v1/tournaments/{tid}/entries", headers=auth(stranger_token)).status_code == 404
    )
    bad_page = http.get(f"/v1/tournaments/{tid}/standings?limit=0", headers=app.headers)
    assert bad_page.status_code == 422


def test_players_join_withdraw_and_join_again_until_the_last_round_is_paired(
    http, redis_client, database
):
    app = new_app(redis_client)
    anna, anna_token = register_in_process(http, app, "Anna")
    _bert, bert_token = register_in_process(http, app, "Bert")
    tournament = create(http, app, rounds=1)
    tid = tournament["tournament_id"]
    entries = f"/v1/tournaments/{tid}/entries"
    never_in = http.delete(f"{entries}/me", headers=auth(bert_token))
    assert (never_in.status_code, never_in.json["code"]) == (409, "not_entered")
    assert http.post(entries, headers=auth(anna_token)).json["status"] == "entered"
    assert http.post(entries, headers=auth(anna_token)).status_code == 201  # twice: once
    assert http.get(f"/v1/tournaments/{tid}", headers=app.headers).json["players"] == 1
    assert http.delete(f"{entries}/me", headers=auth(anna_token)).json["status"] == "withdrawn"
    assert http.get(f"/v1/tournaments/{tid}", headers=app.headers).json["players"] == 0
    http.post(entries, headers=auth(anna_token))
    http.post(entries, headers=auth(bert_token))
    assert http.get(f"/v1/tournaments/{tid}", headers=app.headers).json["players"] == 2

    # its one round paired (as a worker would): no round is left to enter or leave
    db = open_records_database(database)
    try:
        TournamentRecords(db).claim_round(
            tid, 1, "00" * 32, 1, [Board(1, 1, "g-x", anna, _bert)], None
        )
    finally:
        db.close()
    for closed in (http.post(entries, headers=auth(anna_token)),
                   http.delete(f"{entries}/me", headers=auth(bert_token))):  # fmt: skip
        assert (closed.status_code, closed.json["code"]) == (409, "tournament_finished")
    boards = http.get(f"/v1/tournaments/{tid}/boards", headers=app.headers).json
    assert (boards["round"], [b["game_id"] for b in boards["boards"]]) == (1, ["g-x"])


def test_a_server_without_a_database_of_record_has_no_tournaments(client, redis_client):
    app = new_app(redis_client)
    answer = client.post("/v1/tournaments", json={"name": "S", "rounds": 1, "starts_in": 0},
                         headers=app.headers)  # fmt: skip
    assert (answer.status_code, answer.json["code"]) == (503, "tournaments_unavailable")
    assert answer.headers["Content-Type"] == "application/problem+json"


@pytest.mark.parametrize("level", ["AAA", "", "Random"])
def test_a_clock_with_an_unknown_bot_level_is_refused_as_a_game_refuses_it(
    http, redis_client, level
):
    """The tournament's clock takes the levels a game's clock takes, by the same rule (and
    so do a seek's and a challenge's): an unknown one is 422 ``unknown_bot_level``, and no
    tournament is made."""
    app = new_app(redis_client)
    clock = {"seconds_per_move": 30, "bot_level": level}
    answer = http.post("/v1/tournaments", json={"name": "S", "rounds": 1, "starts_in": 0,
                                                "clock": clock}, headers=app.headers)  # fmt: skip
    assert (answer.status_code, answer.json["code"]) == (422, "unknown_bot_level")
    assert answer.headers["Content-Type"] == "application/problem+json"
    game = http.post("/v1/games", json={"opponent": {"type": "human"}, "clock": clock})
    assert (game.status_code, game.json["code"]) == (422, "unknown_bot_level")
    _player, token = register_in_process(http, app)
    bert, _bert_token = register_in_process(http, app, "Bert")
    for path, body in (("/v1/seeks", {"clock": clock}),
                       ("/v1/challenges", {"player_id": bert, "clock": clock})):  # fmt: skip
        refused = http.post(path, json=body, headers=auth(token))
        assert (refused.status_code, refused.json["code"]) == (422, "unknown_bot_level"), path
    assert http.get("/v1/players/me/tournaments", headers=auth(token)).json == {"tournaments": []}


def test_a_retried_entry_answers_the_first_answer_and_enters_nobody_again(http, redis_client):
    """An entry's retry with the same Idempotency-Key answers the stored answer, marked as a
    replay: after a withdrawal in between, the player stays withdrawn. The same key with
    another request (another tournament's entry) is 422 ``idempotency_key_reused``."""
    app = new_app(redis_client)
    _anna, token = register_in_process(http, app, "Anna")
    tid, other = create(http, app)["tournament_id"], create(http, app)["tournament_id"]
    headers = {**auth(token), "Idempotency-Key": "entry-1"}
    first = http.post(f"/v1/tournaments/{tid}/entries", headers=headers)
    assert first.status_code == 201, first.get_data(as_text=True)
    assert "Idempotent-Replayed" not in first.headers
    assert http.delete(f"/v1/tournaments/{tid}/entries/me", headers=auth(token)).status_code == 200

    again = http.post(f"/v1/tournaments/{tid}/entries", headers=headers)
    assert (again.status_code, again.json) == (201, first.json)
    assert again.headers.get("Idempotent-Replayed") == "true"
    assert http.get(f"/v1/tournaments/{tid}", headers=app.headers).json["players"] == 0

    reused = http.post(f"/v1/tournaments/{other}/entries", headers=headers)
    assert (reused.status_code, reused.json["code"]) == (422, "idempotency_key_reused")
    assert http.get(f"/v1/tournaments/{other}", headers=app.headers).json["players"] == 0


def test_an_entry_is_seeded_by_the_players_rating_in_the_tournaments_pool(
    http, with_records, redis_client, database
):
    """A tournament's games are rated in the pool of its variant and clock, so its
    entrants are seeded by their ratings there, not by the default pool's."""
    app = new_app(redis_client)
    anna, token = register_in_process(http, app, "Anna")
    pool = pool_of(Variant.HEAD, TimeControl(60))
    assert pool != DEFAULT_POOL
    game_id = "00000000000000b1"
    entry = {"game_id": game_id, "at": int(time.time() * 1000), "opponent": "x", "score": 1.0,
             "rating_before": 1500.0, "rating": 1712.0, "deviation": 300.0,
             "volatility": 0.06}  # fmt: skip
    changes = [RatingChange(anna, 0, Rated(1712.0, 300.0, 0.06, 1), entry)]
    with with_records.app_context():  # the server's own players, in its database of record
        assert services().players.write_ratings(app.id, game_id, changes, pool=pool) == 1
    tid = create(http, app, clock={"seconds_per_move": 60})["tournament_id"]
    assert http.post(f"/v1/tournaments/{tid}/entries", headers=auth(token)).status_code == 201
    db = open_records_database(database)
    try:
        assert [e.rating for e in TournamentRecords(db).entries(tid)] == [1712.0]
    finally:
        db.close()


def test_an_app_holds_a_bounded_number_of_unfinished_tournaments(http, redis_client):
    """Each tournament is a row and a scheduled job: an app's key alone must not make
    them without end. Past the bound, 409 too_many_tournaments, and nothing is made;
    another app is not held back by it."""
    app, other = new_app(redis_client), new_app(redis_client)
    for _ in range(MAX_OPEN_TOURNAMENTS):
        create(http, app)
    refused = http.post("/v1/tournaments", json={"name": "One more", "rounds": 1},
                        headers=app.headers)  # fmt: skip
    assert refused.status_code == 409, refused.get_data(as_text=True)
    assert refused.json["code"] == "too_many_tournaments"
    assert refused.headers["Content-Type"] == "application/problem+json"
    create(http, other)
