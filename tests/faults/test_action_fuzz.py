"""Hypothesis fuzzing of the action endpoint: random, mostly illegal actions in random states.

Every refusal is a 4xx problem+json and changes nothing; every acceptance
was a legal action of the seat to move and appends it.
"""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from service.engine.cards import Card, Suit
from service.store.events import EventStore
from tests.support.games import random_move, two_seated
from tests.support.http import auth

ACTION_TYPES = ["play", "exchange_trump_jack", "close_talon", "declare_marriage", "claim",
                "accept_last_trick"]  # fmt: skip

actions = st.one_of(
    st.builds(lambda c: {"type": "play", "card": c}, st.sampled_from([c.value for c in Card])),
    st.builds(lambda s: {"type": "declare_marriage", "suit": s}, st.sampled_from([s.value for s in Suit])),
    st.sampled_from([{"type": t} for t in ACTION_TYPES]),
    # garbage: unknown types, wrong fields, wrong types
    st.dictionaries(st.sampled_from(["type", "card", "suit", "expected_version", "x"]),
                    st.one_of(st.text(max_size=5), st.integers(-3, 99), st.none(), st.booleans()),
                    max_size=4),
)  # fmt: skip


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    seed=st.integers(0, 10_000),
    variant=st.sampled_from(["head", "tracked"]),
    steps=st.integers(0, 30),
    attempts=st.lists(st.tuples(st.sampled_from([0, 1]), actions), min_size=1, max_size=8),
)
def test_random_actions_are_applied_if_legal_and_refused_cleanly_otherwise(
    client, redis_client, seed, variant, steps, attempts
):
    store = EventStore(redis_client)
    game, tokens = two_seated(client, seed=seed, variant=variant)
    rng = random.Random(seed)
    for _ in range(steps):  # reach a random state by legal play
        if random_move(client, game, tokens, rng) is None:
            break
    for seat, action in attempts:
        before = client.get(f"/v1/games/{game}", headers=auth(tokens[seat])).json
        head = store.head(game)
        legal = before["deal"]["legal_actions"] if before["to_move"] == seat else []
        response = client.post(f"/v1/games/{game}/actions", json=action, headers=auth(tokens[seat]))
        if response.status_code == 200:
            clean = {k: v for k, v in action.items() if k != "expected_version"}
            assert clean in legal, (action, legal)
            assert store.head(game) > head
            continue
        assert 400 <= response.status_code < 500, (action, response.status_code, response.json)
        assert response.mimetype == "application/problem+json"
        problem = response.json
        assert {"type", "title", "status", "detail", "code"} <= problem.keys()
        assert problem["status"] == response.status_code
        assert store.head(game) == head, "a refused action changed the log"
        after = client.get(f"/v1/games/{game}", headers=auth(tokens[seat])).json
        assert after == before
