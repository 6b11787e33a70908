"""The hot path builds a deal positionally (``rules._after_card``): it must put every
value in the field of its name, whatever order ``DealState`` declares them in."""

from __future__ import annotations

import random

from service.engine import DECK, Variant, apply, legal_actions, new_game, start_deal, take_seat
from service.engine.rules import _after_card


def test_after_card_is_replace_by_name_on_played_deals() -> None:
    rng = random.Random(5)
    checked = 0
    for game in range(40):
        state = take_seat(take_seat(new_game(Variant.HEAD, game % 2), 0), 1)
        state = start_deal(state, rng.sample(list(DECK), 20))
        while state.deal.result is None:
            deal = state.deal
            # Distinct stand-ins for the changed fields, so a swap of two shows.
            hands, talon, tricks = (("h0",), ("h1",)), ("talon",), ("trick",)
            built = _after_card(deal, hands, talon, 7, 1 - deal.leader, "lead", tricks, (8, 9))
            assert built == deal._replace(
                hands=hands,
                talon=talon,
                turn_up_drawn_by=7,
                leader=1 - deal.leader,
                lead_card="lead",
                tricks=tricks,
                trick_points=(8, 9),
                declared=None,
                result=None,
            )
            checked += 1
            state = apply(state, rng.choice(legal_actions(state)))
    assert checked > 200
