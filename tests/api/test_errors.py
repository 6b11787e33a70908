"""Bad input: each answer is the right 4xx problem+json and the log stays as it was.

Every refusal carries ``type``, ``title``, ``status``, ``detail`` and ``code``
(RFC 9457, Content-Type application/problem+json); an illegal move also
lists the caller's ``legal_actions`` and the ``rule`` that refused it.
"""

from __future__ import annotations

import json
import random

import pytest

from service.engine import DECK
from tests.support.games import Game, act, create, new_game, play_random_game, to_move_view, view
from tests.support.hidden import cards_in
from tests.support.http import Api, Reply, parse_sse, problem
from tests.support.log import log_head, log_unchanged

NOT_A_GAME = "0123456789abcdef"


@pytest.fixture
def game(api) -> Game:
    """A running head game; seat 0 leads first (seat 1 deals)."""
    return new_game(api, variant="head", seed=4242, first_dealer=1)


def deck(non_dealer: str, dealer: str, trump_card: str) -> list[str]:
    """A deck order: the two hands, the trump card, then the talon (the rest, in order)."""
    given = non_dealer.split() + dealer.split() + [trump_card]
    return given + [card.value for card in DECK if card.value not in given]


def actions_path(game: Game) -> str:
    return f"{game.path}/actions"


# -- games, seats and tokens ----------------------------------------------


def test_unknown_game(api, redis_client, game):
    with log_unchanged(redis_client, game.game_id):
        problem(api.get(f"/v1/games/{NOT_A_GAME}"), 404, "game_not_found")
        problem(api.get(f"/v1/games/{NOT_A_GAME}/events"), 404, "game_not_found")
        problem(api.get(f"/v1/games/{NOT_A_GAME}/replay"), 404, "game_not_found")
        problem(api.get(f"/v1/games/{NOT_A_GAME}/stream"), 404, "game_not_found")
        reply = api.post(
            f"/v1/games/{NOT_A_GAME}/actions",
            json_body={"type": "close_talon"},
            token=game.tokens[0],
        )
        problem(reply, 404, "game_not_found")
        reply = api.post(f"/v1/games/{NOT_A_GAME}/join", json_body={"invite": game.invite})
        problem(reply, 404, "game_not_found")
    assert log_head(redis_client, NOT_A_GAME) == 0


def test_wrong_token(api, redis_client, game):
    other = new_game(api)
    seen = to_move_view(api, game)
    legal = seen["deal"]["legal_actions"][0]
    with log_unchanged(redis_client, game.game_id, other.game_id):
        for token in ("not-a-token", other.tokens[seen["seat"]]):
            reply = api.post(actions_path(game), json_body=legal, token=token)
            problem(reply, 401, "invalid_token")
            assert reply.headers["WWW-Authenticate"].startswith("Bearer")
            problem(api.get(game.path, token=token), 401, "invalid_token")
            problem(api.get(f"{game.path}/events", token=token), 401, "invalid_token")
            problem(api.get(f"{game.path}/replay", token=token), 401, "invalid_token")
        reply = api.post(
            actions_path(game), json_body=legal, headers={"Authorization": "Basic dXNlcjpwYXNz"}
        )
        assert problem(reply, 401)["code"] in ("invalid_authorization", "invalid_token")


def test_missing_token_on_an_action(api, redis_client, game):
    seen = to_move_view(api, game)
    with log_unchanged(redis_client, game.game_id):
        reply = api.post(actions_path(game), json_body=seen["deal"]["legal_actions"][0])
        problem(reply, 401, "token_required")
        assert "WWW-Authenticate" in reply.headers


def test_the_other_seat_acting_out_of_turn(api, redis_client, game):
    seen = to_move_view(api, game)
    waiting = 1 - seen["seat"]
    for action in seen["deal"]["legal_actions"][:3]:
        with log_unchanged(redis_client, game.game_id):
            reply = api.post(actions_path(game), json_body=action, token=game.tokens[waiting])
            body = problem(reply, 409, "not_your_turn")
            assert body["legal_actions"] == []  # the caller has none: not its turn
            assert body["to_move"] == seen["seat"]
            assert body["rule"]


