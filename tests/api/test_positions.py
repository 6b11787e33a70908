"""A bot-move Position is built from any game view, at every step of a game.

The view carries everything `POST /v1/bot/moves` needs, the trump card that
was turned up (`turn_up`) included once it is drawn; a client copies fields,
it never re-derives a rule. Many random games, every view of the seat to
move: the position passes the service's schema and the bot's decision is one
of the legal actions the view lists.
"""

from __future__ import annotations

import random

from schemas.bots import BotMoveRequestSchema
from tests.support.games import Game, act, new_game, position_of, to_move_view
from workers.jobs import bot_decision


def test_a_position_from_every_view_gets_a_legal_decision(api):
    rng = random.Random(2026)
    views = drawn = 0
    for number in range(12):
        game: Game = new_game(api, variant=rng.choice(["head", "tracked"]), seed=900 + number)
        while (seen := to_move_view(api, game)) is not None:
            position = position_of(seen)
            body = BotMoveRequestSchema().load({"position": position, "level": "heuristic"})
            decision = bot_decision(body["position"], "heuristic", seed=number, budget_ms=None)
            assert decision["action"] in seen["deal"]["legal_actions"], (position, decision)
            views += 1
            drawn += seen["deal"]["trump_card"] is None
            act(api, game, seen["seat"], rng.choice(seen["deal"]["legal_actions"]))
    assert views > 100 and drawn > 10, (views, drawn)


def test_turn_up_is_public_and_stays_after_it_is_drawn(api):
    game = new_game(api, seed=77, first_dealer=1)
    first = to_move_view(api, game)
    assert first is not None and first["deal"]["turn_up"] == first["deal"]["trump_card"]
    spectator = api.get(game.path).json()
    assert spectator["deal"]["turn_up"] == first["deal"]["turn_up"]
