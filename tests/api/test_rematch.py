"""Rematches of finished games: offered by either seat, accepted or declined by the other,
made once, linked both ways; refusals change nothing.

Real Redis; the app in the test's own process through Flask's test client, and
one story over HTTP against gunicorn. Games are finished by a resign, which
ends a game as well as play does.
"""

from __future__ import annotations

import concurrent.futures
from collections.abc import Iterator

import pytest

from service.engine import GameCreated, SeatTaken
from service.store.client_games import index_key
from service.store.clients import ClientRegistry
from service.store.events import keys
from service.store.rematches import rematch_key
from service.web.app import create_app
from tests.support.archived_games import ArchivingApp
from tests.support.games import Game, create, new_game
from tests.support.http import Api, auth, ok, problem
from tests.support.log import log_events, log_head, log_unchanged
from tests.support.paths import SECRET


def finished_game(api: Api, **body) -> Game:
    """A game between people, both seated, that seat 1 resigned."""
    game = new_game(api, **body)
    ok(api.post(f"{game.path}/resign", token=game.tokens[1]))
    return game


def offer(api: Api, game: Game, seat: int):
    return api.post(f"{game.path}/rematch", token=game.tokens[seat])


def accept(api: Api, game: Game, seat: int):
    return api.post(f"{game.path}/rematch/accept", token=game.tokens[seat])


def decline(api: Api, game: Game, seat: int):
    return api.post(f"{game.path}/rematch/decline", token=game.tokens[seat])


def rematch_of_view(api: Api, game: Game, seat: int | None = None):
    token = None if seat is None else game.tokens[seat]
    return ok(api.get(game.path, token=token))["rematch"]


def created_event(redis_client, game_id: str) -> GameCreated:
    first = log_events(redis_client, game_id)[0]
    assert isinstance(first, GameCreated)
    return first


# -- offer, accept, decline -------------------------------------------------------------


def test_an_offer_is_shown_to_both_seats_and_spectators(api):
    game = finished_game(api)
    offered = ok(offer(api, game, 0))
    assert offered == {"offered_by": 0, "status": "offered", "game_id": None}
    for seat in (0, 1, None):
        assert rematch_of_view(api, game, seat) == offered


def test_offering_again_answers_the_same_offer(api, redis_client):
    game = finished_game(api)
    first = ok(offer(api, game, 1))
    with log_unchanged(redis_client, game.game_id):
        assert ok(offer(api, game, 1)) == first


def test_an_accepted_rematch_is_a_new_game_with_the_other_dealer_and_the_same_seats(
    api, redis_client
):
    game = finished_game(api, first_dealer=1, variant="tracked")
    ok(offer(api, game, 0))
    reply = accept(api, game, 1)
    taken = ok(reply, 201)
    new_id = taken["game_id"]
    assert new_id != game.game_id
    assert reply.headers["Location"] == f"/v1/games/{new_id}"
    assert taken["seat"] == 1 and taken["invite"] is None
    assert taken["rematch"] == {"offered_by": 0, "status": "accepted", "game_id": new_id}
    assert taken["game"]["status"] == "active" and taken["game"]["variant"] == "tracked"
    assert taken["game"]["rematch_of"] == game.game_id
    # The other seat deals the first deal of the rematch.
    assert created_event(redis_client, game.game_id).first_dealer == 1
    assert created_event(redis_client, new_id).first_dealer == 0
    assert taken["game"]["deal"]["dealer"] == 0
    # The accepting seat's token acts for seat 1 of the new game.
    assert ok(api.get(f"/v1/games/{new_id}", token=taken["token"]))["seat"] == 1


def test_both_games_link_to_each_other(api):
    game = finished_game(api)
    ok(offer(api, game, 1))
    new_id = ok(accept(api, game, 0), 201)["game_id"]
    for seat in (0, 1, None):
        assert rematch_of_view(api, game, seat) == {
            "offered_by": 1,
            "status": "accepted",
            "game_id": new_id,
        }
    new_view = ok(api.get(f"/v1/games/{new_id}"))
    assert new_view["rematch_of"] == game.game_id
    assert new_view["rematch"] is None
    assert ok(api.get(game.path))["rematch_of"] is None


def test_the_offering_seat_learns_its_token_for_the_new_game(api):
    game = finished_game(api)
    assert ok(api.get(f"{game.path}/rematch", token=game.tokens[0]))["status"] == "none"
    ok(offer(api, game, 0))
    waiting = ok(api.get(f"{game.path}/rematch", token=game.tokens[0]))
    assert waiting == {
        "seat": 0,
        "offered_by": 0,
        "status": "offered",
        "game_id": None,
        "token": None,
    }
    new_id = ok(accept(api, game, 1), 201)["game_id"]
    learnt = ok(api.get(f"{game.path}/rematch", token=game.tokens[0]))
    assert learnt["status"] == "accepted" and learnt["game_id"] == new_id
    assert ok(api.get(f"/v1/games/{new_id}", token=learnt["token"]))["seat"] == 0


