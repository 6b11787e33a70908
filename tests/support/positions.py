"""Random positions for the bot tests: whole games of random legal play, and the same
position with the cards a seat cannot see shuffled."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator

from service.bots.self_play import SelfPlay
from service.engine import ActionType, GameState, Variant, legal_actions
from service.engine.actions import Action
from service.engine.knowledge import seat_view


def patient_choice(rng: random.Random, legal: list[Action]) -> Action:
    """A random legal action that claims and closes rarely, so deals get long."""
    if rng.random() < 0.9:
        calm = [a for a in legal if a.type not in (ActionType.CLAIM, ActionType.CLOSE_TALON)]
        if calm:
            return rng.choice(calm)
    return rng.choice(legal)


def random_states(
    seed: int,
    variant: Variant,
    choose: Callable[[random.Random, list[Action]], Action] = patient_choice,
) -> Iterator[GameState]:
    """Every state of one random game in which a deal is running and a seat is to move.

    ``choose`` picks each action (``random.Random.choice``: uniformly, claims included).
    """
    rng = random.Random(seed)
    game = SelfPlay.seated(variant, rng)
    for turn in game.turns():
        yield turn.state
        game.play(choose(rng, legal_actions(turn.state)))


def sampled_states(seed: int, count: int, every: int = 3) -> list[GameState]:
    """About ``count`` states from random games of both variants (every ``every``-th state)."""
    rng = random.Random(seed)
    states: list[GameState] = []
    game = 0
    while len(states) < count:
        variant = (Variant.HEAD, Variant.TRACKED)[game % 2]
        for index, state in enumerate(random_states(rng.randrange(2**32), variant)):
            if index % every == rng.randrange(every):
                states.append(state)
        game += 1
    return states[:count]


def permuted(state: GameState, seat: int, rng: random.Random) -> GameState:
    """The same game with the cards hidden from ``seat`` shuffled among their places."""
    deal = state.deal
    view = seat_view(state, seat)
    known = set(view.known_opponent_cards())
    hidden_hand = [c for c in deal.hands[1 - seat] if c not in known]
    hidden = hidden_hand + list(deal.talon)
    rng.shuffle(hidden)
    other = view.deal_with(hidden[: len(hidden_hand)], hidden[len(hidden_hand) :])
    return state._replace(deal=other._replace(deck=deal.deck))
