"""A deal that reaches a seat's view, built and played by the engine, or None.

The test's own answer to "can this position happen": it places every card
(both first hands, the talon in drawing order, the turn-up), lists the
actions (exchange, close, marriages, the cards of every trick), plays them
with ``apply`` and keeps the deal only if the engine accepts every action and
the seat's view at the end is the given one. Its choices are complete:

- the first lead of a marriage's cards is its declaration (R6c);
- the exchange is tried at every lead of its seat while the trump card lies
  under the talon (R6a);
- each seat's cards go to its first hand and draws earliest-needed first
  (a card is needed from the lead it is played or declared);
- the opponent's unseen cards are those its strict-play answers allow (R5),
  the rest lie in the talon.

So a view this finds no deal for is one no deal reaches, independently of
``service.engine.reachable``.
"""

from __future__ import annotations

from dataclasses import replace

from service.engine import DECK, Card, Rank, Suit, apply, new_game, start_deal, take_seat
from service.engine.actions import CLOSE_TALON, DECLARE_MARRIAGE, EXCHANGE_TRUMP_JACK, PLAY
from service.engine.errors import EngineError
from service.engine.knowledge import SeatView, seat_view
from service.engine.masks import follow_mask
from service.engine.state import GameState, Marriage

NEVER = 99


def witness(view: SeatView) -> GameState | None:
    """A game state whose deal reaches ``view`` for its seat, or None if no deal does."""
    if view.exchanged_by is None:
        return _try(view, None)
    for lead in range(min(4, len(view.tricks), _draws(view)) + 1):
        if _leader_at(view, lead) == view.exchanged_by:
            found = _try(view, lead)
            if found is not None:
                return found
    return None


def _draws(view: SeatView) -> int:
    return 5 if view.closed_by is None else (9 - view.talon_size) // 2


def _leader_at(view: SeatView, lead: int) -> int:
    return view.tricks[lead].leader if lead < len(view.tricks) else view.leader


def _plays(view: SeatView) -> dict[Card, tuple[int, int]]:
    plays: dict[Card, tuple[int, int]] = {}
    for index, trick in enumerate(view.tricks):
        plays[trick.lead] = (trick.leader, index)
        plays[trick.follow] = (1 - trick.leader, index)
    if view.lead_card is not None:
        plays[view.lead_card] = (view.leader, len(view.tricks))
    return plays


def _marriage_leads(view: SeatView, plays: dict[Card, tuple[int, int]]) -> dict[int, Suit]:
    """The lead each marriage was declared at: the first of its cards played, else this one."""
    leads: dict[int, Suit] = {}
    for marriage in view.marriages:
        times = [plays[c][1] for c in marriage.cards if c in plays]
        lead = min(times) if times else len(view.tricks)
        leads[lead] = marriage.suit
    return leads


