"""HTTP semantics of the contract: Location, ETag and If-None-Match, optimistic versions."""

from __future__ import annotations

import pytest

from tests.support.games import act, create, join, new_game, to_move_view, view
from tests.support.http import ok, problem
from tests.support.log import log_head


def test_create_answers_201_with_location_and_the_contract_fields(api, redis_client):
    reply = api.post("/v1/games", json_body={"variant": "tracked"})
    created = ok(reply, 201)
    gid = created["game_id"]
    assert reply.headers["Location"] == f"/v1/games/{gid}"
    assert created["seat"] == 0 and isinstance(created["token"], str) and created["token"]
    assert isinstance(created["invite"], str) and created["invite"]
    assert created["version"] == log_head(redis_client, gid) == 3
    seen = view(api, reply.headers["Location"].rsplit("/", 1)[1], created["token"])
    assert seen["game_id"] == gid and seen["seat"] == 0 and seen["variant"] == "tracked"
    assert seen["status"] == "waiting" and seen["to_move"] is None
    assert seen["game_points"] == [7, 7] and seen["winner"] is None and seen["deals"] == []
    assert len(seen["deal"]["hand"]) == 5 and seen["deal"]["legal_actions"] == []
    # An empty body is a default game: head, human opponent.
    assert view(api, create(api)["game_id"])["variant"] == "head"


def test_join_answers_the_second_seat(api, redis_client):
    created = create(api)
    joined = join(api, created["game_id"], created["invite"])
    assert joined["game_id"] == created["game_id"] and joined["seat"] == 1
    assert joined["token"] and joined["token"] != created["token"]
    assert joined["version"] == created["version"] + 1 == log_head(redis_client, joined["game_id"])
    seen = view(api, joined["game_id"], joined["token"])
    assert seen["seat"] == 1 and seen["status"] == "active"


DEAL_FIELDS = {
    "number": int,
    "dealer": int,
    "trump_suit": str,
    "trump_card": (str, type(None)),
    "talon_size": int,
    "closed_by": (int, type(None)),
    "hand": list,
    "opponent_hand_size": int,
    "current_trick": list,
    "tricks_won": list,
    "card_points": (list, type(None)),
    "to_move": (int, type(None)),
    "legal_actions": list,
}


@pytest.mark.parametrize("variant", ["head", "tracked"])
def test_the_view_has_the_contract_fields(api, variant):
    game = new_game(api, variant=variant, seed=30)
    mover = to_move_view(api, game)
    act(
        api,
        game,
        mover["seat"],
        next(a for a in mover["deal"]["legal_actions"] if a["type"] == "play"),
    )
    for viewer, token in ((0, game.tokens[0]), (1, game.tokens[1]), (None, None)):
        seen = view(api, game.game_id, token)
        assert seen["game_id"] == game.game_id and seen["version"] == game.version
        assert seen["status"] == "active" and seen["variant"] == variant
        assert seen["seat"] == viewer and seen["winner"] is None
        assert seen["game_points"] == [7, 7] and seen["deals"] == []
        deal = seen["deal"]
        for name, kind in DEAL_FIELDS.items():
            assert isinstance(deal[name], kind), (name, deal)
        assert len(deal["current_trick"]) == 1 and set(deal["current_trick"][0]) == {"seat", "card"}
        assert deal["tricks_won"] == [0, 0] and deal["talon_size"] == 9
        assert deal["trump_suit"] == deal["trump_card"][1]
        to_move = seen["to_move"]
        assert deal["to_move"] == to_move == 1 - mover["seat"]
        if viewer is None:
            assert deal["hand"] == [] and deal["legal_actions"] == []
            # A spectator's "opponent" is seat 1; the seat that led holds 4 cards.
            assert deal["opponent_hand_size"] == (4 if mover["seat"] == 1 else 5)
        elif viewer == to_move:
            assert len(deal["hand"]) == 5 and deal["opponent_hand_size"] == 4
            assert [a["card"] for a in deal["legal_actions"]] == deal["hand"]  # R4a: any card
        else:
            assert len(deal["hand"]) == 4 and deal["opponent_hand_size"] == 5
            assert deal["legal_actions"] == []
        # R7d: head counting shows no card points while the deal runs; R7e: tracked does.
        assert deal["card_points"] == (None if variant == "head" else [0, 0])


