"""Weighing sampled deals by the opponent's past play (service/bots/inference.py and the
``inferring`` level): the opponent's past views rebuilt exactly, its hidden draws drawn
within the facts, the model's odds for them, and deals where its play was likely weighing
more."""

from __future__ import annotations

import random
from collections.abc import Iterator

from service.bots import get_bot
from service.bots.inference import (
    DecisionOdds,
    action_probability,
    first_weighed_trick,
    past_decisions,
    past_hands,
)
from service.bots.inferring import InferringSearch
from service.engine import DECK, apply, legal_actions, new_game, start_deal, take_seat
from service.engine.actions import EXCHANGE_TRUMP_JACK, Action
from service.engine.cards import Card, Rank, sort_cards
from service.engine.knowledge import SeatView, seat_view
from service.engine.state import GameState, Variant
from tests.support.positions import patient_choice, sampled_states

#: A decision of a random game: the seat, its view then, what it did.
Taken = tuple[int, SeatView, Action]


def played_positions(games: int) -> Iterator[tuple[GameState, list[Taken]]]:
    """Every position of ``games`` random games, with the decisions of its deal so far."""
    for number in range(games):
        rng = random.Random(number)
        variant = (Variant.HEAD, Variant.TRACKED)[number % 2]
        state = take_seat(take_seat(new_game(variant, rng.randrange(2)), 0), 1)
        taken: list[Taken] = []
        while state.winner is None:
            if state.awaiting_deal:
                deck = list(DECK)
                rng.shuffle(deck)
                state, taken = start_deal(state, deck), []
                continue
            seat = state.to_move
            yield state, taken
            action = patient_choice(rng, legal_actions(state))
            taken.append((seat, seat_view(state, seat), action))
            state = apply(state, action)


def test_the_opponents_past_decisions_are_rebuilt_as_it_saw_them():
    """With the hand it really held, each past decision's view is the opponent's own view
    then, to the field; and every decision from the first weighed trick is there."""
    rebuilt = 0
    for state, taken in played_positions(8):
        view = seat_view(state, state.to_move)
        first = first_weighed_trick(view)
        theirs = [
            (seen, action)
            for seat, seen, action in taken
            if seat == view.opponent and action != EXCHANGE_TRUMP_JACK and len(seen.tricks) >= first
        ]
        decisions = past_decisions(view)
        assert [(d.trick, d.action) for d in decisions] == [
            (len(seen.tricks), action) for seen, action in theirs
        ]
        for decision, (seen, _) in zip(decisions, theirs, strict=True):
            assert decision.with_hand(seen.hand) == seen
            rebuilt += 1
    assert rebuilt > 1000


def test_every_drawn_history_allows_each_past_action_and_the_true_one_is_drawn():
    """The hidden draws are chosen within the facts (each past action is legal from the hand
    drawn for it), and the opponent's real past hands are among the histories drawn."""
    positions = matched = 0
    for state, taken in played_positions(4):
        view = seat_view(state, state.to_move)
        decisions = past_decisions(view)
        if not decisions:
            continue
        true_hands = {(len(seen.tricks), action): seen.hand for _, seen, action in taken}
        truth = [true_hands[(d.trick, d.action)] for d in decisions]
        rng = random.Random(positions)
        drawn = set()
        for _ in range(40):
            hands = past_hands(view, decisions, state.deal.hands[view.opponent], rng)
            assert hands is not None
            for decision, hand in zip(decisions, hands, strict=True):
                assert decision.action in decision.with_hand(hand).legal_actions()
            drawn.add(tuple(tuple(sort_cards(hand)) for hand in hands))
        positions += 1
        matched += tuple(truth) in drawn
    assert matched > positions // 4


def test_the_quick_odds_are_the_models_odds_from_the_rebuilt_view():
    checked = 0
    for state in sampled_states(5, 150):
        view = seat_view(state, state.to_move)
        decisions = past_decisions(view)
        odds = [DecisionOdds(decision) for decision in decisions]
        rng = random.Random(checked)
        for _ in range(3):
            hands = past_hands(view, decisions, state.deal.hands[view.opponent], rng)
            assert hands is not None
            for quick, hand in zip(odds, hands, strict=True):
                decision = quick.decision
                slow = action_probability(decision.with_hand(hand), decision.action)
                assert abs(quick.probability(hand) - slow) < 1e-5
                assert 0.0 < slow <= 1.0
                checked += 1
    assert checked > 500


def first_lead_without_the_marriage() -> tuple[SeatView, list[Card], list[Card]]:
    """The dealer to answer the first lead, the Jack of clubs, of an opponent that held
    the trump marriage (King and Queen of hearts) and led without declaring it; and the
    dealer's view, with the cards it cannot see."""
    cards = {card.value: card for card in DECK}
    leader_hand = ["JC", "KH", "QH", "AS", "TS"]
    dealer_hand = ["AC", "TC", "KC", "QC", "JS"]
    turn_up = ["JH"]
    rest = [c.value for c in DECK if c.value not in {*leader_hand, *dealer_hand, *turn_up}]
    deck = [cards[c] for c in [*leader_hand, *dealer_hand, *turn_up, *rest]]
    state = take_seat(take_seat(new_game(Variant.HEAD, 0), 0), 1)
    state = start_deal(state, deck)
    state = apply(state, Action.play(cards["JC"]))
    view = seat_view(state, state.to_move)
    return view, [cards["KH"], cards["QH"]], view.unseen_cards()


def test_a_deal_where_the_opponents_play_was_likely_weighs_more():
    """Leading a Jack with the trump marriage in hand, undeclared, is unlikely: a deal that
    gives the opponent the King and Queen of trumps weighs less than one that gives it no
    marriage (the other cards alike: Aces, Tens and Jacks)."""
    view, marriage, unseen = first_lead_without_the_marriage()
    search = InferringSearch(view, 1, 80, wall_clock_guard=False)
    assert [d.action for d in search.decisions] == [Action.play(DECK[4])]  # the JC led
    plain = [card for card in unseen if card.rank not in (Rank.KING, Rank.QUEEN)]
    rng = random.Random(3)
    weights: dict[bool, float] = {True: 0.0, False: 0.0}
    for _ in range(20):
        rng.shuffle(plain)
        for married, hand in ((True, marriage + plain[:2]), (False, plain[:4])):
            talon = [card.order for card in unseen if card not in hand]
            deal = search.sampler.world([card.order for card in hand], talon)
            weights[married] += search.weight(deal)
    assert weights[True] < 0.5 * weights[False]


def test_with_nothing_to_infer_the_level_decides_as_the_expert():
    """At its deal's first lead nobody has played: the same deals, the same values."""
    expert, inferring = get_bot("expert"), get_bot("inferring")
    expert.wall_clock_guard = inferring.wall_clock_guard = False
    compared = 0
    for number, state in enumerate(sampled_states(17, 400, every=1)):
        if state.deal.tricks or state.deal.lead_card is not None or state.deal.marriages:
            continue
        view = seat_view(state, state.to_move)
        if len(view.legal_actions()) < 2:
            continue
        first = expert.choose(view, seed=number, budget_ms=10)
        second = inferring.choose(view, seed=number, budget_ms=10)
        assert first == second
        compared += 1
    assert compared > 5
