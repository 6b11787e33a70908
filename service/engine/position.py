"""Positions as JSON: one seat's view of a deal, for "give me the bot's move here".

The format (``"schema": 1``) mirrors the ``deal`` part of the game view, so a
client can send what it was shown::

    {"schema": 1, "variant": "head", "seat": 0, "dealer": 1,
     "hand": ["AS", "TS", "KH", "QH", "JD"],
     "trump_card": "QC",          // the face-up card under the talon; null once drawn
     "turn_up": "QC",             // that card, needed once it was drawn (else optional)
     "talon_size": 9, "closed_by": null,
     "tricks": [{"leader": 0, "cards": [{"seat": 0, "card": "TD"},
                                         {"seat": 1, "card": "AD"}], "winner": 1}],
     "current_trick": [{"seat": 1, "card": "KC"}],
     "marriages": [{"seat": 1, "suit": "D"}], "declared_marriage": null,
     "exchange": {"seat": 1, "took": "AC"},
     "game_points": [7, 7]}

Everything else a seat knows (points, tricks won, the cards the opponent must
hold, when the talon was closed) follows from these facts and is derived.
``view_from_position`` checks that the position can happen and raises
``PositionError`` naming what is wrong.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .cards import Card, Rank, Suit, format_cards
from .knowledge import SeatView
from .observation import trick_to_dict
from .points import marriage_points
from .reachable import objection
from .state import Marriage, Trick, Variant

POSITION_SCHEMA = 1


class PositionError(ValueError):
    """A position that cannot happen; ``field`` names the part that is wrong."""

    def __init__(self, field: str, message: str):
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message


def view_from_position(data: Mapping[str, Any]) -> SeatView:
    """The seat view a position describes; raises ``PositionError`` if it is impossible.

    Impossible: malformed or inconsistent (``read_view``), or well formed yet
    reached by no deal (``reachable.objection``): bots only ever see real views.
    """
    view = read_view(data)
    found = objection(view)
    if found is not None:
        raise PositionError(found.field, found.message)
    return view


def read_view(data: Mapping[str, Any]) -> SeatView:
    """The seat view a position describes, checked for form only: each card once,
    the tricks' leaders and winners, the sizes of the hand and the talon.

    Whether a deal reaches it is ``view_from_position``'s question; this half
    is apart so that the tests can hold it against deals the engine builds.
    """
    reader = _Reader(data)
    if data.get("schema", POSITION_SCHEMA) != POSITION_SCHEMA:
        raise PositionError("schema", f"unknown position schema {data.get('schema')!r}")
    variant = reader.choice("variant", {v.value: v for v in Variant}, default="head")
    seat = reader.seat("seat")
    dealer = reader.seat("dealer")
    hand = reader.cards("hand")
    trump_card = reader.card("trump_card", optional=True)
    turn_up = reader.card("turn_up", optional=True) or trump_card
    if turn_up is None:
        raise PositionError("turn_up", "give the trump card that was turned up (or trump_card)")
    if trump_card is not None and trump_card is not turn_up:
        raise PositionError("turn_up", "differs from trump_card")
    talon_size = reader.integer("talon_size", 0, 9)
    closed_by = reader.seat("closed_by", optional=True)
    tricks = _tricks(reader, dealer, turn_up.suit)
    leader = tricks[-1].winner if tricks else 1 - dealer
    lead_card = _current_trick(reader, leader)
    view_seat_to_move = leader if lead_card is None else 1 - leader
    if view_seat_to_move != seat:
        raise PositionError("seat", f"seat {view_seat_to_move} is to move, not seat {seat}")

    played = [c for t in tricks for c in (t.lead, t.follow)] + ([lead_card] if lead_card else [])
    _all_distinct(hand, played, trump_card)
    closed_after = _talon(len(tricks), talon_size, trump_card, closed_by)
    exchanged_by, exchanged_card = _exchange(reader, turn_up, hand, played)
    drawn_by = _turn_up_drawn_by(tricks, trump_card, closed_by)
    _check_hand_size(seat, hand, tricks, lead_card, leader, closed_after)
    _check_turn_up(seat, turn_up, drawn_by, hand, played)
    marriages = _marriages(reader, seat, turn_up.suit, hand, tricks, played)
    declared = _declared(reader, seat, hand, lead_card, leader, marriages)
    at_close = None
    if closed_by is not None:
        if closed_by != (tricks[closed_after - 1].winner if closed_after else 1 - dealer):
            raise PositionError(
                "closed_by", f"seat {closed_by} was not on lead when the talon closed"
            )
        at_close = _at_close(tricks, marriages, closed_by, closed_after)
    game_points = reader.game_points()
    return SeatView(
        variant=variant,
        seat=seat,
        dealer=dealer,
        number=1,
        trump=turn_up.suit,
        hand=tuple(sorted(hand, key=lambda card: card.order)),
        turn_up=turn_up,
        turn_up_drawn_by=drawn_by,
        talon_size=talon_size,
        leader=leader,
        lead_card=lead_card,
        tricks=tuple(tricks),
        marriages=tuple(marriages),
        declared=declared,
        closed_by=closed_by,
        at_close=at_close,
        exchanged_by=exchanged_by,
        exchanged_card=exchanged_card,
        game_points=game_points,
    )


def position_from_view(view: SeatView) -> dict[str, Any]:
    """The JSON position of a seat view (the inverse of ``view_from_position``)."""
    return {
        "schema": POSITION_SCHEMA,
        "variant": view.variant.value,
        "seat": view.seat,
        "dealer": view.dealer,
        "hand": format_cards(view.hand),
        "trump_card": view.turn_up.value if view.turn_up_drawn_by is None else None,
        "turn_up": view.turn_up.value,
        "talon_size": view.talon_size,
        "closed_by": view.closed_by,
        "tricks": [trick_to_dict(trick) for trick in view.tricks],
        "current_trick": (
            [] if view.lead_card is None else [{"seat": view.leader, "card": view.lead_card.value}]
        ),
        "marriages": [{"seat": m.seat, "suit": m.suit.value} for m in view.marriages],
        "declared_marriage": None if view.declared is None else view.declared.value,
        "exchange": (
            None
            if view.exchanged_by is None
            else {"seat": view.exchanged_by, "took": view.exchanged_card.value}
        ),
        "game_points": list(view.game_points),
    }


# -- reading fields ---------------------------------------------------------


class _Reader:
    def __init__(self, data: Mapping[str, Any]):
        if not isinstance(data, Mapping):
            raise PositionError("position", "must be a JSON object")
        self.data = data

    def seat(self, field: str, *, optional: bool = False) -> Any:
        value = self.data.get(field)
        if value is None and optional:
            return None
        if type(value) is not int or value not in (0, 1):
            raise PositionError(field, f"must be seat 0 or 1, not {value!r}")
        return value

    def integer(self, field: str, low: int, high: int) -> int:
        value = self.data.get(field)
        if type(value) is not int or not low <= value <= high:
            raise PositionError(field, f"must be a whole number from {low} to {high}")
        return value

    def choice(self, field: str, options: dict[str, Any], *, default: str) -> Any:
        value = self.data.get(field, default)
        if value not in options:
            raise PositionError(field, f"must be one of {', '.join(options)}")
        return options[value]

    def card(self, field: str, *, optional: bool = False) -> Card | None:
        value = self.data.get(field)
        if value is None and optional:
            return None
        return _parse_card(field, value)

    def cards(self, field: str) -> list[Card]:
        values = self.data.get(field)
        if not isinstance(values, list):
            raise PositionError(field, "must be a list of cards")
        return [_parse_card(f"{field}[{i}]", value) for i, value in enumerate(values)]

    def game_points(self) -> tuple[int, int]:
        value = self.data.get("game_points", [7, 7])
        if (
            not isinstance(value, list)
            or len(value) != 2
            or not all(type(v) is int and 1 <= v <= 7 for v in value)
        ):
            raise PositionError("game_points", "must be two numbers from 1 to 7")
        return (value[0], value[1])


def _parse_card(field: str, value: Any) -> Card:
    try:
        return Card.parse(value) if isinstance(value, str) else Card.parse(repr(value))
    except ValueError as error:
        raise PositionError(field, str(error)) from None


def _card_at_seat(field: str, item: Any) -> tuple[int, Card]:
    if not isinstance(item, Mapping):
        raise PositionError(field, 'must be {"seat": 0 or 1, "card": "AS"}')
    seat = item.get("seat")
    if type(seat) is not int or seat not in (0, 1):
        raise PositionError(f"{field}.seat", f"must be seat 0 or 1, not {seat!r}")
    return seat, _parse_card(f"{field}.card", item.get("card"))


# -- the facts and their consistency ------------------------------------------


def _tricks(reader: _Reader, dealer: int, trump: Suit) -> list[Trick]:
    raw = reader.data.get("tricks", [])
    if not isinstance(raw, list) or len(raw) > 10:
        raise PositionError("tricks", "must be a list of at most 10 tricks")
    tricks: list[Trick] = []
    leader = 1 - dealer  # R1c
    for index, item in enumerate(raw):
        field = f"tricks[{index}]"
        cards = item.get("cards") if isinstance(item, Mapping) else None
        if not isinstance(cards, list) or len(cards) != 2:
            raise PositionError(field, "a trick holds two cards")
        (first_seat, lead), (second_seat, follow) = (
            _card_at_seat(f"{field}.cards[{i}]", card) for i, card in enumerate(cards)
        )
        if item.get("leader", first_seat) != leader or first_seat != leader:
            raise PositionError(field, f"seat {leader} led this trick (R1c, R2c)")
        if second_seat != 1 - leader:
            raise PositionError(field, "the second card belongs to the other seat")
        winner = 1 - leader if follow.beats(lead, trump) else leader
        if item.get("winner", winner) != winner:
            raise PositionError(field, f"seat {winner} won this trick (R2b)")
        tricks.append(Trick(leader, lead, follow, winner))
        leader = winner
    return tricks


def _current_trick(reader: _Reader, leader: int) -> Card | None:
    raw = reader.data.get("current_trick", [])
    if not isinstance(raw, list) or len(raw) > 1:
        raise PositionError("current_trick", "holds the led card, if any (at most one card)")
    if not raw:
        return None
    seat, card = _card_at_seat("current_trick[0]", raw[0])
    if seat != leader:
        raise PositionError("current_trick", f"seat {leader} is on lead, not seat {seat}")
    return card


def _all_distinct(hand: list[Card], played: list[Card], trump_card: Card | None) -> None:
    seen: dict[Card, str] = {}
    places = [("hand", hand), ("played cards", played), ("trump_card", [trump_card])]
    for place, cards in places:
        for card in cards:
            if card is None:
                continue
            if card in seen:
                raise PositionError(place, f"{card} is also in {seen[card]}: each card exists once")
            seen[card] = place


def _talon(tricks: int, talon_size: int, trump_card: Card | None, closed_by: int | None) -> int:
    """Check the talon against the tricks; return the tricks played before drawing stopped."""
    if closed_by is None:
        expected = max(0, 9 - 2 * tricks)
        if talon_size != expected:
            raise PositionError("talon_size", f"after {tricks} tricks the talon holds {expected}")
        if (trump_card is None) != (tricks >= 5):
            state = "lies under the talon" if tricks < 5 else "was drawn with the fifth trick"
            raise PositionError("trump_card", f"after {tricks} tricks the trump card {state}")
        return min(tricks, 5)
    if talon_size % 2 == 0 or talon_size < 1:
        raise PositionError("talon_size", "a closed talon holds an odd number of cards (1 to 9)")
    closed_after = (9 - talon_size) // 2
    if closed_after > tricks:
        raise PositionError("talon_size", f"too small for a talon closed after {tricks} tricks")
    if trump_card is None:
        raise PositionError("trump_card", "after a close the trump card stays, out of play (R6b)")
    return closed_after


def _turn_up_drawn_by(
    tricks: list[Trick], trump_card: Card | None, closed_by: int | None
) -> int | None:
    if trump_card is not None or closed_by is not None:
        return None
    return 1 - tricks[4].winner  # R3b: the loser of the fifth trick draws it


def _check_hand_size(
    seat: int,
    hand: list[Card],
    tricks: list[Trick],
    lead_card: Card | None,
    leader: int,
    draws: int,
) -> None:
    # Each trick took one card of each seat; the led card is one more if it is ours.
    played_by_seat = len(tricks) + (1 if lead_card is not None and leader == seat else 0)
    expected = 5 + draws - played_by_seat
    if len(hand) != expected:
        raise PositionError("hand", f"holds {expected} cards at this point, not {len(hand)}")


def _check_turn_up(
    seat: int, turn_up: Card, drawn_by: int | None, hand: list[Card], played: list[Card]
) -> None:
    if drawn_by == seat and turn_up not in hand and turn_up not in played:
        raise PositionError("hand", f"seat {seat} drew the turn-up {turn_up}: it must be in hand")
    if drawn_by == 1 - seat and turn_up in hand:
        raise PositionError("hand", f"the opponent drew the turn-up {turn_up}")


def _exchange(
    reader: _Reader, turn_up: Card, hand: list[Card], played: list[Card]
) -> tuple[int | None, Card | None]:
    raw = reader.data.get("exchange")
    if raw is None:
        return None, None
    seat, took = _card_at_seat("exchange", {"seat": raw.get("seat"), "card": raw.get("took")})
    jack = Card.of(Rank.JACK, turn_up.suit)
    if turn_up is not jack:
        raise PositionError(
            "exchange", f"after an exchange the face-up card is the trump jack {jack}"
        )
    if took.suit is not turn_up.suit or took is jack:
        raise PositionError("exchange", f"the card taken must be a trump other than {jack}")
    return seat, took


def _marriages(
    reader: _Reader,
    seat: int,
    trump: Suit,
    hand: list[Card],
    tricks: list[Trick],
    played: list[Card],
) -> list[Marriage]:
    raw = reader.data.get("marriages", [])
    if not isinstance(raw, list):
        raise PositionError("marriages", "must be a list")
    marriages: list[Marriage] = []
    for index, item in enumerate(raw):
        field = f"marriages[{index}]"
        if not isinstance(item, Mapping):
            raise PositionError(field, 'must be {"seat": 0 or 1, "suit": "H"}')
        declarer = item.get("seat")
        if type(declarer) is not int or declarer not in (0, 1):
            raise PositionError(f"{field}.seat", "must be seat 0 or 1")
        try:
            suit = Suit(item.get("suit"))
        except ValueError:
            raise PositionError(f"{field}.suit", "must be one of C, D, H, S") from None
        if any(m.suit is suit for m in marriages):
            raise PositionError(field, f"the {suit.word} marriage is declared twice")
        marriage = Marriage(declarer, suit, marriage_points(suit is trump))
        for card in marriage.cards:
            led_by_other = any(
                card in (t.lead, t.follow) and t.card_of(declarer) is not card for t in tricks
            )
            if led_by_other or (declarer != seat and card in hand):
                raise PositionError(field, f"seat {declarer} never held {card}")
            if declarer == seat and card not in hand and card not in played:
                raise PositionError(field, f"{card} of your marriage is neither held nor played")
        marriages.append(marriage)
    return marriages


def _declared(
    reader: _Reader,
    seat: int,
    hand: list[Card],
    lead_card: Card | None,
    leader: int,
    marriages: list[Marriage],
) -> Suit | None:
    raw = reader.data.get("declared_marriage")
    if raw is None:
        return None
    try:
        suit = Suit(raw)
    except ValueError:
        raise PositionError("declared_marriage", "must be one of C, D, H, S") from None
    if lead_card is not None or leader != seat:
        raise PositionError("declared_marriage", "only the seat on lead declares, before leading")
    if not any(m.suit is suit and m.seat == seat for m in marriages):
        raise PositionError("declared_marriage", "must also be listed in marriages")
    if not all(card in hand for card in Marriage(seat, suit, 0).cards):
        raise PositionError("declared_marriage", "the King and Queen must both be in hand")
    return suit


def _at_close(
    tricks: list[Trick], marriages: list[Marriage], closer: int, closed_after: int
) -> tuple[int, int]:
    """R9b: the closer's opponent's card points and tricks when the talon was closed."""
    opponent = 1 - closer
    before = tricks[:closed_after]
    won = [t for t in before if t.winner == opponent]
    points = sum(t.points for t in won)
    if won:
        for marriage in marriages:
            # A marriage is declared when the first of its cards is led.
            first = next(
                (i for i, t in enumerate(tricks) if t.leader == marriage.seat
                 and t.lead in marriage.cards),
                len(tricks),
            )  # fmt: skip
            if marriage.seat == opponent and first < closed_after:
                points += marriage.points
    return points, len(won)
