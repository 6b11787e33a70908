"""The end of a game other than by play: resign, abort, and claiming a timed-out turn.

Each over HTTP, for both seats, a spectator, a wrong seat and a wrong state:
a refusal is a 4xx problem+json and the log is exactly as it was.
"""

from __future__ import annotations

import random

import pytest

from service.engine import replay
from service.engine.replays import replay_record
from service.game.replay_export import events_from_export, text_lines, verify
from service.web.app import create_app
from tests.support.games import Game, act, create, new_game, play_random_game, to_move_view, view
from tests.support.http import Api, ok, problem
from tests.support.log import log_events, log_head, log_unchanged
from tests.support.paths import SECRET
from tests.support.waiting import wait_until


def post(api: Api, game: Game, what: str, seat: int | None) -> object:
    token = None if seat is None else game.tokens[seat]
    return api.post(f"{game.path}/{what}", token=token)


def one_card_played(api: Api, game: Game) -> None:
    seen = to_move_view(api, game)
    assert seen is not None
    plays = [a for a in seen["deal"]["legal_actions"] if a["type"] == "play"]
    act(api, game, seen["seat"], plays[0])


# -- resign ---------------------------------------------------------------


@pytest.mark.parametrize("seat", [0, 1])
def test_resign_gives_the_opponent_the_game(api, redis_client, seat):
    game = new_game(api, seed=11, first_dealer=1)
    one_card_played(api, game)
    before = log_head(redis_client, game.game_id)
    answer = ok(post(api, game, "resign", seat))
    assert answer["seat"] == seat
    assert answer["status"] == "finished" and answer["winner"] == 1 - seat
    assert answer["ending"] == {"reason": "resigned", "seat": seat}
    # RX1: the winner's game points drop to 0, the resigner keeps its own.
    points = [7, 7]
    points[1 - seat] = 0
    assert answer["game_points"] == points
    assert answer["to_move"] is None and answer["deal"]["legal_actions"] == []
    assert answer["version"] == before + 1 == log_head(redis_client, game.game_id)
    # The log replays to the same end; both seats and a spectator see it.
    truth = replay(log_events(redis_client, game.game_id))
    assert truth.winner == 1 - seat and truth.status == "finished"
    for viewer in (game.tokens[0], game.tokens[1], None):
        seen = view(api, game.game_id, viewer)
        assert seen["winner"] == 1 - seat and seen["ending"]["reason"] == "resigned"
    feed = ok(api.get(f"{game.path}/events?after={before}"))
    assert [e["type"] for e in feed["events"]] == ["resigned"]
    assert feed["events"][0]["seat"] == seat and feed["events"][0]["game_winner"] == 1 - seat


def test_resign_refusals_append_nothing(api, redis_client):
    game = new_game(api, seed=12)
    other = new_game(api, seed=13)
    with log_unchanged(redis_client, game.game_id):
        problem(post(api, game, "resign", None), 401, "token_required")  # a spectator
        reply = api.post(f"{game.path}/resign", token=other.tokens[0])  # another game's seat
        problem(reply, 401, "invalid_token")
        problem(api.post("/v1/games/0123456789abcdef/resign", token=game.tokens[0]), 404)
    waiting = create(api)
    gid = waiting["game_id"]
    with log_unchanged(redis_client, gid):
        reply = api.post(f"/v1/games/{gid}/resign", token=waiting["token"])
        problem(reply, 409, "game_waiting")
    ok(post(api, game, "resign", 0))
    with log_unchanged(redis_client, game.game_id):
        problem(post(api, game, "resign", 1), 409, "game_over")
        problem(post(api, game, "resign", 0), 409, "game_over")


def test_no_action_after_a_resign(api, redis_client):
    game = new_game(api, seed=14, first_dealer=1)
    ok(post(api, game, "resign", 1))
    with log_unchanged(redis_client, game.game_id):
        reply = api.post(f"{game.path}/actions", json_body={"type": "claim"}, token=game.tokens[0])
        problem(reply, 409, "game_over")


def test_resign_against_a_bot(api, redis_client):
    created = create(api, {"opponent": {"type": "bot", "level": "random"}})
    gid = created["game_id"]
    answer = ok(api.post(f"/v1/games/{gid}/resign", token=created["token"]))
    assert answer["winner"] == 1 and answer["game_points"][1] == 0