def _try(view: SeatView, exchange_lead: int | None) -> GameState | None:
    now, draws = len(view.tricks), _draws(view)
    plays = _plays(view)
    marriages = _marriage_leads(view, plays)
    original = view.exchanged_card if view.exchanged_card is not None else view.turn_up
    jack = Card.of(Rank.JACK, view.trump)
    drawer = view.turn_up_drawn_by
    # The opponent's cards: played, shown, and unseen ones its strict-play answers allow.
    opponent = view.opponent
    known = {c for m in view.marriages if m.seat == opponent for c in m.cards}
    if view.exchanged_by == opponent:
        known.add(original)
    if drawer == opponent:
        known.add(view.turn_up)
    known -= set(plays)
    placed = set(view.hand) | set(plays) | known | {view.turn_up, original}
    unseen = [c for c in DECK if c not in placed]
    allowed = [c for c in unseen if _may_hold(view, plays, opponent, known, c)]
    room = view.opponent_hand_size - len(known)
    if room < 0 or len(allowed) < room:
        return None
    hidden = allowed[:room]
    talon_rest = [c for c in unseen if c not in hidden]
    holds = {view.seat: set(view.hand), opponent: known | set(hidden)}
    # Each seat's cards with the lead they are needed from; the specials come on their own.
    hands: dict[int, list[Card]] = {}
    draws_of: dict[int, dict[int, Card]] = {}
    for seat in (0, 1):
        need: dict[Card, int] = {c: lead for c, (s, lead) in plays.items() if s == seat}
        for card in holds[seat]:
            need.setdefault(card, NEVER)
        for lead, suit in marriages.items():
            for card in (c for m in view.marriages if m.suit is suit for c in m.cards):
                if card in need and _declarer(view, suit) == seat:
                    need[card] = min(need[card], lead)
        if drawer == seat:
            need.pop(view.turn_up, None)
        if view.exchanged_by == seat:
            need.pop(original, None)
            assert exchange_lead is not None
            need[jack] = exchange_lead
        releases = [0] * 5 + [
            index + 1 for index in range(min(draws, now)) if not (index == 4 and drawer == seat)
        ]
        cards = sorted(need, key=lambda c: need[c])
        if len(cards) != len(releases):
            return None
        first_hand: list[Card] = []
        drawn: dict[int, Card] = {}
        for card, release in zip(cards, releases, strict=True):
            if release > need[card]:
                return None
            if release:
                drawn[release - 1] = card
            else:
                first_hand.append(card)
        hands[seat], draws_of[seat] = first_hand, drawn
    non_dealer = 1 - view.dealer
    talon: list[Card] = []
    for index in range(min(draws, now)):
        winner = view.tricks[index].winner
        talon.append(draws_of[winner][index])
        if index < 4:
            talon.append(draws_of[1 - winner][index])
    talon += talon_rest
    deck = [*hands[non_dealer], *hands[view.dealer], original, *talon]
    if len(deck) != 20 or len(set(deck)) != 20:
        return None
    return _play(view, deck, exchange_lead, marriages)


def _declarer(view: SeatView, suit: Suit) -> int:
    return next(m.seat for m in view.marriages if m.suit is suit)


def _may_hold(
    view: SeatView, plays: dict[Card, tuple[int, int]], seat: int, known: set[Card], card: Card
) -> bool:
    """R5: the seat could hold ``card`` through every strict trick it answered."""
    for index in range(_draws(view), len(view.tricks)):
        trick = view.tricks[index]
        if 1 - trick.leader != seat:
            continue
        held = {c for c, (s, lead) in plays.items() if s == seat and lead >= index} | known
        mask = 0
        for c in held | {card}:
            mask |= c.bit
        if not trick.follow.bit & follow_mask(mask, trick.lead.order, view.trump.number, True):
            return False
    return True


def _play(
    view: SeatView, deck: list[Card], exchange_lead: int | None, marriages: dict[int, Suit]
) -> GameState | None:
    """Deal ``deck`` and play the view's history; the state if the seat sees ``view``."""
    state = take_seat(take_seat(new_game(view.variant, view.dealer), 0), 1)
    state = start_deal(state, deck)
    draws = _draws(view)
    try:
        for lead in range(len(view.tricks) + 1):
            if lead == exchange_lead:
                state = apply(state, EXCHANGE_TRUMP_JACK)
            if view.closed_by is not None and lead == draws:
                state = apply(state, CLOSE_TALON)
            if lead in marriages:
                state = apply(state, DECLARE_MARRIAGE[marriages[lead]])
            if lead < len(view.tricks):
                trick = view.tricks[lead]
                state = apply(apply(state, PLAY[trick.lead]), PLAY[trick.follow])
            elif view.lead_card is not None:
                state = apply(state, PLAY[view.lead_card])
    except EngineError:
        return None
    if state.deal is None or state.deal.result is not None or state.to_move != view.seat:
        return None
    reached = seat_view(state, view.seat)
    # The order marriages are listed in is not a fact of the deal: compare them as a set.
    reached = replace(
        reached,
        number=view.number,
        game_points=view.game_points,
        marriages=tuple(sorted(reached.marriages, key=_suit_order)),
    )
    wanted = replace(view, marriages=tuple(sorted(view.marriages, key=_suit_order)))
    return state if reached == wanted else None


def _suit_order(marriage: Marriage) -> str:
    return marriage.suit.value
