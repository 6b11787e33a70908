"""The ``classic`` policy: the ``heuristic`` level as it was until 2026-12, kept as the
expert's playout policy (so ``expert`` plays as it did) and as a yardstick for the
tournaments (``get_bot("classic")``; not a level the service offers). Its rules
stay as they were; the ones the ``heuristic`` level kept are imported from here
(``heuristic.py``), so each rule is written once.

The rules are the ones a careful club player follows:

- claim as soon as the card points reach 66 (they are counted exactly: the
  tricks and marriages are public, the bot's own hand is known); never claim
  without 66;
- exchange the trump jack whenever allowed (the turn-up is always better);
- close the talon when the points in hand, the marriages to declare and the
  tricks surely won with master cards add up to 66;
- declare marriages when on lead, trumps first, and lead the Queen;
- while the talon is open lead cheap cards (a jack, a lonely Queen or King),
  keep trumps and marriage partners, take a led ten or ace with the ace of
  its suit or a small trump, take low leads with the ace or ten of their suit,
  and throw the cheapest card otherwise;
- once play is strict, cash sure winners (drawing trumps with the top trump
  first), win tricks with the cheapest card that wins, and throw the cheapest
  card when nothing wins.

``classic_action`` works on a ``FastDeal`` for speed but reads only what
the seat to move may see (its own hand, the played cards, the cards the
opponent has shown, public points): it is a fair player inside the expert's
sampled deals, and ``HeuristicBot`` is seat-blind.
"""

from __future__ import annotations

from collections.abc import Callable

from service.bots.base import Decision
from service.engine.core import FastDeal, codes_in, engine_action
from service.engine.knowledge import SeatView
from service.engine.masks import (
    ACE,
    ALL_CARDS,
    CLAIM,
    CLOSE,
    EXCHANGE,
    HIGHER,
    KING,
    MARRIAGE,
    PAIR_MASK,
    POINTS,
    QUEEN,
    SUIT,
    SUIT_MASK,
    TEN,
)
from service.engine.points import WINNING_POINTS as WIN
from service.engine.points import marriage_points


class Sight:
    """What the seat to move knows, as masks: the inputs of every rule."""

    __slots__ = (
        "seat",
        "hand",
        "unseen",
        "opponent_known",
        "trump",
        "trump_mask",
        "my_points",
        "my_pending",
        "opponent_points",
        "my_tricks",
        "opponent_tricks",
        "open",
        "exhausted",
    )

    def __init__(self, deal: FastDeal) -> None:
        seat = deal.to_move
        opponent = 1 - seat
        self.seat = seat
        self.hand = deal.hands[seat]
        played = deal.played
        self.opponent_known = deal.shown[opponent] & ~played
        placed = self.hand | played | self.opponent_known
        if deal.drawn_by < 0:
            placed |= 1 << deal.turn_up  # under the talon, or out of play after a close
        #: The opponent's other cards and the talon: after exhaustion, the opponent's hand.
        self.unseen = ALL_CARDS & ~placed
        self.trump = deal.trump
        self.trump_mask = SUIT_MASK[deal.trump]
        self.my_points = deal.card_points(seat)
        #: Declared marriage points that count once the seat wins a trick (R6d).
        self.my_pending = 0 if deal.tricks_won[seat] else deal.marriage_points[seat]
        self.opponent_points = deal.card_points(opponent)
        self.my_tricks = deal.tricks_won[seat]
        self.opponent_tricks = deal.tricks_won[opponent]
        self.open = deal.talon_open
        self.exhausted = deal.drawn_by >= 0

    @property
    def need(self) -> int:
        """The card points still missing for 66, counting the marriages pending a trick."""
        return WIN - self.my_points - self.my_pending

    @property
    def opponent_may_hold(self) -> int:
        """Cards the opponent may hold: the shown ones and the unseen ones."""
        return self.unseen | self.opponent_known

    def live_partner(self, card: int) -> bool:
        """Whether ``card`` is a King or Queen whose partner may still make a marriage with it."""
        rank = card % 5
        if rank != KING and rank != QUEEN:
            return False
        partner = card + 1 if rank == KING else card - 1
        return bool((self.hand | self.unseen) >> partner & 1)

    def cost(self, card: int) -> float:
        """How much giving ``card`` away hurts: its points, more for trumps and marriage cards."""
        cost = float(POINTS[card])
        if self.trump_mask >> card & 1:
            cost += 12 + 2 * (4 - card % 5)
        if self.live_partner(card):
            cost += 9 if self.hand >> (card + 1 if card % 5 == KING else card - 1) & 1 else 3
        return cost

    def is_master(self, card: int) -> bool:
        """No card the opponent may hold beats ``card`` in its own suit."""
        return not HIGHER[card] & self.opponent_may_hold