def test_a_card_not_in_hand(api, redis_client, game):
    seen = to_move_view(api, game)
    opponent = view(api, game.game_id, game.tokens[1 - seen["seat"]])
    stranger = opponent["deal"]["hand"][0]
    with log_unchanged(redis_client, game.game_id):
        reply = api.post(
            actions_path(game),
            json_body={"type": "play", "card": stranger},
            token=game.tokens[seen["seat"]],
        )
        body = problem(reply, 422, "card_not_in_hand")
        assert body["legal_actions"] == seen["deal"]["legal_actions"]
        assert body["rule"] == "R2a" and body["detail"].startswith("R2a: ")
        # The refusal names the caller's own cards, never the opponent's others.
        assert stranger in body["detail"]
        assert not cards_in(body) & (set(opponent["deal"]["hand"]) - {stranger})


def test_illegal_actions_of_the_engine_list_the_legal_ones(api, redis_client, game):
    seen = to_move_view(api, game)
    token = game.tokens[seen["seat"]]
    cases = [
        ({"type": "claim"}, "claim_not_allowed", "R7b"),  # the first lead, no marriage
        ({"type": "accept_last_trick"}, "accept_not_allowed", "R8a"),
    ]
    hand = set(seen["deal"]["hand"])
    unmarried = next(suit for suit in "CDHS" if not {f"K{suit}", f"Q{suit}"} <= hand)
    cases.append(({"type": "declare_marriage", "suit": unmarried}, "marriage_not_allowed", "R6c"))
    for action, code, rule in cases:
        with log_unchanged(redis_client, game.game_id):
            body = problem(api.post(actions_path(game), json_body=action, token=token), 422, code)
            assert body["rule"] == rule and body["detail"].startswith(f"{rule}: ")
            assert body["legal_actions"] == seen["deal"]["legal_actions"]
            assert action not in body["legal_actions"]


STRICT_PLAY = [
    # (seat 0's hand, seat 1's hand, trump card, lead, refused follow, code, rule, legal)
    ("AC TC KH QC JC", "TH JH AS TS KS", "AD", "KH", "AS", "must_beat", "R5a", ["TH"]),
    ("AC TC KH QC JC", "TH JH AS TS KS", "AD", "KH", "JH", "must_beat", "R5a", ["TH"]),
    ("AH AC TC KC QC", "TH JH AS TS KS", "AD", "AH", "AS", "must_follow_suit", "R5a", ["TH", "JH"]),
    ("AC TC KC QC JC", "TD AH TH KH QH", "JD", "AC", "AH", "must_trump", "R5a", ["TD"]),
    ("KD TC KC QC JC", "AD AH TH KH QH", "JD", "KD", "AH", "must_overtrump", "R5b", ["AD"]),
]


@pytest.mark.parametrize(
    ("seat0", "seat1", "trump", "lead", "follow", "code", "rule", "legal"), STRICT_PLAY
)
def test_strict_play_after_closing_refuses_with_the_rule(
    api, redis_client, seat0, seat1, trump, lead, follow, code, rule, legal
):
    # Seat 1 deals the first deal, so seat 0 holds deck positions 0-4 and leads.
    game = new_game(api, variant="head", deck=deck(seat0, seat1, trump), first_dealer=1)
    start = view(api, game.game_id, game.tokens[0])
    assert sorted(start["deal"]["hand"]) == sorted(seat0.split())
    assert start["deal"]["trump_card"] == trump and start["to_move"] == 0
    act(api, game, 0, {"type": "close_talon"})
    act(api, game, 0, {"type": "play", "card": lead})
    follower = view(api, game.game_id, game.tokens[1])
    assert follower["deal"]["closed_by"] == 0
    assert follower["deal"]["legal_actions"] == [{"type": "play", "card": c} for c in legal]
    with log_unchanged(redis_client, game.game_id):
        reply = api.post(
            actions_path(game), json_body={"type": "play", "card": follow}, token=game.tokens[1]
        )
        body = problem(reply, 422, code)
        assert body["rule"] == rule
        assert body["detail"].startswith(f"{rule}: you ")
        for card in legal:
            assert card in body["detail"]  # it names the cards that fulfil the duty
        assert body["legal_actions"] == [{"type": "play", "card": c} for c in legal]
    # The legal answer is taken.
    act(api, game, 1, {"type": "play", "card": legal[0]})


def test_a_second_join_and_a_bad_invite(api, redis_client, game):
    with log_unchanged(redis_client, game.game_id):
        reply = api.post(f"{game.path}/join", json_body={"invite": game.invite})
        problem(reply, 409, "seat_taken")
    fresh = create(api)
    gid = fresh["game_id"]
    with log_unchanged(redis_client, gid):
        for invite in ("not-the-invite", game.invite):
            reply = api.post(f"/v1/games/{gid}/join", json_body={"invite": invite})
            problem(reply, 401, "invalid_invite")
        problem(api.post(f"/v1/games/{gid}/join", json_body={}), 422)
    assert view(api, gid)["status"] == "waiting"


