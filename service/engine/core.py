"""The search core: one deal as small ints, changed in place, for bots that search.

The engine's ``DealState`` is clean and immutable but costs microseconds per
action; a bot that searches plays millions of actions. ``FastDeal`` is the
same deal as a mutable object of small ints (cards as indices, hands as bit
masks, actions as ints: see ``masks``), with ``apply`` in place and a cheap
``copy``. It keeps no rules of its own: legal actions, the trick's winner
and drawing come from ``masks``, the end of a deal and its game points from
``outcomes``, the numbers from ``points``; the engine's immutable face uses
the same functions, so the two cannot drift apart.

``FastDeal.from_engine`` and ``FastDeal.to_engine`` convert; the recorded
corpus (tests/data) replays through both.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

from . import actions as engine_actions
from .actions import (
    ACCEPT_LAST_TRICK,
    CLOSE_TALON,
    DECLARE_MARRIAGE,
    EXCHANGE_TRUMP_JACK,
    PLAY,
    Action,
    ActionType,
)
from .cards import DECK, SUITS, Card
from .masks import (
    ACCEPT,
    BEATS,
    BIT,
    CLAIM,
    CLOSE,
    EXCHANGE,
    JACK,
    MARRIAGE,
    PAIR_MASK,
    POINTS,
    SUIT,
    bits,
    draws,
    follow_mask,
    lead_mask,
)
from .outcomes import DealEndReason, claim_outcome, ran_out_outcome
from .points import WINNING_POINTS, marriage_points
from .scoring import deal_result
from .state import HAND_SIZE, DealResult, DealState, Marriage, Trick, Variant

__all__ = [
    "FastDeal",
    "FastResult",
    "action_of",
    "card_of",
    "cards_in",
    "codes_in",
    "engine_action",
    "mask_of",
]

T = TypeVar("T")

#: A finished deal: (winner, game points 1-3, reason, claimant or -1).
FastResult = tuple[int, int, DealEndReason, int]

#: Card indices of a mask, ascending (the canonical order).
cards_in = bits


def card_of(index: int) -> Card:
    """The engine's card for a card index."""
    return DECK[index]


def mask_of(cards: Sequence[Card]) -> int:
    """The bit mask of a set of engine cards."""
    mask = 0
    for card in cards:
        mask |= card.bit
    return mask


#: The bit mask of a hand.
hand_mask = mask_of


def action_of(action: Action) -> int:
    """The int of an engine action."""
    kind = action.type
    if kind is ActionType.PLAY:
        card = action.card
        assert card is not None  # a PLAY action always names its card
        return card.order
    if kind is ActionType.DECLARE_MARRIAGE:
        return MARRIAGE + SUITS.index(action.suit)
    return _SIMPLE_CODES[kind]


def engine_action(code: int) -> Action:
    """The engine action of an action int."""
    return ENGINE_ACTIONS[code]


_SIMPLE_CODES = {
    ActionType.EXCHANGE_TRUMP_JACK: EXCHANGE,
    ActionType.CLOSE_TALON: CLOSE,
    ActionType.CLAIM: CLAIM,
    ActionType.ACCEPT_LAST_TRICK: ACCEPT,
}
#: The engine's action of each action int.
ENGINE_ACTIONS: tuple[Action, ...] = (
    *(PLAY[card] for card in DECK),
    EXCHANGE_TRUMP_JACK,
    CLOSE_TALON,
    *(DECLARE_MARRIAGE[suit] for suit in SUITS),
    engine_actions.CLAIM,
    ACCEPT_LAST_TRICK,
)


def _chunk(base: int, width: int, of: Sequence[T]) -> tuple[tuple[T, ...], ...]:
    """For each ``width``-bit mask, the items of ``of`` its bits name, from bit ``base`` on."""
    return tuple(tuple(of[base + c] for c in bits(m)) for m in range(1 << width))


