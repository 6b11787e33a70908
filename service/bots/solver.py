"""Exact play once the talon is closed or exhausted, all cards known.

After the talon is exhausted a seat knows the opponent's hand (every other
card has been seen), and in a sampled deal it knows everything anyway. Play is
then strict (R5) and nobody draws, so the rest of the deal is a small game
of perfect information, solved here by alpha-beta search with a
transposition table.

The value of a position is in game points for the seat to move: +g if that
seat wins the deal for g game points (1, 2 or 3, R9), -g if it loses. It
counts the closer's promise (R9b, frozen at the close), false claims
(R9c, R9d) and the last trick (R8). Optionally (``game_points``) a win counts
only as far as the game needs it (R10): with 1 game point left to lose, winning
3 is worth 1, so the search then plays for the deal rather than for points.

Two facts keep the tree small, and the tests check them against a plain
minimax over the engine's own rules:

- a player who may claim with 66 or more claims at once: the opponent's card
  points and tricks only grow, so waiting never scores more;
- a player who leads the King or Queen of a pair declares the marriage first:
  more card points never hurt their owner, and the declaration only adds the
  option to claim.
"""

from __future__ import annotations

from service.engine.core import FastDeal
from service.engine.masks import BEATS, KING, PAIR_MASK, POINTS, QUEEN, SUIT, SUIT_MASK, follow_mask
from service.engine.outcomes import claim_outcome, ran_out_outcome
from service.engine.points import WINNING_POINTS as WIN
from service.engine.points import by_opponent, marriage_points, penalty

#: Below every value: a deal is worth -3 to 3 game points, never 0.
LOW = -4
HIGH = 4

#: Transposition table: a position's key to its packed entry, four bits each for the
#: lower and upper bound (+4) and then the best lead (+1), all in one int.
Table = dict[int, int]


