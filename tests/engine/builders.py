"""Deterministic scenario builders for the rule tests.

Deck order is the convention of docs/rules.md: positions 0-4 the non-dealer's hand,
5-9 the dealer's hand, 10 the trump card (turn-up), 11-19 the talon, 11 drawn
first. ``start`` seats both players with seat 1 as the first dealer unless
told otherwise, so by default seat 0 is the non-dealer and leads first.

Moves are written as short strings::

    "AH"          play the ace of hearts
    "exchange"    exchange_trump_jack
    "close"       close_talon
    "marry H"     declare_marriage of hearts
    "claim"       claim
    "accept"      accept_last_trick
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Iterable, Sequence
from typing import Any

import pytest

from service.engine import (
    DECK,
    Action,
    ActionTaken,
    ActionType,
    Card,
    DealEndReason,
    DealStarted,
    ErrorCode,
    GameCreated,
    GameState,
    IllegalActionError,
    SeatTaken,
    Suit,
    Variant,
    apply,
    legal_actions,
    new_game,
    start_deal,
    take_seat,
)

HEAD = Variant.HEAD
TRACKED = Variant.TRACKED


def cards(codes: str | Iterable[str | Card]) -> list[Card]:
    """Cards from ``"AH TH KS"`` or an iterable of codes or cards."""
    if isinstance(codes, str):
        codes = codes.split()
    return [code if isinstance(code, Card) else Card.parse(code) for code in codes]


def codes(items: Iterable[Card]) -> list[str]:
    return [card.value for card in items]


def build_deck(
    non_dealer: str | Iterable[str | Card],
    dealer: str | Iterable[str | Card],
    trump_card: str | Card,
    talon: str | Iterable[str | Card] = (),
) -> list[Card]:
    """A 20-card deck order from the two hands, the trump card and the talon's top.

    Talon cards not given are the remaining cards in the canonical order
    (clubs first, ace first), after the given ones.
    """
    first = cards(non_dealer)
    second = cards(dealer)
    turn_up = cards([trump_card])[0]
    top = cards(talon)
    assert len(first) == 5 and len(second) == 5, "each hand holds 5 cards"
    given = first + second + [turn_up] + top
    assert len(set(given)) == len(given), f"a card is given twice: {codes(given)}"
    rest = [card for card in DECK if card not in given]
    deck = given + rest
    assert len(deck) == 20 and len(set(deck)) == 20
    return deck


def seated_game(variant: Variant = HEAD, first_dealer: int = 1) -> GameState:
    """A new game with both seats taken and no deal dealt yet."""
    state = new_game(variant, first_dealer)
    return take_seat(take_seat(state, 0), 1)


def start(deck: Sequence[Card], variant: Variant = HEAD, first_dealer: int = 1) -> GameState:
    """A game with both seats taken and its first deal dealt from ``deck``.

    With the default ``first_dealer=1`` seat 0 is the non-dealer: it holds
    deck positions 0-4 and leads the first trick.
    """
    return start_deal(seated_game(variant, first_dealer), deck)


_MARRY = re.compile(r"^marry[ :]([CDHS])$")


def action(move: str | Action) -> Action:
    """The action a move string names (see the module docstring)."""
    if isinstance(move, Action):
        return move
    simple = {
        "exchange": ActionType.EXCHANGE_TRUMP_JACK,
        "close": ActionType.CLOSE_TALON,
        "claim": ActionType.CLAIM,
        "accept": ActionType.ACCEPT_LAST_TRICK,
    }
    if move in simple:
        return Action.from_dict({"type": simple[move].value})
    found = _MARRY.match(move)
    if found:
        return Action.declare_marriage(Suit(found.group(1)))
    return Action.play(Card.parse(move))


def play(state: GameState, *moves: str | Action) -> GameState:
    """Apply the moves in order, each by the seat to move."""
    for move in moves:
        state = apply(state, action(move), state.to_move)
    return state


def play_states(state: GameState, *moves: str | Action) -> list[GameState]:
    """Every state along the moves, the starting one included."""
    states = [state]
    for move in moves:
        states.append(apply(states[-1], action(move), states[-1].to_move))
    return states


def deal_outcome(state: GameState) -> tuple[int, int, DealEndReason]:
    """The finished deal's (winner, game points, reason); it is also the last of the results."""
    result = state.deal.result
    assert result is not None and state.results[-1] == result
    return (result.winner, result.game_points, result.reason)


def hand(state: GameState, seat: int) -> list[str]:
    assert state.deal is not None
    return codes(state.deal.hands[seat])


