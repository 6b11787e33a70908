"""The whole truth of a game: the match of deals and the deal being played.

These are immutable values. ``rules.apply`` never changes a state; it returns
the next one. The state holds everything, hidden cards included; what a seat
may see of it is decided in one place only, ``observation.observe`` (R11).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum, StrEnum
from typing import NamedTuple

from .cards import Card, Rank, Suit
from .outcomes import DealEndReason  # noqa: F401  (part of the state's vocabulary)
from .points import START_GAME_POINTS, WINNING_POINTS  # noqa: F401  (the rules' numbers)

HAND_SIZE = 5


class Variant(Enum):
    """How card points are kept (R7d, R7e)."""

    HEAD = "head"  # counted in the head, explicit claims, false claims possible
    TRACKED = "tracked"  # visible to both, going out is automatic

    __hash__ = object.__hash__


class Dealing(Enum):
    """Who chose the order of the decks: chance, or the game's creator.

    A creator who gave a seed or a deck knows every card of the deals it
    fixes, so every view of the game says so, to both seats and spectators,
    before the first card is played.
    """

    RANDOM = "random"  # every deck shuffled by the server; nobody knows them
    SEEDED = "seeded"  # every deck follows the creator's seed
    FIXED = "fixed"  # the creator gave the first deal's exact order (later ones: seed or chance)

    __hash__ = object.__hash__


class GameEndReason(Enum):
    """How a game ended other than by play (docs/rules.md, RX1-RX3)."""

    RESIGNED = "resigned"  # RX1: the seat gave up; its opponent wins the game
    ABORTED = "aborted"  # RX2: called off before the first card; nobody wins
    TIMED_OUT = "timed_out"  # RX3: the seat waited past the turn timeout and claimed the game

    __hash__ = object.__hash__


class GameStatus(StrEnum):
    """Where a game is: waiting for its second player, being played, or over.

    A ``StrEnum``, so a status is its word wherever it goes (JSON, a query's
    filter, a comparison with the word) and the contract does not change.
    """

    WAITING = "waiting"  # seat 1 is still empty
    ACTIVE = "active"  # both seats taken, the game runs
    FINISHED = "finished"  # won, resigned, aborted or claimed on time


@dataclass(frozen=True, slots=True)
class GameEnd:
    """A game ended by a seat's decision rather than by its deals: why, and by whom."""

    reason: GameEndReason
    #: The seat that resigned, aborted, or claimed the timed-out game.
    seat: int


@dataclass(frozen=True, slots=True)
class Trick:
    """A completed trick: who led, the two cards, and who won it (R2)."""

    leader: int
    lead: Card
    follow: Card
    winner: int

    @property
    def points(self) -> int:
        return self.lead.points + self.follow.points

    def card_of(self, seat: int) -> Card:
        return self.lead if seat == self.leader else self.follow


@dataclass(frozen=True, slots=True)
class Marriage:
    """A declared King and Queen of one suit (R6c), worth ``points.marriage_points``."""

    seat: int
    suit: Suit
    points: int

    @property
    def cards(self) -> tuple[Card, Card]:
        return (Card.of(Rank.KING, self.suit), Card.of(Rank.QUEEN, self.suit))


@dataclass(frozen=True, slots=True)
class DealResult:
    """How a deal ended: the winner, the game points won (1-3) and why."""

    number: int
    dealer: int
    winner: int
    game_points: int
    reason: DealEndReason
    card_points: tuple[int, int]
    tricks_won: tuple[int, int]
    #: The seat whose claim ended the deal (None when the cards ran out).
    claimed_by: int | None = None


