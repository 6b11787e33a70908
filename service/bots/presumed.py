"""A closed talon valued over the seat's information set, without fusing its own choices.

Once the talon is closed with cards still in it, the seat cannot see the
opponent's hand, but play is strict (R5) and nobody draws, so the possible
opponent hands (the *worlds*, ``sampling.WorldSampler.every_hand``) stay
fixed to the end of the deal. Solving each world as if everything were seen
and averaging (what ``expert`` does) lets the seat's later choices adapt to
each world although it cannot tell them apart: strategy fusion, which
overrates the seat's position.

Here a position carries the worlds still consistent with it and is worth a
vector, one value per world, in game points for the seat (the solver's
scoring: R9, the closer's promise, claims, R10's cap):

- at the seat's turn it takes *one* action for all its worlds, the one whose
  child vector has the highest sum (mean), and that child's vector is the
  node's;
- at the opponent's turn the opponent is presumed to see the seat's cards
  (the worst case, as in Presumed Value PIMC): for each world separately the
  least value over the actions legal in that world. The worlds are grouped
  by the action, each (action, worlds) searched once.

A position with one world left is a perfect-information endgame, which the
``EndgameSolver`` solves exactly (with its table); finished deals are
scored as the solver scores them. The rules of play stay in the engine:
legal actions and results come from ``FastDeal``. Positions are memoized by
the worlds and what was played, and the work (a world at a node) is counted,
so a search that grows past its limit stops deterministically
(``TooLarge``) and the caller falls back to the per-world solve; so does one
still running at the caller's wall-clock deadline (``deadline``, a
``time.perf_counter`` time; none where the wall clock is off).
"""

from __future__ import annotations

import math
import time

from service.bots.solver import EndgameSolver
from service.engine.core import FastDeal, codes_in

#: A vector of per-world values, in the order of the worlds.
Vector = list[int]


class TooLarge(Exception):
    """The search needed more than its work limit: value the worlds one by one instead."""


class PresumedSearch:
    """The seat's action values at a strict-play position over a fixed set of worlds.

    ``worlds`` are complete deals that differ only in the opponent's hand (the
    same public position and seat hand); ``solver`` is the endgame solver of
    their family (the same trump, closer and promise, and the seat's R10 cap).
    ``visits`` counts the worlds visited at the nodes searched here, each
    ``visit_work`` units of work; the solver's nodes and answers count one
    unit each (as in ``expert``), and past ``limit`` units the search stops.
    """

    def __init__(
        self,
        solver: EndgameSolver,
        seat: int,
        limit: int,
        visit_work: int,
        deadline: float = math.inf,
    ) -> None:
        self.solver = solver
        self.deadline = deadline
        self.seat = seat
        self.limit = limit
        self.visit_work = visit_work
        self.visits = 0
        self.solver_start = solver.nodes + solver.answers
        self.table: dict[tuple[int, int, int, int, int, int, int, int, int], Vector] = {}

    def work(self) -> int:
        """The units of work spent so far, the solver's included."""
        solver = self.solver
        return self.visits * self.visit_work + solver.nodes + solver.answers - self.solver_start

    def action_values(self, worlds: list[FastDeal]) -> dict[int, float]:
        """Each legal action of the seat (to move in every world) with its mean value.

        Raises ``TooLarge`` once the work passes the limit, or the time the deadline.
        """
        first = worlds[0]
        if first.to_move != self.seat:
            raise ValueError("the seat is not to move")
        ids = (1 << len(worlds)) - 1
        values: dict[int, float] = {}
        for action in codes_in(first.legal_mask()):
            values[action] = sum(self._child(worlds, ids, action)) / len(worlds)
        return values

    def _child(self, deals: list[FastDeal], ids: int, action: int) -> Vector:
        """The vector after ``action`` is taken in each of ``deals`` (the worlds ``ids``)."""
        children: list[FastDeal] = []
        for deal in deals:
            child = deal.copy()
            child.apply(action)
            children.append(child)
        return self._value(children, ids)

    def _value(self, deals: list[FastDeal], ids: int) -> Vector:
        """The vector of a position, one value per world of ``deals`` (bit mask ``ids``)."""
        first = deals[0]
        seat = self.seat
        if first.result is not None:
            # A deal ends on public facts alone (a claim, points, the last trick), so all
            # the worlds end together; their results may still differ (R9's trick count).
            worth = self.solver.worth[seat]
            return [worth[deal.value_for(seat) + 3] for deal in deals]
        if len(deals) == 1:
            value = self.solver.value(first)
            return [value if first.to_move == seat else -value]
        self.visits += len(deals)
        if self.work() > self.limit or time.perf_counter() > self.deadline:
            raise TooLarge
        hands = first.hands
        key = (
            ids,
            hands[seat],
            first.played,
            first.lead,
            first.leader,
            first.trick_points[0] | first.trick_points[1] << 8,
            first.marriage_points[0] | first.marriage_points[1] << 8,
            (first.tricks_won[0] > 0) | (first.tricks_won[1] > 0) << 1,
            first.declared,
        )
        known = self.table.get(key)
        if known is not None:
            return known
        turn = self._choose if first.to_move == seat else self._answer
        vector = turn(deals, ids)
        self.table[key] = vector
        return vector

    def _choose(self, deals: list[FastDeal], ids: int) -> Vector:
        """The seat's turn: one action for every world, the best on average."""
        best: Vector = []
        best_sum = 0
        for action in codes_in(deals[0].legal_mask()):
            vector = self._child(deals, ids, action)
            total = sum(vector)
            if not best or total > best_sum:
                best = vector
                best_sum = total
        return best

    def _answer(self, deals: list[FastDeal], ids: int) -> Vector:
        """The opponent's turn: in each world, its best answer there (it sees the seat's
        hand, the presumed worst case)."""
        indices: list[int] = []  # each deal's world id, ascending as in ``deals``
        rest = ids
        while rest:
            low = rest & -rest
            indices.append(low.bit_length() - 1)
            rest ^= low
        groups: dict[int, list[int]] = {}
        for position, deal in enumerate(deals):
            for action in codes_in(deal.legal_mask()):
                members = groups.get(action)
                if members is None:
                    groups[action] = [position]
                else:
                    members.append(position)
        worst = [4] * len(deals)
        for action, members in groups.items():
            subset = 0
            for position in members:
                subset |= 1 << indices[position]
            vector = self._child([deals[p] for p in members], subset, action)
            for index in range(len(members)):
                position = members[index]
                if vector[index] < worst[position]:
                    worst[position] = vector[index]
        return worst


__all__ = ["PresumedSearch", "TooLarge"]
