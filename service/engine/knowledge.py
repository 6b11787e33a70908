"""What one seat knows about the running deal: the only input a bot gets.

``seat_view(state, seat)`` is the seat's observation (``observer.observe``:
its hand, the turn-up, the talon's size, every card played and who won each
trick, marriages, the exchange) in the form a bot plays from
(``seat_view_of``); nothing else of the state reaches a bot. A bot that needs a whole deal to
search samples one with ``SeatView.deal_with``: it fills the unseen places
(the opponent's unknown cards and the talon) with cards the bot chooses, so
whatever it decides depends on the view alone (seat-blind by construction).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .actions import Action
from .cards import DECK, Card, Suit, sort_cards
from .observer import DealObservation, Observation, observe
from .rules import deal_legal_actions
from .state import DealState, GameState, Marriage, Trick, Variant


@dataclass(frozen=True, slots=True)
class SeatView:
    """One seat's knowledge of the running deal (R11a/R11b), ready to be played from."""

    variant: Variant
    seat: int
    dealer: int
    number: int
    trump: Suit
    hand: tuple[Card, ...]
    #: The face-up card (after an exchange: the trump jack); public even once drawn.
    turn_up: Card
    turn_up_drawn_by: int | None
    #: Face-down cards left in the talon.
    talon_size: int
    leader: int
    lead_card: Card | None
    tricks: tuple[Trick, ...]
    marriages: tuple[Marriage, ...]
    declared: Suit | None
    closed_by: int | None
    #: The closer's opponent's (card points, tricks) at the close: public, it follows from the tricks.
    at_close: tuple[int, int] | None
    exchanged_by: int | None
    exchanged_card: Card | None
    game_points: tuple[int, int] = (7, 7)

    @property
    def opponent(self) -> int:
        return 1 - self.seat

    @property
    def to_move(self) -> int:
        return self.leader if self.lead_card is None else 1 - self.leader

    @property
    def played(self) -> list[Card]:
        cards = [card for trick in self.tricks for card in (trick.lead, trick.follow)]
        if self.lead_card is not None:
            cards.append(self.lead_card)
        return cards

    @property
    def opponent_hand_size(self) -> int:
        size = len(self.hand)
        if self.lead_card is not None:
            size += -1 if self.leader == self.opponent else 1
        return size

    def known_opponent_cards(self) -> list[Card]:
        """Cards the opponent surely holds: shown marriage cards, the exchanged or drawn turn-up."""
        gone = set(self.played) | set(self.hand)
        known: set[Card] = set()
        for marriage in self.marriages:
            if marriage.seat == self.opponent:
                known.update(marriage.cards)
        if self.exchanged_by == self.opponent and self.exchanged_card is not None:
            known.add(self.exchanged_card)
        if self.turn_up_drawn_by == self.opponent:
            known.add(self.turn_up)
        return sort_cards(known - gone)

    def unseen_cards(self) -> list[Card]:
        """Cards whose place the seat does not know: the opponent's other cards and the talon."""
        placed = set(self.hand) | set(self.played) | set(self.known_opponent_cards())
        if self.turn_up_drawn_by is None:
            placed.add(self.turn_up)  # under the talon (or out of play after a close)
        return [card for card in DECK if card not in placed]

    def deal_with(self, opponent_unknown: Sequence[Card], talon: Sequence[Card]) -> DealState:
        """A whole deal consistent with this view, with the unseen cards placed as given.

        ``opponent_unknown`` fills the opponent's hand beside its known cards,
        ``talon`` the face-down talon (top first); together they must be
        exactly ``unseen_cards()``.
        """
        opponent_hand = tuple(sort_cards([*self.known_opponent_cards(), *opponent_unknown]))
        if len(opponent_hand) != self.opponent_hand_size or len(talon) != self.talon_size:
            raise ValueError(
                f"the opponent holds {self.opponent_hand_size} cards and the talon "
                f"{self.talon_size}, not {len(opponent_hand)} and {len(talon)}"
            )
        if sorted(c.order for c in [*opponent_unknown, *talon]) != [
            c.order for c in self.unseen_cards()
        ]:
            raise ValueError("the unseen cards must be placed exactly once each")
        hands: list[tuple[Card, ...]] = [(), ()]
        hands[self.seat] = self.hand
        hands[self.opponent] = opponent_hand
        points = [0, 0]
        for trick in self.tricks:
            points[trick.winner] += trick.points
        return DealState(
            deck=(),  # not known to the seat; a sampled deal has no recorded deck
            hands=(tuple(hands[0]), tuple(hands[1])),
            talon=tuple(talon),
            trick_points=(points[0], points[1]),
            **_public_facts(self),
        )

    def sample_deal(self) -> DealState:
        """One deal consistent with the view, unseen cards in the canonical order."""
        unseen = self.unseen_cards()
        need = self.opponent_hand_size - len(self.known_opponent_cards())
        return self.deal_with(unseen[:need], unseen[need:])

    def legal_actions(self) -> list[Action]:
        """The seat's legal actions; they depend on its own hand and public facts only."""
        if self.to_move != self.seat:
            return []
        return deal_legal_actions(self.sample_deal(), self.variant)


def seat_view(state: GameState, seat: int) -> SeatView:
    """What ``seat`` knows of the running deal of ``state`` (R11): its observation."""
    return seat_view_of(observe(state, seat))


def seat_view_of(seen: Observation) -> SeatView:
    """A seat's observation of a running deal, as a bot plays from it."""
    deal, seat = seen.deal, seen.viewer
    if deal is None:
        raise ValueError("no deal has been dealt")
    if seat is None:
        raise ValueError("a spectator holds no seat to play from")
    hand = deal.visible_hands[seat]
    assert hand is not None  # a seat always sees its own hand
    return SeatView(
        variant=seen.variant,
        seat=seat,
        hand=hand,
        talon_size=deal.talon_size,
        game_points=seen.game_points,
        **_public_facts(deal),
    )


#: The facts of a running deal that both seats see (R11a, R11b), named as in ``DealState``
#: and ``SeatView``: a view keeps them from the deal, a sampled deal takes them from the view.
PUBLIC_FACTS = (
    "number",
    "dealer",
    "trump",
    "turn_up",
    "turn_up_drawn_by",
    "leader",
    "lead_card",
    "tricks",
    "marriages",
    "declared",
    "closed_by",
    "at_close",
    "exchanged_by",
    "exchanged_card",
)


def _public_facts(deal: DealObservation | SeatView) -> dict[str, Any]:
    """The public facts of an observed deal or a view, by name (``PUBLIC_FACTS``)."""
    return {name: getattr(deal, name) for name in PUBLIC_FACTS}
