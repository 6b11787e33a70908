"""A fast deal for search: cards as ints, hands as bitmasks, actions as ints.

The engine's ``DealState`` is clean and immutable but costs microseconds per
action; a bot that searches plays millions of actions. ``FastDeal`` is the
same deal (every rule of RULES.md: open and strict play, drawing, closing,
the trump jack exchange, marriages, claims in the head variant, automatic
going out in the tracked variant, the last trick, R9 scoring with the
closer's frozen ``at_close``) as a mutable object of small ints:

- a card is its canonical index 0..19 (``Card.order``): ``suit * 5 + rank``,
  rank 0 the ace ... 4 the jack, so a lower index in a suit is a stronger card;
- a hand is a 20-bit mask, bit ``c`` set when card ``c`` is held;
- an action is an int: 0..19 play that card, then ``EXCHANGE``, ``CLOSE``,
  ``MARRIAGE + suit``, ``CLAIM``, ``ACCEPT``. Sorting them gives the engine's
  order of ``deal_legal_actions``.

``FastDeal.from_engine`` and ``FastDeal.to_engine`` convert, and the tests
compare legal actions and results with the engine over many random deals.
``playout.random_playout`` is the same rules in one fused loop, for the
random-play figure that ``benchmarks/engine.py`` prints beside the engine's.
"""

from __future__ import annotations

from collections.abc import Sequence

from service.engine import actions as engine_actions
from service.engine.actions import (
    ACCEPT_LAST_TRICK,
    CLOSE_TALON,
    DECLARE_MARRIAGE,
    EXCHANGE_TRUMP_JACK,
    PLAY,
    Action,
    ActionType,
)
from service.engine.cards import DECK, SUITS, Card
from service.engine.points import WINNING_POINTS, by_opponent, marriage_points, penalty
from service.engine.state import (
    HAND_SIZE,
    DealEndReason,
    DealResult,
    DealState,
    Marriage,
    Trick,
    Variant,
)

# -- cards -------------------------------------------------------------------