def test_acting_before_the_opponent_joined_and_after_the_game_ended(api, redis_client):
    created = create(api, {"variant": "tracked", "seed": 99})
    gid = created["game_id"]
    with log_unchanged(redis_client, gid):
        reply = api.post(
            f"/v1/games/{gid}/actions",
            json_body={"type": "close_talon"},
            token=created["token"],
        )
        problem(reply, 409, "game_waiting")
    game = new_game(api, variant="tracked", seed=99)
    play_random_game(api, game, random.Random(3))
    with log_unchanged(redis_client, game.game_id):
        for seat in (0, 1):
            reply = api.post(
                actions_path(game), json_body={"type": "close_talon"}, token=game.tokens[seat]
            )
            problem(reply, 409, "game_over")


# -- malformed requests ----------------------------------------------------


def test_malformed_json(api, redis_client, game):
    seen = to_move_view(api, game)
    with log_unchanged(redis_client, game.game_id):
        for path, token in (
            (actions_path(game), game.tokens[seen["seat"]]),
            ("/v1/games", None),
            (f"{game.path}/join", None),
        ):
            reply = api.post(
                path, data='{"type": "play", "card": ', content_type="application/json", token=token
            )
            problem(reply, 400, "malformed_json")


INVALID_ACTIONS = [
    ({"type": "fly"}, "type"),
    ({"type": "play"}, "card"),
    ({"type": "declare_marriage"}, "suit"),
    ({"type": "play", "card": "ZZ"}, "card"),
    ({"type": "declare_marriage", "suit": "X"}, "suit"),
    ({"type": "close_talon", "card": "AS"}, "card"),
    ({"type": "play", "card": "AS", "cheat": True}, "cheat"),
    ({"card": "AS"}, "type"),
    ({"type": "play", "card": "AS", "expected_version": -1}, "expected_version"),
]


@pytest.mark.parametrize(("body", "field"), INVALID_ACTIONS)
def test_an_action_that_does_not_match_the_schema(api, redis_client, game, body, field):
    seen = to_move_view(api, game)
    with log_unchanged(redis_client, game.game_id):
        reply = api.post(actions_path(game), json_body=body, token=game.tokens[seen["seat"]])
        problem_body = problem(reply, 422)
        assert field in problem_body["errors"], problem_body
        assert field in problem_body["detail"]


@pytest.mark.parametrize("body", [[], "play", 7, None])
def test_an_action_that_is_not_an_object(api, redis_client, game, body):
    seen = to_move_view(api, game)
    with log_unchanged(redis_client, game.game_id):
        reply = api.post(
            actions_path(game),
            data=json.dumps(body),
            content_type="application/json",
            token=game.tokens[seen["seat"]],
        )
        assert reply.status in (400, 422), reply
        problem(reply, reply.status)


INVALID_GAMES = [
    {"variant": "blitz"},
    {"deck": ["AS"] * 20},
    {"deck": [card.value for card in DECK][:19]},
    {"deck": [card.value for card in DECK][:19] + ["XX"]},
    {"first_dealer": 2},
    {"seed": -1},
    {"opponent": {"type": "alien"}},
    {"opponent": {"type": "human", "level": "hard"}},
    {"colour": "red"},
]


@pytest.mark.parametrize("body", INVALID_GAMES)
def test_a_game_that_does_not_match_the_schema(api, redis_client, body):
    with log_unchanged(redis_client):
        reply = api.post("/v1/games", json_body=body)
        problem_body = problem(reply, 422)
        assert problem_body["errors"]


def test_an_oversized_body(api, redis_client, game, app):
    limit = app.config["MAX_CONTENT_LENGTH"]
    assert limit == 16 * 1024
    seen = to_move_view(api, game)
    body = json.dumps({"type": "close_talon", "pad": "x" * limit})
    assert len(body) > limit
    with log_unchanged(redis_client, game.game_id):
        reply = api.post(
            actions_path(game),
            data=body,
            content_type="application/json",
            token=game.tokens[seen["seat"]],
        )
        problem(reply, 413, "payload_too_large")
        problem(api.post("/v1/games", data=body, content_type="application/json"), 413)


@pytest.mark.parametrize(
    "content_type", ["text/plain", "application/x-www-form-urlencoded", "application/xml"]
)
def test_a_body_that_is_not_json(api, redis_client, game, content_type):
    seen = to_move_view(api, game)
    action = json.dumps(seen["deal"]["legal_actions"][0])
    with log_unchanged(redis_client, game.game_id):
        reply = api.post(
            actions_path(game),
            data=action,
            content_type=content_type,
            token=game.tokens[seen["seat"]],
        )
        problem(reply, 415)
        problem(api.post("/v1/games", data="{}", content_type=content_type), 415)


