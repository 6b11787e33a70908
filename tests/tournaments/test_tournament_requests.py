"""Tournament requests in the app's own process: bad input is a 4xx problem+json that
changes nothing, another app's tournament does not exist, entries open and close with
the rounds, and a server with no database of record says so."""

from __future__ import annotations

import time

import pytest

from service.store.records_db import open_records_database
from service.store.tournament_records import Board, TournamentRecords
from service.web.app import create_app
from tests.support.http import auth
from tests.support.players import new_app
from tests.support.servers import SECRET


@pytest.fixture(scope="module")
def database(tmp_path_factory) -> str:
    return f"sqlite:///{tmp_path_factory.mktemp('records') / 'records.sqlite3'}"


@pytest.fixture(scope="module")
def with_records(redis_url: str, database: str):
    return create_app({"REDIS_URL": redis_url, "SECRET_KEY": SECRET, "ARCHIVE_URL": database})


@pytest.fixture
def http(with_records):
    return with_records.test_client()


def register(http, app, name: str = "Anna") -> tuple[str, str]:
    answer = http.post(
        "/v1/players", json={"app_player_id": f"p-{name}-{time.time_ns()}", "name": name},
        headers=app.headers,
    )  # fmt: skip
    assert answer.status_code == 201, answer.get_data(as_text=True)
    return answer.json["player"]["player_id"], answer.json["token"]


def create(http, app, **body) -> dict:
    answer = http.post(
        "/v1/tournaments",
        json={"name": "Swiss", "rounds": 2, "starts_at": time.time() + 3600, **body},
        headers=app.headers,
    )
    assert answer.status_code == 201, answer.get_data(as_text=True)
    return answer.json


@pytest.mark.parametrize(
    "body",
    [
        {"name": "S", "rounds": 0, "starts_at": 1},
        {"name": "S", "rounds": 21, "starts_at": 1},
        {"name": "", "rounds": 3, "starts_at": 1},
        {"name": "S", "starts_at": 1},
        {"name": "S", "rounds": 3},
        {"name": "S", "rounds": 3, "starts_at": 1, "kind": "arena"},
        {"name": "S", "rounds": 3, "starts_at": 1, "variant": "blitz"},
        {"name": "S", "rounds": 3, "starts_at": 1, "seed": 4},
        {"name": "S", "rounds": 3, "starts_at": 1, "clock": {"seconds_per_move": -1}},
        {"name": "S", "rounds": 3, "starts_at": 1e12},
        {"name": "S", "rounds": "three", "starts_at": 1},
    ],
)
def test_a_bad_tournament_is_refused_as_a_problem_and_makes_nothing(http, redis_client, body):
    app = new_app(redis_client)
    answer = http.post("/v1/tournaments", json=body, headers=app.headers)
    assert 400 <= answer.status_code < 500, answer.get_data(as_text=True)
    assert answer.headers["Content-Type"] == "application/problem+json"
    _player, token = register(http, app)
    assert http.get("/v1/players/me/tournaments", headers=auth(token)).json == {"tournaments": []}


def test_only_an_apps_key_creates_and_only_its_own_callers_see_it(http, redis_client):
    app, other = new_app(redis_client), new_app(redis_client)
    _player, token = register(http, app)
    refused = http.post("/v1/tournaments", json={"name": "S", "rounds": 1, "starts_at": 1},
                        headers=auth(token))  # fmt: skip
    assert refused.status_code == 401
    tid = create(http, app)["tournament_id"]
    assert http.get(f"/v1/tournaments/{tid}", headers=app.headers).json["status"] == "created"
    for path in ("", "/standings", "/boards"):
        hidden = http.get(f"/v1/tournaments/{tid}{path}", headers=other.headers)
        assert hidden.status_code == 404
        assert hidden.json["code"] == "tournament_not_found"
    _stranger, stranger_token = register(http, other, "Bert")
    assert (
        http.post(f"/v1/tournaments/{tid}/entries", headers=auth(stranger_token)).status_code == 404
    )
    bad_page = http.get(f"/v1/tournaments/{tid}/standings?limit=0", headers=app.headers)
    assert bad_page.status_code == 422


def test_players_join_withdraw_and_join_again_until_the_last_round_is_paired(
    http, redis_client, database
):
    app = new_app(redis_client)
    anna, anna_token = register(http, app, "Anna")
    _bert, bert_token = register(http, app, "Bert")
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
    answer = client.post("/v1/tournaments", json={"name": "S", "rounds": 1, "starts_at": 1},
                         headers=app.headers)  # fmt: skip
    assert (answer.status_code, answer.json["code"]) == (503, "tournaments_unavailable")
    assert answer.headers["Content-Type"] == "application/problem+json"
