"""Whether a real deal can reach a seat's view: the rules' word on a position.

``position.view_from_position`` reads a position and checks its shape (each
card once, the tricks' leaders and winners, the hand's and the talon's sizes).
A well-shaped view can still be one no deal reaches: an exchange by a seat
that was never on lead, a marriage whose King or Queen was never led, the
trump card in a hand while it lies under the talon, a tracked deal that
should have ended. A bot handed such a view answers nonsense or cannot sample
the opponent's hand at all, so ``objection`` names the first such fact.

Time is counted in leads: lead ``t`` is the start of trick ``t`` (before any
exchange, close or declaration); the view's own lead is ``len(view.tricks)``.
What a seat is known to hold, and from when, follows from the public facts
(R11a): a card it played, the cards of a marriage it declared, the trump it
took in an exchange, the turn-up it drew. The seat's hand has room for five
cards until drawing stops, one less with every trick after that.
"""

from __future__ import annotations

from dataclasses import dataclass

from .cards import DECK, Card, describe_cards
from .knowledge import SeatView
from .masks import follow_mask
from .points import WINNING_POINTS
from .state import HAND_SIZE, Marriage, Variant

#: The trick whose loser draws the turn-up when nobody closed (R3b): the fifth.
LAST_DRAW = 4


@dataclass(frozen=True, slots=True)
class Objection:
    """Why no deal reaches a view: the position's ``field`` and the rule it breaks."""

    field: str
    message: str


class _Unreachable(Exception):
    def __init__(self, field: str, message: str):
        self.objection = Objection(field, message)


def objection(view: SeatView) -> Objection | None:
    """The first fact of ``view`` that no deal reaches, or None when a deal can reach it."""
    try:
        _Deal(view).check()
    except _Unreachable as error:
        return error.objection
    return None


