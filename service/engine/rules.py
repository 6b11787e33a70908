"""The rules of one deal: which actions are legal, and what each one does.

``deal_legal_actions`` and ``play_action`` work on a ``DealState``; the
game-level wrappers in ``game.py`` add seats, turns and the match score. Every
refusal is an ``IllegalActionError`` whose message starts with the rule of
docs/rules.md it enforces.

Which actions are legal, who wins a trick and who draws what are decided by
the search core's functions (``masks``) on this deal's cards as bit masks,
and how a deal ends by ``outcomes``: this module reads an immutable deal into
them, explains refusals, and builds the next immutable deal.
"""

from __future__ import annotations

from .actions import (
    PLAY,
    Action,
    ActionType,
)
from .cards import Card, Rank, Suit, describe_cards, sort_cards
from .core import actions_in, hand_mask
from .errors import ErrorCode, IllegalActionError
from .masks import BEATS, draws, follow_mask, lead_mask
from .points import WINNING_POINTS, marriage_points
from .scoring import claim_result, last_trick_result
from .state import DealState, Marriage, Trick, Variant


def deal_legal_actions(deal: DealState, variant: Variant) -> list[Action]:
    """The legal actions of the seat to move, in a fixed order.

    Plays come first (in the canonical card order), then exchange, close,
    marriages, claim and accept. Empty once the deal is over.
    """
    if deal.result is not None:
        return []
    if deal.lead_card is not None:
        return list(map(PLAY.__getitem__, follow_options(deal, deal.hands[1 - deal.leader])))
    declared = deal.declared
    return actions_in(
        lead_mask(
            hand_mask(deal.hands[deal.leader]),
            deal.trump.number,
            deal.closed_by is None and deal.turn_up_drawn_by is None,
            -1 if declared is None else declared.number,
            variant is Variant.HEAD,
            bool(deal.tricks),
        )
    )


def follow_options(deal: DealState, hand: tuple[Card, ...]) -> tuple[Card, ...] | list[Card]:
    """The cards the follower may play to the current trick (R4a, R5a, R5b)."""
    if deal.closed_by is None and deal.turn_up_drawn_by is None:
        return hand
    lead = deal.lead_card
    assert lead is not None
    allowed = follow_mask(hand_mask(hand), lead.order, deal.trump.number, True)
    return [card for card in hand if card.bit & allowed]


def play_action(deal: DealState, variant: Variant, action: Action) -> DealState:
    """The deal after the seat to move takes ``action``; raises if it is illegal."""
    if deal.result is not None:
        raise _refuse("the deal is over", ErrorCode.NO_DEAL, "R7c", deal)
    kind = action.type
    if deal.lead_card is not None:
        if kind is not ActionType.PLAY:
            raise _refuse(
                f"a trick is under way: the follower must play a card, not {kind.value}",
                ErrorCode.NOT_ON_LEAD,
                "R2a",
                deal,
            )
        return _follow(deal, variant, action.card)
    if deal.cards_out and kind not in (ActionType.CLAIM, ActionType.ACCEPT_LAST_TRICK):
        raise _refuse(
            "the cards are out: the last trick's winner may claim or accept_last_trick",
            ErrorCode.MUST_CLAIM_OR_ACCEPT,
            "R8a",
            deal,
        )
    if kind is ActionType.PLAY:
        return _lead(deal, action.card)
    if kind is ActionType.CLAIM:
        return _claim(deal, variant)
    if kind is ActionType.ACCEPT_LAST_TRICK:
        return _accept_last_trick(deal, variant)
    if kind is ActionType.DECLARE_MARRIAGE:
        return _declare_marriage(deal, variant, action.suit)
    if kind is ActionType.EXCHANGE_TRUMP_JACK:
        return _exchange_trump_jack(deal)
    return _close_talon(deal)


# -- leading ---------------------------------------------------------------


def _lead(deal: DealState, card: Card | None) -> DealState:
    seat = deal.leader
    hand = deal.hands[seat]
    if card not in hand:
        raise _not_in_hand(deal, seat, card)
    if deal.declared is not None and (card.suit is not deal.declared or not _is_royal(card)):
        raise _refuse(
            f"after declaring the {deal.declared.word} marriage you must lead its King or "
            f"Queen, not {card}",
            ErrorCode.MUST_LEAD_MARRIAGE_CARD,
            "R6c",
            deal,
        )
    hands = _without(deal.hands, seat, card)
    return _after_card(
        deal, hands, deal.talon, deal.turn_up_drawn_by, seat, card, deal.tricks, deal.trick_points
    )