def test_a_finished_game_reveals_every_deck_after_a_resign(api, redis_client):
    game = new_game(api, seed=15)
    ok(post(api, game, "resign", 0))
    record = ok(api.get(f"{game.path}/replay"))
    assert record["complete"] is True
    assert all(deal["deck"] for deal in record["deals"])


# -- abort ----------------------------------------------------------------


def test_abort_before_seat_1_joined(api, redis_client):
    created = create(api)
    gid = created["game_id"]
    before = log_head(redis_client, gid)
    answer = ok(api.post(f"/v1/games/{gid}/abort", token=created["token"]))
    assert answer["status"] == "finished" and answer["winner"] is None
    assert answer["ending"] == {"reason": "aborted", "seat": 0}
    assert answer["game_points"] == [7, 7]
    assert log_head(redis_client, gid) == before + 1
    # The invite no longer opens seat 1.
    with log_unchanged(redis_client, gid):
        reply = api.post(f"/v1/games/{gid}/join", json_body={"invite": created["invite"]})
        problem(reply, 409, "game_over")


@pytest.mark.parametrize("seat", [0, 1])
def test_abort_before_the_first_card(api, redis_client, seat):
    game = new_game(api, seed=21)
    answer = ok(post(api, game, "abort", seat))
    assert answer["status"] == "finished" and answer["winner"] is None
    assert answer["ending"] == {"reason": "aborted", "seat": seat}
    assert answer["deal"]["legal_actions"] == []
    assert view(api, game.game_id)["ending"]["reason"] == "aborted"
    with log_unchanged(redis_client, game.game_id):
        problem(post(api, game, "abort", 1 - seat), 409, "game_over")
        problem(post(api, game, "resign", 1 - seat), 409, "game_over")


def test_abort_refusals_append_nothing(api, redis_client):
    game = new_game(api, seed=22, first_dealer=1)
    with log_unchanged(redis_client, game.game_id):
        problem(post(api, game, "abort", None), 401, "token_required")
    one_card_played(api, game)
    with log_unchanged(redis_client, game.game_id):
        for seat in (0, 1):
            body = problem(post(api, game, "abort", seat), 409, "abort_not_allowed")
            assert "resign" in body["detail"]
    # The bot deals, so the person leads: no worker of the session can play the bot's
    # move while the log is watched.
    bot = create(api, {"opponent": {"type": "bot", "level": "random"}, "first_dealer": 1})
    with log_unchanged(redis_client, bot["game_id"]):
        reply = api.post(f"/v1/games/{bot['game_id']}/abort", token=bot["token"])
        problem(reply, 409, "abort_not_allowed")


# -- timeout --------------------------------------------------------------

TIMEOUT = 0.5


def timeout_api(redis_url: str, seconds: float) -> Api:
    """An app on the tests' Redis whose turns time out after ``seconds``."""
    settings = {"REDIS_URL": redis_url, "SECRET_KEY": SECRET, "TURN_TIMEOUT_SECONDS": seconds}
    return Api(create_app(settings).test_client())


@pytest.fixture(scope="module")
def timed_api(redis_url) -> Api:
    return timeout_api(redis_url, TIMEOUT)


@pytest.fixture(scope="module")
def patient_api(redis_url) -> Api:
    """The same games, seen by a server whose turns time out after an hour."""
    return timeout_api(redis_url, 3600)


def test_the_waiting_side_claims_a_timed_out_turn(timed_api, patient_api, redis_client):
    game = new_game(timed_api, seed=31, first_dealer=1)
    seen = to_move_view(timed_api, game)
    assert seen is not None
    mover, waiter = seen["seat"], 1 - seen["seat"]
    with log_unchanged(redis_client, game.game_id):
        # Too early: refused, with the time left.
        body = problem(post(patient_api, game, "claim-timeout", waiter), 409, "turn_not_timed_out")
        # The time left is the timeout less the wait so far (what Retry-After would say).
        left = body["timeout_seconds"] - body["waited_seconds"]
        assert body["retry_after_seconds"] == pytest.approx(left, abs=0.002)
        # The seat to move never claims; a spectator has no seat.
        problem(post(timed_api, game, "claim-timeout", mover), 409, "not_waiting")
        problem(post(timed_api, game, "claim-timeout", None), 401, "token_required")
    reply = wait_until(
        lambda: (r := post(timed_api, game, "claim-timeout", waiter)).status == 200 and r,
        timeout=30,
        what="the turn to time out",
    )
    answer = ok(reply)
    assert answer["winner"] == waiter
    assert answer["ending"] == {"reason": "timed_out", "seat": waiter}
    assert answer["game_points"][waiter] == 0 and answer["game_points"][mover] == 7
    assert replay(log_events(redis_client, game.game_id)).winner == waiter
    with log_unchanged(redis_client, game.game_id):
        problem(post(timed_api, game, "claim-timeout", waiter), 409, "game_over")


