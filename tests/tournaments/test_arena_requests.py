"""An arena's requests in the app's own process: a bad arena is a 4xx problem+json with
its code that makes nothing; players enter, pause (and come back) while it runs; once
its time is up nobody enters or pauses (409 ``tournament_finished``), and a pause of a
player never entered is 409 ``not_entered``, each changing nothing."""

from __future__ import annotations

import time

import pytest

from service.store.records_db import open_records_database
from service.store.tournament_records import TournamentRecords
from tests.support.http import auth
from tests.support.players import new_app, register_in_process


def create_arena(http, app, **body) -> dict:
    answer = http.post(
        "/v1/tournaments",
        json={"name": "Arena", "kind": "arena", "duration": 600, "starts_in": 3600, **body},
        headers=app.headers,
    )
    assert answer.status_code == 201, answer.get_data(as_text=True)
    return answer.json


def time_up(database: str, tournament_id: str) -> None:
    """Move the arena's start and end into the past, as its time passing would."""
    db = open_records_database(database)
    try:
        with db.write() as run:
            run(
                "UPDATE tournaments SET starts_ms = ?, ends_ms = ? WHERE tournament_id = ?",
                (1000, 2000, tournament_id),
            )
    finally:
        db.close()


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"name": "A", "kind": "arena"}, "duration"),
        ({"name": "A", "kind": "arena", "duration": 0}, "duration"),
        ({"name": "A", "kind": "arena", "duration": 29}, "duration"),
        ({"name": "A", "kind": "arena", "duration": 86401}, "duration"),
        ({"name": "A", "kind": "arena", "duration": -60}, "duration"),
        ({"name": "A", "kind": "arena", "duration": 90.5}, "duration"),
        ({"name": "A", "kind": "arena", "duration": "600"}, "duration"),
        ({"name": "A", "kind": "arena", "duration": 600, "rounds": 3}, "rounds"),
        ({"name": "A", "rounds": 3, "duration": 600}, "duration"),
        ({"name": "A", "kind": "Arena", "duration": 600}, "kind"),
        ({"name": "A", "kind": "arena", "duration": 600, "starts_in": -1}, "starts_in"),
        ({"name": "A", "kind": "arena", "duration": 600, "clock": {"seconds_per_move": 1}},
         "clock"),
    ],
)  # fmt: skip
def test_a_bad_arena_is_refused_as_a_problem_with_its_code_and_makes_nothing(
    http, redis_client, body, field
):
    app = new_app(redis_client)
    answer = http.post("/v1/tournaments", json=body, headers=app.headers)
    assert answer.status_code == 422, answer.get_data(as_text=True)
    assert answer.headers["Content-Type"] == "application/problem+json"
    assert answer.json["code"] == "invalid_request"
    assert field in str(answer.json), answer.json
    _player, token = register_in_process(http, app, "Anna")
    assert http.get("/v1/players/me/tournaments", headers=auth(token)).json == {"tournaments": []}


def test_an_arena_reads_as_an_arena_of_its_duration(http, redis_client):
    app = new_app(redis_client)
    before = time.time()
    arena = create_arena(http, app, duration=300, starts_in=60)
    assert (arena["kind"], arena["rounds"], arena["round"], arena["status"]) == (
        "arena", 0, 0, "created"
    )  # fmt: skip
    assert arena["duration"] == 300
    assert arena["ends_at"] - arena["starts_at"] == pytest.approx(300)
    assert before + 60 - 0.001 <= arena["starts_at"] <= time.time() + 60  # kept in ms
    read = http.get(f"/v1/tournaments/{arena['tournament_id']}", headers=app.headers).json
    assert read == arena
    swiss = http.post("/v1/tournaments", json={"name": "S", "rounds": 2},
                      headers=app.headers).json  # fmt: skip
    assert (swiss["kind"], swiss["duration"], swiss["ends_at"]) == ("swiss", None, None)


def test_players_enter_pause_and_come_back_until_the_arena_ends(http, redis_client, database):
    app = new_app(redis_client)
    _anna, anna_token = register_in_process(http, app, "Anna")
    _bert, bert_token = register_in_process(http, app, "Bert")
    tid = create_arena(http, app)["tournament_id"]
    entries = f"/v1/tournaments/{tid}/entries"

    def players() -> int:
        return http.get(f"/v1/tournaments/{tid}", headers=app.headers).json["players"]

    never_in = http.delete(f"{entries}/me", headers=auth(bert_token))
    assert (never_in.status_code, never_in.json["code"]) == (409, "not_entered")
    assert never_in.headers["Content-Type"] == "application/problem+json"
    assert players() == 0
    assert http.post(entries, headers=auth(anna_token)).json["status"] == "entered"
    paused = http.delete(f"{entries}/me", headers=auth(anna_token))
    assert (paused.status_code, paused.json["status"]) == (200, "paused")
    assert players() == 0
    assert http.post(entries, headers=auth(anna_token)).status_code == 201  # back again
    assert players() == 1
    boards = http.get(f"/v1/tournaments/{tid}/boards", headers=app.headers).json
    assert (boards["round"], boards["boards"], boards["bye"]) == (0, [], None)

    time_up(database, tid)
    for closed in (http.post(entries, headers=auth(bert_token)),
                   http.delete(f"{entries}/me", headers=auth(anna_token)),
                   http.post(entries, headers=auth(anna_token))):  # fmt: skip
        assert (closed.status_code, closed.json["code"]) == (409, "tournament_finished")
        assert closed.headers["Content-Type"] == "application/problem+json"
    assert players() == 1
    db = open_records_database(database)
    try:
        [entry] = TournamentRecords(db).entries(tid)
        assert entry.playing
    finally:
        db.close()
