"""A position as numbers for the learned value (``value_model``): only what one seat knows.

A searching bot that stops at the start of a trick while the talon is open
asks ``value_model.value`` for the game points its seat can expect from the
deal. That value must depend on what the seat may know (R11) and nothing
else, or the bot would play on knowledge it cannot have: so the encoding
reads, from a ``FastDeal``, only

- the seat's own hand;
- the cards played to tricks, split by who won them (public, R11a), and
  from them both sides' trick points and whether each side has a trick;
- the cards the opponent has shown and still holds (``FastDeal.shown``:
  marriage cards, the card taken by the exchange);
- the face-up card while it lies under the talon (or out of play after a close);
- the marriage points each side declared, the talon's size, who leads,
  the variant (head counting or tracked), a close and its frozen facts;
- the game points each side still needs (7..1: the match score).

Never the opponent's other cards, nor the talon's cards or order: a deal
whose unseen cards are placed differently encodes the same
(tests/bots/test_features.py proves it over positions from real play).

Suits are relabelled so that trumps come first (then the other three suits
in their usual order): the rules treat every trump suit alike, so the model
learns one trump suit rather than four. Inputs are scaled to about 0..1.
"""

from __future__ import annotations

from service.engine.core import FastDeal
from service.engine.knowledge import SeatView
from service.engine.masks import BIT
from service.engine.points import WINNING_POINTS

#: The five ranks as ``masks`` orders them (index 0 the ace ... 4 the jack).
RANKS = ("A", "T", "K", "Q", "J")
#: The suits after relabelling: trumps first, then the other three in C, D, H, S order.
SUIT_SLOTS = ("trump", "side1", "side2", "side3")
#: The card groups, each 20 inputs (one per card, trumps first).
CARD_GROUPS = (
    "hand",  # the seat's own cards
    "won_by_me",  # cards in the tricks the seat won
    "won_by_opponent",  # cards in the tricks the opponent won
    "opponent_shown",  # cards the opponent has shown and not played
    "turn_up",  # the face-up card, while nobody has drawn it
)
#: The inputs after the card groups, in order.
SCALARS = (
    "my_trick_points",  # / 66
    "opponent_trick_points",  # / 66
    "my_card_points",  # trick points + marriages that count (R7a, R6d), / 66
    "opponent_card_points",  # / 66
    "my_marriage_points",  # declared, counted or not, / 40
    "opponent_marriage_points",  # / 40
    "i_have_a_trick",
    "opponent_has_a_trick",
    "talon_size",  # face-down cards left, / 9
    "i_lead",
    "head_counting",  # 1: head counting (R7d), 0: tracked (R7e)
    "i_closed",
    "opponent_closed",
    "at_close_points",  # the closer's opponent's card points at the close (R9b), / 66
    "at_close_had_trick",
    "my_need",  # game points the seat still needs, / 7
    "my_need_1",
    "my_need_2",
    "my_need_3_or_more",
    "opponent_need",  # / 7
    "opponent_need_1",
    "opponent_need_2",
    "opponent_need_3_or_more",
)
#: The name of every input, in order: the model's input layout (its manifest records it).
LAYOUT: tuple[str, ...] = (
    *(f"{group}.{slot}.{rank}" for group in CARD_GROUPS for slot in SUIT_SLOTS for rank in RANKS),
    *SCALARS,
)
SIZE = len(LAYOUT)
#: Where the scalars start.
_SCALARS_AT = 20 * len(CARD_GROUPS)
#: ``_SLOT[trump][card]``: the card's place within a group once trumps come first.
_SLOT: tuple[tuple[int, ...], ...] = tuple(
    tuple(
        5 * ([trump] + [s for s in range(4) if s != trump]).index(card // 5) + card % 5
        for card in range(20)
    )
    for trump in range(4)
)
#: A full talon: the 9 face-down cards left after dealing 5 + 5 and the turn-up.
_FULL_TALON = 9
_TOP_MARRIAGES = 40.0


def _set_cards(out: list[float], base: int, mask: int, slot: tuple[int, ...]) -> None:
    """Set the inputs of the cards of ``mask`` in the group starting at ``base``."""
    while mask:
        low = mask & -mask
        out[base + slot[low.bit_length() - 1]] = 1.0
        mask ^= low


def encode(deal: FastDeal, seat: int, game_points: tuple[int, int]) -> list[float]:
    """The inputs (``LAYOUT``) of ``deal`` seen from ``seat``, with ``game_points`` still
    needed per seat (seat 0's, seat 1's: ``GameState.game_points``).

    Meant for a trick's start (no card led); reads only what ``seat`` may know (R11).
    """
    opponent = 1 - seat
    slot = _SLOT[deal.trump]
    out = [0.0] * SIZE
    _set_cards(out, 0, deal.hands[seat], slot)
    mine = 0
    theirs = 0
    for _leader, lead, follow, winner in deal.tricks:
        if winner == seat:
            mine |= BIT[lead] | BIT[follow]
        else:
            theirs |= BIT[lead] | BIT[follow]
    _set_cards(out, 20, mine, slot)
    _set_cards(out, 40, theirs, slot)
    _set_cards(out, 60, deal.shown[opponent] & ~deal.played, slot)
    if deal.drawn_by < 0:
        out[80 + slot[deal.turn_up]] = 1.0

    at = _SCALARS_AT
    win = float(WINNING_POINTS)
    out[at] = deal.trick_points[seat] / win
    out[at + 1] = deal.trick_points[opponent] / win
    out[at + 2] = deal.card_points(seat) / win
    out[at + 3] = deal.card_points(opponent) / win
    out[at + 4] = deal.marriage_points[seat] / _TOP_MARRIAGES
    out[at + 5] = deal.marriage_points[opponent] / _TOP_MARRIAGES
    out[at + 6] = 1.0 if deal.tricks_won[seat] else 0.0
    out[at + 7] = 1.0 if deal.tricks_won[opponent] else 0.0
    out[at + 8] = deal.talon_size / _FULL_TALON
    out[at + 9] = 1.0 if deal.leader == seat else 0.0
    out[at + 10] = 1.0 if deal.head else 0.0
    if deal.closed_by >= 0:
        out[at + 11 + (deal.closed_by != seat)] = 1.0
        if deal.at_close is not None:
            out[at + 13] = deal.at_close[0] / win
            out[at + 14] = 1.0 if deal.at_close[1] else 0.0
    _set_need(out, at + 15, game_points[seat])
    _set_need(out, at + 19, game_points[opponent])
    return out


def _set_need(out: list[float], at: int, need: int) -> None:
    """Game points still needed: scaled, and one-hot 1, 2, 3+ (a deal wins at most 3)."""
    out[at] = need / 7.0
    out[at + min(max(need, 1), 3)] = 1.0


def encode_view(view: SeatView) -> list[float]:
    """``encode`` of a seat's view: a deal consistent with it, its unseen cards placed in
    the canonical order (``SeatView.sample_deal``), which ``encode`` never reads."""
    deal = FastDeal.from_engine(view.sample_deal(), view.variant)
    return encode(deal, view.seat, view.game_points)
