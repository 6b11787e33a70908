"""Self-play (service/bots/self_play.py): a game played out turn by turn to its winner, its
decks the generator's alone, every turn answered before the next."""

from __future__ import annotations

import random

import pytest

from service.bots.self_play import SelfPlay, TurnNotPlayedError
from service.engine import DECK, Card, Variant, legal_actions


def decks_of(game: SelfPlay, pick: int) -> list[tuple[Card, ...]]:
    """Each deal's deck, the game played by always taking legal action ``pick``."""
    decks = []
    for turn in game.turns():
        if turn.deal.number > len(decks):
            decks.append(turn.deal.deck)
        game.play(legal_actions(turn.state)[pick])
    return decks


@pytest.mark.parametrize("variant", list(Variant))
def test_a_game_goes_turn_by_turn_to_its_winner(variant):
    game = SelfPlay.seated(variant, random.Random(3))
    turns = 0
    for turn in game.turns():
        assert turn.state.deal is turn.deal and turn.deal.result is None
        assert turn.seat == turn.state.to_move
        game.play(random.Random(turns).choice(legal_actions(turn.state)))
        turns += 1
    assert game.state.winner is not None and turns > 10
    assert game.state.seated == (True, True)


def test_the_decks_are_the_generators_whatever_the_players_choose():
    first = decks_of(SelfPlay.seated(Variant.HEAD, random.Random(8)), 0)
    last = decks_of(SelfPlay.seated(Variant.HEAD, random.Random(8)), -1)
    dealt = min(len(first), len(last))
    assert dealt >= 2 and first[:dealt] == last[:dealt]
    assert len(first[0]) == len(set(first[0])) == len(DECK) and first[0] != first[1]
    assert decks_of(SelfPlay.seated(Variant.HEAD, random.Random(9)), 0)[0] != first[0]


def test_the_next_turn_is_refused_until_this_one_is_played():
    turns = SelfPlay.seated(Variant.TRACKED, random.Random(4)).turns()
    next(turns)
    with pytest.raises(TurnNotPlayedError, match="was not played"):
        next(turns)