def test_the_view_has_an_etag_and_if_none_match_answers_304(api):
    game = new_game(api, seed=31)
    reply = api.get(game.path, token=game.tokens[0])
    seen = ok(reply)
    etag = reply.headers["ETag"]
    assert etag == f'"{seen["version"]}"'
    for token in (game.tokens[0], game.tokens[1], None):
        for tag in (etag, f"W/{etag}"):
            unchanged = api.get(game.path, token=token, headers={"If-None-Match": tag})
            assert unchanged.status == 304, unchanged
            assert unchanged.text == ""
            assert unchanged.headers["ETag"] == etag
    # An old ETag gets the new view.
    mover = to_move_view(api, game)
    act(api, game, mover["seat"], mover["deal"]["legal_actions"][0])
    fresh = api.get(game.path, token=game.tokens[0], headers={"If-None-Match": etag})
    assert fresh.status == 200
    assert fresh.headers["ETag"] == f'"{game.version}"' != etag
    assert fresh.json()["version"] == game.version


def test_a_stale_expected_version_answers_409(api, redis_client):
    game = new_game(api, seed=32)
    mover = to_move_view(api, game)
    stale = mover["version"]
    act(api, game, mover["seat"], mover["deal"]["legal_actions"][0], expected_version=stale)
    assert game.version > stale
    nxt = to_move_view(api, game)
    head = log_head(redis_client, game.game_id)
    for version in (stale, game.version + 5, 0):
        body = dict(nxt["deal"]["legal_actions"][0], expected_version=version)
        reply = api.post(f"{game.path}/actions", json_body=body, token=game.tokens[nxt["seat"]])
        answer = problem(reply, 409, "stale_version")
        assert answer["expected_version"] == version
        assert answer["current_version"] == game.version
    assert log_head(redis_client, game.game_id) == head
    act(api, game, nxt["seat"], nxt["deal"]["legal_actions"][0], expected_version=game.version)


def test_a_stale_if_match_answers_412(api, redis_client):
    game = new_game(api, seed=33)
    reply = api.get(game.path, token=game.tokens[0])
    etag = reply.headers["ETag"]
    mover = to_move_view(api, game)
    act(api, game, mover["seat"], mover["deal"]["legal_actions"][0], if_match=etag)
    nxt = to_move_view(api, game)
    head = log_head(redis_client, game.game_id)
    # A weak tag never matches (the strong comparison): 412 too, with its own code.
    for tag, code in ((etag, "stale_version"), (f"W/{etag}", "precondition_failed")):
        reply = api.post(
            f"{game.path}/actions",
            json_body=nxt["deal"]["legal_actions"][0],
            token=game.tokens[nxt["seat"]],
            headers={"If-Match": tag},
        )
        answer = problem(reply, 412, code)
        if code == "stale_version":
            assert answer["expected_version"] == int(etag.strip('"'))
    assert log_head(redis_client, game.game_id) == head
    # The current ETag, and "*", are accepted.
    act(api, game, nxt["seat"], nxt["deal"]["legal_actions"][0], if_match=f'"{game.version}"')
    nxt = to_move_view(api, game)
    act(api, game, nxt["seat"], nxt["deal"]["legal_actions"][0], if_match="*")


def test_if_match_and_expected_version_must_agree(api, redis_client):
    game = new_game(api, seed=34)
    mover = to_move_view(api, game)
    head = log_head(redis_client, game.game_id)
    action = mover["deal"]["legal_actions"][0]
    token = game.tokens[mover["seat"]]
    body = dict(action, expected_version=head)
    reply = api.post(
        f"{game.path}/actions", json_body=body, token=token, headers={"If-Match": f'"{head - 1}"'}
    )
    problem(reply, 400, "conflicting_versions")
    reply = api.post(
        f"{game.path}/actions", json_body=action, token=token, headers={"If-Match": "yesterday"}
    )
    problem(reply, 400, "invalid_if_match")
    assert log_head(redis_client, game.game_id) == head


def test_an_action_answers_the_callers_new_view(api, redis_client):
    game = new_game(api, seed=35, first_dealer=1)
    mover = to_move_view(api, game)
    assert mover["seat"] == 0  # the non-dealer leads (R1c)
    play = next(a for a in mover["deal"]["legal_actions"] if a["type"] == "play")
    answer = act(api, game, 0, play)
    assert answer["version"] == mover["version"] + 1 == log_head(redis_client, game.game_id)
    assert answer["seat"] == 0 and answer["to_move"] == 1
    assert answer["deal"]["current_trick"] == [{"seat": 0, "card": play["card"]}]
    assert play["card"] not in answer["deal"]["hand"]
    assert answer["deal"]["legal_actions"] == []
    assert answer == view(api, game.game_id, game.tokens[0])


def test_if_none_match_with_a_list_of_etags_or_a_star_answers_304(api):
    """RFC 9110 13.1.2: If-None-Match may hold a list of entity tags, or "*" (any
    current representation); either matching answers 304."""
    game = new_game(api, seed=36)
    etag = api.get(game.path).headers["ETag"]
    for header in (f'"0", {etag}', f'W/"1", W/{etag}', "*"):
        reply = api.get(game.path, headers={"If-None-Match": header})
        assert reply.status == 304, (header, reply)
        assert reply.headers["ETag"] == etag
