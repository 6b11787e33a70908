"""Complete games between two human seats, through HTTP only.

Each seat chooses uniformly among the legal actions its view lists; at the
end every deal's result the API reports is checked against the engine's
fold of the Redis log, and the log against the actions the clients sent.
"""

from __future__ import annotations

import random

import pytest

from service.engine import EVENT_SCHEMA, event_from_dict, replay
from service.engine.state import START_GAME_POINTS
from tests.support.games import Game, new_game, play_random_game, view
from tests.support.http import Api, ok
from tests.support.log import engine_view, log_decks, log_events, logged_actions, without_api_fields

GAMES_PER_VARIANT = 3


def check_finished_game(api: Api, game: Game, final: dict, redis_client) -> None:
    """The finished game as served equals the engine's fold of its log."""
    events = log_events(redis_client, game.game_id)
    assert len(events) == final["version"] == game.version
    # The log holds exactly the actions the two clients sent, in order.
    assert logged_actions(events) == game.sent
    state = replay(events)
    assert state.winner is not None and state.status == "finished"

    assert final["status"] == "finished"
    assert final["winner"] == state.winner
    assert final["game_points"] == list(state.game_points)
    assert final["game_points"][final["winner"]] == 0
    assert final["to_move"] is None and final["deal"]["legal_actions"] == []

    served = final["deals"]
    assert len(served) == len(state.results) == len(log_decks(events))
    for number, (deal, result) in enumerate(zip(served, state.results, strict=True), start=1):
        assert deal["number"] == result.number == number
        assert deal["winner"] == result.winner
        assert deal["game_points"] == result.game_points
        assert deal["reason"] == result.reason.value
        assert deal["game_points"] in (1, 2, 3)
    # R10a: the game points each seat won, subtracted from 7, never below 0.
    for seat in (0, 1):
        won = sum(d["game_points"] for d in served if d["winner"] == seat)
        assert final["game_points"][seat] == max(0, START_GAME_POINTS - won)
    # R10b: no deal is started after a seat reached 0.
    last_winner = served[-1]["winner"]
    assert last_winner == final["winner"]
    assert sum(d["game_points"] for d in served[:-1] if d["winner"] == last_winner) < 7

    # Every viewer's view is the engine's observation of the fold.
    for token, seat in ((game.tokens[0], 0), (game.tokens[1], 1), (None, None)):
        seen = view(api, game.game_id, token)
        assert seen["version"] == len(events)
        assert without_api_fields(seen) == engine_view(state, seat)

    # The finished game's replay shows every deal's deck and result.
    record = ok(api.get(f"{game.path}/replay"))
    assert record["complete"] is True
    assert [d["deck"] for d in record["deals"]] == log_decks(events)
    # The replay alone is enough to rebuild the game: fold its events with the engine.
    rebuilt = replay([event_from_dict(dict(e, v=EVENT_SCHEMA)) for e in record["events"]])
    assert rebuilt == state
    results = [
        {k: d["result"][k] for k in ("number", "winner", "game_points", "reason")}
        for d in record["deals"]
    ]
    assert results == [
        {k: d[k] for k in ("number", "winner", "game_points", "reason")} for d in served
    ]


@pytest.mark.parametrize("variant", ["head", "tracked"])
def test_random_games_to_the_end_match_the_engine(client, redis_client, variant):
    api = Api(client)
    rng = random.Random(f"full-games-{variant}")
    reasons = set()
    for index in range(GAMES_PER_VARIANT):
        body = {"variant": variant}
        if index:  # the first game shuffles at random, the others reproducibly
            body["seed"] = rng.randrange(2**32)
        game = new_game(api, **body)
        start = view(api, game.game_id, game.tokens[0])
        assert start["status"] == "active" and start["variant"] == variant
        assert start["game_points"] == [7, 7] and start["winner"] is None
        final = play_random_game(api, game, rng)
        check_finished_game(api, game, final, redis_client)
        reasons |= {deal["reason"] for deal in final["deals"]}
    if variant == "tracked":
        # R7e: no claims, so no false claims in the tracked variant.
        assert not reasons & {"false_claim", "closer_false_claim"}


def test_a_game_over_real_http(live_server, redis_client):
    api = Api.live(live_server.url)
    rng = random.Random("live-game")
    game = new_game(api, variant="head", seed=20240601, first_dealer=1)
    start = view(api, game.game_id, game.tokens[0])
    assert start["deal"]["dealer"] == 1 and start["to_move"] == 0
    final = play_random_game(api, game, rng)
    check_finished_game(api, game, final, redis_client)
