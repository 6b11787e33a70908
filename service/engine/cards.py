"""Cards of the 20-card Schnapsen pack, in the notation of docs/rules.md.

A card is written rank then suit: ``AS`` (ace of spades), ``TH`` (ten of
hearts), ``QC``, ``JD``. Ranks, high to low: A, T, K, Q, J. Suits: C, D, H, S.

Cards, ranks and suits are enums, so each exists exactly once: ``Card("AS")``
parses, ``str(card)`` formats, and two equal cards are the same object. That
keeps the engine's hot paths (legal actions, tricks) cheap.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from operator import attrgetter

from .masks import follower_wins
from .words import Word


class Suit(Word):
    """The four suits; the value is the one-letter notation."""

    CLUBS = "C"
    DIAMONDS = "D"
    HEARTS = "H"
    SPADES = "S"

    def __init__(self, code: str) -> None:
        #: The suit's index in the search core's card numbering (``masks``).
        self.number: int = "CDHS".index(code)

    @property
    def word(self) -> str:
        """The suit's name in plain English, for messages: ``hearts``."""
        return self.name.lower()


class Rank(Word):
    """The five ranks, high to low; the value is the one-letter notation."""

    ACE = "A"
    TEN = "T"
    KING = "K"
    QUEEN = "Q"
    JACK = "J"

    @property
    def points(self) -> int:
        """Card points of a card of this rank (R1 notation: A 11 ... J 2)."""
        return _RANK_POINTS[self]


_RANK_POINTS = {Rank.ACE: 11, Rank.TEN: 10, Rank.KING: 4, Rank.QUEEN: 3, Rank.JACK: 2}

#: Suits and ranks in the order the engine lists cards: clubs first, ace first.
SUITS: tuple[Suit, ...] = tuple(Suit)
RANKS: tuple[Rank, ...] = tuple(Rank)


class Card(Word):
    """One of the 20 cards. ``Card("QH")`` parses, ``str(card)`` formats.

    Each card carries its ``rank``, ``suit``, ``points`` and ``strength``
    (higher strength beats lower strength within one suit: A > T > K > Q > J).
    """

    AC = "AC"
    TC = "TC"
    KC = "KC"
    QC = "QC"
    JC = "JC"
    AD = "AD"
    TD = "TD"
    KD = "KD"
    QD = "QD"
    JD = "JD"
    AH = "AH"
    TH = "TH"
    KH = "KH"
    QH = "QH"
    JH = "JH"
    AS = "AS"
    TS = "TS"
    KS = "KS"
    QS = "QS"
    JS = "JS"

    def __init__(self, code: str) -> None:
        self.rank: Rank = Rank(code[0])
        self.suit: Suit = Suit(code[1])
        self.points: int = self.rank.points
        # A=4 ... J=0: the ranks are listed high to low.
        self.strength: int = len(RANKS) - 1 - RANKS.index(self.rank)
        # Position in the canonical order (clubs ace first), for sorting.
        self.order: int = SUITS.index(self.suit) * len(RANKS) + RANKS.index(self.rank)
        #: The card's bit in a hand mask (``masks``).
        self.bit: int = 1 << self.order

    def __repr__(self) -> str:
        return f"Card.{self.value}"

    @classmethod
    def of(cls, rank: Rank, suit: Suit) -> Card:
        """The card of this rank and suit."""
        return _BY_RANK_SUIT[(rank, suit)]

    @classmethod
    def parse(cls, code: str) -> Card:
        """Parse the notation (``"QH"``); raises ``ValueError`` naming the bad text.

        A dict lookup first: reading a stored game parses every card of its snapshot,
        and the enum's own lookup by value costs ten times as much."""
        try:
            return _BY_CODE[code]
        except (KeyError, TypeError):
            pass
        try:
            return cls(code)
        except ValueError:
            raise ValueError(
                f"not a card: {code!r} (write rank then suit, ranks A T K Q J, suits C D H S)"
            ) from None

    def beats(self, other: Card, trump: Suit) -> bool:
        """Whether this card, played second, takes a trick led with ``other`` (R2b)."""
        return follower_wins(other.order, self.order, trump.number)


_BY_RANK_SUIT = {(card.rank, card.suit): card for card in Card}
_BY_CODE: dict[str, Card] = {card.value: card for card in Card}

#: The whole pack in canonical order.
DECK: tuple[Card, ...] = tuple(Card)
_DECK_SET = frozenset(DECK)


def sort_cards(cards: Iterable[Card]) -> list[Card]:
    """Cards in the canonical order (suits C, D, H, S; ace first within a suit)."""
    return sorted(cards, key=_ORDER)


#: A card's place in the canonical order, read at C speed (a deal sorts two hands).
_ORDER = attrgetter("order")


def parse_cards(codes: Iterable[str]) -> tuple[Card, ...]:
    """Parse a list of card codes (at C speed while every code is one: a stored game's
    snapshot holds some forty; else card by card, to name the bad one)."""
    codes = codes if isinstance(codes, (list, tuple)) else list(codes)
    try:
        return tuple(map(_BY_CODE.__getitem__, codes))
    except (KeyError, TypeError):
        return tuple(Card.parse(code) for code in codes)


#: A card's code, read at C speed (``.value`` is a descriptor of Python's enum).
_CODE = attrgetter("_value_")


def format_cards(cards: Iterable[Card]) -> list[str]:
    """Card codes, ready for JSON."""
    return list(map(_CODE, cards))


def describe_cards(cards: Iterable[Card]) -> str:
    """``AH, TH``: cards for a human-readable message, in canonical order."""
    return ", ".join(card.value for card in sort_cards(cards))


def check_deck(deck: Sequence[Card]) -> tuple[Card, ...]:
    """Return the deck as a tuple if it holds each of the 20 cards exactly once.

    Raises ``ValueError`` naming the missing and repeated cards otherwise.
    """
    cards = tuple(deck)
    try:
        # The common case in one C-level pass (a deck is checked once a deal).
        if len(cards) == len(DECK) and len(_DECK_SET.intersection(cards)) == len(DECK):
            return cards
    except TypeError:  # an unhashable stranger: named below
        pass
    strangers = [item for item in cards if not isinstance(item, Card)]
    if strangers:
        raise ValueError(f"R1a: a deck holds Card values, not {strangers[0]!r}")
    if len(cards) == len(DECK) and len(set(cards)) == len(DECK):
        return cards
    seen: set[Card] = set()
    repeated = []
    for card in cards:
        if card in seen:
            repeated.append(card)
        seen.add(card)
    missing = [card for card in DECK if card not in seen]
    problems = [f"{len(cards)} cards given, 20 needed"] if len(cards) != len(DECK) else []
    if repeated:
        problems.append(f"repeated: {describe_cards(repeated)}")
    if missing:
        problems.append(f"missing: {describe_cards(missing)}")
    raise ValueError("R1a: a deck holds each of the 20 cards once (" + "; ".join(problems) + ")")