class DealState(NamedTuple):
    """One deal, everything included (hidden cards too).

    An immutable NamedTuple rather than a frozen dataclass because the engine
    builds one per action and bots build millions: a NamedTuple of these 19
    fields is built in about 0.3 us here, a frozen dataclass in about 2 us.

    The stock is ``talon`` (face down, top first) plus ``turn_up``, the
    face-up trump card that lies under the talon until the loser of the
    fifth trick draws it (R3b). ``turn_up_drawn_by`` says who did.
    """

    number: int
    dealer: int
    #: The deck this deal was dealt from (R1a), kept for the record.
    deck: tuple[Card, ...]
    trump: Suit
    #: Each seat's hand, in the canonical card order.
    hands: tuple[tuple[Card, ...], tuple[Card, ...]]
    talon: tuple[Card, ...]
    turn_up: Card
    turn_up_drawn_by: int | None
    #: The seat on lead for the current trick.
    leader: int
    # The rest has a fresh deal's value by default: nothing played, declared, closed or ended.
    #: The current trick's first card, once led.
    lead_card: Card | None = None
    tricks: tuple[Trick, ...] = ()
    trick_points: tuple[int, int] = (0, 0)
    marriages: tuple[Marriage, ...] = ()
    #: The suit of a marriage declared in this lead: only its King or Queen may be led.
    declared: Suit | None = None
    closed_by: int | None = None
    #: The closer's opponent's (card points, tricks won) at the close, for R9b.
    at_close: tuple[int, int] | None = None
    #: The seat that exchanged the trump jack, and the card it took (R6a).
    exchanged_by: int | None = None
    exchanged_card: Card | None = None
    result: DealResult | None = None

    # -- the talon -------------------------------------------------------
    @property
    def exhausted(self) -> bool:
        """The trump card has been drawn: nothing is left to draw (R3b)."""
        return self.turn_up_drawn_by is not None

    @property
    def talon_open(self) -> bool:
        """Neither closed nor exhausted: free play and drawing (R4a)."""
        return self.closed_by is None and self.turn_up_drawn_by is None

    @property
    def strict(self) -> bool:
        """Closed or exhausted: the follower must follow, beat, trump (R5)."""
        return self.closed_by is not None or self.turn_up_drawn_by is not None

    @property
    def trump_card(self) -> Card | None:
        """The trump card while it lies under the talon (R11a), else None."""
        return self.turn_up if self.turn_up_drawn_by is None else None

    # -- turns -----------------------------------------------------------
    @property
    def to_move(self) -> int | None:
        if self.result is not None:
            return None
        return self.leader if self.lead_card is None else 1 - self.leader

    @property
    def cards_out(self) -> bool:
        """Both hands are empty: the last trick is done (R8a)."""
        return not self.hands[0] and not self.hands[1]

    # -- points ----------------------------------------------------------
    def tricks_won(self, seat: int) -> int:
        return sum(1 for trick in self.tricks if trick.winner == seat)

    def marriage_points(self, seat: int) -> int:
        """Declared marriages of this seat, whether they count yet or not."""
        return sum(m.points for m in self.marriages if m.seat == seat)

    def card_points(self, seat: int) -> int:
        """Trick points plus the marriages that count (R7a, R6d)."""
        points = self.trick_points[seat]
        if self.marriages and self.tricks_won(seat):
            points += self.marriage_points(seat)
        return points

    def public_cards_in_hand(self, seat: int) -> list[Card]:
        """Cards of ``seat``'s hand that both players have seen (R11a, R11b).

        Marriage cards shown and not yet played, the trump card taken by the
        exchange, and the turn-up drawn by the loser of the fifth trick.
        """
        shown: set[Card] = set()
        for marriage in self.marriages:
            if marriage.seat == seat:
                shown.update(marriage.cards)
        if self.exchanged_by == seat and self.exchanged_card is not None:
            shown.add(self.exchanged_card)
        if self.turn_up_drawn_by == seat:
            shown.add(self.turn_up)
        return [card for card in self.hands[seat] if card in shown]


class GameState(NamedTuple):
    """A whole game: the match of deals from 7 game points down to 0 (R10).

    Immutable; a NamedTuple for the same reason as ``DealState``.
    """

    variant: Variant
    first_dealer: int
    #: Which seats are taken; play waits until both are.
    seated: tuple[bool, bool]
    #: Game points still to lose, per seat: 7 at the start; 0 wins (R10).
    game_points: tuple[int, int]
    results: tuple[DealResult, ...]
    deal: DealState | None
    #: Who chose the decks (public: see ``Dealing``).
    dealing: Dealing = Dealing.RANDOM
    #: Set when a seat ended the game (resign, abort, timeout); None while it runs or
    #: when it ended by play.
    ending: GameEnd | None = None

    @property
    def winner(self) -> int | None:
        """The seat that reached 0 game points first, if any (R10b).

        A resign or a timeout sets the winner's game points to 0 (RX1, RX3),
        so this holds for those endings too; an aborted game has no winner.
        """
        if self.game_points[0] == 0:
            return 0
        if self.game_points[1] == 0:
            return 1
        return None

    @property
    def over(self) -> bool:
        """No more play: a seat reached 0, or a seat ended the game (aborted: no winner)."""
        return self.ending is not None or self.winner is not None

    @property
    def status(self) -> GameStatus:
        if self.over:
            return GameStatus.FINISHED
        return GameStatus.ACTIVE if self.seated[0] and self.seated[1] else GameStatus.WAITING

    @property
    def awaiting_deal(self) -> bool:
        """The game goes on but no deal runs: the next deck must be dealt."""
        deal = self.deal
        if deal is not None and deal.result is None:
            return False  # a deal runs (asked once per action: the plain fields first)
        return not self.over

    @property
    def next_dealer(self) -> int:
        """The dealer of the next deal: alternating from the first dealer (R1c, R10c)."""
        return self.first_dealer if self.deal is None else 1 - self.deal.dealer

    @property
    def to_move(self) -> int | None:
        if self.deal is None or self.status is not GameStatus.ACTIVE:
            return None
        return self.deal.to_move
