"""10,000 recorded random deals end as they did when recorded (tests/data/corpus.py).

This guards behaviour across refactorings of the rules: the engine's public
face (``legal_actions``/``apply``) and the search core (``FastDeal``) must
both reproduce every recorded result (R7-R9: winner, game points, reason,
card points), and the core must offer the engine's legal actions at every step.
"""

from __future__ import annotations

from service.engine import Variant, apply, legal_actions
from service.engine.core import FastDeal, action_of, engine_action
from tests.data.corpus import DEALS, read_deals


def test_corpus_replays_through_the_engine_and_the_search_core():
    count = 0
    for recorded in read_deals():
        state = recorded.start()
        core = FastDeal.from_deck(
            [card.order for card in recorded.deck],
            recorded.dealer,
            recorded.variant is Variant.HEAD,
        )
        for action in recorded.actions:
            legal = legal_actions(state)
            assert action in legal
            assert [engine_action(code) for code in core.legal_actions()] == legal
            state = apply(state, action)
            core.apply(action_of(action))
        r = state.deal.result
        assert r is not None
        assert (r.winner, r.game_points, r.reason, *r.card_points) == recorded.result
        assert core.engine_result() == r
        count += 1
    assert count == DEALS
