"""Action bodies read without webargs when plain, exactly as ``ActionSchema`` reads them."""

from __future__ import annotations

import random

from marshmallow import ValidationError

from schemas.games import ActionSchema
from service.engine import GameCreated, SeatTaken, Variant, apply, legal_actions, replay, start_deal
from service.game.dealing import random_deck
from service.web.plain_action import plain_action

VALUES = {
    "type": ["play", "close_talon", "exchange_trump_jack", "declare_marriage", "claim", "PLAY",
             "", None, 1, ["play"]],
    "card": ["QH", "AS", "TD", "qh", "QX", "", None, 5, ["QH"]],
    "suit": ["H", "C", "h", "X", "", None, 2],
    "expected_version": [0, 7, 10**9, 10**9 + 1, -1, True, 3.0, "3", None],
    "other": [1, "x"],
}  # fmt: skip


def schema_load(body: object) -> dict | str:
    try:
        return ActionSchema().load(body)
    except ValidationError as error:
        return f"refused {error.messages}"


def test_a_plain_action_loads_as_the_schema_loads_it_and_anything_else_goes_to_the_schema():
    rng, plain_seen = random.Random(5), 0
    for _ in range(5000):
        body = {
            name: rng.choice(VALUES[name]) for name in rng.sample(list(VALUES), rng.randint(0, 4))
        }
        plain = plain_action(body)
        if plain is not None:
            plain_seen += 1
            assert plain == schema_load(body), body
    for body in ([], "play", None, 3, [{"type": "claim"}]):
        assert plain_action(body) is None
    assert plain_seen > 50  # the fast path is taken, not only skipped


def test_every_action_the_engine_offers_is_read_plainly():
    rng = random.Random(3)
    offered = 0
    for variant in Variant:
        state = replay([GameCreated(variant, 0), SeatTaken(0), SeatTaken(1)])
        while state.winner is None:
            if state.awaiting_deal:
                state = start_deal(state, random_deck())
                continue
            for action in legal_actions(state):
                body = action.to_dict()
                assert plain_action(body) == body == schema_load(body)
                assert plain_action({**body, "expected_version": 12}) == {
                    **body,
                    "expected_version": 12,
                }
                offered += 1
            state = apply(state, rng.choice(legal_actions(state)), state.to_move)
    assert offered > 100