def _declare_marriage(deal: DealState, variant: Variant, suit: Suit | None) -> DealState:
    seat = deal.leader
    assert suit is not None
    if deal.declared is not None:
        raise _refuse(
            f"one marriage per lead: you already declared {deal.declared.word}",
            ErrorCode.MARRIAGE_NOT_ALLOWED,
            "R6c",
            deal,
        )
    king, queen = Card.of(Rank.KING, suit), Card.of(Rank.QUEEN, suit)
    hand = deal.hands[seat]
    if king not in hand or queen not in hand:
        raise _refuse(
            f"a marriage needs the King and Queen of {suit.word} in your hand "
            f"(you hold {describe_cards(hand)})",
            ErrorCode.MARRIAGE_NOT_ALLOWED,
            "R6c",
            deal,
        )
    marriage = Marriage(seat=seat, suit=suit, points=marriage_points(suit is deal.trump))
    deal = deal._replace(marriages=deal.marriages + (marriage,), declared=suit)
    if variant is Variant.TRACKED and deal.card_points(seat) >= WINNING_POINTS:
        deal = deal._replace(result=claim_result(deal, seat))  # R7e: going out is automatic
    return deal


def _exchange_trump_jack(deal: DealState) -> DealState:
    seat = deal.leader
    if deal.declared is not None:
        raise _refuse(
            "exchanging comes before a marriage declaration",
            ErrorCode.EXCHANGE_NOT_ALLOWED,
            "R6c",
            deal,
        )
    _require_open_talon(deal, "exchange the trump jack", ErrorCode.EXCHANGE_NOT_ALLOWED, "R6a")
    jack = _trump_jack(deal)
    hand = deal.hands[seat]
    if jack not in hand:
        raise _refuse(
            f"only the holder of the trump jack ({jack}) may exchange it",
            ErrorCode.EXCHANGE_NOT_ALLOWED,
            "R6a",
            deal,
        )
    taken = deal.turn_up
    new_hand = tuple(sort_cards([card for card in hand if card is not jack] + [taken]))
    return deal._replace(
        hands=_replace_hand(deal.hands, seat, new_hand),
        turn_up=jack,
        exchanged_by=seat,
        exchanged_card=taken,
    )


def _close_talon(deal: DealState) -> DealState:
    seat = deal.leader
    if deal.declared is not None:
        raise _refuse(
            "closing comes before a marriage declaration", ErrorCode.CLOSE_NOT_ALLOWED, "R6c", deal
        )
    _require_open_talon(deal, "close the talon", ErrorCode.CLOSE_NOT_ALLOWED, "R6b")
    opponent = 1 - seat
    at_close = (deal.card_points(opponent), deal.tricks_won(opponent))
    return deal._replace(closed_by=seat, at_close=at_close)


def _claim(deal: DealState, variant: Variant) -> DealState:
    _require_head(
        deal,
        variant,
        "going out is automatic; there is no claim",
        ErrorCode.CLAIM_NOT_ALLOWED,
        "R7e",
    )
    if not deal.tricks and deal.declared is None:
        raise _refuse(
            "the first lead of a deal allows a claim only just after declaring a marriage",
            ErrorCode.CLAIM_NOT_ALLOWED,
            "R7b",
            deal,
        )
    return deal._replace(result=claim_result(deal, deal.leader))


def _accept_last_trick(deal: DealState, variant: Variant) -> DealState:
    _require_head(
        deal,
        variant,
        "the last trick is settled automatically",
        ErrorCode.ACCEPT_NOT_ALLOWED,
        "R8b",
    )
    if not deal.cards_out:
        raise _refuse(
            "accept_last_trick is only possible once both hands are empty",
            ErrorCode.ACCEPT_NOT_ALLOWED,
            "R8a",
            deal,
        )
    return deal._replace(result=last_trick_result(deal))


# -- following and the end of a trick --------------------------------------


def _follow(deal: DealState, variant: Variant, card: Card | None) -> DealState:
    leader = deal.leader
    follower = 1 - leader
    hand = deal.hands[follower]
    if card not in hand:
        raise _not_in_hand(deal, follower, card)
    lead = deal.lead_card
    assert lead is not None
    trump = deal.trump
    if deal.closed_by is not None or deal.turn_up_drawn_by is not None:
        allowed = follow_options(deal, hand)
        if card not in allowed:
            raise _strict_play_error(deal, lead, card, allowed)
    winner = follower if BEATS[trump.number][lead.order] & card.bit else leader
    loser = 1 - winner
    hands = list(deal.hands)
    hands[follower] = _remove(hand, card)
    points = lead.points + card.points
    trick_points = (
        (deal.trick_points[0] + points, deal.trick_points[1])
        if winner == 0
        else (deal.trick_points[0], deal.trick_points[1] + points)
    )
    talon = deal.talon
    turn_up_drawn_by = deal.turn_up_drawn_by
    if deal.closed_by is None and turn_up_drawn_by is None:
        first, second, exhausted = draws(talon, 0, deal.turn_up)
        hands[winner] = _with_card(hands[winner], first)
        hands[loser] = _with_card(hands[loser], second)
        if exhausted:
            talon = ()
            turn_up_drawn_by = loser
        else:
            talon = talon[2:]
    deal = _after_card(
        deal,
        (hands[0], hands[1]),
        talon,
        turn_up_drawn_by,
        winner,
        None,
        deal.tricks + (Trick(leader, lead, card, winner),),
        trick_points,
    )
    if variant is Variant.TRACKED:
        # R7e, R8b: go out at once with 66, else the last trick settles the deal.
        if deal.card_points(winner) >= WINNING_POINTS:
            deal = deal._replace(result=claim_result(deal, winner))
        elif not hands[0] and not hands[1]:
            deal = deal._replace(result=last_trick_result(deal))
    return deal


