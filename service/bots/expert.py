"""The ``expert`` level: determinized search over the deals the seat cannot tell apart.

For every decision the expert

1. samples complete deals consistent with its view (``sampling``: the
   unseen cards placed at random, within the voids the opponent's strict-play
   answers revealed);
2. values each legal action in each sampled deal, in game points for its
   seat (R9, with the closer's risk; a win counts at most the game points
   the winner has left, R10a, so near the end of a game it plays to win
   the deal rather than for points):

   - once the talon is exhausted the deal is fully known: the endgame solver
     values every action exactly, no sampling at all;
   - with a closed talon, each sampled opponent hand is solved exactly (every
     possible hand when there are few);
   - while the talon is open, the action is followed by the ``classic``
     policy (the heuristic level as it was) for both seats (each seeing only its own cards) until the talon
     is closed or exhausted, and the rest is solved exactly;

3. plays the action with the best average, ties going to the classic policy's
   choice.

Closing, exchanging, marriages and claims are actions like any other, valued
the same way (so a claim without 66 is chosen only where R9d makes it the
cheaper loss: the closer's opponent, trickless at the close, concedes 2
rather than the 3 the closer would win). The work is counted in deterministic units (playout steps and
solver nodes) derived from ``budget_ms``, not read off a clock, so the same
view, seed and budget always give the same decision where the wall clock is
off (tournaments, analyses, the tests of determinism). In the service a
wall-clock guard also stops a search ``GUARD_MARGIN_MS`` past its budget of
wall time, so a decision takes about what its caller is charged for however
busy the machine; on a busy machine a long search may then rest on fewer
sampled deals than its work count allows.
"""

from __future__ import annotations

import gc
import random
import time
from collections.abc import Mapping

from service.bots.base import Decision
from service.bots.classic import classic_action
from service.bots.sampling import WorldSampler
from service.bots.solver import EndgameSolver
from service.engine.core import FastDeal, action_of, engine_action
from service.engine.knowledge import SeatView

#: The default time budget per move, in milliseconds.
DEFAULT_BUDGET_MS = 80
#: Work units per millisecond of budget. A unit is about a microsecond of this
#: machine's time run from source (measured by regression over whole games; the
#: compiled build, setup.py, does a unit in about a quarter of that, with the
#: same decisions): a heuristic playout step costs ``STEP_WORK`` units, a
#: solver node or answer ``NODE_WORK``, valuing one action in one sampled deal
#: ``VALUE_WORK``. Four times the work per move won only 54% of 200 games
#: against the default (docs/performance.md, the ladder), so the budget stays work, not time.
WORK_PER_MS = 1000
STEP_WORK = 8
NODE_WORK = 1
VALUE_WORK = 4
#: The most game points one deal is worth (R9): no value lies beyond it either way.
STAKES = 3.0
#: Enumerate every opponent hand of a closed talon when there are at most this many.
ENUMERATE_HANDS = 40
#: Stop, whatever the work count, this many ms of wall time past the budget: before a
#: sampled deal that would end later, as far as the slowest deal so far tells (one deal
#: takes a few ms here, about 20 at most). The caller is charged the budget
#: (``service.jobs.decision_shares``), so the margin is what keeps a decision close to
#: its charge on a busy machine; it is wide enough that a small budget's search is still
#: stopped by its work count, not the clock, on a machine a few times slower.
GUARD_MARGIN_MS = 250


class ExpertBot:
    """The ``expert`` level (see the module doc).

    ``Decision.evaluations`` holds each legal action's average value in game
    points; a forced move (one legal action) is returned at once, without them.
    """

    level = "expert"

    def __init__(
        self, default_budget_ms: int = DEFAULT_BUDGET_MS, *, wall_clock_guard: bool = True
    ) -> None:
        self.default_budget_ms = default_budget_ms
        # Off where a decision must not depend on how busy the machine is (tests
        # of determinism and seat-blindness); on in service, to bound latency.
        self.wall_clock_guard = wall_clock_guard

    def choose(self, view: SeatView, *, seed: int = 0, budget_ms: int | None = None) -> Decision:
        legal = view.legal_actions()
        if not legal:
            raise ValueError(f"seat {view.seat} is not to move")
        if len(legal) == 1:
            return Decision(legal[0])  # forced: nothing to weigh
        budget = self.default_budget_ms if budget_ms is None else budget_ms
        search = self.search(view, seed, budget)
        values = search.run([action_of(action) for action in legal])
        best = max(values.values())
        top = [code for code, value in values.items() if value >= best - 1e-9]
        preferred = classic_action(search.sampler.template)
        choice = preferred if preferred in top else top[0]
        evaluations = tuple((engine_action(code), values[code]) for code in values)
        return Decision(engine_action(choice), evaluations)

    def search(self, view: SeatView, seed: int, budget_ms: int) -> Search:
        """One decision's search (a stronger level searches its own way)."""
        return Search(view, seed, budget_ms, wall_clock_guard=self.wall_clock_guard)