def game_events(
    decks: Sequence[Sequence[Card]],
    moves_per_deal: Sequence[Sequence[str | Action]],
    variant: Variant = HEAD,
    first_dealer: int = 1,
) -> list[Any]:
    """The event log of a game: created, two seats, then each deal and its moves."""
    events: list[Any] = [GameCreated(variant, first_dealer), SeatTaken(0), SeatTaken(1)]
    state = seated_game(variant, first_dealer)
    for deck, moves in zip(decks, moves_per_deal, strict=True):
        number = len(state.results) + 1
        events.append(DealStarted(number, state.next_dealer, tuple(deck)))
        state = start_deal(state, deck)
        for move in moves:
            seat = state.to_move
            act = action(move)
            events.append(ActionTaken(seat, act))
            state = apply(state, act, seat)
    return events


def refuse(
    state: GameState,
    move: str | Action,
    code: ErrorCode,
    rule: str,
    seat: int | None = None,
) -> IllegalActionError:
    """Assert that ``move`` is refused with ``code`` and a message starting with ``rule``.

    Also asserts that the refused move is not listed as legal (when the seat
    trying it is the seat to move) and that the state did not change.
    """
    before = copy.deepcopy(state)
    act = action(move)
    acting = state.to_move if seat is None else seat
    with pytest.raises(IllegalActionError) as caught:
        apply(state, act, acting)
    error = caught.value
    assert error.code is code, (error.code, str(error))
    assert error.rule == rule, (error.rule, str(error))
    assert str(error).startswith(f"{rule}: "), str(error)
    assert error.message == str(error)
    assert state == before
    if acting == state.to_move:
        assert act not in legal_actions(state)
    return error


CARD_CODE = re.compile(r"^[ATKQJ][CDHS]$")


def card_codes_in(data: Any) -> set[str]:
    """Every card code that appears anywhere in JSON-like data (keys and values)."""
    found: set[str] = set()
    text = json.dumps(data)
    for token in re.findall(r'"([^"]*)"', text):
        if CARD_CODE.match(token):
            found.add(token)
    return found


# -- shared scenarios (seat 0 is the non-dealer and leads first) ------------
#
# Each deck is commented with the line of play the tests use; the card
# points are worked out by hand in the comments, not copied from the engine.

#: Trump diamonds (JD). Seat 0 wins tricks 1-5 with 14 each (70), drawing
#: JC JS JH TH KH; seat 1 draws AD TD KD QD and the turn-up JD.
#: Tricks 6-10: seat 1 holds only trumps and wins them all (50).
FULL_DEAL = tuple(
    build_deck("AC TC AS TS AH", "QC KC QS KS QH", "JD", "JC AD JS TD JH KD TH QD KH")
)
FULL_DEAL_OPEN = ("AC", "QC", "TC", "KC", "AS", "QS", "TS", "KS", "AH", "QH")
FULL_DEAL_STRICT = ("JC", "JD", "QD", "JS", "KD", "JH", "TD", "TH", "AD", "KH")

#: Trump diamonds (JD). Same first five tricks as FULL_DEAL (seat 0: 70), but
#: seat 0 draws AD TD JC JS JH, seat 1 KD QD TH KH and the turn-up JD.
#: Tricks 6-10: JC-JD (1: 4), KH-JH (1: 6), TH-TD (0: 20), JS-QD (1: 5),
#: KD-AD (0: 15): seat 0 wins the last trick with 105, seat 1 has 15 in 3 tricks.
LAST_TRICK_DEAL = tuple(
    build_deck("AC TC AS TS AH", "QC KC QS KS QH", "JD", "AD KD TD QD JC TH JS KH JH")
)
LAST_TRICK_OPEN = FULL_DEAL_OPEN
LAST_TRICK_STRICT = ("JC", "JD", "KH", "JH", "TH", "TD", "JS", "QD", "KD", "AD")

#: Trump diamonds (QD). Nobody reaches 66: seat 0 ends with 60, seat 1 with 60
#: and seat 1 wins the last trick.
#: T1 AC-JC (0: 13), T2 JS-AS (1: 13), T3 JH-AH (0: 26), T4 QS-TS (1: 26),
#: T5 QH-TH (0: 39; seat 1 draws the turn-up QD), T6 QC-KC (1: 33),
#: T7 KH-JD (0: 45), T8 KS-QD (1: 40), T9 KD-AD (0: 60), T10 TC-TD (1: 60).
BALANCED_DEAL = tuple(
    build_deck("AC JS AH QS TH", "JC AS JH TS QH", "QD", "AD TD KD TC QC KC KH KS JD")
)
BALANCED_MOVES = (
    "AC", "JC", "JS", "AS", "JH", "AH", "QS", "TS", "QH", "TH",
    "QC", "KC", "KH", "JD", "KS", "QD", "KD", "AD", "TC", "TD",
)  # fmt: skip

#: Trump hearts (JH). T1 TC-(AC or TH) to seat 1 (21 or 20), T2 TD-JD to seat 1
#: (12: seat 1 at 33 or 32), T3 QS-AS to seat 0 (14), then seat 0 declares 40
#: and leads KH, seat 1 throws TS: seat 0 has 14 + 40 + 14 = 68.
OUT_DEAL = tuple(build_deck("TC JD AS KH QH", "AC TH TD QS TS", "JH"))