def test_an_unknown_route(api, redis_client, game):
    with log_unchanged(redis_client, game.game_id):
        for path in ("/v1/nothing", f"{game.path}/nothing", "/v2/games", f"{game.path}/actions/1"):
            problem(api.get(path), 404)
        problem(api.post(f"{game.path}/undo", json_body={}), 404)


@pytest.mark.parametrize(
    ("method", "suffix", "allowed"),
    [
        ("DELETE", "", "GET"),
        ("PUT", "", "GET"),
        ("GET", "/actions", "POST"),
        ("DELETE", "/actions", "POST"),
        ("GET", "/join", "POST"),
        ("POST", "/events", "GET"),
        ("POST", "/replay", "GET"),
        ("PATCH", "/stream", "GET"),
    ],
)
def test_a_wrong_method(api, redis_client, game, method, suffix, allowed):
    with log_unchanged(redis_client, game.game_id):
        reply = api.request(method, f"{game.path}{suffix}", token=game.tokens[0])
        problem(reply, 405)
        allow = {name.strip() for name in reply.headers["Allow"].split(",")}
        assert allowed in allow and method not in allow
    with log_unchanged(redis_client):
        reply = api.request("DELETE", "/v1/games")
        problem(reply, 405)
        assert "POST" in reply.headers["Allow"]


def test_read_queries_out_of_range(api, redis_client, game):
    with log_unchanged(redis_client, game.game_id):
        problem(api.get(f"{game.path}/replay?at=0"), 422)
        reply = api.get(f"{game.path}/replay?at={game.version + 1}")
        problem(reply, 422, "version_out_of_range")
        problem(api.get(f"{game.path}/events?after=-1"), 422)
        problem(api.get(f"{game.path}/events?wait=61"), 422)
        problem(api.get(f"{game.path}/events?after=abc"), 422)
        reply = api.get(f"{game.path}/stream", headers={"Last-Event-ID": "seven"})
        problem(reply, 400, "invalid_last_event_id")


@pytest.mark.parametrize("field", ["seed", "first_dealer", "expected_version"])
def test_a_fractional_number_where_an_integer_is_expected(api, redis_client, game, field):
    """A fractional seed, first dealer or expected_version is refused (422), never
    truncated to another number (marshmallow's Integer is strict for JSON bodies)."""
    if field == "expected_version":
        mover = to_move_view(api, game)
        path, token = actions_path(game), game.tokens[mover["seat"]]
        body = dict(mover["deal"]["legal_actions"][0], expected_version=mover["version"] + 0.5)
    else:
        path, token, body = "/v1/games", None, {field: 0.5}
    with log_unchanged(redis_client, game.game_id):
        reply = api.post(path, json_body=body, token=token)
        assert field in problem(reply, 422)["errors"]


def test_an_event_version_beyond_any_log_on_a_long_poll(api, game):
    """A version beyond any game (after=2**64) is a 4xx, never a Redis error (500)."""
    for after in (2**64, 10**30):
        reply = api.get(f"{game.path}/events?after={after}&wait=0.2", token=game.tokens[0])
        assert reply.status < 500, reply
        if reply.status == 200:
            assert reply.json()["events"] == []
        else:
            problem(reply, reply.status)
            assert reply.status in (400, 422)


@pytest.mark.parametrize(
    "request_kwargs",
    [{"query_string": {"after": str(2**64)}}, {"headers": {"Last-Event-ID": str(2**64)}}],
    ids=["after", "last-event-id"],
)
def test_an_event_version_beyond_any_log_on_the_stream(sse_app, request_kwargs):
    """A huge resume version is refused before the stream starts, not mid-stream."""
    client = sse_app.test_client()
    game = new_game(Api(client))
    reply = client.get(f"{game.path}/stream", **request_kwargs)
    if reply.status_code != 200:
        answer = Reply(reply.status_code, reply.headers, reply.get_data(as_text=True))
        problem(answer, answer.status)
        assert answer.status in (400, 422)
        return
    try:
        text = reply.get_data(as_text=True)  # the whole stream, SSE_MAX_SECONDS long
    except Exception as error:  # any error here is the bug
        pytest.fail(f"the stream broke after its 200: {type(error).__name__}: {error}")
    assert parse_sse(text) == []