def classic_action(deal: FastDeal, legal_mask: int = -1) -> int:
    """The rule-based action of the seat to move (always one of ``legal_actions``).

    ``legal_mask``: the deal's ``legal_mask`` when the caller has it already
    (``FastDeal.apply`` returns it), -1 to compute it.
    """
    legal = codes_in(deal.legal_mask() if legal_mask < 0 else legal_mask)
    if len(legal) == 1:
        return legal[0]
    sight = Sight(deal)
    if deal.lead >= 0:
        return _follow(deal, sight, legal)
    if deal.declared >= 0:
        return _after_marriage(deal, sight, legal)
    if CLAIM in legal and sight.my_points >= WIN:
        return CLAIM
    action = before_leading(deal, sight, legal)
    if action is not None:
        return action
    return _lead(sight, [a for a in legal if a < 20])


# -- leading ---------------------------------------------------------------------


def before_leading(deal: FastDeal, sight: Sight, legal: list[int]) -> int | None:
    """What the seat on lead does before leading a card, or None to lead one.

    Exchange the trump jack (the turn-up is always better), close when
    ``should_close``, declare a marriage (trumps first); with the cards out,
    claim (with 66) or accept the last trick. The claim with 66 is the
    caller's: the levels make it at different moments.
    """
    if EXCHANGE in legal:
        return EXCHANGE
    if CLOSE in legal and should_close(deal, sight):
        return CLOSE
    marriages = [a for a in legal if MARRIAGE <= a < CLAIM]
    if marriages:
        trump_marriage = MARRIAGE + sight.trump
        return trump_marriage if trump_marriage in marriages else marriages[0]
    if not any(a < 20 for a in legal):  # the cards are out: claim or accept the last trick
        return legal[-1]
    return None


def _after_marriage(deal: FastDeal, sight: Sight, legal: list[int]) -> int:
    """Just declared: claim with 66, else lead the Queen (the King if it surely wins)."""
    if CLAIM in legal and sight.my_points >= WIN:
        return CLAIM
    cards = [a for a in legal if a < 20]
    king = 5 * deal.declared + KING
    if not sight.open and king in cards and sure_winner(sight, king):
        return king
    return cards[-1]  # the Queen comes after the King in the canonical order


def _lead(sight: Sight, cards: list[int]) -> int:
    """The card to lead: a sure winner that reaches 66, masters once play is strict, else cheap."""
    if sight.open:
        return open_lead(sight, cards)
    winners = [c for c in cards if sure_winner(sight, c)]
    need = sight.need
    finishing = [c for c in winners if POINTS[c] >= need]
    if finishing:
        return min(finishing, key=sight.cost)
    if winners:
        # Draw trumps with the top trump first, then cash the highest master.
        trumps = [c for c in winners if sight.trump_mask >> c & 1]
        if trumps and sight.unseen & sight.trump_mask:
            return trumps[0]
        return max(winners, key=lambda c: POINTS[c])
    return min(cards, key=sight.cost)


def open_lead(sight: Sight, cards: list[int]) -> int:
    """The card to lead with the talon open: a sure winner that reaches 66, else a cheap one.

    Cheap by ``lead_cost``: an ace or ten led into an open talon may be trumped or taken.
    """
    need = sight.need
    finishing = [c for c in cards if POINTS[c] >= need and sure_winner(sight, c)]
    if finishing:
        return min(finishing, key=sight.cost)
    return min(cards, key=lambda c: lead_cost(sight, c))


def lead_cost(sight: Sight, card: int) -> float:
    """Open play: what leading ``card`` risks. Aces and tens may be trumped or taken."""
    cost = sight.cost(card)
    if not sight.trump_mask >> card & 1 and card % 5 in (ACE, TEN):
        cost += 4
    return cost


def sure_winner(sight: Sight, card: int) -> bool:
    """Whether ``card``, led now, wins the trick whatever the opponent holds."""
    opponent = sight.opponent_may_hold
    if sight.exhausted:
        # The opponent's hand is known: check its strict answers (R5).
        same = opponent & SUIT_MASK[SUIT[card]]
        if same:
            return not same & HIGHER[card]
        return not opponent & sight.trump_mask or bool(sight.trump_mask >> card & 1)
    if HIGHER[card] & opponent:
        return False
    if sight.trump_mask >> card & 1:
        return True
    return not opponent & sight.trump_mask


