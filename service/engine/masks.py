"""The rules of play on cards as ints and hands as bit masks, written once.

Every reader of the rules uses these functions: the engine's immutable face
(``rules``), the search core (``core.FastDeal``) and the bots' endgame
solver. Standard library only, and no engine types, so that any module may
import it.

- a card is its canonical index 0..19 (``Card.order``): ``suit * 5 + rank``,
  rank 0 the ace ... 4 the jack, so a lower index in a suit is a stronger card;
- a hand is a 20-bit mask, bit ``c`` set when card ``c`` is held;
- an action is an int: 0..19 play that card, then ``EXCHANGE``, ``CLOSE``,
  ``MARRIAGE + suit``, ``CLAIM``, ``ACCEPT``; a set of actions is a mask of
  those bits, and ascending order is the engine's order of legal actions.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

# -- cards ---------------------------------------------------------------------

ACE, TEN, KING, QUEEN, JACK = range(5)
#: Card points by card index (R1 notation: A 11, T 10, K 4, Q 3, J 2).
POINTS: tuple[int, ...] = tuple((11, 10, 4, 3, 2)[c % 5] for c in range(20))
#: Suit index (0 clubs, 1 diamonds, 2 hearts, 3 spades) by card index.
SUIT: tuple[int, ...] = tuple(c // 5 for c in range(20))
#: All five cards of a suit, by suit index.
SUIT_MASK: tuple[int, ...] = tuple(0b11111 << (5 * s) for s in range(4))
#: The cards of the same suit that beat card ``c`` (R5a "a higher card").
HIGHER: tuple[int, ...] = tuple(((1 << (c % 5)) - 1) << (5 * (c // 5)) for c in range(20))
ALL_CARDS = (1 << 20) - 1
#: The bit of each card index (``1 << c``, looked up: a shift makes a new int).
BIT: tuple[int, ...] = tuple(1 << c for c in range(20))
#: Every King.
KINGS_MASK = sum(1 << (5 * s + KING) for s in range(4))
#: Bit masks of the King and Queen of each suit: a marriage.
PAIR_MASK: tuple[int, ...] = tuple((1 << (5 * s + KING)) | (1 << (5 * s + QUEEN)) for s in range(4))

# -- actions -------------------------------------------------------------------

EXCHANGE = 20
CLOSE = 21
MARRIAGE = 22  # + suit index: 22..25
CLAIM = 26
ACCEPT = 27
EXCHANGE_BIT = 1 << EXCHANGE
CLOSE_BIT = 1 << CLOSE
CLAIM_BIT = 1 << CLAIM
ACCEPT_BIT = 1 << ACCEPT


def bits(mask: int) -> list[int]:
    """The set bits of a mask, ascending: card indices of a hand, or action ints."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


# -- the rules -----------------------------------------------------------------


def _lead_extras(held: int, trump: int, talon_open: bool) -> int:
    """The actions besides playing a card that ``held`` allows on lead (R4a, R6), as a mask.

    ``held`` is a hand (only its Kings, Queens and trump Jack matter): the
    exchange needs the trump Jack and an open talon, closing an open talon,
    and a marriage the King and Queen of one suit.
    """
    mask = 0
    if talon_open:
        if held >> (5 * trump + JACK) & 1:
            mask |= EXCHANGE_BIT
        mask |= CLOSE_BIT
    for suit in range(4):
        if held & PAIR_MASK[suit] == PAIR_MASK[suit]:
            mask |= 1 << (MARRIAGE + suit)
    return mask


def _submasks(mask: int) -> list[int]:
    """Every mask whose set bits are some of ``mask``'s."""
    out = [0]
    for bit in bits(mask):
        out += [sub | 1 << bit for sub in out]
    return out


#: The cards that decide ``_lead_extras`` for each trump: every King and Queen, the trump Jack.
_EXTRAS_CARDS: tuple[int, ...] = tuple(
    sum(PAIR_MASK) | 1 << (5 * trump + JACK) for trump in range(4)
)
#: ``_LEAD_EXTRAS[2 * trump + talon_open][hand & _EXTRAS_CARDS[trump]]``: ``_lead_extras``
#: looked up, not computed (one look-up per lead in a search).
_LEAD_EXTRAS: tuple[dict[int, int], ...] = tuple(
    {held: _lead_extras(held, trump, talon_open) for held in _submasks(_EXTRAS_CARDS[trump])}
    for trump in range(4)
    for talon_open in (False, True)
)


def lead_mask(
    hand: int, trump: int, talon_open: bool, declared: int, head: bool, any_trick: bool
) -> int:
    """The actions of the seat on lead (R4a, R5c, R6, R7b, R8a), as a mask.

    ``declared`` is the suit of a marriage just declared (-1 if none): then only
    its King or Queen, or a claim. ``any_trick``: a trick has been played in
    this deal (the first lead allows a claim only after a marriage). ``head``:
    the head-counting variant, where claims are explicit (R7d).
    """
    if declared >= 0:
        mask = hand & PAIR_MASK[declared]
        return mask | CLAIM_BIT if head else mask
    if not hand:  # R8a: the last trick is done and its winner chooses
        return CLAIM_BIT | ACCEPT_BIT
    mask = hand | _LEAD_EXTRAS[2 * trump + talon_open][hand & _EXTRAS_CARDS[trump]]
    return mask | CLAIM_BIT if head and any_trick else mask


def follow_mask(hand: int, lead: int, trump: int, strict: bool) -> int:
    """The cards the follower may play to ``lead`` (R4a, R5a, R5b), as a mask.

    While the talon is open any card; once it is closed or exhausted
    (``strict``): a higher card of the suit led, else any of that suit, else a
    trump, else any card.
    """
    if not strict:
        return hand
    same = hand & SUIT_MASK[SUIT[lead]]
    if same:
        return (same & HIGHER[lead]) or same
    return (hand & SUIT_MASK[trump]) or hand


def _beaten_by(lead: int, trump: int) -> int:
    """R2b: the higher cards of the suit led win, and every trump if a plain suit was led."""
    return HIGHER[lead] | (SUIT_MASK[trump] if SUIT[lead] != trump else 0)


#: ``BEATS[trump][lead]``: the mask of the cards that, played second, take the trick (R2b).
#: A table, not a function: the search looks it up once per trick or per answer.
BEATS: tuple[tuple[int, ...], ...] = tuple(
    tuple(_beaten_by(lead, trump) for lead in range(20)) for trump in range(4)
)


def follower_wins(lead: int, follow: int, trump: int) -> bool:
    """R2b: the higher card of the suit led wins, unless a trump is played."""
    return bool(BEATS[trump][lead] >> follow & 1)


Drawn = TypeVar("Drawn")


def draws(talon: Sequence[Drawn], pos: int, turn_up: Drawn) -> tuple[Drawn, Drawn, bool]:
    """R3a, R3b: (the winner's card, the loser's card, whether the talon is now exhausted).

    ``talon[pos:]`` is the face-down talon, top first. The winner draws the top
    card; the loser the next, or the trump card when the top card was the last.
    """
    if pos + 1 < len(talon):
        return talon[pos], talon[pos + 1], False
    return talon[pos], turn_up, True