def _after_card(
    deal: DealState,
    hands: tuple[tuple[Card, ...], tuple[Card, ...]],
    talon: tuple[Card, ...],
    turn_up_drawn_by: int | None,
    leader: int,
    lead_card: Card | None,
    tricks: tuple[Trick, ...],
    trick_points: tuple[int, int],
) -> DealState:
    """The deal after a card is led or followed: no marriage pending, no result yet.

    Built positionally: a lead or a trick is the engine's hottest line (one per
    action, millions in a bot's search), and a NamedTuple built by keywords or
    ``_replace`` costs three times as much (0.8 us against 0.25 us here).
    """
    return DealState(
        deal.number,
        deal.dealer,
        deal.deck,
        deal.trump,
        hands,
        talon,
        deal.turn_up,
        turn_up_drawn_by,
        leader,
        lead_card,
        tricks,
        trick_points,
        deal.marriages,
        None,  # declared
        deal.closed_by,
        deal.at_close,
        deal.exchanged_by,
        deal.exchanged_card,
        None,  # result
    )


def _strict_play_error(
    deal: DealState, lead: Card, card: Card, allowed: tuple[Card, ...] | list[Card]
) -> IllegalActionError:
    """Explain which duty of R5 the card breaks, naming the cards that fulfil it."""
    suit = lead.suit
    in_trumps = suit is deal.trump
    if allowed[0].suit is not suit:
        duty = f"you hold no {suit.word}, so you must play a trump"
        code, rule = ErrorCode.MUST_TRUMP, "R5a"
    elif allowed[0].strength <= lead.strength:
        duty = f"you must follow {suit.word}"
        code, rule = ErrorCode.MUST_FOLLOW_SUIT, "R5b" if in_trumps else "R5a"
    elif in_trumps:
        duty = f"you must overtrump {lead} with a higher trump"
        code, rule = ErrorCode.MUST_OVERTRUMP, "R5b"
    else:
        duty = f"you must follow {suit.word} with a higher {suit.word[:-1]}"
        code, rule = ErrorCode.MUST_BEAT, "R5a"
    return _refuse(f"{duty} (you hold {describe_cards(allowed)})", code, rule, deal)


# -- helpers ---------------------------------------------------------------


def _require_open_talon(deal: DealState, what: str, code: ErrorCode, rule: str) -> None:
    if deal.closed_by is not None:
        raise _refuse(f"cannot {what}: the talon is closed", code, rule, deal)
    if deal.turn_up_drawn_by is not None:
        raise _refuse(f"cannot {what}: the talon is exhausted", code, rule, deal)


def _require_head(deal: DealState, variant: Variant, why: str, code: ErrorCode, rule: str) -> None:
    """Claims and accepting the last trick exist only in the head variant (R7d)."""
    if variant is Variant.TRACKED:
        raise _refuse(f"in the tracked variant {why}", code, rule, deal)


def _trump_jack(deal: DealState) -> Card:
    return Card.of(Rank.JACK, deal.trump)


def _is_royal(card: Card) -> bool:
    return card.rank is Rank.KING or card.rank is Rank.QUEEN


def _with_card(hand: tuple[Card, ...], card: Card) -> tuple[Card, ...]:
    """The hand with a drawn card, kept in the canonical order."""
    order = card.order
    for index, held in enumerate(hand):
        if held.order > order:
            return hand[:index] + (card,) + hand[index:]
    return hand + (card,)


def _without(
    hands: tuple[tuple[Card, ...], tuple[Card, ...]], seat: int, card: Card
) -> tuple[tuple[Card, ...], tuple[Card, ...]]:
    return _replace_hand(hands, seat, _remove(hands[seat], card))


def _remove(hand: tuple[Card, ...], card: Card) -> tuple[Card, ...]:
    index = hand.index(card)
    return hand[:index] + hand[index + 1 :]


def _replace_hand(
    hands: tuple[tuple[Card, ...], tuple[Card, ...]], seat: int, hand: tuple[Card, ...]
) -> tuple[tuple[Card, ...], tuple[Card, ...]]:
    return (hand, hands[1]) if seat == 0 else (hands[0], hand)


def _not_in_hand(deal: DealState, seat: int, card: Card | None) -> IllegalActionError:
    held = describe_cards(deal.hands[seat])
    return _refuse(
        f"{card} is not in your hand (you hold {held})", ErrorCode.CARD_NOT_IN_HAND, "R2a", deal
    )


def _refuse(message: str, code: ErrorCode, rule: str, deal: DealState) -> IllegalActionError:
    return IllegalActionError(message, code=code, rule=rule, seat=deal.to_move)