def should_close(deal: FastDeal, sight: Sight) -> bool:
    """Close when the points we hold plus the tricks our master cards win make 66.

    Without a trick yet the estimate must clear 66 by ten: its marriage points
    count only once a trick is won (R6d).
    """
    estimate = close_estimate(deal, sight)
    return estimate >= WIN and (sight.my_tricks > 0 or estimate >= WIN + 10)


def close_estimate(deal: FastDeal, sight: Sight) -> int:
    """The points we hold plus the tricks our master cards win, once closed."""
    hand = sight.hand
    trump = sight.trump
    estimate = sight.my_points + sight.my_pending
    for s in range(4):
        if hand & PAIR_MASK[s] == PAIR_MASK[s]:
            estimate += marriage_points(s == trump)
    opponent = sight.opponent_may_hold & ~(1 << deal.turn_up)
    opponent_trumps = (opponent & sight.trump_mask).bit_count()
    top_trumps = 0
    for card in range(5 * trump, 5 * trump + 5):
        if hand >> card & 1:
            top_trumps += 1
            estimate += POINTS[card] + 4
        elif opponent >> card & 1:
            break
    if top_trumps >= opponent_trumps:
        for s in range(4):
            if s == trump:
                continue
            for card in range(5 * s, 5 * s + 5):
                if hand >> card & 1:
                    estimate += POINTS[card] + 4
                elif opponent >> card & 1:
                    break
    return estimate


# -- following -------------------------------------------------------------------


def _follow(deal: FastDeal, sight: Sight, legal: list[int]) -> int:
    """The card to answer ``deal.lead`` with: win what is worth winning, else throw cheap."""
    lead = deal.lead
    winners, losers = split_answers(sight, lead, legal)
    finishing = going_out(sight, lead, winners)
    if finishing:
        return min(finishing, key=sight.cost)
    if not sight.open:
        if winners:
            return min(winners, key=sight.cost)
        return min(losers, key=lambda c: (POINTS[c], sight.cost(c)))
    return open_answer(sight, lead, legal, winners, losers)


def split_answers(sight: Sight, lead: int, legal: list[int]) -> tuple[list[int], list[int]]:
    """The answers to ``lead`` that take the trick, and those that do not (in ``legal``'s order)."""
    lead_suit = SUIT[lead]
    trump_mask = sight.trump_mask

    def wins(card: int) -> bool:
        if SUIT[card] == lead_suit:
            return card < lead
        return bool(trump_mask >> card & 1)

    winners = [c for c in legal if wins(c)]
    losers = [c for c in legal if not wins(c)]
    return winners, losers


def going_out(sight: Sight, lead: int, winners: list[int]) -> list[int]:
    """The winning answers whose trick takes the seat to 66: any of them ends the deal."""
    need = sight.need
    return [c for c in winners if POINTS[lead] + POINTS[c] >= need]


def open_answer(
    sight: Sight, lead: int, legal: list[int], winners: list[int], losers: list[int]
) -> int:
    """The answer with the talon open: take what is worth taking cheaply, else throw cheap.

    Take a led card with a higher one of its suit (a led trump aside), a led
    ace or ten with a trump that costs little, a led trump ace or ten with any
    card that wins; otherwise throw the cheapest card, a loser if there is one.
    """
    trump_mask = sight.trump_mask
    lead_suit = SUIT[lead]
    lead_is_trump = lead_suit == sight.trump
    same_suit = [c for c in winners if SUIT[c] == lead_suit and not lead_is_trump]
    if same_suit:
        return min(same_suit, key=sight.cost)
    if not lead_is_trump and POINTS[lead] >= 10:
        trumps = [c for c in winners if trump_mask >> c & 1]
        cheap = [c for c in trumps if sight.cost(c) < 30]
        if cheap:
            return min(cheap, key=sight.cost)
    if lead_is_trump and POINTS[lead] >= 10 and winners:
        return min(winners, key=sight.cost)
    pool = losers or legal
    return min(pool, key=sight.cost)


class ClassicBot:
    """The classic policy as a bot: ``classic_action`` on the seat's view."""

    level = "classic"

    def choose(self, view: SeatView, *, seed: int = 0, budget_ms: int | None = None) -> Decision:
        return decide_by_sight(view, classic_action)


def decide_by_sight(view: SeatView, policy: Callable[[FastDeal], int]) -> Decision:
    """``policy``'s action for the seat to move in ``view``, on any deal the seat may be in.

    Any placement of the unseen cards will do: a policy that reads only the
    seat's sight (as ``classic_action`` and ``heuristic_action`` do) plays the
    same on every one.
    """
    if view.to_move != view.seat:
        raise ValueError(f"seat {view.seat} is not to move")
    deal = FastDeal.from_engine(view.sample_deal(), view.variant)
    return Decision(engine_action(policy(deal)))