#: Like OUT_DEAL but seat 1 holds JS instead of TH (TH stays in the talon), so
#: seat 0 can close after trick 3 with seat 1 frozen at 33 points in 2 tricks.
OUT_CLOSED_DEAL = tuple(build_deck("TC JD AS KH QH", "AC JS TD QS TS", "JH"))

#: E1, trump spades (QS): seat 0 takes AC-TC 21, AD-TD 21, AH-QH 14, TS-KS 14.
E1_DEAL = tuple(build_deck("AC AD AH TS JC", "TC TD QH KS JD", "QS"))
E1_MOVES = ("AC", "TC", "AD", "TD", "AH", "QH", "TS", "KS")

#: E2, trump hearts (JH). Seat 1 takes JD-KD (6) and TS-QS (13): 19 in 2 tricks;
#: seat 0 takes JS-AS (13) and closes. Then seat 0 declares 40 and leads QH
#: (JC thrown: 58), leads TC into seat 1's AC (seat 1: 40), and trumps KS with
#: KH (8): 66. Left: seat 0 TD AD, seat 1 QD QC.
E2_DEAL = tuple(build_deck("JD QS AS KH QH", "KD TS JS AC JC", "JH", "KS TC QD TD AD QC KC AH TH"))
E2_TO_CLOSE = ("JD", "KD", "TS", "QS", "JS", "AS", "close")
E2_TO_66 = ("marry H", "QH", "JC", "TC", "AC", "KS", "KH")
E2_TO_END = ("TD", "QD", "AD", "QC")  # seat 0 wins both: 93 and the last trick

#: E3 (2 points), trump hearts (JH). JD-AD to seat 1 (13), JC-AC to seat 0
#: (13), seat 0 closes (seat 1 frozen at 13 in 1 trick); AS-TS to seat 0
#: (34), QC-TC to seat 1 (26), seat 1 declares 40: 66.
E3_TWO_DEAL = tuple(build_deck("JD AC AS QC JS", "AD JC TS KH QH", "JH", "TC KD QD TD"))
E3_TWO_MOVES = ("JD", "AD", "JC", "AC", "close", "AS", "TS", "QC", "TC", "marry H")

#: E3 (3 points), trump hearts (JH). Seat 0 closes on the first lead; AD-KD to
#: seat 0 (15), QS-AS to seat 1 (14), seat 1 declares 40 and leads KH (JS: 60),
#: then AH-JD (73).
E3_THREE_DEAL = tuple(build_deck("AD QS JS JD QD", "KD AS KH QH AH", "JH"))
E3_THREE_TO_60 = ("close", "AD", "KD", "QS", "AS", "marry H", "KH", "JS")

#: E4, trump hearts (JH): seat 0 holds AH KH QH, closes on the first lead,
#: AH-AS (22), declares 40 (62); KH-JS would make 68.
E4_DEAL = tuple(build_deck("AH KH QH JC JD", "AS JS AC TC AD", "JH"))

#: E5, trump spades (JS). JD-KD to seat 1 (6); seat 1 declares 40, QS-JC (51);
#: QH-AH to seat 0 (14); seat 0 declares 20, KC-TD (48); AC-AD (70). Seat 0
#: then leads TC and seat 1 trumps with AS (72).
E5_DEAL = tuple(build_deck("JD JC AH KC QC", "KD KS QS QH TD", "JS", "AD AC AS TC TH KH JH QD TS"))
E5_TO_70 = ("JD", "KD", "marry S", "QS", "JC", "QH", "AH", "marry C", "KC", "TD", "AC", "AD")

#: A closed deal to the end, trump hearts (JH). Seat 0 closes on the first
#: lead: AH-KS (15), declares 40 with KH-QS (62), QH-JD (67), AS-TS (88), then
#: leads JC into seat 1's AC and loses the last trick (seat 1: 13).
CLOSED_DEAL = tuple(build_deck("AH KH QH AS JC", "KS QS JD TS AC", "JH"))
CLOSED_MOVES = ("close", "AH", "KS", "marry H", "KH", "QS", "QH", "JD", "AS", "TS", "JC", "AC")
CLOSED_MOVES_NO_MARRIAGE = ("close", "AH", "KS", "KH", "QS", "QH", "JD", "AS", "TS", "JC", "AC")

#: Exchange, trump hearts (AH turned up); seat 0 holds the trump jack JH and
#: takes AC-JC, AD-JD, AS-JS, TC-QC (52), leaving one talon card (QS).
EXCHANGE_DEAL = tuple(build_deck("JH AC AD AS TC", "JC JD JS QC KD", "AH"))
EXCHANGE_FOUR_TRICKS = ("AC", "JC", "AD", "JD", "AS", "JS", "TC", "QC")


def false_claim_deck() -> list[Card]:
    """The non-dealer holds KH QH: ``marry H`` then ``claim`` gives the dealer 3."""
    return build_deck("KH QH AC AD AS", "TC TD TS JC JD", "JS")