ACE, TEN, KING, QUEEN, JACK = range(5)
#: Card points by card index.
POINTS: tuple[int, ...] = tuple((11, 10, 4, 3, 2)[c % 5] for c in range(20))
#: Suit index (0 clubs, 1 diamonds, 2 hearts, 3 spades) by card index.
SUIT: tuple[int, ...] = tuple(c // 5 for c in range(20))
#: All five cards of a suit, by suit index.
SUIT_MASK: tuple[int, ...] = tuple(0b11111 << (5 * s) for s in range(4))
#: The cards of the same suit that beat card ``c`` (R5a "a higher card").
HIGHER: tuple[int, ...] = tuple(((1 << (c % 5)) - 1) << (5 * (c // 5)) for c in range(20))
ALL_CARDS = (1 << 20) - 1
#: Every King.
KINGS_MASK = sum(1 << (5 * s + 2) for s in range(4))
#: Bit masks of the King and Queen of each suit: a marriage.
PAIR_MASK: tuple[int, ...] = tuple((1 << (5 * s + KING)) | (1 << (5 * s + QUEEN)) for s in range(4))

# -- actions -----------------------------------------------------------------

EXCHANGE = 20
CLOSE = 21
MARRIAGE = 22  # + suit index: 22..25
CLAIM = 26
ACCEPT = 27

# -- results -----------------------------------------------------------------

#: The engine's reasons, by the small int a fast result carries.
REASONS: tuple[DealEndReason, ...] = tuple(DealEndReason)
WENT_OUT, FALSE_CLAIM, LAST_TRICK, CLOSER_WENT_OUT, CLOSER_FALSE_CLAIM = range(5)
CLOSER_RAN_OUT, CLOSER_OPPONENT_WENT_OUT = 5, 6

#: A finished deal: (winner, game points 1-3, reason index into REASONS, claimant or -1).
FastResult = tuple[int, int, int, int]


def card_of(index: int) -> Card:
    """The engine's card for a card index."""
    return DECK[index]


def mask_of(cards: Sequence[Card]) -> int:
    """The bit mask of a set of engine cards."""
    mask = 0
    for card in cards:
        mask |= 1 << card.order
    return mask


def cards_in(mask: int) -> list[int]:
    """Card indices of a mask, ascending (the canonical order)."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def action_of(action: Action) -> int:
    """The int of an engine action."""
    kind = action.type
    if kind is ActionType.PLAY:
        return action.card.order
    if kind is ActionType.DECLARE_MARRIAGE:
        return MARRIAGE + SUITS.index(action.suit)
    return _SIMPLE_CODES[kind]


def engine_action(code: int) -> Action:
    """The engine action of an action int."""
    return _ENGINE_ACTIONS[code]


_SIMPLE_CODES = {
    ActionType.EXCHANGE_TRUMP_JACK: EXCHANGE,
    ActionType.CLOSE_TALON: CLOSE,
    ActionType.CLAIM: CLAIM,
    ActionType.ACCEPT_LAST_TRICK: ACCEPT,
}
_ENGINE_ACTIONS: tuple[Action, ...] = (
    *(PLAY[card] for card in DECK),
    EXCHANGE_TRUMP_JACK,
    CLOSE_TALON,
    *(DECLARE_MARRIAGE[suit] for suit in SUITS),
    engine_actions.CLAIM,
    ACCEPT_LAST_TRICK,
)


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
    talon: list[int]
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

    @classmethod
    def from_deck(cls, deck: Sequence[int], dealer: int, head: bool = True) -> FastDeal:
        """A fresh deal from a deck order of card indices (R1, RULES.md positions)."""
        deal = cls.__new__(cls)
        hands = [0, 0]
        for c in deck[:HAND_SIZE]:
            hands[1 - dealer] |= 1 << c
        for c in deck[HAND_SIZE : 2 * HAND_SIZE]:
            hands[dealer] |= 1 << c
        turn_up = deck[2 * HAND_SIZE]
        deal.head = head
        deal.trump = SUIT[turn_up]
        deal.hands = hands
        deal.talon = list(deck[2 * HAND_SIZE + 1 :])
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
        fast = cls.__new__(cls)
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
            deal = deal._replace(result=self.engine_result(deal))
        return deal

    def engine_result(self, deal: DealState | None = None) -> DealResult | None:
        """The engine's ``DealResult`` of a finished deal, None while it runs."""
        if self.result is None:
            return None
        winner, game_points, reason, claimant = self.result
        return DealResult(
            number=self.number,
            dealer=self.dealer,
            winner=winner,
            game_points=game_points,
            reason=REASONS[reason],
            card_points=(self.card_points(0), self.card_points(1)),
            tricks_won=(self.tricks_won[0], self.tricks_won[1]),
            claimed_by=None if claimant < 0 else claimant,
        )

    def copy(self) -> FastDeal:
        """An independent copy (lists copied, ints shared)."""
        other = FastDeal.__new__(FastDeal)
        other.head = self.head
        other.trump = self.trump
        other.hands = self.hands[:]
        other.talon = self.talon  # never changed in place: drawing moves talon_pos
        other.talon_pos = self.talon_pos
        other.turn_up = self.turn_up
        other.drawn_by = self.drawn_by
        other.leader = self.leader
        other.lead = self.lead
        other.trick_points = self.trick_points[:]
        other.tricks_won = self.tricks_won[:]
        other.marriage_points = self.marriage_points[:]
        other.declared = self.declared
        other.closed_by = self.closed_by
        other.at_close = self.at_close
        other.exchanged_by = self.exchanged_by
        other.exchanged_card = self.exchanged_card
        other.shown = self.shown[:]
        other.played = self.played
        other.tricks = self.tricks[:]
        other.marriages = self.marriages[:]
        other.result = self.result
        other.number = self.number
        other.dealer = self.dealer
        return other

    # -- reading -------------------------------------------------------------

    @property
    def talon_open(self) -> bool:
        """Neither closed nor exhausted: free play and drawing (R4a)."""
        return self.closed_by < 0 and self.drawn_by < 0

    @property
    def strict(self) -> bool:
        """Closed or exhausted: the follower must follow, beat, trump (R5)."""
        return self.closed_by >= 0 or self.drawn_by >= 0

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

    def legal_actions(self) -> list[int]:
        """The legal action ints of the seat to move, in the engine's order."""
        if self.result is not None:
            return []
        if self.lead >= 0:
            return cards_in(self.follow_options())
        hand = self.hands[self.leader]
        if self.declared >= 0:
            actions = cards_in(hand & PAIR_MASK[self.declared])
            if self.head:
                actions.append(CLAIM)
            return actions
        if not hand:
            return [CLAIM, ACCEPT]
        actions = cards_in(hand)
        if self.closed_by < 0 and self.drawn_by < 0:
            if hand >> (5 * self.trump + JACK) & 1:
                actions.append(EXCHANGE)
            actions.append(CLOSE)
        for s in range(4):
            if hand & PAIR_MASK[s] == PAIR_MASK[s]:
                actions.append(MARRIAGE + s)
        if self.head and self.tricks:
            actions.append(CLAIM)
        return actions

    def follow_options(self) -> int:
        """The mask of cards the follower may play (R4a, R5a, R5b)."""
        hand = self.hands[1 - self.leader]
        if self.closed_by < 0 and self.drawn_by < 0:
            return hand
        lead = self.lead
        same = hand & SUIT_MASK[SUIT[lead]]
        if same:
            return (same & HIGHER[lead]) or same
        return (hand & SUIT_MASK[self.trump]) or hand

    def apply(self, action: int) -> None:
        """Take ``action`` for the seat to move (assumed legal: check with ``legal_actions``)."""
        if self.lead >= 0:
            self._follow(action)
            return
        seat = self.leader
        if action < 20:
            self.hands[seat] &= ~(1 << action)
            self.lead = action
            self.played |= 1 << action
            self.declared = -1
        elif action >= MARRIAGE and action < CLAIM:
            suit = action - MARRIAGE
            self.marriage_points[seat] += marriage_points(suit == self.trump)
            self.marriages.append((seat, suit))
            self.shown[seat] |= PAIR_MASK[suit]
            self.declared = suit
            if not self.head and self.card_points(seat) >= WINNING_POINTS:
                self.result = self.claim_result(seat)
        elif action == CLAIM:
            self.result = self.claim_result(seat)
        elif action == ACCEPT:
            self.result = self.last_trick_result()
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
            self.at_close = (self.card_points(opponent), self.tricks_won[opponent])
        else:
            raise ValueError(f"not an action: {action!r}")

    def _follow(self, card: int) -> None:
        leader = self.leader
        follower = 1 - leader
        lead = self.lead
        hands = self.hands
        hands[follower] &= ~(1 << card)
        self.played |= 1 << card
        if SUIT[card] == SUIT[lead]:
            winner = follower if card < lead else leader
        else:
            winner = follower if SUIT[card] == self.trump else leader
        self.trick_points[winner] += POINTS[lead] + POINTS[card]
        self.tricks_won[winner] += 1
        self.tricks.append((leader, lead, card, winner))
        self.leader = winner
        self.lead = -1
        self.declared = -1
        if self.closed_by < 0 and self.drawn_by < 0:
            # R3a, R3b: the winner draws first; the trump card is the last card drawn.
            loser = 1 - winner
            pos = self.talon_pos
            hands[winner] |= 1 << self.talon[pos]
            if pos + 1 < len(self.talon):
                hands[loser] |= 1 << self.talon[pos + 1]
                self.talon_pos = pos + 2
            else:
                hands[loser] |= 1 << self.turn_up
                self.shown[loser] |= 1 << self.turn_up
                self.talon_pos = pos + 1
                self.drawn_by = loser
        if not self.head:
            # R7e, R8b: going out is automatic; else the last trick settles the deal.
            if self.card_points(winner) >= WINNING_POINTS:
                self.result = self.claim_result(winner)
            elif not hands[0] and not hands[1]:
                self.result = self.last_trick_result()

    # -- scoring (R8, R9) ----------------------------------------------------

    def claim_result(self, claimant: int) -> FastResult:
        """The result of ``claimant`` going out, by a claim or automatically (R7c, R9)."""
        opponent = 1 - claimant
        closer = self.closed_by
        if self.card_points(claimant) >= WINNING_POINTS:
            if closer < 0:
                points = by_opponent(self.card_points(opponent), self.tricks_won[opponent])
                return (claimant, points, WENT_OUT, claimant)
            if closer == claimant:
                assert self.at_close is not None
                return (claimant, by_opponent(*self.at_close), CLOSER_WENT_OUT, claimant)
            return (claimant, self.closer_penalty(), CLOSER_OPPONENT_WENT_OUT, claimant)
        if closer == claimant:
            return (opponent, self.closer_penalty(), CLOSER_FALSE_CLAIM, claimant)
        points = penalty(self.tricks_won[opponent])
        return (opponent, points, FALSE_CLAIM, claimant)

    def last_trick_result(self) -> FastResult:
        """The cards ran out and nobody went out (R8a)."""
        if self.closed_by >= 0:
            return (1 - self.closed_by, self.closer_penalty(), CLOSER_RAN_OUT, -1)
        return (self.tricks[-1][3], 1, LAST_TRICK, -1)

    def closer_penalty(self) -> int:
        """R9b: 2 to the closer's opponent, or 3 if it had no trick at the close."""
        assert self.at_close is not None
        return penalty(self.at_close[1])


def _fast_result(result: DealResult) -> FastResult:
    claimant = -1 if result.claimed_by is None else result.claimed_by
    return (result.winner, result.game_points, REASONS.index(result.reason), claimant)