def test_a_move_restarts_the_clock(timed_api, patient_api, redis_client):
    game = new_game(timed_api, seed=34, first_dealer=1)
    seen = to_move_view(timed_api, game)
    assert seen is not None
    waiter = 1 - seen["seat"]
    # Past the short timeout, then the seat to move plays: the new turn's clock starts.
    first_turn = wait_until(
        lambda: (
            (body := problem(post(patient_api, game, "claim-timeout", waiter), 409))
            and body["waited_seconds"] > TIMEOUT
            and body
        ),
        timeout=30,
        what="the first turn to pass the timeout",
    )
    one_card_played(timed_api, game)
    with log_unchanged(redis_client, game.game_id):
        body = problem(post(patient_api, game, "claim-timeout", seen["seat"]), 409)
        assert body["code"] == "turn_not_timed_out"
        # The server's clock of the new turn started again: it has waited less than
        # the old turn had already waited when it was last asked.
        restarted = body["waited_seconds"] < first_turn["waited_seconds"]
        assert restarted


def test_no_timeout_claim_while_waiting_for_seat_1(timed_api, redis_client):
    created = create(timed_api)
    gid = created["game_id"]
    with log_unchanged(redis_client, gid):
        reply = timed_api.post(f"/v1/games/{gid}/claim-timeout", token=created["token"])
        problem(reply, 409, "game_waiting")


def test_timeout_claims_are_off_with_a_timeout_of_0(redis_url, redis_client):
    api = timeout_api(redis_url, 0)
    game = new_game(api, seed=32, first_dealer=1)
    with log_unchanged(redis_client, game.game_id):
        problem(post(api, game, "claim-timeout", 1), 409, "timeout_claims_off")


def test_an_ordinary_game_still_ends_by_play(api):
    game = new_game(api, seed=33)
    final = play_random_game(api, game, random.Random(33))
    assert final["ending"] == {"reason": "played", "seat": None}


@pytest.mark.parametrize("what", ["resign", "abort"])
def test_an_export_of_an_ended_game_verifies_and_says_how_it_ended(api, redis_client, what):
    game = new_game(api, seed=35)
    ok(post(api, game, what, 0))
    record = replay_record(log_events(redis_client, game.game_id), None)
    assert events_from_export(record) == log_events(redis_client, game.game_id)
    assert verify(record)
    text = "\n".join(text_lines(game.game_id, record))
    assert ("Seat 0 resigns" if what == "resign" else "Game aborted") in text


# -- the invite in seat 0's view ------------------------------------------


def test_seat_0_reads_its_invite_in_its_view_until_seat_1_joins(api, redis_client):
    created = create(api)
    gid = created["game_id"]
    assert view(api, gid, created["token"])["invite"] == created["invite"]
    assert created["game"]["invite"] == created["invite"]
    assert view(api, gid)["invite"] is None  # a spectator never sees it
    feed = ok(api.get(f"/v1/games/{gid}/events?after=0&include=view", token=created["token"]))
    assert feed["view"]["invite"] == created["invite"]
    assert created["invite"] not in api.get(f"/v1/games/{gid}/events?after=0").text
    # The invite read from the view opens seat 1; then it is gone from every view.
    invite = view(api, gid, created["token"])["invite"]
    joined = ok(api.post(f"/v1/games/{gid}/join", json_body={"invite": invite}), (200, 201))
    for token in (created["token"], joined["token"], None):
        assert view(api, gid, token)["invite"] is None
    assert joined["game"]["invite"] is None


def test_no_invite_in_the_view_of_a_bot_game_or_an_aborted_one(api):
    bot = create(api, {"opponent": {"type": "bot", "level": "random"}})
    assert view(api, bot["game_id"], bot["token"])["invite"] is None
    waiting = create(api)
    ok(api.post(f"/v1/games/{waiting['game_id']}/abort", token=waiting["token"]))
    assert view(api, waiting["game_id"], waiting["token"])["invite"] is None