class Search:
    """One decision's search: samples, values, and the work spent."""

    def __init__(
        self, view: SeatView, seed: int, budget_ms: int, *, wall_clock_guard: bool = True
    ) -> None:
        self.view = view
        self.seat = view.seat
        self.game_points = view.game_points
        self.rng = random.Random(seed)
        self.sampler = WorldSampler(view)
        self.work_limit = max(1, budget_ms) * WORK_PER_MS
        started = time.perf_counter()
        guard = (max(1, budget_ms) + GUARD_MARGIN_MS) / 1000
        self.deadline = started + guard if wall_clock_guard else float("inf")
        #: When ``spent`` last looked, and the longest time between two looks (a deal's).
        self.looked = started
        self.slowest = 0.0
        self.steps = 0
        self.values_computed = 0
        self.solvers: dict[tuple[int, tuple[int, int] | None], EndgameSolver] = {}

    @property
    def work(self) -> int:
        nodes = sum(solver.nodes + solver.answers for solver in self.solvers.values())
        return self.steps * STEP_WORK + nodes * NODE_WORK + self.values_computed * VALUE_WORK

    def spent(self) -> bool:
        """Whether to stop before the next sampled deal: the work is done, or the deal
        would end past the wall-clock guard's deadline (if it is as slow as the slowest)."""
        if self.work >= self.work_limit:
            return True
        now = time.perf_counter()
        self.slowest = max(self.slowest, now - self.looked)
        self.looked = now
        return now + self.slowest > self.deadline

    def run(self, actions: list[int]) -> dict[int, float]:
        """The average value of each action for the seat, over the sampled deals.

        The garbage collector is paused meanwhile: the search builds no
        cycles, and its full collections over a large table would cost
        tens of milliseconds at unpredictable moments.
        """
        collecting = gc.isenabled()
        gc.disable()
        try:
            return self._run(actions)
        finally:
            if collecting:
                gc.enable()

    def _run(self, actions: list[int]) -> dict[int, float]:
        sampler = self.sampler
        if sampler.exact:
            deal = sampler.sample(self.rng)
            return {a: float(v) for a, v in self.solver(deal).action_values(deal).items()}
        totals = dict.fromkeys(actions, 0.0)
        plain = dict.fromkeys(actions, 0.0)
        count = 0
        weights = 0.0
        if not sampler.template.talon_open and sampler.hand_count() <= ENUMERATE_HANDS:
            worlds = list(sampler.every_hand())
            self.rng.shuffle(worlds)
        else:
            worlds = None
        while True:
            if worlds is not None:
                if count == len(worlds):
                    break
                deal = worlds[count]
            else:
                deal = sampler.sample(self.rng)
            weight = self.weight(deal)
            self.values_computed += len(actions)
            for action, value in self.values(deal, actions).items():
                totals[action] += weight * value
                plain[action] += value
            count += 1
            weights += weight
            if self.spent():
                break
        if weights <= 0.0:  # no deal weighed anything: the plain average
            return {action: total / count for action, total in plain.items()}
        # A weighted mean of values within a deal's stakes stays there but for rounding.
        return {
            action: min(STAKES, max(-STAKES, total / weights)) for action, total in totals.items()
        }

    def weight(self, deal: FastDeal) -> float:
        """How much a sampled deal counts in the average: all alike here (a level that
        infers the opponent's hand from its play weighs them: ``inferring``)."""
        return 1.0

    def values(self, deal: FastDeal, actions: list[int]) -> Mapping[int, float]:
        """Each action's value for the seat in one sampled deal (the solver's whole game
        points as they are, a bot's finish in fractions)."""
        if not deal.talon_open:
            return self.solver(deal).action_values(deal)
        values: dict[int, float] = {}
        for action in actions:
            child = deal.copy()
            child.apply(action)
            values[action] = self.finish(child)
        return values

    def finish(self, deal: FastDeal) -> float:
        """Play on with the heuristic while the talon is open, then solve exactly."""
        mask = deal.legal_mask()
        while mask and not deal.strict:  # (mask is 0 once the deal is over)
            mask = deal.apply(classic_action(deal, mask))
            self.steps += 1
        if deal.result is not None:
            return self.outcome(deal)
        value = self.solver(deal).value(deal)
        return value if deal.to_move == self.seat else -value

    def solver(self, deal: FastDeal) -> EndgameSolver:
        """The solver of ``deal``'s family, its table shared by every deal of the family."""
        key = (deal.closed_by, deal.at_close)
        solver = self.solvers.get(key)
        if solver is None:
            solver = self.solvers[key] = EndgameSolver.for_deal(deal, self.game_points)
        return solver

    def outcome(self, deal: FastDeal) -> int:
        """A finished deal's value for the seat, counted as far as the game needs it."""
        result = deal.result
        assert result is not None  # a finished deal
        winner, points = result[0], result[1]
        if winner == self.seat:
            return min(points, self.game_points[winner])
        return -min(points, self.game_points[winner])