class EndgameSolver:
    """Solves strict-phase positions of one deal family (same trump, closer, variant).

    A solver keeps its transposition table between calls, so the positions of
    many sampled deals with the same public facts (trump, who closed and the
    frozen ``at_close``, the variant) share it. ``nodes`` counts the trick
    starts searched and ``answers`` the led cards answered: the expert's
    units of work for its time budget.
    """

    def __init__(
        self,
        trump: int,
        head: bool,
        closed_by: int,
        at_close: tuple[int, int] | None,
        game_points: tuple[int, int] = (3, 3),
    ) -> None:
        self.trump = trump
        #: By seat, a deal's value (-3..3, indexed +3) counted only as far as it
        #: moves the game: nobody needs more than the game points it has left.
        self.worth = tuple(
            tuple(
                min(v, game_points[seat]) if v > 0 else -min(-v, game_points[1 - seat])
                for v in range(-3, 4)
            )
            for seat in (0, 1)
        )
        self.head = head
        self.closed_by = closed_by
        self.at_close = at_close
        self.penalty = 0 if at_close is None else penalty(at_close[1])
        self.closer_win = 0 if at_close is None else by_opponent(*at_close)
        self.table: Table = {}
        self.nodes = 0
        self.answers = 0
        trump_mask = SUIT_MASK[trump]
        self.trump_mask = trump_mask
        self.beats = BEATS[trump]
        # Leads are tried in this order: trumps first, then by card points.
        self.lead_order = sorted(range(20), key=lambda c: (not trump_mask >> c & 1, -POINTS[c]))

    @classmethod
    def for_deal(cls, deal: FastDeal, game_points: tuple[int, int] = (3, 3)) -> EndgameSolver:
        """A solver for ``deal``'s family; ``game_points``: what each seat has left (R10)."""
        return cls(deal.trump, deal.head, deal.closed_by, deal.at_close, game_points)

    def fits(self, deal: FastDeal) -> bool:
        """Whether this solver's table is valid for ``deal``'s family."""
        return (
            deal.trump == self.trump
            and deal.head == self.head
            and deal.closed_by == self.closed_by
            and (deal.at_close is None) == (self.penalty == 0)
            and (deal.at_close is None or by_opponent(*deal.at_close) == self.closer_win)
            and (deal.at_close is None or penalty(deal.at_close[1]) == self.penalty)
        )

    # -- public entry points -------------------------------------------------------

    def value(self, deal: FastDeal, alpha: int = LOW, beta: int = HIGH) -> int:
        """The game-point value of a strict-phase ``deal`` for its seat to move.

        With a window (``alpha``, ``beta``) narrower than the whole range the
        value is exact only inside it: at most ``alpha`` or at least ``beta``
        otherwise (what a caller that only compares needs, found faster).
        """
        if deal.result is not None:
            raise ValueError("the deal is over")
        if not deal.strict:
            raise ValueError("the solver plays only a closed or exhausted talon")
        hl, hf, seat, pl, pf, tl, tf, ml, mf = self._args(deal)
        if deal.lead >= 0:
            return -self._node(hl, hf, seat, pl, pf, tl, tf, ml, mf, -beta, -alpha, deal.lead)
        if deal.declared < 0:
            return self._node(hl, hf, seat, pl, pf, tl, tf, ml, mf, alpha, beta)
        # The leader has declared a marriage: lead its King or Queen, or claim (R6c).
        best = LOW
        if self.head:
            best = self._claim(seat, pl + ml if tl else pl, pf + mf if tf else pf, tf)
        for card in (5 * deal.declared + KING, 5 * deal.declared + QUEEN):
            if hl >> card & 1:
                value = self._node(hl, hf, seat, pl, pf, tl, tf, ml, mf, best, HIGH, card)
                best = max(best, value)
        return best

    def action_values(self, deal: FastDeal) -> dict[int, int]:
        """Each legal action of the seat to move, with its exact value for that seat."""
        mover = deal.to_move
        values: dict[int, int] = {}
        for action in deal.legal_actions():
            child = deal.copy()
            child.apply(action)
            if child.result is not None:
                values[action] = self.worth[mover][child.value_for(mover) + 3]
            elif child.to_move == mover:
                values[action] = self.value(child)
            else:
                values[action] = -self.value(child)
        return values

    # -- the search ----------------------------------------------------------------

    @staticmethod
    def _args(deal: FastDeal) -> tuple[int, ...]:
        leader = deal.leader
        follower = 1 - leader
        return (
            deal.hands[leader],
            deal.hands[follower],
            leader,
            deal.trick_points[leader],
            deal.trick_points[follower],
            deal.tricks_won[leader],
            deal.tricks_won[follower],
            deal.marriage_points[leader],
            deal.marriage_points[follower],
        )

    def _claim(self, seat: int, points: int, other_points: int, other_tricks: int) -> int:
        """The claimant's value of a claim with ``points`` card points (R7c, R9)."""
        winner, game_points, _ = claim_outcome(
            seat, points, other_points, other_tricks, self.closed_by, self.at_close
        )
        return self.worth[seat][(game_points if winner == seat else -game_points) + 3]

    def _ran_out(self, seat: int) -> int:
        """The value for the last trick's winner ``seat`` of accepting it (R8a, R9b)."""
        winner, game_points, _ = ran_out_outcome(seat, self.closed_by, self.at_close)
        return self.worth[seat][(game_points if winner == seat else -game_points) + 3]

    def _node(
        self,
        hl: int,
        hf: int,
        seat: int,
        pl: int,
        pf: int,
        tl: int,
        tf: int,
        ml: int,
        mf: int,
        alpha: int,
        beta: int,
        led: int = -1,
    ) -> int:
        """The leader's value within the window (alpha, beta), before its lead or once ``led``.

        A position is the leader's and the follower's hands, trick points,
        tricks and marriage points (``hl``, ``pl``, ``tl``, ``ml`` and ``hf``,
        ...) and the leader's ``seat``; ``led`` is the card led (-1: the leader
        is to lead, else the follower answers it).
        """
        if led >= 0:
            # The follower answers ``led`` (R5: play is strict here).
            self.answers += 1
            hl &= ~(1 << led)
            options = follow_mask(hf, led, self.trump, True)
            beats = self.beats[led]
            lead_points = POINTS[led]
            other = 1 - seat
            worst = HIGH
            while options:
                low = options & -options
                options ^= low
                rest = hf ^ low
                points = lead_points + POINTS[low.bit_length() - 1]
                if beats & low:  # the follower takes the trick and leads the next one
                    npf = pf + points
                    value = -self._node(rest, hl, other, npf, pl, tf + 1, tl, mf, ml, -beta, -alpha)
                else:
                    npl = pl + points
                    value = self._node(hl, rest, seat, npl, pf, tl + 1, tf, ml, mf, alpha, beta)
                if value < worst:
                    worst = value
                    if worst <= alpha:
                        break
                    if worst < beta:
                        beta = worst
            return worst
        head = self.head
        cpl = pl + ml if tl else pl
        if not head:
            # R7e, R8b: going out is automatic, and the last trick ends the deal.
            if tl and cpl >= WIN:
                return self._claim(seat, cpl, pf + mf if tf else pf, tf)
            if not hl and not hf:
                return self._ran_out(seat)
        self.nodes += 1
        best = LOW
        if head:
            if tl or tf:
                cpf = pf + mf if tf else pf
                claim = self._claim(seat, cpl, cpf, tf)
                if cpl >= WIN:
                    return claim  # the best the leader can ever get (see the module doc)
                best = claim
            elif hl & _PAIRS_ANY:
                # First lead, no trick yet: a claim is allowed after a marriage (R7b).
                for pair in PAIR_MASK:
                    if hl & pair == pair:
                        best = self._claim(seat, cpl, pf, tf)
                        break
        if not hl:
            # The last trick is done (R8a): claim (above) or accept it.
            return max(best, self._ran_out(seat))
        if best >= beta:
            return best
        # One int, not a tuple: ints are not tracked by the garbage collector.
        key = (
            hl
            | hf << 20
            | seat << 40
            | pl << 41
            | pf << 48
            | (tl > 0) << 55
            | (tf > 0) << 56
            | ml << 57
            | mf << 64
        )
        entry = self.table.get(key)
        first = -1
        if entry is not None:
            lower = (entry & 15) - 4
            upper = (entry >> 4 & 15) - 4
            first = (entry >> 8) - 1
            if lower >= beta or lower == upper:
                return lower
            if upper <= alpha:
                return upper
            if lower > alpha:
                alpha = lower
            if upper < beta:
                beta = upper
        alpha0 = alpha
        if best > alpha:
            alpha = best
        best_lead = -1
        order = self.lead_order if first < 0 else [first, *self.lead_order]
        seen = 0
        for card in order:
            bit = 1 << card
            if not hl & bit or seen & bit:
                continue
            seen |= bit
            # Leading the King or Queen of a pair declares the marriage first (module doc).
            lml = ml
            if card % 5 in (KING, QUEEN):
                pair = PAIR_MASK[SUIT[card]]
                if hl & pair == pair:
                    lml = ml + marriage_points(SUIT[card] == self.trump)
            if lml > ml and tl and pl + lml >= WIN:
                # Going out right after the declaration (R7b; automatic when tracked).
                value = self._claim(seat, pl + lml, pf + mf if tf else pf, tf)
            else:
                value = self._node(hl, hf, seat, pl, pf, tl, tf, lml, mf, alpha, beta, card)
            if value > best:
                best = value
                best_lead = card
                if value > alpha:
                    alpha = value
                    if value >= beta:
                        break
        lead_bits = (best_lead + 1) << 8
        if best <= alpha0:
            self.table[key] = (LOW + 4) | (best + 4) << 4 | lead_bits
        elif best >= beta:
            self.table[key] = (best + 4) | (HIGH + 4) << 4 | lead_bits
        else:
            self.table[key] = (best + 4) | (best + 4) << 4 | lead_bits
        return best


_PAIRS_ANY = sum(PAIR_MASK)