#: Ten bits at a time: a mask's actions (or action ints) in three look-ups.
_LOW, _MIDDLE, _HIGH = (_chunk(b, w, ENGINE_ACTIONS) for b, w in ((0, 10), (10, 10), (20, 8)))
_LOW_CODES, _MIDDLE_CODES, _HIGH_CODES = (
    _chunk(b, w, range(28)) for b, w in ((0, 10), (10, 10), (20, 8))
)


def actions_in(mask: int) -> list[Action]:
    """The engine's actions of a mask of action bits, in the engine's order.

    Three table look-ups of ten bits each: the engine's immutable face lists
    its legal actions this way, one per request and millions in a search.
    """
    return [*_LOW[mask & 1023], *_MIDDLE[mask >> 10 & 1023], *_HIGH[mask >> 20]]


def codes_in(mask: int) -> list[int]:
    """The action ints of a mask of action bits, ascending (the engine's order)."""
    return [*_LOW_CODES[mask & 1023], *_MIDDLE_CODES[mask >> 10 & 1023], *_HIGH_CODES[mask >> 20]]


class FastDeal:
    """One deal, everything included, as small ints; ``apply`` changes it in place.

    ``copy`` is cheap: search copies a deal before trying an action. Fields
    mirror ``DealState``; ``-1`` stands for "none" (no lead card, nobody
    closed, ...). ``shown`` holds, per seat, the cards the opponent has seen
    in that hand (R11a): marriage cards, the card taken by the exchange, the
    turn-up drawn at the end of the talon.
    """

    __slots__ = (
        "head",
        "trump",
        "hands",
        "talon",
        "talon_pos",
        "turn_up",
        "drawn_by",
        "leader",
        "lead",
        "trick_points",
        "tricks_won",
        "marriage_points",
        "declared",
        "closed_by",
        "strict",
        "at_close",
        "exchanged_by",
        "exchanged_card",
        "shown",
        "played",
        "tricks",
        "marriages",
        "result",
        "number",
        "dealer",
    )

    head: bool
    trump: int
    hands: list[int]
    talon: Sequence[int]
    talon_pos: int
    turn_up: int
    drawn_by: int
    leader: int
    lead: int
    trick_points: list[int]
    tricks_won: list[int]
    marriage_points: list[int]
    declared: int
    closed_by: int
    #: Closed or exhausted: the follower must follow, beat, trump (R5), and nobody draws.
    strict: bool
    at_close: tuple[int, int] | None
    exchanged_by: int
    exchanged_card: int
    shown: list[int]
    played: int
    tricks: list[tuple[int, int, int, int]]
    marriages: list[tuple[int, int]]
    result: FastResult | None
    number: int
    dealer: int

    # -- building ------------------------------------------------------------

    def __init__(self) -> None:
        """An empty deal: ``from_deck``, ``from_engine`` and ``copy`` set every field.

        (A constructor rather than ``__new__``, so the compiled core builds it too.)
        """

    @classmethod
    def from_deck(cls, deck: Sequence[int], dealer: int, head: bool = True) -> FastDeal:
        """A fresh deal from a deck order of card indices (R1, positions as docs/rules.md numbers them)."""
        deal = cls()
        # The first five cards to the dealer's opponent, the next five to the
        # dealer (HAND_SIZE, spelled out: a search deals millions of times).
        b = BIT
        forehand = b[deck[0]] | b[deck[1]] | b[deck[2]] | b[deck[3]] | b[deck[4]]
        dealt = b[deck[5]] | b[deck[6]] | b[deck[7]] | b[deck[8]] | b[deck[9]]
        turn_up = deck[2 * HAND_SIZE]
        deal.head = head
        deal.trump = SUIT[turn_up]
        deal.hands = [dealt, forehand] if dealer == 0 else [forehand, dealt]
        deal.talon = deck[2 * HAND_SIZE + 1 :]  # a new list or tuple: never changed in place
        deal.talon_pos = 0
        deal.turn_up = turn_up
        deal.drawn_by = -1
        deal.leader = 1 - dealer
        deal.lead = -1
        deal.trick_points = [0, 0]
        deal.tricks_won = [0, 0]
        deal.marriage_points = [0, 0]
        deal.declared = -1
        deal.closed_by = -1
        deal.strict = False
        deal.at_close = None
        deal.exchanged_by = -1
        deal.exchanged_card = -1
        deal.shown = [0, 0]
        deal.played = 0
        deal.tricks = []
        deal.marriages = []
        deal.result = None
        deal.number = 1
        deal.dealer = dealer
        return deal

    @classmethod
    def from_engine(cls, deal: DealState, variant: Variant) -> FastDeal:
        """The fast twin of an engine deal (finished deals keep their result)."""
        fast = cls()
        fast.head = variant is Variant.HEAD
        fast.trump = SUITS.index(deal.trump)
        fast.hands = [mask_of(deal.hands[0]), mask_of(deal.hands[1])]
        fast.talon = [card.order for card in deal.talon]
        fast.talon_pos = 0
        fast.turn_up = deal.turn_up.order
        fast.drawn_by = -1 if deal.turn_up_drawn_by is None else deal.turn_up_drawn_by
        fast.leader = deal.leader
        fast.lead = -1 if deal.lead_card is None else deal.lead_card.order
        fast.trick_points = list(deal.trick_points)
        fast.tricks_won = [deal.tricks_won(0), deal.tricks_won(1)]
        fast.marriage_points = [deal.marriage_points(0), deal.marriage_points(1)]
        fast.declared = -1 if deal.declared is None else SUITS.index(deal.declared)
        fast.closed_by = -1 if deal.closed_by is None else deal.closed_by
        fast.strict = fast.closed_by >= 0 or fast.drawn_by >= 0
        fast.at_close = deal.at_close
        fast.exchanged_by = -1 if deal.exchanged_by is None else deal.exchanged_by
        fast.exchanged_card = -1 if deal.exchanged_card is None else deal.exchanged_card.order
        fast.shown = [mask_of(deal.public_cards_in_hand(0)), mask_of(deal.public_cards_in_hand(1))]
        played = 0
        for trick in deal.tricks:
            played |= (1 << trick.lead.order) | (1 << trick.follow.order)
        if deal.lead_card is not None:
            played |= 1 << deal.lead_card.order
        fast.played = played
        fast.tricks = [
            (trick.leader, trick.lead.order, trick.follow.order, trick.winner)
            for trick in deal.tricks
        ]
        fast.marriages = [(m.seat, SUITS.index(m.suit)) for m in deal.marriages]
        fast.result = None if deal.result is None else _fast_result(deal.result)
        fast.number = deal.number
        fast.dealer = deal.dealer
        return fast

    def to_engine(self) -> DealState:
        """The engine's ``DealState`` of this deal (``deck`` is empty: not known here)."""
        trump = SUITS[self.trump]
        marriages = tuple(
            Marriage(seat=seat, suit=SUITS[s], points=marriage_points(s == self.trump))
            for seat, s in self.marriages
        )
        tricks = tuple(
            Trick(leader=leader, lead=DECK[lead], follow=DECK[follow], winner=winner)
            for leader, lead, follow, winner in self.tricks
        )
        deal = DealState(
            number=self.number,
            dealer=self.dealer,
            deck=(),
            trump=trump,
            hands=(
                tuple(DECK[c] for c in cards_in(self.hands[0])),
                tuple(DECK[c] for c in cards_in(self.hands[1])),
            ),
            talon=tuple(DECK[c] for c in self.talon[self.talon_pos :]),
            turn_up=DECK[self.turn_up],
            turn_up_drawn_by=None if self.drawn_by < 0 else self.drawn_by,
            leader=self.leader,
            lead_card=None if self.lead < 0 else DECK[self.lead],
            tricks=tricks,
            trick_points=(self.trick_points[0], self.trick_points[1]),
            marriages=marriages,
            declared=None if self.declared < 0 else SUITS[self.declared],
            closed_by=None if self.closed_by < 0 else self.closed_by,
            at_close=self.at_close,
            exchanged_by=None if self.exchanged_by < 0 else self.exchanged_by,
            exchanged_card=None if self.exchanged_card < 0 else DECK[self.exchanged_card],
            result=None,
        )
        if self.result is not None:
            winner, game_points, reason, claimant = self.result
            claimed_by = None if claimant < 0 else claimant
            deal = deal._replace(result=deal_result(deal, winner, game_points, reason, claimed_by))
        return deal

    def engine_result(self) -> DealResult | None:
        """The engine's ``DealResult`` of a finished deal, None while it runs."""
        return None if self.result is None else self.to_engine().result

    def copy(self) -> FastDeal:
        """An independent copy (lists copied, ints shared)."""
        other = FastDeal()
        # The lists, copied:
        other.hands = self.hands[:]
        other.trick_points = self.trick_points[:]
        other.tricks_won = self.tricks_won[:]
        other.marriage_points = self.marriage_points[:]
        other.shown = self.shown[:]
        other.tricks = self.tricks[:]
        other.marriages = self.marriages[:]
        # The rest is ints, bools and tuples, shared:
        other.head = self.head
        other.trump = self.trump
        other.talon = self.talon  # never changed in place: drawing moves talon_pos
        other.talon_pos = self.talon_pos
        other.turn_up = self.turn_up
        other.drawn_by = self.drawn_by
        other.leader = self.leader
        other.lead = self.lead
        other.declared = self.declared
        other.closed_by = self.closed_by
        other.strict = self.strict
        other.at_close = self.at_close
        other.exchanged_by = self.exchanged_by
        other.exchanged_card = self.exchanged_card
        other.played = self.played
        other.result = self.result
        other.number = self.number
        other.dealer = self.dealer
        return other

    # -- reading -------------------------------------------------------------

    @property
    def talon_open(self) -> bool:
        """Neither closed nor exhausted: free play and drawing (R4a)."""
        return not self.strict

    @property
    def talon_size(self) -> int:
        """Face-down cards left to draw (the turn-up not counted)."""
        return len(self.talon) - self.talon_pos

    @property
    def to_move(self) -> int:
        """The seat to move (-1 once the deal is over)."""
        if self.result is not None:
            return -1
        return self.leader if self.lead < 0 else 1 - self.leader

    def card_points(self, seat: int) -> int:
        """Trick points plus the marriages that count (R7a, R6d)."""
        if self.tricks_won[seat]:
            return self.trick_points[seat] + self.marriage_points[seat]
        return self.trick_points[seat]

    def value_for(self, seat: int) -> int:
        """A finished deal's game points for ``seat``: won positive, lost negative."""
        assert self.result is not None
        winner, game_points = self.result[0], self.result[1]
        return game_points if winner == seat else -game_points

    # -- rules ---------------------------------------------------------------

    def legal_mask(self) -> int:
        """The legal actions of the seat to move as a mask of action bits (``masks``)."""
        lead = self.lead
        if lead >= 0:  # (a deal never ends in the middle of a trick)
            return follow_mask(self.hands[1 - self.leader], lead, self.trump, self.strict)
        if self.result is not None:
            return 0
        return lead_mask(
            self.hands[self.leader],
            self.trump,
            not self.strict,
            self.declared,
            self.head,
            self.tricks != [],
        )

    def legal_actions(self) -> list[int]:
        """The legal action ints of the seat to move, in the engine's order."""
        return codes_in(self.legal_mask())

    def follow_options(self) -> int:
        """The mask of cards the follower may play (R4a, R5a, R5b)."""
        return follow_mask(self.hands[1 - self.leader], self.lead, self.trump, self.strict)

    def apply(self, action: int) -> int:
        """Take ``action`` for the seat to move (assumed legal: check with ``legal_mask``).

        Returns the ``legal_mask`` of the seat to move next (0 once the deal
        is over), computed from what the action has just read, so that a
        playout needs one call a step. One method for both seats, the
        follower's branch first: it is half of every deal's actions and the
        search's hottest line.
        """
        lead = self.lead
        if lead >= 0:
            # The follower plays ``action``: the trick is complete (R2).
            leader = self.leader
            follower = 1 - leader
            hands = self.hands
            bit = BIT[action]
            hands[follower] ^= bit
            self.played |= bit
            winner = follower if BEATS[self.trump][lead] & bit else leader
            self.trick_points[winner] += POINTS[lead] + POINTS[action]
            self.tricks_won[winner] += 1
            self.tricks.append((leader, lead, action, winner))
            self.leader = winner
            self.lead = -1
            if not self.strict:
                loser = 1 - winner
                first, second, exhausted = draws(self.talon, self.talon_pos, self.turn_up)
                hands[winner] |= BIT[first]
                hands[loser] |= BIT[second]
                if exhausted:
                    self.shown[loser] |= BIT[second]  # R11b: the last trump card drawn is public
                    self.talon_pos += 1
                    self.drawn_by = loser
                    self.strict = True
                else:
                    self.talon_pos += 2
            if not self.head:
                # R7e, R8b: going out is automatic; else the last trick settles the deal.
                # (``card_points`` of a seat that has just won a trick: its marriages count.)
                if self.trick_points[winner] + self.marriage_points[winner] >= WINNING_POINTS:
                    self.result = self.claim_result(winner)
                    return 0
                if not hands[0] and not hands[1]:
                    self.result = self.last_trick_result()
                    return 0
            return lead_mask(hands[winner], self.trump, not self.strict, -1, self.head, True)
        seat = self.leader
        if action < 20:
            bit = BIT[action]
            hands = self.hands
            hands[seat] ^= bit
            self.lead = action
            self.played |= bit
            self.declared = -1
            return follow_mask(hands[1 - seat], action, self.trump, self.strict)
        if action >= MARRIAGE and action < CLAIM:
            suit = action - MARRIAGE
            self.marriage_points[seat] += marriage_points(suit == self.trump)
            self.marriages.append((seat, suit))
            self.shown[seat] |= PAIR_MASK[suit]
            self.declared = suit
            if not self.head and self.card_points(seat) >= WINNING_POINTS:
                self.result = self.claim_result(seat)  # R7e: going out is automatic
        elif action == CLAIM:
            self.result = self.claim_result(seat)
            return 0
        elif action == ACCEPT:
            self.result = self.last_trick_result()
            return 0
        elif action == EXCHANGE:
            jack = 5 * self.trump + JACK
            taken = self.turn_up
            self.hands[seat] = self.hands[seat] & ~(1 << jack) | (1 << taken)
            self.shown[seat] |= 1 << taken
            self.turn_up = jack
            self.exchanged_by = seat
            self.exchanged_card = taken
        elif action == CLOSE:
            opponent = 1 - seat
            self.closed_by = seat
            self.strict = True
            self.at_close = (self.card_points(opponent), self.tricks_won[opponent])
        else:
            raise ValueError(f"not an action: {action!r}")
        return self.legal_mask()

    # -- the end of the deal (R8, R9: ``outcomes``) ----------------------------------

    def claim_result(self, claimant: int) -> FastResult:
        """The result of ``claimant`` going out, by a claim or automatically (R7c, R9)."""
        opponent = 1 - claimant
        winner, points, reason = claim_outcome(
            claimant,
            self.card_points(claimant),
            self.card_points(opponent),
            self.tricks_won[opponent],
            self.closed_by,
            self.at_close,
        )
        return (winner, points, reason, claimant)

    def last_trick_result(self) -> FastResult:
        """The cards ran out and nobody went out (R8a)."""
        winner, points, reason = ran_out_outcome(self.tricks[-1][3], self.closed_by, self.at_close)
        return (winner, points, reason, -1)


def _fast_result(result: DealResult) -> FastResult:
    claimant = -1 if result.claimed_by is None else result.claimed_by
    return (result.winner, result.game_points, result.reason, claimant)