def test_a_long_poll_on_the_offer_answers_when_the_other_seat_accepts(api, app):
    game = finished_game(api)
    ok(offer(api, game, 0))
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        other = Api(app.test_client())
        waiting = pool.submit(other.get, f"{game.path}/rematch?wait=10", token=game.tokens[0])
        taken = ok(accept(api, game, 1), 201)
        learnt = ok(waiting.result(timeout=30))
    assert learnt["status"] == "accepted" and learnt["game_id"] == taken["game_id"]


def test_an_offer_by_the_second_seat_accepts_the_first(api):
    game = finished_game(api)
    ok(offer(api, game, 0))
    taken = ok(offer(api, game, 1), 201)
    assert taken["seat"] == 1
    assert taken["rematch"]["status"] == "accepted"
    assert taken["rematch"]["offered_by"] == 0


def test_a_retried_accept_answers_the_same_game_and_token(api, redis_client):
    game = finished_game(api)
    ok(offer(api, game, 0))
    first = ok(accept(api, game, 1), 201)
    with log_unchanged(redis_client, game.game_id, first["game_id"]):
        again = ok(accept(api, game, 1), 201)
    assert (again["game_id"], again["token"]) == (first["game_id"], first["token"])


def test_two_concurrent_accepts_make_one_game(app, redis_client):
    api = Api(app.test_client())
    game = finished_game(api)
    ok(offer(api, game, 0))
    games_before = set(redis_client.scan_iter(match="sch:{*}:log", count=1000))

    def accept_once(_: int):
        return accept(Api(app.test_client()), game, 1)

    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        replies = list(pool.map(accept_once, range(8)))
    answers = [ok(reply, 201) for reply in replies]
    assert {(a["game_id"], a["token"]) for a in answers} == {
        (answers[0]["game_id"], answers[0]["token"])
    }
    new_id = answers[0]["game_id"]
    games_after = set(redis_client.scan_iter(match="sch:{*}:log", count=1000))
    assert {k.decode() for k in games_after - games_before} == {keys(new_id)["log"]}
    events = log_events(redis_client, new_id)
    assert sum(isinstance(event, GameCreated) for event in events) == 1
    assert log_head(redis_client, new_id) == 4  # created, two seats, the first deal


def test_a_decline_ends_the_offer_and_a_new_offer_can_be_made(api):
    game = finished_game(api)
    ok(offer(api, game, 0))
    declined = ok(decline(api, game, 1))
    assert declined == {"offered_by": 0, "status": "declined", "game_id": None}
    assert rematch_of_view(api, game, 0) == declined
    assert ok(decline(api, game, 1)) == declined  # a retry answers the same
    problem(accept(api, game, 1), 409, "no_rematch_offer")
    assert ok(offer(api, game, 1)) == {"offered_by": 1, "status": "offered", "game_id": None}
    assert ok(accept(api, game, 0), 201)["rematch"]["offered_by"] == 1


def test_against_a_bot_the_offer_is_accepted_at_once(api, redis_client):
    created = create(api, {"opponent": {"type": "bot", "level": "random"}})
    game = Game(created["game_id"], {0: created["token"]})
    ok(api.post(f"{game.path}/resign", token=game.tokens[0]))
    taken = ok(offer(api, game, 0), 201)
    assert taken["seat"] == 0
    assert taken["rematch"] == {
        "offered_by": 0,
        "status": "accepted",
        "game_id": taken["game_id"],
    }
    assert taken["game"]["players"][1] == {
        "seat": 1,
        "type": "bot",
        "level": "random",
        "joined": True,
    }
    seated = [e for e in log_events(redis_client, taken["game_id"]) if isinstance(e, SeatTaken)]
    assert [(e.seat, e.player, e.level) for e in seated] == [
        (0, "human", None),
        (1, "bot", "random"),
    ]


def test_the_rematch_is_listed_for_the_client_app_of_the_old_game(api, redis_client):
    _client, key = ClientRegistry(redis_client).create("rematch lister")
    headers = {"X-Client-Key": key}
    created = ok(api.post("/v1/games", json_body={}, headers=headers), 201)
    joined = ok(
        api.post(f"/v1/games/{created['game_id']}/join", json_body={"invite": created["invite"]}),
        (200, 201),
    )
    game = Game(created["game_id"], {0: created["token"], 1: joined["token"]})
    ok(api.post(f"{game.path}/resign", token=game.tokens[0]))
    ok(offer(api, game, 0))
    new_id = ok(accept(api, game, 1), 201)["game_id"]
    listed = ok(api.get("/v1/games?client=me", headers=headers))
    assert [g["game_id"] for g in listed["games"]][:2] == [new_id, game.game_id]
    assert redis_client.zscore(index_key(_client.id), new_id) is not None


# -- refusals change nothing ----------------------------------------------------------


