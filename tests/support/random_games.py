"""Whole games of random legal play, for the engine's property tests.

``play_game(seed, variant, policy)`` plays one whole game from ``random.Random(seed)``
(the first dealer, each deal's deck and every action chosen among the legal ones)
and records its events and the state after each; the Hypothesis strategies and
settings the property tests draw their games with, and what a seat cannot see of a
deal, live here too (``tests/engine/test_properties.py`` says what the policies do).
"""

from __future__ import annotations

import random
from typing import NamedTuple

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from service.engine import (
    DECK,
    ActionTaken,
    DealStarted,
    DealState,
    Event,
    GameCreated,
    GameState,
    SeatTaken,
    Variant,
    apply,
    legal_actions,
    new_game,
    start_deal,
    take_seat,
)
from service.engine.actions import (
    ACCEPT_LAST_TRICK,
    CLAIM,
    CLOSE_TALON,
    DECLARE_MARRIAGE,
    EXCHANGE_TRUMP_JACK,
    PLAY,
    Action,
)
from service.engine.cards import Card, sort_cards

#: Hypothesis examples (= whole games) per property test.


#: Hypothesis examples (= whole games) per property test.
GAMES_PER_TEST = 200

#: Every action a player could ever send: 20 plays, 4 marriages and the rest.
ALL_ACTIONS: tuple[Action, ...] = (
    *PLAY.values(),
    *DECLARE_MARRIAGE.values(),
    EXCHANGE_TRUMP_JACK,
    CLOSE_TALON,
    CLAIM,
    ACCEPT_LAST_TRICK,
)

#: No deal gives fewer than 1 game point, so a game has at most 7 + 6 deals.
MAX_DEALS = 13

POLICIES = ("uniform", "rare_claim", "no_claim", "patient")

seeds = st.integers(min_value=0, max_value=2**64 - 1)
variants = st.sampled_from(Variant)
policies = st.sampled_from(POLICIES)

game_settings = settings(
    max_examples=GAMES_PER_TEST,
    deadline=None,
    derandomize=False,
    suppress_health_check=[HealthCheck.too_slow],
)


# -- playing a whole game --------------------------------------------------


def choose(rng: random.Random, policy: str, legal: list[Action]) -> Action:
    """One action among ``legal`` (never empty) by ``policy``."""
    if policy == "uniform":
        return rng.choice(legal)
    if policy == "rare_claim":
        if CLAIM in legal and rng.random() < 0.03:
            return CLAIM
        options = [a for a in legal if a is not CLAIM]
        if CLOSE_TALON in options and rng.random() >= 0.05:
            options.remove(CLOSE_TALON)
        return rng.choice(options or legal)
    if policy == "no_claim":
        options = [a for a in legal if a is not CLAIM]
    elif policy == "patient":
        options = [a for a in legal if a is not CLAIM and a is not CLOSE_TALON]
    else:  # pragma: no cover - a typo in a test
        raise ValueError(policy)
    # The head variant's last trick offers claim or accept: never empty here.
    assert options, f"policy {policy} left nothing of {legal}"
    return rng.choice(options)


class PlayedGame(NamedTuple):
    """A whole game: its events and ``states[i]``, the state after ``events[i]``."""

    seed: int
    variant: Variant
    policy: str
    events: list[Event]
    states: list[GameState]

    def moves(self):
        """(state before, seat, action, state after) for every player action."""
        for index, item in enumerate(self.events):
            if isinstance(item, ActionTaken):
                yield self.states[index - 1], item.seat, item.action, self.states[index]

    def deal_states(self):
        """Every state in which a deal is under way (a player is to move)."""
        for state in self.states:
            if state.deal is not None and state.deal.result is None:
                yield state

    def finished_deals(self) -> list[DealState]:
        """Each deal as it ended (with its result)."""
        return [
            state.deal
            for state, item in zip(self.states, self.events, strict=True)
            if isinstance(item, ActionTaken) and state.deal.result is not None
        ]

    @property
    def final(self) -> GameState:
        return self.states[-1]


def play_game(seed: int, variant: Variant, policy: str = "uniform") -> PlayedGame:
    """Play one whole game of random legal actions from ``seed``.

    Only the public API: ``new_game``, ``take_seat``, ``start_deal`` while the
    game awaits a deal, then ``legal_actions`` / ``apply`` until a seat
    reaches 0 game points.
    """
    rng = random.Random(seed)
    events: list[Event] = []
    states: list[GameState] = []

    def record(item: Event, state: GameState) -> GameState:
        events.append(item)
        states.append(state)
        return state

    first_dealer = rng.randrange(2)
    state = record(GameCreated(variant, first_dealer), new_game(variant, first_dealer))
    state = record(SeatTaken(0), take_seat(state, 0))
    state = record(SeatTaken(1), take_seat(state, 1))
    deals = 0
    while state.winner is None:
        if state.awaiting_deal:
            deals += 1
            assert deals <= MAX_DEALS, f"more than {MAX_DEALS} deals: the game does not end"
            deck = tuple(rng.sample(DECK, len(DECK)))
            dealt = DealStarted(len(state.results) + 1, state.next_dealer, deck)
            state = record(dealt, start_deal(state, deck))
            continue
        legal = legal_actions(state)
        assert legal, f"no legal action while seat {state.to_move} is to move"
        seat = state.to_move
        action = choose(rng, policy, legal)
        state = record(ActionTaken(seat, action), apply(state, action, seat))
    return PlayedGame(seed, variant, policy, events, states)


# -- the cards in one state --------------------------------------------------


def card_places(deal: DealState) -> list[Card]:
    """Every card where it lies now: hands, talon, turn-up, current trick, tricks."""
    places = [*deal.hands[0], *deal.hands[1], *deal.talon]
    if deal.turn_up_drawn_by is None:
        places.append(deal.turn_up)  # under the talon (also after a close)
    if deal.lead_card is not None:
        places.append(deal.lead_card)
    for trick in deal.tricks:
        places += (trick.lead, trick.follow)
    return places


def hidden_cards(deal: DealState, seat: int) -> list[Card]:
    """Cards of ``seat``'s hand that its opponent has not seen (R11b)."""
    public = set(deal.public_cards_in_hand(seat))
    return [card for card in deal.hands[seat] if card not in public]


def permute_hidden(deal: DealState, seats: tuple[int, ...], rng: random.Random) -> DealState:
    """The deal with the hidden cards of ``seats``' hands and of the talon permuted.

    The cards are permuted among their places (those hand slots and the
    talon's face-down positions): a random bijection of the hidden cards,
    applied to the hands (kept in canonical order), the talon and the
    recorded deck alike, so the result is another deal consistent with
    everything the viewer has seen. Never the identity when a change is
    possible.
    """
    hidden = [card for seat in seats for card in hidden_cards(deal, seat)] + list(deal.talon)
    shuffled = hidden[:]
    rng.shuffle(shuffled)
    if shuffled == hidden and len(hidden) > 1:
        shuffled = shuffled[1:] + shuffled[:1]
    mapping = dict(zip(hidden, shuffled, strict=True))
    hands = tuple(
        tuple(sort_cards(mapping.get(card, card) for card in hand)) for hand in deal.hands
    )
    return deal._replace(
        hands=hands,
        talon=tuple(mapping[card] for card in deal.talon),
        deck=tuple(mapping.get(card, card) for card in deal.deck),
    )