class _Deal:
    """The public history of one view, read for who held which card when."""

    def __init__(self, view: SeatView):
        self.view = view
        self.now = len(view.tricks)
        #: The tricks that were followed by drawing (R3a): up to the close, else five.
        self.draws = LAST_DRAW + 1 if view.closed_by is None else (9 - view.talon_size) // 2
        #: card -> (seat, lead) for every card played, the card led in this trick too.
        self.plays: dict[Card, tuple[int, int]] = {}
        for index, trick in enumerate(view.tricks):
            self.plays[trick.lead] = (trick.leader, index)
            self.plays[trick.follow] = (1 - trick.leader, index)
        if view.lead_card is not None:
            self.plays[view.lead_card] = (view.leader, self.now)
        self.marriage_leads: list[int] = []
        self.exchange_lead: int | None = None

    def leader_at(self, lead: int) -> int:
        return self.view.tricks[lead].leader if lead < self.now else self.view.leader

    def room(self, lead: int) -> int:
        """Cards in each hand at the start of trick ``lead`` (R1b, R3a)."""
        return HAND_SIZE - max(0, lead - self.draws)

    def check(self) -> None:
        self.check_phase()
        self.check_points()
        self.check_marriages()
        self.check_turn_up()
        self.check_exchange()
        self.check_room()
        self.check_strict_play()

    # -- the deal is still running ------------------------------------------------

    def check_phase(self) -> None:
        view = self.view
        if view.variant is Variant.TRACKED and not view.hand and view.lead_card is None:
            raise _Unreachable(
                "tricks",
                "in the tracked variant the last trick settles the deal (R8b): "
                "no position follows it",
            )

    def check_points(self) -> None:
        view = self.view
        if view.variant is not Variant.TRACKED:
            return  # R7d: 66 counted in the head does nothing until claimed
        for seat in (0, 1):
            won = [trick for trick in view.tricks if trick.winner == seat]
            if not won:
                continue  # R6d: marriages count once a trick is won
            points = sum(trick.points for trick in won)
            points += sum(m.points for m in view.marriages if m.seat == seat)
            if points >= WINNING_POINTS:
                field = "declared_marriage" if self._declared_tips(seat, points) else "tricks"
                raise _Unreachable(
                    field,
                    f"seat {seat} has {points} card points: in the tracked variant it went out "
                    f"at {WINNING_POINTS} and the deal is over (R7e)",
                )

    def _declared_tips(self, seat: int, points: int) -> bool:
        view = self.view
        if view.declared is None or seat != view.seat:
            return False
        declared = next(m for m in view.marriages if m.suit is view.declared)
        return points - declared.points < WINNING_POINTS

    # -- the turn-up ------------------------------------------------------------

    def check_turn_up(self) -> None:
        """R1b, R3b, R6b: the turn-up is in nobody's hand until the fifth trick's loser draws it."""
        view = self.view
        card, drawer = view.turn_up, view.turn_up_drawn_by
        played = self.plays.get(card)
        if played is not None and (played[0] != drawer or played[1] <= LAST_DRAW):
            raise _Unreachable(
                self._trick_field(played[1]),
                f"{card} lay face up under the talon"
                + ("" if drawer is None else f" until seat {drawer} drew it with the fifth trick")
                + f": seat {played[0]} could not play it there (R3b)",
            )
        for index, (marriage, lead) in enumerate(
            zip(view.marriages, self.marriage_leads, strict=True)
        ):
            if card in marriage.cards and (marriage.seat != drawer or lead <= LAST_DRAW):
                raise _Unreachable(
                    f"marriages[{index}]",
                    f"{card} lay face up under the talon"
                    + (
                        " (out of play once the talon was closed)"
                        if drawer is None
                        else f" until seat {drawer} drew it with the fifth trick"
                    )
                    + f": seat {marriage.seat} could not declare it (R3b, R6c)",
                )

    def _trick_field(self, lead: int) -> str:
        return "current_trick" if lead == self.now else f"tricks[{lead}]"

    # -- marriages ----------------------------------------------------------------

    def _marriage_lead(self, marriage: Marriage) -> int:
        """The lead at which the marriage was declared, or -1 when no lead fits (R6c).

        The declarer led its King or Queen right after declaring, so the
        first of the two cards to be played was led by the declarer; when
        neither was played, the declaration is this lead's.
        """
        view = self.view
        firsts = [self.plays[c] for c in marriage.cards if c in self.plays]
        if firsts:
            seat, lead = min(firsts, key=lambda played: played[1])
            first = view.tricks[lead].lead if lead < self.now else view.lead_card
            led_by_declarer = self.leader_at(lead) == marriage.seat and first in marriage.cards
            return lead if led_by_declarer and seat == marriage.seat else -1
        if view.declared is marriage.suit and marriage.seat == view.leader:
            return self.now
        return -1

    def check_marriages(self) -> None:
        for index, marriage in enumerate(self.view.marriages):
            lead = self._marriage_lead(marriage)
            if lead < 0:
                king, queen = marriage.cards
                raise _Unreachable(
                    f"marriages[{index}]",
                    f"seat {marriage.seat} never led {king} or {queen} first: a declarer "
                    "leads the King or the Queen just after declaring (R6c)",
                )
            self.marriage_leads.append(lead)

    # -- the exchange -------------------------------------------------------------

    def check_exchange(self) -> None:
        """R6a: the seat on lead swaps the trump jack while the trump card lies under the talon."""
        view = self.view
        seat, took = view.exchanged_by, view.exchanged_card
        if seat is None or took is None:
            return
        played = self.plays.get(took)
        if played is not None and played[0] != seat:
            raise _Unreachable(
                "exchange", f"seat {seat} took {took}, yet seat {played[0]} played it (R6a)"
            )
        if seat == view.seat and played is None and took not in view.hand:
            raise _Unreachable(
                "exchange", f"you took {took}: it is in your hand, or you played it (R6a)"
            )
        if seat != view.seat and took in view.hand:
            raise _Unreachable(
                "exchange", f"the opponent took {took} and kept it: it cannot be in your hand (R6a)"
            )
        for marriage in view.marriages:
            if took in marriage.cards and marriage.seat != seat:
                raise _Unreachable(
                    "exchange", f"seat {seat} took {took}, yet seat {marriage.seat} declared it"
                )
        used = [] if played is None else [played[1]]
        used += [
            lead
            for marriage, lead in zip(view.marriages, self.marriage_leads, strict=True)
            if took in marriage.cards
        ]
        last = min([LAST_DRAW, self.now, self.draws, *used])
        leads = [lead for lead in range(last + 1) if self.leader_at(lead) == seat]
        if not leads:
            raise _Unreachable(
                "exchange",
                f"seat {seat} was never on lead while {took} lay under the talon"
                + (f" before {took} was used" if used else "")
                + ": only the seat on lead exchanges (R6a)",
            )
        # The latest lead that fits asks least of the exchanger's hand.
        self.exchange_lead = leads[-1]

    # -- strict play ----------------------------------------------------------------

    def held_now(self, seat: int) -> set[Card]:
        """The cards ``seat`` surely holds at this lead (not played yet)."""
        view = self.view
        if seat == view.seat:
            return set(view.hand)
        known = {c for m in view.marriages if m.seat == seat for c in m.cards}
        if view.exchanged_by == seat and view.exchanged_card is not None:
            known.add(view.exchanged_card)
        if view.turn_up_drawn_by == seat:
            known.add(view.turn_up)
        return known - set(self.plays)

    def unseen(self) -> set[Card]:
        """Cards the seat cannot place: in the opponent's hand or the talon."""
        view = self.view
        placed = set(view.hand) | set(self.plays) | self.held_now(view.opponent)
        if view.turn_up_drawn_by is None:
            placed.add(view.turn_up)
        return set(DECK) - placed

    def check_strict_play(self) -> None:
        """R5: from the close, or once the talon is exhausted, nobody draws and the follower
        must follow suit, beat, or trump with what it holds; so every card a seat played
        or holds later was in its hand at every strict trick before."""
        view = self.view
        trump = view.trump.number
        opponent = view.opponent
        # With an exhausted talon every unseen card is in the opponent's hand; after a
        # close some are in the talon, and the opponent's plays say which cannot be held.
        unseen = self.unseen() if view.talon_size else set()
        forbidden: set[Card] = set()
        for index in range(self.draws, self.now):
            trick = view.tricks[index]
            follower = 1 - trick.leader
            later = {
                c for c, (seat, lead) in self.plays.items() if seat == follower and lead > index
            }
            held = later | self.held_now(follower) | {trick.follow}
            if follower == opponent and not view.talon_size:
                held |= self.unseen()
            mask = follow_mask(_mask(held), trick.lead.order, trump, True)
            if not trick.follow.bit & mask:
                allowed = [c for c in DECK if c.bit & mask]
                raise _Unreachable(
                    f"tricks[{index}]",
                    f"seat {follower} held {describe_cards(allowed)} and had to play one of "
                    f"them to {trick.lead}, not {trick.follow} (R5)",
                )
            if follower == opponent:
                forbidden |= {
                    c
                    for c in unseen
                    if not trick.follow.bit
                    & follow_mask(_mask(held | {c}), trick.lead.order, trump, True)
                }
        if not forbidden:
            return
        needed = self.opponent_hand_size() - len(self.held_now(opponent))
        if len(unseen - forbidden) < needed:
            raise _Unreachable(
                "tricks",
                f"since the close the opponent could not have held "
                f"{describe_cards(sorted(forbidden, key=lambda c: c.order))} (R5), which "
                f"leaves too few cards for its hand of {self.opponent_hand_size()}",
            )

    def opponent_hand_size(self) -> int:
        return self.view.opponent_hand_size

    # -- room in the hands ----------------------------------------------------------

    def check_room(self) -> None:
        """A seat cannot be known to hold more cards at a lead than its hand has room for."""
        view = self.view
        for seat in (0, 1):
            since = self.known_since(seat)
            for lead in range(self.now + 1):
                held = [
                    card
                    for card, first in since.items()
                    if first <= lead and self.plays.get(card, (seat, self.now + 1))[1] >= lead
                ]
                if len(held) > self.room(lead):
                    held.sort(key=lambda card: card.order)
                    raise _Unreachable(
                        "marriages" if view.marriages else "exchange",
                        f"seat {seat} would hold {describe_cards(held)} at trick {lead + 1}: "
                        f"a hand has room for {self.room(lead)} then",
                    )

    def known_since(self, seat: int) -> dict[Card, int]:
        """The cards ``seat`` is known to have held, each with the first lead it surely did."""
        view = self.view
        known: list[tuple[Card, int]] = [
            (card, lead) for card, (player, lead) in self.plays.items() if player == seat
        ]
        known += [(card, self.now) for card in self.held_now(seat)]
        for marriage, lead in zip(view.marriages, self.marriage_leads, strict=True):
            if marriage.seat == seat:
                known += [(card, lead) for card in marriage.cards]
        if view.exchanged_by == seat and view.exchanged_card is not None:
            assert self.exchange_lead is not None
            known.append((view.exchanged_card, self.exchange_lead))
        since: dict[Card, int] = {}
        for card, lead in known:
            since[card] = min(since.get(card, lead), lead)
        return since


def _mask(cards: set[Card]) -> int:
    mask = 0
    for card in cards:
        mask |= card.bit
    return mask