def test_refusals_answer_their_problem_and_change_nothing(api, redis_client):
    running = new_game(api)
    game = finished_game(api)
    stranger = finished_game(api)
    with log_unchanged(redis_client, running.game_id, game.game_id):
        problem(offer(api, running, 0), 409, "game_not_finished")
        problem(api.post(f"{game.path}/rematch"), 401, "token_required")
        problem(api.post(f"{game.path}/rematch", token="not-a-token"), 401, "invalid_token")
        problem(api.post(f"{game.path}/rematch", token=stranger.tokens[0]), 401, "invalid_token")
        problem(api.post("/v1/games/0000000000000000/rematch", token=game.tokens[0]), 404)
        problem(accept(api, game, 1), 409, "no_rematch_offer")
        problem(decline(api, game, 1), 409, "no_rematch_offer")
        problem(api.get(f"{game.path}/rematch"), 401, "token_required")
        assert redis_client.get(rematch_key(game.game_id)) is None
        assert redis_client.get(rematch_key(running.game_id)) is None
        ok(offer(api, game, 0))
        stored = redis_client.get(rematch_key(game.game_id))
        problem(accept(api, game, 0), 409, "own_rematch_offer")
        problem(decline(api, game, 0), 409, "own_rematch_offer")
        assert redis_client.get(rematch_key(game.game_id)) == stored
    new_id = ok(accept(api, game, 1), 201)["game_id"]
    with log_unchanged(redis_client, game.game_id, new_id):
        problem(decline(api, game, 1), 409, "no_rematch_offer")
        problem(accept(api, game, 0), 409, "own_rematch_offer")


def test_an_aborted_game_has_no_rematch(api, redis_client):
    created = create(api, {})
    game = Game(created["game_id"], {0: created["token"]})
    ok(api.post(f"{game.path}/abort", token=game.tokens[0]))
    with log_unchanged(redis_client, game.game_id):
        problem(offer(api, game, 0), 409, "rematch_not_allowed")
    assert ok(api.get(game.path))["rematch"] is None


# -- the archive ----------------------------------------------------------------------


def test_a_rematch_of_a_game_that_left_for_the_archive_is_refused(
    archiving: ArchivingApp, redis_client
):
    api = archiving.api
    game = finished_game(api)
    answered = finished_game(api)
    ok(offer(api, answered, 0))
    for finished in (game, answered):
        assert archiving.archiver.archive_game(finished.game_id) is not None
        assert archiving.archiver.release(finished.game_id)
    assert not archiving.in_redis(game.game_id)
    games_before = set(redis_client.scan_iter(match="sch:{*}:log", count=1000))
    body = problem(offer(api, game, 0), 410, "rematch_closed")
    assert "archive" in body["detail"]
    problem(accept(api, answered, 1), 410, "rematch_closed")
    problem(decline(api, answered, 1), 410, "rematch_closed")
    assert set(redis_client.scan_iter(match="sch:{*}:log", count=1000)) == games_before
    assert redis_client.get(rematch_key(game.game_id)) is None
    # The game still reads from the archive, with the offer it had.
    assert ok(api.get(answered.path))["rematch"]["status"] == "offered"


# -- over HTTP ------------------------------------------------------------------------


@pytest.fixture(scope="module")
def http(live_server) -> Iterator[Api]:
    yield Api.live(live_server.url)


def test_offer_accept_and_decline_over_http(http, redis_client):
    declined = finished_game(http)
    ok(offer(http, declined, 1))
    assert ok(decline(http, declined, 0))["status"] == "declined"

    game = finished_game(http)
    ok(offer(http, game, 1))
    waiting = http.get(f"{game.path}/rematch?wait=0.3", token=game.tokens[1])
    assert ok(waiting)["status"] == "offered"
    reply = accept(http, game, 0)
    taken = ok(reply, 201)
    assert reply.headers["Location"] == f"/v1/games/{taken['game_id']}"
    learnt = ok(http.get(f"{game.path}/rematch", token=game.tokens[1]))
    assert learnt["game_id"] == taken["game_id"]
    mine = ok(http.get(f"/v1/games/{taken['game_id']}", headers=auth(learnt["token"])))
    assert mine["seat"] == 1 and mine["rematch_of"] == game.game_id
    assert created_event(redis_client, taken["game_id"]).first_dealer != (
        created_event(redis_client, game.game_id).first_dealer
    )


def test_a_fresh_app_finds_the_rematch_by_its_derived_id(redis_url, redis_client, api):
    """The old game's view finds its rematch by the id derived from its own, even once
    the offer's record is gone: another process (same secret) answers the same."""
    game = finished_game(api)
    ok(offer(api, game, 0))
    new_id = ok(accept(api, game, 1), 201)["game_id"]
    redis_client.delete(rematch_key(game.game_id))
    fresh = Api(create_app({"REDIS_URL": redis_url, "SECRET_KEY": SECRET}).test_client())
    assert ok(fresh.get(game.path))["rematch"] == {
        "offered_by": None,
        "status": "accepted",
        "game_id": new_id,
    }
    again = ok(accept(fresh, game, 1), 201)
    assert again["game_id"] == new_id
