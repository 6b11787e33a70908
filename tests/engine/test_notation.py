"""The public notation: cards, actions (docs/rules.md, "Notation"), and trick strength (R2b)."""

import itertools
import json

import pytest

from service.engine import DECK, Action, ActionType, Card, Rank, Suit

RANKS = "ATKQJ"
SUITS = "CDHS"
POINTS = {"A": 11, "T": 10, "K": 4, "Q": 3, "J": 2}
ALL_CODES = [rank + suit for suit in SUITS for rank in RANKS]


def test_pack_has_20_cards_worth_120_points():
    assert len(DECK) == 20
    assert sorted(card.value for card in DECK) == sorted(ALL_CODES)
    assert sum(card.points for card in DECK) == 120


@pytest.mark.parametrize("code", ALL_CODES)
def test_card_code_round_trip(code):
    card = Card.parse(code)
    assert str(card) == code
    assert card.value == code
    assert Card.parse(str(card)) is card
    assert card.rank is Rank(code[0])
    assert card.suit is Suit(code[1])
    assert card.points == POINTS[code[0]]
    assert Card.of(card.rank, card.suit) is card


@pytest.mark.parametrize(
    "bad",
    ["", "A", "AX", "XS", "1H", "10H", "ah", "aH", "Ah", "AH ", " AH", "AHS", "HA", "JOKER", "9S"],
)
def test_bad_card_code_raises_value_error(bad):
    with pytest.raises(ValueError) as caught:
        Card.parse(bad)
    assert repr(bad) in str(caught.value)


def test_rank_order_and_points():
    for suit in SUITS:
        ordered = [Card.parse(rank + suit) for rank in RANKS]
        strengths = [card.strength for card in ordered]
        assert strengths == sorted(strengths, reverse=True)
        assert len(set(strengths)) == 5
    assert [Card.parse(r + "H").points for r in RANKS] == [11, 10, 4, 3, 2]


def _reference_beats(lead: str, follow: str, trump: str) -> bool:
    """R2b written out independently: does ``follow`` take a trick led with ``lead``?"""
    if follow[1] == lead[1]:
        return RANKS.index(follow[0]) < RANKS.index(lead[0])
    return follow[1] == trump


@pytest.mark.parametrize("trump", SUITS)
def test_r2b_trick_winner_for_every_pair_of_cards(trump):
    trump_suit = Suit(trump)
    for lead, follow in itertools.permutations(ALL_CODES, 2):
        beats = Card.parse(follow).beats(Card.parse(lead), trump_suit)
        assert beats == _reference_beats(lead, follow, trump), (lead, follow, trump)


def test_r2b_other_non_trump_suit_never_wins():
    trump = Suit.SPADES
    for lead, follow in itertools.permutations(DECK, 2):
        if follow.suit is not lead.suit and follow.suit is not trump:
            assert not follow.beats(lead, trump), (lead, follow)
    # the strongest off-suit card loses to the weakest card of the suit led
    assert not Card.AC.beats(Card.JH, trump)
    # the weakest trump beats the strongest card of another suit
    assert Card.JS.beats(Card.AH, trump)
    # ten over king
    assert Card.TH.beats(Card.KH, trump)
    assert not Card.KH.beats(Card.TH, trump)


# -- actions ---------------------------------------------------------------

ALL_ACTIONS = (
    [Action.play(card) for card in Card]
    + [Action.declare_marriage(suit) for suit in Suit]
    + [
        Action(ActionType.EXCHANGE_TRUMP_JACK),
        Action(ActionType.CLOSE_TALON),
        Action(ActionType.CLAIM),
        Action(ActionType.ACCEPT_LAST_TRICK),
    ]
)


@pytest.mark.parametrize("act", ALL_ACTIONS, ids=str)
def test_action_dict_round_trip(act):
    data = act.to_dict()
    assert json.loads(json.dumps(data)) == data
    again = Action.from_dict(data)
    assert again == act
    assert again.to_dict() == data


def test_action_dict_forms_match_the_contract():
    assert Action.play(Card.QH).to_dict() == {"type": "play", "card": "QH"}
    assert Action.declare_marriage(Suit.HEARTS).to_dict() == {
        "type": "declare_marriage",
        "suit": "H",
    }
    assert Action.from_dict({"type": "exchange_trump_jack"}).to_dict() == {
        "type": "exchange_trump_jack"
    }
    assert Action.from_dict({"type": "close_talon"}).type is ActionType.CLOSE_TALON
    assert Action.from_dict({"type": "claim"}).type is ActionType.CLAIM
    assert Action.from_dict({"type": "accept_last_trick"}).type is ActionType.ACCEPT_LAST_TRICK
    assert Action.from_dict({"type": "play", "card": "TS"}) == Action(ActionType.PLAY, card=Card.TS)
    assert len({act.to_dict()["type"] for act in ALL_ACTIONS}) == 6


@pytest.mark.parametrize(
    "data",
    [
        {},
        {"type": None},
        {"type": "pass"},
        {"type": "PLAY", "card": "QH"},
        {"type": "play"},
        {"type": "play", "card": "QX"},
        {"type": "play", "card": "qh"},
        {"type": "play", "card": 10},
        {"type": "play", "card": None},
        {"type": "declare_marriage"},
        {"type": "declare_marriage", "suit": "X"},
        {"type": "declare_marriage", "suit": "hearts"},
        {"type": "declare_marriage", "suit": None},
    ],
)
def test_action_from_bad_dict_raises_value_error(data):
    with pytest.raises(ValueError):
        Action.from_dict(data)
